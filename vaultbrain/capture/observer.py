"""Review on a machine that does not file: the vault is the truth.

Another machine's store is not here, but its ``Brain/Needs Review.md`` and the inbox lines
are (synced with the notes): an observer's ``review list`` shows what they show, and its
``review confirm|resolve|dismiss`` write the person's gesture into the vault (a tick, an
arrow, a ``[-]``), compare-and-swap, for the filer to carry out when the note reaches it,
exactly as if the person had made it in Obsidian.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.lines import review_link
from vaultbrain.capture.review import parse_items
from vaultbrain.errors import UserError
from vaultbrain.filing.inbox import REVIEW_NOTE, split_taken
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inbox import scan_inbox, split_lines

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

_SECTION = LazyPattern(r"^## (?P<name>.+?)\s*$")
_NEEDS = {
    "Thoughts that need a decision": "decide",
    "Suggestions to confirm": "confirm",
    "Sync conflicts": "conflict",
}
_THOUGHT = LazyPattern(r"\*\*(?P<text>.+?)\*\*\s*(?:—\s*(?P<rest>.*))?$")


@dataclass(frozen=True)
class Shown:
    """One item as the vault shows it."""

    id: str
    needs: str  # "decide" | "confirm" | "conflict"
    text: str
    detail: str
    where: str  # the note it is in

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def shown_items(brain: Brain) -> list[Shown]:
    """What Needs Review and the inbox lines show as waiting for the person."""
    out: list[Shown] = []
    seen: set[str] = set()
    note = brain.vault.try_read(REVIEW_NOTE)
    if note is not None:
        section = ""
        items = {i.number: i for i in parse_items(note.text)}
        for n, raw in enumerate(note.text.splitlines()):
            m = _SECTION.match(raw)
            if m:
                section = _NEEDS.get(m.group("name"), "")
                continue
            item = items.get(n)
            if item is None or item.kind == "vbs" or not section or item.box.strip():
                continue
            t = _THOUGHT.search(item.body)
            text = t.group("text") if t else item.body.strip()
            detail = (t.group("rest") or "") if t else ""
            out.append(Shown(item.id, section, text, detail, REVIEW_NOTE))
            seen.add(item.id)
    inbox = brain.vault.try_read(brain.inbox_rel)
    if inbox is not None:
        for line in scan_inbox(inbox.text):
            if not line.block_id or line.block_id in seen or line.checked:
                continue
            words, suffix, _ = split_taken(line.text)
            if suffix is None:
                continue
            short = review_link(suffix) or ""
            if "(suggested" in suffix or "suggestion" in short:
                out.append(Shown(line.block_id, "confirm", words, suffix, brain.inbox_rel))
            elif suffix.startswith("→ needs review") or short.startswith("needs review"):
                out.append(Shown(line.block_id, "decide", words, "", brain.inbox_rel))
    return out


def write_gesture(brain: Brain, item_id: str, gesture: str, types: str = "") -> str:
    """Write ``gesture`` ("confirm" | "resolve" | "dismiss") for ``item_id`` into the note
    that shows it; returns that note. The filer carries it out."""
    for rel, pattern in (
        (REVIEW_NOTE, re.compile(r"\^(?:vbr|vbc)-" + re.escape(item_id) + r"(?=\s|$)")),
        (brain.inbox_rel, re.compile(r"\^vb-" + re.escape(item_id) + r"(?=\s|$)")),
    ):
        done: list[bool] = []

        def build(
            note: Any, pattern: re.Pattern[str] = pattern, done: list[bool] = done
        ) -> str | None:
            if note is None:
                return None
            lines = split_lines(note.text)  # (a U+2028 in a thought is no line break)
            for i, line in enumerate(lines):
                body = line.rstrip("\r\n")
                if not pattern.search(body):
                    continue
                new = _with_gesture(body, gesture, types)
                if new is None:
                    return None
                done.append(True)
                lines[i] = new + line[len(body) :]
                return "".join(lines)
            return None

        brain.vault.edit(rel, build)
        if done:
            return rel
    raise UserError(
        f"no item {item_id!r} in {REVIEW_NOTE} or {brain.inbox_rel} on this machine; "
        "`vaultbrain review list` shows what they hold"
    )


_BOX = LazyPattern(r"^(\s*[-*+] )\[(.)\]")


def _with_gesture(line: str, gesture: str, types: str) -> str | None:
    m = _BOX.match(line)
    if m is None:
        return None
    if gesture == "confirm":
        return f"{m.group(1)}[x]{line[m.end() :]}"
    if gesture == "dismiss":
        return f"{m.group(1)}[-]{line[m.end() :]}"
    return f"{line.rstrip()} → {types}"
