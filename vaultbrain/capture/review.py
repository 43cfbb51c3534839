"""``Brain/Needs Review.md``: the queue the person resolves in Obsidian.

Three sections: thoughts that need a decision, suggestions to confirm, and sync conflicts;
a fourth, "Can't read", lists the notes vaultbrain cannot read (vaultbrain/filing/unreadable.py)
until they are fixed.
Gestures, documented in the note's own header:

- tick the box (``- [x]``): accept the suggestion (for a conflict: "I fixed the note");
- write a type after an arrow at the end of the line (``→ project``, ``-> person, admin``):
  file it as that type instead;
- strike the item (``~~…~~``) or delete the line: dismiss it, not a thought.

The note is regenerated (compare-and-swap) whenever the queue changes, but only when it has
been quiet for the settle time, and always after reading the decisions already written in
it. A line the daemon cannot understand stays, with a short note why. A decision on a
thought ends in vaultbrain/capture/resolution.py, as the CLI's does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import ConflictError, UserError
from vaultbrain.filing.inbox import REVIEW_NOTE
from vaultbrain.filing.records import link_to
from vaultbrain.vault.note import parse_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.review")
STATE = "review-state.json"
_ITEM = re.compile(
    r"^(?P<indent>\s*)- \[(?P<box>.)\] (?P<body>.*?)\s*\^(?P<kind>vbr|vbc)-(?P<id>[A-Za-z0-9-]+)\s*$"
)
_ARROW = re.compile(r"(?:→|->)\s*(?P<types>[A-Za-z][\w-]*(?:\s*[, ]\s*[A-Za-z][\w-]*)*)\s*$")
_NOTE_MARK = " ⚠ "

HEADER = """\
# Needs Review

