"""Enrich's rules: what a thin record may be given from the vault's own text (a contact from
a note about the person, topics, the last interaction from a dated note linking it), as
:func:`propose` finds it for one record of the graph index."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from vaultbrain.graph.index import GraphIndex
from vaultbrain.graph.links import outgoing
from vaultbrain.graph.show import wikilink
from vaultbrain.vault.names import fold

if TYPE_CHECKING:
    pass


EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
PHONE = re.compile(r"(?<![\w])\+?\d[\d ()./-]{6,}\d(?![\w])")
# A date or a span of dates is no phone number (a daily note's "2026-11-05" was one).
_DATE_LIKE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{4}\s*[-/]\s*\d{4}"
)
_TOPIC_KEYS = ("topics", "tags")
_DATE_KEYS = ("date", "last_interaction", "updated", "created")
_DATED_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_POSSESSIVE = re.compile(r"\b([A-Z][\w-]+)['’]s\b")


class _Except(Mapping[str, int]):
    """The names of ``names`` that name another note than ``nid``."""

    def __init__(self, names: Mapping[str, int], nid: int) -> None:
        self._names = names
        self._nid = nid

    def __getitem__(self, key: str) -> int:
        value = self._names[key]
        if value == self._nid:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._names.get(key, self._nid) != self._nid

    def __iter__(self) -> Iterator[str]:
        return (k for k, v in self._names.items() if v != self._nid)

    def __len__(self) -> int:
        return sum(1 for v in self._names.values() if v != self._nid)


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


class Reading:
    """The graph index as one enrich run reads it: each note's row, properties, names,
    backlinks and each link key's note asked of the database once (a run asks each of them
    of most notes three or four times; nothing writes the index while it runs: the notes it
    fills are synced after). Anything else is the index's own."""

    def __init__(self, index: GraphIndex, whole: bool = False) -> None:
        self.index = index
        self.db, self.lock = index.db, index.lock
        self._rows: dict[int, dict[str, Any]] = {}
        self._data: dict[int, dict[str, Any]] = {}
        self._keys: dict[int, list[str]] = {}
        self._back: dict[int, list[int]] = {}
        self._resolved: dict[str, int | None] = {}
        # ``whole`` (a run that reads most notes): every name and link read at once, not
        # asked note by note: link key -> (kind, note) of the notes it names, and
        # link key -> the notes linking by it, note -> the keys it links by
        self._named: dict[str, list[tuple[int, int]]] | None = None
        self._linking: dict[str, set[int]] = {}
        self._links: dict[int, list[str]] = {}
        if whole:
            named: dict[str, list[tuple[int, int]]] = {}
            with index.lock:
                for key, kind, note in index.db.execute("SELECT key, kind, note FROM names"):
                    named.setdefault(key, []).append((kind, note))
                    self._keys.setdefault(note, []).append(key)
                for src, key in index.db.execute("SELECT DISTINCT src, key FROM links"):
                    self._linking.setdefault(key, set()).add(src)
                    self._links.setdefault(src, []).append(key)
            self._named = named

    def __getattr__(self, name: str) -> Any:
        return getattr(self.index, name)

    def note_row(self, nid: int) -> dict[str, Any]:
        row = self._rows.get(nid)
        if row is None:
            row = self._rows[nid] = self.index.note_row(nid)
        return dict(row)

    def note_data(self, nid: int) -> dict[str, Any]:
        data = self._data.get(nid)
        if data is None:
            data = self._data[nid] = self.index.note_data(nid)
        return data  # (read, never changed, by the rules)

    def keys_of(self, nid: int) -> list[str]:
        keys = self._keys.get(nid)
        if keys is None:
            keys = self._keys[nid] = [] if self._named is not None else self.index.keys_of(nid)
        return list(keys)

    def resolve(self, key: str) -> int | None:
        if key not in self._resolved:
            if self._named is None:
                self._resolved[key] = self.index.resolve(key)
            else:  # (GraphIndex.resolve's rule, on the names read at once)
                rows = self._named.get(key, [])
                found = None
                for kind in (0, 1, 2):
                    notes = {note for k, note in rows if k == kind}
                    if notes:
                        found = notes.pop() if len(notes) == 1 else None
                        break
                self._resolved[key] = found
        return self._resolved[key]

    @property
    def whole(self) -> bool:
        return self._named is not None

    def linking(self, key: str) -> set[int]:
        """The notes that link by ``key`` (a ``whole`` reading)."""
        return self._linking.get(key, set())

    def link_keys(self, nid: int) -> list[str]:
        """The keys a note links by (each once)."""
        if self._named is not None:
            return list(self._links.get(nid, ()))
        with self.lock:
            sql = "SELECT DISTINCT key FROM links WHERE src=?"
            return [k for (k,) in self.db.execute(sql, (nid,))]

    def backlinks(self, nid: int) -> list[int]:
        back = self._back.get(nid)
        if back is None:
            back = self._back[nid] = _find_backlinks(self, nid)
        return list(back)


