"""Digest and review notes as Markdown: Properties Dataview can query, then the sections.

Every record a note mentions is a wikilink to its note (``[[People/Sarah|Sarah]]``), and the
same links are listed in the ``mentions`` property so ``WHERE contains(mentions, [[Sarah]])``
finds every digest that names Sarah. Long sections are capped; the count in the heading and
in the frontmatter stays the full one.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from typing import Any

from vaultbrain.capture.model import STOOD, CaptureStatus
from vaultbrain.vault.note import render_note

from .facts import Action, DailyFacts, Item, WeeklyFacts
from .insights import DigestInsights, Insights, ReviewInsights
from .store_view import Ref

DIGEST_FOLDER = "Brain/Digests"
REVIEW_FOLDER = "Brain/Reviews"
NEEDS_REVIEW_LINK = "[[Brain/Needs Review|Needs Review]]"
MAX_ITEMS = 50
# A person may keep their own notes in a digest under this heading; a re-run carries them over.
NOTES_HEADING = "## Notes"


def digest_path(day: dt.date) -> str:
    return f"{DIGEST_FOLDER}/{day.isoformat()}.md"


def review_path(week: str) -> str:
    return f"{REVIEW_FOLDER}/{week}.md"


class _Body:
    """Collects lines and the records they mention."""

    def __init__(self, exists: Callable[[str], bool] | None = None) -> None:
        self.lines: list[str] = []
        self.mentions: list[Ref] = []
        # Whether a link target typed in a record's text is a note; None: not checked.
        self.exists = exists

    def add(self, line: str = "") -> None:
        self.lines.append(line)

    def link(self, ref: Ref) -> str:
        if ref.target and all(m.target != ref.target for m in self.mentions):
            self.mentions.append(ref)
        return ref.link

    def section(
        self, title: str, entries: list[Any], fmt: Any, empty: str, after: str = ""
    ) -> None:
        self.add(f"## {title} ({len(entries)})" if entries else f"## {title}")
        self.add()
        if not entries:
            self.add(f"_{empty}_")
        for entry in entries[:MAX_ITEMS]:
            self.add(f"- {fmt(entry)}")
        if len(entries) > MAX_ITEMS:
            self.add(f"- … and {len(entries) - MAX_ITEMS} more")
        if after:
            self.add()
            self.add(after)
        self.add()

    def item(self, item: Item) -> str:
        return self.link(item.ref) + (f" — {_inline_links(self, item.note)}" if item.note else "")

    def action(self, action: Action) -> str:
        note = f" ({action.note})" if action.note else ""
        return f"{action.verb}: {self.link(action.ref)}{note}"

    def text(self) -> str:
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        return "\n".join(self.lines) + "\n"


_LINK = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]*))?\]\]")


def _inline_links(body: _Body, text: str) -> str:
    """Notes may already hold links (a scheduled follow-up): count them as mentions too."""
    for m in _LINK.finditer(text):
        target = m.group(1).split("#", 1)[0].strip()
        if not target or (body.exists is not None and not body.exists(target)):
            continue  # text the person typed may link nowhere: not a mention
        ref = Ref("", m.group(2) or target, target + ".md")
        body.link(ref)
    return text


def _summary_block(body: _Body, insights: Insights, what: str) -> None:
    body.add("## Summary")
    body.add()
    if insights.data is None:
        body.add(
            f"> [!warning] Summary unavailable\n> {_quote(insights.reason or 'no LLM')}\n"
            f"> The lists below come from your notes and are complete; run "
            f"`vaultbrain {what} run` again once the LLM server is up to add the summary."
        )
        body.add()
        return
    body.add(insights.data.summary)
    body.add()


def _quote(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def count_properties(counts: dict[str, int], always: Iterable[str] = ()) -> dict[str, int]:
    """Counts as properties named ``…_count``: Obsidian gives a property name one type in
    the whole vault, and ``people`` or ``projects`` are lists of links in record notes. A
    count of nothing is left out (the note reads as hand-written), but for the ``always``
    ones a query sorts by."""
    keep = set(always)
    return {f"{name}_count": n for name, n in counts.items() if n or name in keep}


def _frontmatter_links(mentions: Iterable[Ref]) -> list[str]:
    return [m.link for m in mentions if m.target]


def _carry(old_text: str | None) -> str:
    """The person's own ``## Notes`` section from the previous version of the note."""
    if not old_text:
        return ""
    lines = old_text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.rstrip("\r\n").strip() == NOTES_HEADING:
            return "".join(lines[i:])
    return ""


def _finish(data: dict[str, Any], body: _Body, old_text: str | None) -> str:
    text = body.text()
    kept = _carry(old_text)
    if kept:
        text = text + "\n" + (kept if kept.endswith("\n") else kept + "\n")
    tags = data.pop("tags", [])
    mentions = _frontmatter_links(body.mentions)
    if mentions:  # (no empty property: a note without links has none)
        data["mentions"] = mentions
    data["tags"] = tags
    return render_note(data, text)


def _thoughts(n: int) -> str:
    return "1 thought waits" if n == 1 else f"{n} thoughts wait"


def _waiting(body: _Body, needs_review: int, pending: int) -> None:
    if needs_review:
        body.add(f"{_thoughts(needs_review)} for you in {NEEDS_REVIEW_LINK}.")
    else:
        body.add("Nothing waits for review.")
    if pending:
        body.add(f"{_thoughts(pending)} for the classifier (the daemon retries them).")
    body.add()


