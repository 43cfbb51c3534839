"""Typed links shown where a person looks: a frontmatter property per link type on
vaultbrain's own record notes (``works_at: ["[[Companies/Acme|Acme]]"]``) and the inverse on
the target (``employs: ["[[People/Tom|Tom]]"]``).

Only notes vaultbrain made are written (:func:`vaultbrain.graph.extract.is_own`: an ``id``
and a ``source`` or ``classified_by``); a note the person made keeps its links in the graph
index only (the adoption rule: no unasked writes). The properties are derived: each is set to
exactly what the links say, and removed when they say nothing, so a link deleted from the
text disappears from both notes at the next sync. A link already shown by a declared
frontmatter field (a meeting's ``attendees``) is not repeated on its source. Every write is
:meth:`Vault.edit` (compare-and-swap), changing only the lines of those properties.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.graph.extract import generated_keys, is_own
from vaultbrain.graph.index import GraphIndex
from vaultbrain.graph.links import incoming, outgoing
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger(__name__)


def wikilink(rel: str, title: str) -> str:
    target = rel[:-3] if rel.lower().endswith(".md") else rel
    return f"[[{target}|{title or target.rsplit('/', 1)[-1]}]]"


def typed_targets(index: GraphIndex, nid: int) -> set[int]:
    """The notes ``nid``'s typed links reach (resolved)."""
    out = set()
    for link in outgoing(index, nid):
        if link["to"]:
            t = index.note_id(link["to"])
            if t is not None:
                out.add(t)
    return out


def sources_of(index: GraphIndex, nid: int, pack: Any) -> set[int]:
    out = set()
    for link in incoming(index, nid, pack):
        s = index.note_id(link["from"])
        if s is not None:
            out.add(s)
    return out


def desired(index: GraphIndex, nid: int, pack: Any) -> dict[str, list[str]]:
    """The link properties note ``nid`` should carry, by what the graph says now."""
    props: dict[str, list[str]] = {}
    for link in outgoing(index, nid):
        if not link["to"] or str(link["origin"]).startswith("frontmatter:"):
            continue
        value = wikilink(link["to"], link["name"])
        bucket = props.setdefault(link["type"], [])
        if value not in bucket:
            bucket.append(value)
    for link in incoming(index, nid, pack):
        if link["type"] == link["verb"] and not _symmetric(pack, link["verb"]):
            continue  # a verb without an inverse shows on its source only
        value = wikilink(link["from"], link["name"])
        bucket = props.setdefault(link["type"], [])
        if value not in bucket:
            bucket.append(value)
    return {k: sorted(v, key=str.lower) for k, v in props.items()}


def _symmetric(pack: Any, verb: str) -> bool:
    return any(lt.name == verb and lt.inverse == verb for lt in pack.manifest.link_types)


def reconcile(brain: Brain, index: GraphIndex, nids: set[int]) -> list[str]:
    """Bring the link properties of the own notes among ``nids`` in step; the paths written."""
    written = []
    for nid in sorted(nids):
        try:
            row = index.note_row(nid)
        except KeyError:
            continue
        if not row["own"]:
            continue
        rel = row["rel"]
        pack = index.typer(rel)
        managed = generated_keys(pack)
        want = desired(index, nid, pack)

        def build(note: Any, want: dict[str, list[str]] = want, managed: set[str] = managed) -> Any:
            if note is None:
                return None
            parsed = parse_note(note.text)
            if parsed.error or not is_own(parsed.data):
                return None
            remove = [k for k in managed if k in parsed.data and k not in want]
            changes = {k: v for k, v in want.items() if parsed.data.get(k) != v}
            if not changes and not remove:
                return None
            return update_frontmatter(note.text, changes, remove)

        try:
            edit = brain.vault.edit(rel, build)
        except UserError as exc:
            log.warning("typed links of %s not shown yet: %s", rel, exc)
            continue
        if edit.written:
            note = brain.vault.try_read(rel)
            if note is not None:
                index.note_changed(rel, note.text, note.mtime_ns, note.size)
            written.append(rel)
    return written


def after_change(
    brain: Brain,
    index: GraphIndex,
    rel: str,
    text: str | None,
    stat: tuple[int, int],
    parsed: Any = None,
) -> list[str]:
    """Index one note's change, then show its typed links on the own notes it touches (it,
    what it linked to before, what it links to now)."""
    if not index.typer(rel).manifest.link_types:
        index.note_changed(rel, text, *stat, parsed)  # no link verbs: nothing to show
        return []
    before = index.note_id_exact(rel)
    touched: set[int] = set()
    if before is not None:
        touched |= typed_targets(index, before)
    index.note_changed(rel, text, *stat, parsed)
    now = index.note_id_exact(rel)
    if now is not None:
        pack = index.typer(rel)
        touched |= {now} | typed_targets(index, now) | sources_of(index, now, pack)
    return reconcile(brain, index, touched)