def reading(index: GraphIndex, whole: bool = False) -> GraphIndex:
    """``index`` as one run reads it (:class:`Reading`), typed as the index it stands for
    (``whole``: a run that reads most notes, every name and link read at once)."""
    return cast(GraphIndex, Reading(index, whole))


def link_keys_of(index: GraphIndex | Reading, nid: int) -> list[str]:
    """The keys a note links by, each once."""
    if isinstance(index, Reading):
        return index.link_keys(nid)
    with index.lock:
        sql = "SELECT DISTINCT key FROM links WHERE src=?"
        return [k for (k,) in index.db.execute(sql, (nid,))]


def _backlinks(index: GraphIndex | Reading, nid: int) -> list[int]:
    if isinstance(index, Reading):
        return index.backlinks(nid)
    return _find_backlinks(index, nid)


def _find_backlinks(index: GraphIndex | Reading, nid: int) -> list[int]:
    keys = index.keys_of(nid)
    if not keys:
        return []
    if isinstance(index, Reading) and index.whole:
        return sorted(
            {s for k in keys if index.resolve(k) == nid for s in index.linking(k) if s != nid}
        )
    marks = ",".join("?" * len(keys))
    with index.lock:
        rows = index.db.execute(
            f"SELECT DISTINCT src, key FROM links WHERE key IN ({marks}) AND src != ?",  # noqa: S608
            [*keys, nid],
        ).fetchall()
    return sorted({src for src, key in rows if index.resolve(key) == nid})


def _names(index: GraphIndex, nid: int) -> list[str]:
    row = index.note_row(nid)
    names = {fold(row["title"])}
    data = index.note_data(nid)
    for alias in data.get("aliases") or []:
        if isinstance(alias, str):
            names.add(fold(alias))
    first = fold(row["title"]).split()[0] if row["title"].split() else ""
    if len(first) > 2:
        names.add(first)
    return sorted(n for n in names if n)


def propose(
    index: GraphIndex,
    nid: int,
    ptype: Any,
    today: dt.date,
    summarise: Any = None,
    others: dict[str, int] | None = None,
) -> dict[str, dict[str, Any]]:
    """field -> {"value", "from"} for the record's empty declared fields (``summarise``:
    lines -> a context sentence, or None for no LLM; ``others``: the folded names of the
    vault's people, to their notes, so a line about someone else says nothing about this
    record)."""
    data = index.note_data(nid)
    fields = ptype.fields
    empty = [f for f in fields if _empty(data.get(f))]
    if not empty:
        return {}
    back = _backlinks(index, nid)
    names = _names(index, nid)
    # (a view: a copy of every name per record was most of a tending cycle's time)
    not_this = _Except(others or {}, nid)
    out: dict[str, dict[str, Any]] = {}
    for field in empty:
        spec = fields[field]
        if field == "contact":
            found = _contact(index, nid, back, names, not_this)
            if found:
                out[field] = found
        elif spec.type == "date" and (field == "last_interaction" or spec.on_capture):
            # Only a date a linking note states (its properties, or a daily note's name):
            # a file's modification time is when it was copied or synced, not met.
            days = [(d, s, why) for s in back for d, why in [_stated_day(index, s)] if d]
            days = [(d, s, why) for d, s, why in days if d <= today.toordinal()]
            if days:
                day, src, why = max(days)
                out[field] = {
                    "value": dt.date.fromordinal(day).isoformat(),
                    "from": [f"{index.note_row(src)['rel']}: {why}"],
                }
        elif field == "topics" and spec.type == "list":
            counts: Counter[str] = Counter()
            where: dict[str, list[str]] = {}
            for s in back:
                sdata = index.note_data(s)
                for key in _TOPIC_KEYS:
                    values = sdata.get(key) or []
                    for v in values if isinstance(values, list) else [values]:
                        if isinstance(v, str) and v.strip():
                            t = v.strip().lstrip("#")
                            counts[t] += 1
                            where.setdefault(t, []).append(index.note_row(s)["rel"])
            topics = [t for t, c in counts.most_common(5) if c >= 2]
            if topics:
                out[field] = {
                    "value": topics,
                    "from": sorted({r for t in topics for r in where[t]}),
                }
        elif field == "context" and spec.type == "text" and summarise is not None:
            lines = _mentions(index, back, names)
            if lines:
                text = summarise(index.note_row(nid), [line for _, line in lines])
                if text:
                    out[field] = {"value": text, "from": sorted({rel for rel, _ in lines})}
        elif spec.type in ("link", "links"):
            verbs = {field}
            if field in ("company", "employer"):
                verbs.add("works_at")
            links = [x for x in outgoing(index, nid) if x["type"] in verbs and x["to"]]
            if links:
                values = [wikilink(x["to"], x["name"]) for x in links]
                out[field] = {
                    "value": values[0] if spec.type == "link" else values,
                    "from": [index.note_row(nid)["rel"]],
                }
    return out


