"""``vaultbrain restyle``: rewrite the record notes vaultbrain made to the current note style,
on request only.

A change of ``note_style`` (or of Obsidian's inline title) applies to new notes; existing
notes keep their look until the person asks. :func:`plan` previews, :func:`apply` writes,
each note with one compare-and-swap edit (:meth:`Vault.edit`) built from the note as it is
at that moment, changing only the lines that must change:

- minimal: the machine properties (``source``, ``confidence``, ``classified_by``,
  ``confirmed``, ``updated``) leave the note, ``id`` moves last, and the H1 that repeats the
  title goes when Obsidian shows inline titles;
- full: the machine properties the store holds come back into the note, and the H1 too.

Only notes vaultbrain made are touched: a record it created (``made`` in the store), or, for
notes from before the store said so, a note whose Properties carry a capture's ``source`` or
a ``classified_by`` and whose ``id`` is the record's. Hand-made notes, adopted or not, are
never restyled. The store takes each machine value from the note before the note loses it,
so nothing is lost and a later ``reindex`` keeps it. A machine property the person wrote on
(``confidence: 0.8  # I checked this``) is theirs now: its line stays as it is, remark and
all, and ``id`` is not moved when its line carries one (every word the person typed kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.filing.index import records
from vaultbrain.filing.records import MACHINE_KEYS
from vaultbrain.filing.style import NoteStyle, drop_title_heading, style_of
from vaultbrain.filing.sync import notes_sync
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


@dataclass
class Restyle:
    """One note vaultbrain made and what restyling it changes."""

    collection: str
    record_id: str
    path: str
    title: str
    remove: list[str] = field(default_factory=list)  # properties leaving the note
    add: dict[str, Any] = field(default_factory=dict)  # properties coming back (full)
    id_last: bool = False
    heading: str = ""  # "drop" | "add" | ""
    problem: str | None = None
    kept: list[str] = field(default_factory=list)  # lines kept for the person's remark

    @property
    def changes(self) -> bool:
        return bool(self.remove or self.add or self.id_last or self.heading)

    def describe(self) -> str:
        if self.problem:
            return f"{self.path}: skipped ({self.problem})"
        parts = []
        if self.remove:
            parts.append("without " + ", ".join(self.remove))
        if self.add:
            parts.append("with " + ", ".join(self.add))
        if self.id_last:
            parts.append("id last")
        if self.heading:
            parts.append({"drop": "no H1", "add": "an H1"}[self.heading])
        if self.kept:
            parts.append("kept " + ", ".join(self.kept) + " (your remark on the line)")
        return f"{self.path}: " + "; ".join(parts)


def made_by_vaultbrain(record: dict[str, Any], data: dict[str, Any]) -> bool:
    """Whether the note of ``record`` (its Properties ``data``) is one vaultbrain made."""
    if record.get("origin") == "vault" or record.get("note_id") not in (None, record.get("id")):
        return False
    if record.get("made"):
        return True
    marked = "source" in data or "classified_by" in data
    return marked and str(data.get("id") or "") == str(record.get("id"))


def plan(brain: Brain) -> list[Restyle]:
    """Every note vaultbrain made whose look differs from the current style, by path."""
    style = style_of(brain)
    index = records(brain)
    index.refresh(force=True)
    out: list[Restyle] = []
    for collection, summary in index.all():
        rel = summary.get("path")
        if not rel or summary.get("deleted"):
            continue
        record = brain.store.collection(collection).get(summary["id"])
        if record is None:
            continue
        found = _restyle(brain, style, collection, record)
        if found is not None and (found.changes or found.problem):
            out.append(found)
    return sorted(out, key=lambda r: r.path)


def _restyle(
    brain: Brain, style: NoteStyle, collection: str, record: dict[str, Any]
) -> Restyle | None:
    rel = record["path"]
    try:
        note = brain.vault.try_read(rel)
    except UserError as exc:
        return Restyle(collection, record["id"], rel, "", problem=str(exc))
    if note is None:
        return None
    parsed = parse_note(note.text)
    if parsed.error or not parsed.has_frontmatter:
        return None
    if not made_by_vaultbrain(record, parsed.data):
        return None
    title = str(record.get("title") or "")
    found = Restyle(collection, str(record["id"]), rel, title)
    diff(found, style, parsed.data, parsed.body, record, parsed.raw)
    return found


_REMARK = re.compile(r"(?:^|\s)#")
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")


def remarked(raw: str, keys: Any) -> set[str]:
    """Of ``keys``, the properties whose line in the frontmatter ``raw`` carries a remark the
    person typed (a YAML comment after the value: ``confidence: 0.8  # I checked this``)."""
    wanted = set(keys)
    out: set[str] = set()
    for line in raw.splitlines():
        key, sep, rest = line.partition(":")
        if sep and key in wanted and _REMARK.search(_QUOTED.sub("", rest)):
            out.add(key)
    return out


def diff(
    found: Restyle,
    style: NoteStyle,
    data: dict[str, Any],
    body: str,
    record: dict[str, Any],
    raw: str = "",
) -> None:
    """Fill ``found`` with what the note (``data``, ``body``; ``raw``: its frontmatter's
    text) needs to look like ``style``."""
    found.remove, found.add, found.id_last, found.heading = [], {}, False, ""
    found.kept = sorted(remarked(raw, [*MACHINE_KEYS, "id"])) if raw else []
    if style.full:
        for key in MACHINE_KEYS:
            value = record.get(key)
            if key not in data and value is not None and not (key == "confirmed" and value):
                found.add[key] = value
    else:
        found.remove = [k for k in MACHINE_KEYS if k in data and k not in found.kept]
        keys = [k for k in data if k not in found.remove]
        found.id_last = "id" in keys and keys[-1] != "id" and "id" not in found.kept
    has_h1 = drop_title_heading(body, found.title) != body
    if has_h1 and not style.h1:
        found.heading = "drop"
    elif style.h1 and not has_h1 and not re.match(r"#[ \t]", body.lstrip("\r\n")):
        found.heading = "add"


def apply(brain: Brain, planned: list[Restyle]) -> tuple[list[Restyle], list[str]]:
    """Restyle each planned note (compare-and-swap, from the note as it is then). Returns the
    notes done and one line per note left as it was."""
    style = style_of(brain)
    sync = notes_sync(brain)
    done: list[Restyle] = []
    problems: list[str] = []
    for item in planned:
        if item.problem:
            problems.append(item.describe())
            continue
        col = brain.store.collection(item.collection)
        with brain.store.locked():
            record = col.get(item.record_id)
            if record is None:
                problems.append(f"{item.path}: its record is gone")
                continue
            _keep_in_store(brain, col, record, item.path)

        def build(note: Any, item: Restyle = item, record: dict[str, Any] = record) -> str | None:
            if note is None:
                return None
            parsed = parse_note(note.text)
            if parsed.error or not made_by_vaultbrain(record, parsed.data):
                return None
            diff(item, style, parsed.data, parsed.body, record, parsed.raw)
            return restyled(note.text, item) if item.changes else None

        try:
            edit = brain.vault.edit(item.path, build)
        except UserError as exc:
            problems.append(f"{item.path}: {exc}")
            continue
        if edit.written:
            sync.sync_path(item.path)
            done.append(item)
    return done, problems


def _keep_in_store(brain: Brain, col: Any, record: dict[str, Any], rel: str) -> None:
    """The store takes the note's machine values before the note may lose them; from now on
    they are the store's (``note_keys`` empty: a note without them drops nothing)."""
    note = brain.vault.try_read(rel)
    parsed = parse_note(note.text) if note is not None else None
    if parsed is None or parsed.error:
        return
    for key in MACHINE_KEYS:
        if key in parsed.data and parsed.data[key] is not None:
            record[key] = parsed.data[key]
    record["note_keys"] = []
    record["made"] = True
    col.put(record)


def restyled(text: str, item: Restyle) -> str:
    """``text`` with ``item``'s changes: properties removed or added, ``id`` moved last, the
    H1 dropped or added; every other line as it was."""
    parsed = parse_note(text)
    changes: dict[str, Any] = dict(item.add)
    remove = list(item.remove)
    if item.id_last:
        remove.append("id")
    text = update_frontmatter(text, changes, remove)
    if item.id_last:
        text = update_frontmatter(text, {"id": parsed.data["id"]})
    parsed = parse_note(text)
    body = text[parsed.body_start :]
    if item.heading == "drop":
        text = text[: parsed.body_start] + drop_title_heading(body, item.title)
    elif item.heading == "add":
        nl = parsed.newline
        text = text[: parsed.body_start] + f"# {item.title}{nl}{nl}" + body.lstrip("\r\n")
    return text


__all__ = ["Restyle", "apply", "diff", "made_by_vaultbrain", "plan", "restyled"]
