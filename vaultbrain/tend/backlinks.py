"""Backlinks: the inverse of each typed link the pack declares, where the note a link reaches
lacks it.

A meeting whose ``attendees`` name ``[[People/Sarah]]`` makes an ``attendee`` link; the pack
says its inverse is ``attended``, so Sarah's note should carry ``attended:
["[[Meetings/Kickoff]]"]``. The typed links read here are the pack's ``frontmatter_links``
(a property of a page type) and its ``link_types`` inferred from a note's text (a regex, or
every link of a page type that reaches a note of the target type), as the graph index reads
them; a link the note already carries anywhere (a property or its text) is no missing
backlink.

Into a note vaultbrain made (a record it filed from a capture, or one the person adopted)
the inverse is written at once: one list property per inverse, links in the form the filing
code writes, deduplicated, through :meth:`Vault.edit` (compare-and-swap) and only while the
note is what the cycle read (a note changed under it waits for the next cycle). Into a note
of the person's it is proposed: a proposal in the ``merges`` collection (``kind:
backlink``), listed in Needs Review, where a tick writes it (:func:`accept`) and a strike
rejects it for good (vaultbrain/capture/merge.py keeps the decisions).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.merge import ACCEPTED, COLLECTION, GONE, OPEN, REJECTED
from vaultbrain.errors import UserError
from vaultbrain.graph.extract import WIKILINK, base_key, link_key, note_key
from vaultbrain.tend.cards import Card, resolver
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.vault.files import NoteFile

log = logging.getLogger("vaultbrain.tend")

KIND = "backlink"


@dataclass(frozen=True)
class Backlink:
    """``target`` lacks ``field: [[source]]``, the inverse of ``source``'s ``link_type``."""

    target: str
    field: str
    source: str
    link_type: str

    @property
    def link(self) -> str:
        return f"[[{self.source[:-3] if self.source.lower().endswith('.md') else self.source}]]"

    @property
    def key(self) -> str:
        return f"{KIND}:{note_key(self.target)}|{self.field}|{note_key(self.source)}"

    @property
    def id(self) -> str:
        return "b" + hashlib.sha1(self.key.encode()).hexdigest()[:9]

    def row(self) -> dict[str, str]:
        return {"note": self.target, "field": self.field, "link": self.source}


def _targets(value: Any) -> Iterable[str]:
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, str):
            for target, _ in WIKILINK.findall(item):
                if target.strip():
                    yield link_key(target)


def find(brain: Brain, cards: list[Card]) -> list[Backlink]:
    """Every missing inverse link, in the cards' order (sources), without repeats."""
    manifest = brain.pack.manifest
    inverse = {lt.name: lt.inverse for lt in manifest.link_types if lt.inverse}
    if not inverse:
        return []
    by_key = resolver(cards)
    found: dict[str, Backlink] = {}

    def add(source: Card, key: str, link_type: str, need: str | None) -> None:
        target = by_key.get(key)
        if target is None or target.rel == source.rel:
            return
        if need is not None and target.type != need:
            return
        if note_key(source.rel) in target.links or base_key(source.rel) in target.links:
            return
        b = Backlink(target.rel, inverse[link_type], source.rel, link_type)
        found.setdefault(b.key, b)

    fields = [fl for fl in manifest.frontmatter_links if fl.link_type in inverse]
    inferred = [lt for lt in manifest.link_types if lt.inverse and lt.inference]
    for card in cards:
        for fl in fields:
            if fl.page_type != card.type:
                continue
            for name in fl.fields:
                for key in _targets(card.get(name)):
                    add(card, key, fl.link_type, None)
        for lt in inferred:
            assert lt.inference is not None
            for key in card.typed.get(lt.name, ()):
                add(card, key, lt.name, lt.inference.target_type)
    return list(found.values())


def _with_link(brain: Brain, text: str, field: str, link: str) -> str | None:
    """``text`` with ``link`` added to its property ``field`` (a list), the note's
    ``updated`` moved where it has one; None: it is there already, or the note's properties
    cannot be read."""
    parsed = parse_note(text)
    if parsed.error or parsed.fence_problem:
        return None
    current = parsed.data.get(field)
    values = (
        list(current) if isinstance(current, list) else ([] if current in (None, "") else [current])
    )
    want = set(_targets(link))
    if any(set(_targets(v)) & want for v in values):
        return None
    changes: dict[str, Any] = {field: [*values, link]}
    if "updated" in parsed.data:  # (note_style: a note without one never gets one)
        changes["updated"] = brain.now().isoformat()
    return update_frontmatter(text, changes)