> [!info] How to resolve an item
> - **Accept** what vaultbrain suggests: tick the box.
> - **Choose another type**: write it after an arrow at the end of the line, e.g. `→ project`
>   (several: `→ person, admin`).
> - **Dismiss** (not a thought): strike it through (`~~like this~~`) or delete the line.
> - **Conflicts**: fix the note by hand, then tick the box; the note's version is kept.
>
> vaultbrain applies each decision within seconds and the item leaves this list.
> You can do the same from a terminal: `vaultbrain review list`, `review resolve ID TYPE`,
> `review confirm ID`.
"""


@dataclass
class Decision:
    kind: str  # "capture" | "conflict"
    id: str
    action: str  # "accept" | "types" | "dismiss" | "unclear"
    types: list[str]
    line: int
    why: str = ""


def queue(brain: Brain) -> dict[str, list[dict[str, Any]]]:
    """The three sections, newest first."""
    decide: list[dict[str, Any]] = []
    suggest: list[dict[str, Any]] = []
    for s in brain.store.inbox.summaries():
        status = s.get("status")
        if status not in ("needs_review", "suggested"):
            continue
        rec = brain.store.inbox.get(s["id"])
        if rec is None:
            continue
        (decide if status == "needs_review" else suggest).append(rec)
    conflicts = [c for c in brain.store.collection("conflicts").all() if not c.get("resolved")]
    for items in (decide, suggest, conflicts):
        items.sort(key=lambda r: str(r.get("created") or r.get("at") or ""), reverse=True)
    from vaultbrain.filing.unreadable import listed

    return {
        "decide": decide,
        "suggest": suggest,
        "conflicts": conflicts,
        "unreadable": listed(brain),
    }


def _describe(rec: dict[str, Any]) -> str:
    cls = rec.get("classification") or {}
    conf = cls.get("confidence")
    by = cls.get("classified_by") or "?"
    reasoning = (cls.get("reasoning") or "").replace("\n", " ").strip()
    parts = []
    if rec.get("destinations"):
        parts.append(
            "filed to "
            + ", ".join(
                f"{d['type']} {link_to(d['path'], d['title'])}" for d in rec["destinations"]
            )
        )
    else:
        sugg = [d for d in cls.get("destinations", []) if d.get("type") != "unknown"]
        if sugg:
            parts.append("suggests " + ", ".join(f"{d['type']} “{d['title']}”" for d in sugg))
        else:
            parts.append("no suggestion")
    if conf is not None:
        parts.append(f"{conf:.2f} by {by}")
    if reasoning:
        parts.append(f"“{_clip(reasoning, 200)}”")
    err = rec.get("review_reason") or rec.get("last_error") or cls.get("error")
    if err and not rec.get("destinations"):
        parts.append(f"({_clip(str(err).replace(chr(10), ' '), 240)})")
    return " · ".join(parts)


def _clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word and marked, never mid-word."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _defuse(text: str) -> str:
    """Our gestures must never appear by accident in what we render (thoughts, reasoning)."""
    return text.replace("\n", " ").replace("~~", "～～").replace("→", "⇢").replace("->", "-›")


def _thought(text: str) -> str:
    text = _defuse(text).strip()
    return text if len(text) <= 300 else text[:299] + "…"


def render(brain: Brain, items: dict[str, list[dict[str, Any]]], notes: dict[str, str]) -> str:
    now = brain.now().isoformat()
    fm = (
        "---\ntype: vaultbrain-review\n"
        f"updated: {now}\nneeds_decision_count: {len(items['decide'])}\n"
        f"suggestions_count: {len(items['suggest'])}\nconflicts_count: {len(items['conflicts'])}\n"
        "tags:\n  - vaultbrain\n---\n"
    )
    out = [fm, HEADER]

    def line(kind: str, rid: str, body: str) -> str:
        extra = f"{_NOTE_MARK}{notes[rid]}" if rid in notes else ""
        return f"- [ ] {body}{extra} ^{kind}-{rid}\n"

    for heading, key in (
        ("Thoughts that need a decision", "decide"),
        ("Suggestions to confirm", "suggest"),
    ):
        out.append(f"\n## {heading}\n")
        if not items[key]:
            out.append("_Nothing waiting._\n")
        for rec in items[key]:
            body = f"**{_thought(rec['text'])}** — {_defuse(_describe(rec))}"
            out.append(line("vbr", rec["id"], body))
    out.append("\n## Sync conflicts\n")
    if not items["conflicts"]:
        out.append("_None._\n")
    for c in items["conflicts"]:
        target = link_to(c["path"], c.get("title") or c["path"])
        detail = _defuse(str(c.get("detail") or c["kind"]))
        out.append(line("vbc", c["id"], f"{target}: {detail} (since {str(c.get('at'))[:16]})"))
    if items.get("unreadable"):
        # Nothing to tick: fixing the note is the gesture, and the line leaves by itself.
        out.append("\n## Can't read\n")
        for u in items["unreadable"]:
            target = link_to(u["path"], u["path"])
            out.append(f"- {target}: {_defuse(str(u.get('problem')))}\n")
    return "".join(out)


def parse_decisions(text: str, rendered_ids: set[str]) -> list[Decision]:
    """What the person did to the note since we wrote it: one Decision per touched item."""
    found: dict[str, Decision] = {}
    present: set[str] = set()
    for n, raw in enumerate(text.splitlines()):
        m = _ITEM.match(raw)
        if not m:
            continue
        kind = "capture" if m.group("kind") == "vbr" else "conflict"
        rid = m.group("id")
        key = f"{m.group('kind')}-{rid}"
        present.add(key)
        body = m.group("body")
        mark = body.find(_NOTE_MARK)
        if mark >= 0:
            body = body[:mark]
        if re.search(r"~~.+?~~", body):
            found[key] = Decision(kind, rid, "dismiss", [], n)
            continue
        arrow = _ARROW.search(body)
        if arrow and kind == "capture":
            types = [t for t in re.split(r"[,\s]+", arrow.group("types")) if t]
            found[key] = Decision(kind, rid, "types", types, n)
            continue
        if m.group("box") not in (" ",):
            found[key] = Decision(kind, rid, "accept", [], n)
    for key in rendered_ids - present:
        kind, rid = key.split("-", 1)
        found[key] = Decision("capture" if kind == "vbr" else "conflict", rid, "dismiss", [], -1)
    return list(found.values())


class ReviewQueue:
    def __init__(self, brain: Brain) -> None:
        self.app = brain
        self.note_rel = REVIEW_NOTE
        self._signature: str | None = None
        self._versions: Any = None
        self._nothing_at: Any = None  # the versions at which the queue had nothing to show

    def _state(self) -> dict[str, Any]:
        return self.app.store.read_json(STATE, {}) or {}

    def _signature_of(self, items: dict[str, list[dict[str, Any]]], notes: dict[str, str]) -> str:
        parts = [
            (k, r["id"], r.get("status"), r.get("updated") or r.get("at"), r.get("problem"))
            for k, v in items.items()
            for r in v
        ]
        raw = json.dumps([parts, sorted(notes.items())], default=str)
        return hashlib.sha256(raw.encode()).hexdigest()

    def refresh(self, force: bool = False) -> bool:
        """Regenerate the note if the queue changed (and the note is quiet). True if written."""
        versions = (
            self.app.store.inbox.version(),
            self.app.store.collection("conflicts").version(),
            self.app.store.collection("unreadable").version(),
        )
        if (
            not force
            and versions == self._versions
            and (self._nothing_at == versions or self.app.vault.try_read(self.note_rel) is not None)
        ):
            return False  # (nothing to show at these versions: no note, no look at the queue)
        if not force and not self._quiet():
            return False
        self.apply_decisions()
        state = self._state()
        notes = dict(state.get("notes", {}))
        items = queue(self.app)
        live = {r["id"] for v in items.values() for r in v}
        notes = {k: v for k, v in notes.items() if k in live}
        signature = self._signature_of(items, notes)
        current = self.app.vault.try_read(self.note_rel)
        if (
            not force
            and current is not None
            and signature == state.get("signature")
            and current.hash == state.get("hash")
        ):
            self._versions = versions
            return False
        if current is None and not any(items.values()):
            self._versions = self._nothing_at = versions
            return False  # Brain/ notes appear the first time they have something to show
        text = render(self.app, items, notes)
        try:
            if current is None:
                digest = self.app.vault.create(self.note_rel, text)
            else:
                digest = self.app.vault.replace(self.note_rel, text, current.hash)
        except (ConflictError, FileExistsError):
            return False  # the person is editing it: next time
        rendered = [f"vbr-{r['id']}" for r in items["decide"] + items["suggest"]]
        rendered += [f"vbc-{c['id']}" for c in items["conflicts"]]
        self.app.store.write_json(
            STATE, {"signature": signature, "hash": digest, "rendered": rendered, "notes": notes}
        )
        self._versions = (
            self.app.store.inbox.version(),
            self.app.store.collection("conflicts").version(),
            self.app.store.collection("unreadable").version(),
        )
        return True

    def _quiet(self) -> bool:
        try:
            mtime = self.app.vault.resolve(self.note_rel).stat().st_mtime
        except OSError:
            return True
        return time.time() - mtime >= float(self.app.settings.get("inbox_settle_seconds"))

    def apply_decisions(self) -> list[Decision]:
        """Read the person's gestures in the note and carry them out."""
        note = self.app.vault.try_read(self.note_rel)
        state = self._state()
        if note is None or note.hash == state.get("hash"):
            return []
        if parse_note(note.text).data.get("type") not in (None, "vaultbrain-review"):
            return []
        decisions = parse_decisions(note.text, set(state.get("rendered", [])))
        notes = dict(state.get("notes", {}))
        for d in decisions:
            try:
                self._apply(d)
                notes.pop(d.id, None)
            except UserError as exc:
                notes[d.id] = str(exc).split(";")[0][:160]
                log.warning("Needs Review line %s: %s", d.line + 1, exc)
        state["notes"] = notes
        state["hash"] = None  # regenerate, so applied items leave and notes show
        self.app.store.write_json(STATE, state)
        self._versions = None
        return decisions

    def _apply(self, d: Decision) -> None:
        from vaultbrain.capture import resolution

        if d.kind == "conflict":
            resolve_conflict(self.app, d.id)
            return
        cap = self.app.store.inbox.get(d.id)
        if cap is None or cap.get("status") not in ("needs_review", "suggested"):
            return  # already decided elsewhere (the CLI, another device)
        if d.action == "dismiss":
            resolution.dismiss(self.app, d.id)
        elif d.action == "accept":
            resolution.confirm(self.app, d.id)
        elif d.action == "types":
            # Any kind of item: a suggestion is re-filed as the types written, keeping the
            # notes of types still wanted and adding those the classifier missed.
            for t in d.types:
                if self.app.pack.get_type(t) is None:
                    names = ", ".join(x.name for x in self.app.pack.fileable_types())
                    raise UserError(f"“{t}” is not a type ({names})")
            resolution.resolve(self.app, d.id, ",".join(d.types))


def resolve_conflict(brain: Brain, conflict_id: str) -> None:
    """The person fixed the note: the note's version wins and the conflict is closed."""
    col = brain.store.collection("conflicts")
    c = col.get(conflict_id)
    if c is None or c.get("resolved"):
        return
    rec_col = brain.store.collection(c["collection"])
    rec = rec_col.get(c["record_id"], include_deleted=True)
    if rec is not None:
        rec.pop("store_dirty", None)
        rec_col.put(rec)
        if not rec.get("deleted"):
            brain.notes().force_import(c["collection"], c["record_id"])
    c["resolved"] = True
    c["resolved_at"] = brain.now().isoformat()
    col.put(c)
    brain.store.audit(
        {
            "at": c["resolved_at"],
            "kind": "resolution",
            "decision": "conflict-resolved",
            "conflict": conflict_id,
            "record": c["record_id"],
            "path": c["path"],
        }
    )
