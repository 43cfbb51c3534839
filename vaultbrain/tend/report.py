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


def render_report(day: dt.date, results: dict[str, dict[str, Any]], old: NoteFile | None) -> str:
    lines = ["---", "type: vaultbrain-tending", f"date: {day.isoformat()}", "---", ""]
    said = 0
    cons = results.get("consolidate")
    if cons and cons.get("status") == "ok":
        new, waiting = cons["proposed"], cons["waiting"]
        if new or waiting:
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
    drift = results.get("drift")
    if drift and drift.get("status") == "ok":
        if drift["overdue"]:
            said += 1
            lines.append("## Overdue")
            _list(
                lines, [f"{link(r['note'], r['title'])}, due {r['due']}" for r in drift["overdue"]]
            )
            lines.append("")
        if drift["stale"]:
            said += 1
            lines.append(f"## Quiet projects (nothing for {drift['stale_days']} days)")
            _list(
                lines,
                [
                    f"{link(r['note'], r['title'])}" + (f", last {r['last']}" if r["last"] else "")
                    for r in drift["stale"]
                ],
            )
            lines.append("")
        if drift["follow_ups"]:
            said += 1
            lines.append("## Follow-ups due")
            _list(
                lines, [f"{link(r['note'], r['title'])}: {r['text']}" for r in drift["follow_ups"]]
            )
            lines.append("")
    takes = results.get("takes")
    if takes and takes.get("status") == "ok" and takes.get("due_count"):
        said += 1
        lines.append("## Takes to grade")
        _list(
            lines,
            [
                f"{t.get('holder') or '?'}: “{t['text']}” ({t['date']})"
                + (f" in {link(t['source'])}" if t.get("source") else "")
                for t in takes["due"]
            ],
            takes["due_count"],
        )
        lines.append("")
    back = results.get("backlinks")
    if back and back.get("status") == "ok" and back.get("missing"):
        said += 1
        lines.append("## Backlinks to add")
        _list(
            lines,
            [f"{link(m['note'])} `{m['field']}`: {link(m['link'])}" for m in back["missing"]],
            back.get("missing_count"),
        )
        lines.append("")
    enrich = results.get("enrich")
    if enrich and enrich.get("status") == "ok" and enrich.get("notes"):
        said += 1
        lines.append("## Filled in")
        _list(lines, [link(n) for n in enrich["notes"]])
        lines.append("")
    orphans = results.get("orphans")
    if orphans and orphans.get("status") == "ok" and orphans.get("count"):
        said += 1
        lines.append("## Notes nothing links to")
        _list(lines, [link(o["note"], o["title"]) for o in orphans["orphans"]], orphans["count"])
        lines.append("")
    schema = results.get("schema")
    if schema and schema.get("status") == "ok" and schema.get("candidates"):
        said += 1
        lines.append("## New kinds of notes")
        _list(
            lines,
            [
                f"`{c['folder']}/` ({c['notes']} notes) could be a type “{c['name']}”: "
                "`vaultbrain schema review-candidates`"
                for c in schema["candidates"]
            ],
        )
        lines.append("")
    failed = [name for name, r in results.items() if r.get("status") == "failed"]
    if failed:
        lines.append("## Not done")
        _list(lines, [f"{name}: {results[name].get('error')}" for name in failed])
        lines.append("")
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