def _stated_day(index: GraphIndex, nid: int) -> tuple[int | None, str]:
    """The date a note states (a date property, else a daily note's name), and where."""
    data = index.note_data(nid)
    for key in _DATE_KEYS:
        value = data.get(key)
        m = _DATED_NAME.match(value) if isinstance(value, str) else None
        if m:
            try:
                return dt.date(int(m[1]), int(m[2]), int(m[3])).toordinal(), f"{key}: {value}"
            except ValueError:
                continue
    rel = index.note_row(nid)["rel"]
    m = _DATED_NAME.match(rel.rsplit("/", 1)[-1])
    if m:
        try:
            return dt.date(int(m[1]), int(m[2]), int(m[3])).toordinal(), "named by its date"
        except ValueError:
            pass
    return None, ""


def _mentions(index: GraphIndex, back: list[int], names: list[str]) -> list[tuple[str, str]]:
    """(note, line) of the linking notes' lines that name the record, at most 40."""
    out = []
    for s in back:
        rel = index.note_row(s)["rel"]
        for line in index.body(s).splitlines():
            if line.strip() and any(n in fold(line) for n in names):
                out.append((rel, line.strip()[:300]))
                if len(out) >= 40:
                    return out
    return out


def _contact(
    index: GraphIndex,
    nid: int,
    back: list[int],
    names: list[str],
    others: Mapping[str, int] | None = None,
) -> dict[str, Any] | None:
    """The address (else phone number) written most often about the record: on a line of
    its own note, or of a note linking to it that names it; never on a line about someone
    else (one naming another person of the vault, or "Ann's …"), never a date."""
    if others is None:
        others = {}
    for pattern in (EMAIL, PHONE):
        counts: Counter[str] = Counter()
        where: dict[str, list[str]] = {}
        for s in [nid, *back]:
            rel = index.note_row(s)["rel"]
            for line in index.body(s).splitlines():
                low = fold(line)
                names_it = any(n in low for n in names)
                if s != nid and not names_it:
                    continue  # another note: only a line that names the record counts
                elsewhere = _about_someone_else(line, names, others)
                for m in pattern.findall(line):
                    value = m.strip()
                    if pattern is PHONE and _DATE_LIKE.search(value):
                        continue
                    if pattern is EMAIL and _mailbox_of_other(value, names, others):
                        continue
                    if elsewhere and not (pattern is EMAIL and _mailbox_of(value, names)):
                        continue  # a line about someone else: only the record's own mailbox
                    counts[value] += 1
                    where.setdefault(value, []).append(f"{rel}: {line.strip()[:160]}")
        if counts:
            value, _ = counts.most_common(1)[0]
            return {"value": value, "from": where[value][:3]}
    return None


def _about_someone_else(line: str, names: list[str], others: Mapping[str, int]) -> bool:
    """Whether a line names a person other than the record: another person note's name,
    or a possessive ("Ann's email") that is not one of the record's names."""
    words = [w for w in re.split(r"[^\w'’-]+", fold(line)) if w]
    for n in range(1, 4):
        for i in range(len(words) - n + 1):
            key = " ".join(words[i : i + n]).removesuffix("'s").removesuffix("’s")
            if key in others and key not in names:
                return True
    return any(fold(m) not in names for m in _POSSESSIVE.findall(line))


def _mailbox_parts(address: str) -> set[str]:
    return {p for p in re.split(r"[._+-]", fold(address.split("@", 1)[0])) if p}


def _mailbox_of(address: str, names: list[str]) -> bool:
    """An address whose mailbox spells one of the record's names (``bob@…``, ``bob.ray@…``)."""
    words = {w for n in names for w in n.split() if len(w) > 1}
    return bool(_mailbox_parts(address) & words)


def _mailbox_of_other(address: str, names: list[str], others: Mapping[str, int]) -> bool:
    """An address whose mailbox is another person's name and none of the record's
    (``ann@…`` in Bob's note)."""
    return not _mailbox_of(address, names) and any(p in others for p in _mailbox_parts(address))