def render_digest(
    facts: DailyFacts,
    insights: Insights,
    old_text: str | None = None,
    exists: Callable[[str], bool] | None = None,
) -> str:
    """The daily digest note for ``facts``; ``exists`` says which typed links are notes."""
    body = _Body(exists)
    day = facts.day
    body.add(f"# Daily digest: {day.strftime('%A')} {day.isoformat()}")
    body.add()
    _summary_block(body, insights, "digest")
    data = insights.data
    if isinstance(data, DigestInsights):
        if data.top_actions:
            body.add("### Top actions")
            body.add()
            for i, action in enumerate(data.top_actions, 1):
                body.add(f"{i}. {action}")
            body.add()
        if data.stuck:
            body.add("### Stuck")
            body.add()
            body.add(data.stuck)
            body.add()
        if data.small_win:
            body.add("### Small win")
            body.add()
            body.add(data.small_win)
            body.add()

    def capture(c: Any) -> str:
        when = f"{c.time} " if c.time else ""
        dest = " · ".join(body.link(r) for r in c.destinations)
        stood = CaptureStatus.of(c.status) in STOOD
        status = "" if stood else f" _({c.status.replace('_', ' ')})_"
        return f"{when}{c.text}" + (f" → {dest}" if dest else "") + status

    body.section("Captured today", facts.captures, capture, "Nothing captured today.")
    body.section("Actions taken", facts.actions, body.action, "No actions taken.")
    body.section(
        "Projects with recent activity",
        facts.projects,
        body.item,
        "No project activity in the last few days.",
    )
    body.section("People interacted with", facts.people, body.item, "Nobody today.")
    body.section("Admin overdue", facts.admin_overdue, body.item, "Nothing overdue.")
    body.section("Admin due within 7 days", facts.admin_due, body.item, "Nothing due this week.")
    body.section(
        "Ideas ready for next steps",
        facts.ideas_ready,
        body.item,
        "No explored or validated ideas waiting.",
    )
    body.add("## Needs review")
    body.add()
    _waiting(body, facts.needs_review, facts.pending)

    # Only what a person queries: the kind, the day, the counts of something. When it was
    # made, by which model, whether the LLM answered: the run's history in the state dir
    # (`vaultbrain digest show --json`), so a run that finds nothing new rewrites nothing.
    fm: dict[str, Any] = {"type": "digest", "date": day.isoformat()}
    fm.update(count_properties(facts.counts(), always=("captures",)))
    fm["tags"] = ["vaultbrain/digest"]
    return _finish(fm, body, old_text)


def render_review(
    facts: WeeklyFacts,
    insights: Insights,
    old_text: str | None = None,
    exists: Callable[[str], bool] | None = None,
) -> str:
    """The weekly review note for ``facts``; ``exists`` says which typed links are notes."""
    body = _Body(exists)
    body.add(f"# Weekly review: {facts.week}")
    body.add()
    body.add(f"{facts.start.isoformat()} to {facts.day.isoformat()}")
    body.add()
    _summary_block(body, insights, "weekly")
    data = insights.data
    if isinstance(data, ReviewInsights):
        for title, entries in (("Wins", data.wins), ("Focus next week", data.focus)):
            if entries:
                body.add(f"### {title}")
                body.add()
                for i, entry in enumerate(entries, 1):
                    body.add(f"{i}. {entry}")
                body.add()
        if data.let_go:
            body.add("### Let go")
            body.add()
            body.add(data.let_go)
            body.add()

    total = sum(len(o.items) for o in facts.open_loops)
    body.add(f"## Open loops ({total})" if total else "## Open loops")
    body.add()
    if not facts.open_loops:
        body.add("_No open loops._")
        body.add()
    for loops in facts.open_loops:
        body.add(f"### {loops.label} ({len(loops.items)})")
        body.add()
        for item in loops.items[:MAX_ITEMS]:
            body.add(f"- {body.item(item)}")
        if len(loops.items) > MAX_ITEMS:
            body.add(f"- … and {len(loops.items) - MAX_ITEMS} more")
        body.add()

    created = ", ".join(f"{label} {n}" for label, n in facts.created.items())
    tally = f"{facts.captures} thought{'s' if facts.captures != 1 else ''} captured this week" + (
        f"; new notes: {created}." if created else "."
    )
    body.section(
        "Accomplishments",
        facts.accomplishments,
        body.action,
        "Nothing marked done this week.",
        after=tally,
    )
    body.section(
        "Projects to review",
        facts.projects_to_review,
        body.item,
        "Every project has a next action and recent activity.",
    )
    body.section(
        "People to follow up", facts.people_to_follow_up, body.item, "No follow-ups pending."
    )
    body.section("Ideas to explore", facts.ideas_to_explore, body.item, "No raw ideas waiting.")
    body.section("Admin to address", facts.admin_to_address, body.item, "No open admin items.")
    body.add("## Needs review")
    body.add()
    _waiting(body, facts.needs_review, facts.pending)

    fm: dict[str, Any] = {
        "type": "weekly-review",
        "week": facts.week,
        "date": facts.day.isoformat(),
    }
    fm.update(count_properties(facts.counts(), always=("captures", "open_loops")))
    fm["tags"] = ["vaultbrain/weekly-review"]
    return _finish(fm, body, old_text)
