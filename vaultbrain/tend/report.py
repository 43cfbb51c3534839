"""The morning report ``Brain/Tending/YYYY-MM-DD.md``: what each phase of the night's cycle
found and did, every note linked, short enough to read with coffee. Minimal properties (a
type and the day); no stamp of the run, so a second cycle that finds the same leaves the note
as it is. A person's own ``## Notes`` section in it is carried over."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.vault.files import NoteFile

FOLDER = "Brain/Tending"
NOTES_HEADING = "## Notes"
SHOWN = 15  # items listed per section; the count says the rest


def report_path(day: dt.date) -> str:
    return f"{FOLDER}/{day.isoformat()}.md"


def link(rel: str, title: str | None = None) -> str:
    target = rel[:-3] if rel.lower().endswith(".md") else rel
    shown = title or target.rsplit("/", 1)[-1]
    shown = shown.replace("|", "-").replace("]", ")").replace("[", "(")
    return f"[[{target}|{shown}]]" if shown != target else f"[[{target}]]"


def _list(lines: list[str], rows: list[str], total: int | None = None) -> None:
    for row in rows[:SHOWN]:
        lines.append(f"- {row}")
    more = (total if total is not None else len(rows)) - min(len(rows), SHOWN)
    if more > 0:
        lines.append(f"- … and {more} more")


def _section(lines: list[str], heading: str, rows: list[str], total: int | None = None) -> int:
    """One section of the report: its heading, its items (:func:`_list`), a blank line.
    Returns 1 (a section said something) or 0 (no items: nothing written)."""
    if not rows:
        return 0
    lines.append(heading)
    _list(lines, rows, total)
    lines.append("")
    return 1


def _ok(results: dict[str, dict[str, Any]], phase: str) -> dict[str, Any]:
    """A phase's result when it ran and succeeded, else nothing."""
    r = results.get(phase)
    return r if r and r.get("status") == "ok" else {}


def render_report(day: dt.date, results: dict[str, dict[str, Any]], old: NoteFile | None) -> str:
    lines = ["---", "type: vaultbrain-tending", f"date: {day.isoformat()}", "---", ""]
    said = 0
    cons = _ok(results, "consolidate")
    if cons.get("proposed") or cons.get("waiting"):
        new, waiting = cons["proposed"], cons["waiting"]
        said += 1
        lines.append("## Possible duplicates")
        lines.append(
            f"{len(new) + len(waiting)} waiting: tick or strike each in "
            "[[Brain/Needs Review|Needs Review]]."
        )
        _list(
            lines,
            [
                f"{link(p['other'])} into {link(p['keep'])}: {p['why']}"
                for p in sorted(new + waiting, key=lambda p: (p["keep"], p["other"]))
            ],
        )
        lines.append("")
    drift = _ok(results, "drift")
    if drift:
        said += _section(
            lines,
            "## Overdue",
            [f"{link(r['note'], r['title'])}, due {r['due']}" for r in drift["overdue"]],
        )
        said += _section(
            lines,
            f"## Quiet projects (nothing for {drift['stale_days']} days)",
            [
                f"{link(r['note'], r['title'])}" + (f", last {r['last']}" if r["last"] else "")
                for r in drift["stale"]
            ],
        )
        said += _section(
            lines,
            "## Follow-ups due",
            [f"{link(r['note'], r['title'])}: {r['text']}" for r in drift["follow_ups"]],
        )
    takes = _ok(results, "takes")
    if takes.get("due_count"):
        said += _section(
            lines,
            "## Takes to grade",
            [
                f"{t.get('holder') or '?'}: “{t['text']}” ({t['date']})"
                + (f" in {link(t['source'])}" if t.get("source") else "")
                for t in takes["due"]
            ],
            takes["due_count"],
        )
    back = _ok(results, "backlinks")
    said += _section(
        lines,
        "## Backlinks written",
        [f"{link(m['note'])} `{m['field']}`: {link(m['link'])}" for m in back.get("written") or []],
        back.get("written_count"),
    )
    said += _section(
        lines,
        "## Backlinks proposed (in Needs Review)",
        [
            f"{link(m['note'])} `{m['field']}`: {link(m['link'])}"
            for m in back.get("proposed") or []
        ],
        back.get("proposed_count"),
    )
    enrich = _ok(results, "enrich")
    said += _section(lines, "## Filled in", [link(n) for n in enrich.get("notes") or []])
    orphans = _ok(results, "orphans")
    if orphans.get("count"):
        said += _section(
            lines,
            "## Notes nothing links to",
            [link(o["note"], o["title"]) for o in orphans["orphans"]],
            orphans["count"],
        )
    schema = _ok(results, "schema")
    said += _section(
        lines,
        "## New kinds of notes",
        [
            f"`{c['folder']}/` ({c['notes']} notes) could be a type “{c['name']}”: "
            "`vaultbrain schema review-candidates`"
            for c in schema.get("candidates") or []
        ],
    )
    failed = [name for name, r in results.items() if r.get("status") == "failed"]
    _section(lines, "## Not done", [f"{name}: {results[name].get('error')}" for name in failed])
    if not said and not failed:
        lines.append("Nothing needed tending.")
        lines.append("")
    text = "\n".join(lines).rstrip("\n") + "\n"
    if old is not None and NOTES_HEADING in old.text:
        mine = old.text[old.text.index(NOTES_HEADING) :]
        text += "\n" + mine.rstrip("\n") + "\n"
    return text


def for_digest(brain: Brain, day: dt.date) -> str:
    """The daily digest's lines about the day's tending: a link to the morning report and
    the follow-ups due (empty when no cycle wrote a report that day)."""
    last = None
    for entry in brain.store.read_jsonl("tend.jsonl"):
        if entry.get("date") == day.isoformat() and entry.get("path"):
            last = entry
    if last is None or not brain.vault.exists(last["path"]):
        return ""
    lines = ["## Tending", "", f"Last night's {link(last['path'], 'morning report')}."]
    drift = (last.get("phases") or {}).get("drift") or {}
    due = drift.get("follow_ups") or []
    if due:
        lines += ["", "Follow-ups due:"]
        _list(lines, [f"{link(r['note'], r['title'])}: {r['text']}" for r in due])
    return "\n".join(lines) + "\n\n"