def write(brain: Brain, rel: str, links: list[Backlink], expected: str | None) -> bool:
    """``links`` (all of one note) written into the note at ``rel``, compare-and-swap, only
    while its content hash is ``expected`` (None: whatever it is); whether it was written."""

    def build(note: NoteFile | None) -> str | None:
        if note is None or (expected is not None and note.hash != expected):
            return None  # (gone, or changed since the cycle read it: the next cycle)
        text = note.text
        for b in links:
            text = _with_link(brain, text, b.field, b.link) or text
        return text

    edit = brain.vault.edit(rel, build)
    if not edit.written:
        return False
    from vaultbrain.filing.sync import notes_sync

    notes_sync(brain).sync_path(rel)
    now = brain.now().isoformat()
    for b in links:
        brain.store.audit(
            {"at": now, "kind": "backlink", "path": rel, "field": b.field, "link": b.source}
        )
    return True


def proposals(brain: Brain, status: str | None = OPEN) -> list[dict[str, Any]]:
    from vaultbrain.capture.merge import proposals as all_proposals

    return [r for r in all_proposals(brain, status) if r.get("kind") == KIND]


def propose(brain: Brain, links: Iterable[Backlink], dry_run: bool) -> list[dict[str, Any]]:
    """The backlinks never proposed before, stored as open proposals (unless ``dry_run``);
    returns them. An open one whose link has come (by hand) or whose notes are gone is
    closed, so Needs Review does not keep asking."""
    col = brain.store.collection(COLLECTION)
    known = {r.get("key"): r for r in col.all() if r.get("kind") == KIND}
    now = brain.now().isoformat()
    wanted: set[str] = set()
    new: list[dict[str, Any]] = []
    for b in links:
        wanted.add(b.key)
        if b.key in known:
            continue
        rec = {
            "id": b.id,
            "key": b.key,
            "kind": KIND,
            "type": "",
            "keep": b.target,
            "other": b.source,
            "field": b.field,
            "link": b.link,
            "why": f"{b.source} links it as {b.link_type}",
            "status": OPEN,
            "created": now,
        }
        known[b.key] = rec
        new.append(rec)
        if not dry_run:
            col.put(rec)
    if not dry_run:
        for rec in known.values():
            if rec.get("status") == OPEN and rec["key"] not in wanted:
                col.put(dict(rec, status=GONE, decided=now))
    return new


def accept(brain: Brain, rec: dict[str, Any]) -> dict[str, Any]:
    """The person ticked it: the link written into their note (compare-and-swap)."""
    if rec.get("status") == ACCEPTED:
        return rec
    if rec.get("status") not in (OPEN, REJECTED):
        raise UserError(f"backlink {rec['id']} is {rec.get('status')}: nothing to add")
    link = str(rec["link"])
    field = str(rec["field"])
    target = str(rec["keep"])
    if brain.vault.try_read(target) is None or brain.vault.try_read(str(rec["other"])) is None:
        brain.store.collection(COLLECTION).put(dict(rec, status=GONE))
        raise UserError(f"backlink {rec['id']}: {target} or {rec['other']} is no longer there")
    source = str(rec["other"])
    write(brain, target, [Backlink(target, field, source, "")], None)
    done = dict(rec, status=ACCEPTED, decided=brain.now().isoformat())
    brain.store.collection(COLLECTION).put(done)
    log.info("backlink %s accepted: %s %s gets %s", rec["id"], target, field, link)
    return done


@dataclass
class Result:
    written: list[Backlink]
    proposed: list[dict[str, Any]]
    left: list[Backlink]  # a note of vaultbrain's changed under the cycle: the next one


def tend(brain: Brain, cards: list[Card], dry_run: bool, ours: Callable[[str], bool]) -> Result:
    """The phase: missing backlinks written into vaultbrain's notes, proposed for the rest."""
    missing = find(brain, cards)
    by_rel = {c.rel: c for c in cards}
    mine: dict[str, list[Backlink]] = {}
    theirs: list[Backlink] = []
    for b in missing:
        (mine.setdefault(b.target, []) if ours(b.target) else theirs).append(b)
    written: list[Backlink] = []
    left: list[Backlink] = []
    for rel, links in mine.items():
        if dry_run:
            written += links
            continue
        try:
            done = write(brain, rel, links, by_rel[rel].hash)
        except UserError as exc:
            log.info("backlinks of %s not written now: %s", rel, exc)
            done = False
        (written if done else left).extend(links)
    return Result(written, propose(brain, theirs, dry_run), left)
