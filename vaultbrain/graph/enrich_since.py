"""Enrich's memory between runs (``enrich --since-last``, the tending cycle's): what the last
run found per record and from which notes, so a run finds again only the records whose
sources changed (:class:`Since`)."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.graph.enrich_rules import _backlinks, _empty, _stated_day, link_keys_of, propose
from vaultbrain.graph.extract import base_key, note_key
from vaultbrain.graph.index import GraphIndex

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


SINCE = "enrich-since.json"  # what the last run found per record, and from which notes
_SINCE_VERSION = "4"
_PLAIN_NAME = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")  # (a folded name FTS words spell alike)
# A record the last run found nothing for, from nothing but its own note (kept as a name).
_PLAIN: dict[str, Any] = {"proposals": {}, "deps": [], "keys": [], "future": False}


class Since:
    """The last ``since_last`` run: the index's notes as they were (stat), the people's
    names, the day, and per record its proposals and the notes and link keys they were
    found from. A record is found again (dirty) when its note, a note linking to it, or a
    note it links to changed or went; when a changed note links to it now; when a link key
    it was found through, or one that resolves to it now, is a note's name or alias that
    came or went; when the people's names changed; or when the day moved past a date a
    linking note states. Anything else about it is what the last run found."""

    def __init__(
        self,
        brain: Brain,
        index: GraphIndex,
        types: list[str],  # the enrichable types, "|", the people's types
        people: Callable[[], dict[str, int]],
        today: dt.date,
    ) -> None:
        self.brain, self.index, self.today = brain, index, today
        self._people_of = people
        self._people: dict[str, int] | None = None
        with index.lock:
            rows = index.db.execute(
                # (every note, the archived too: a linking note is one wherever it is)
                "SELECT id, rel, mtime_ns, size FROM notes"
            ).fetchall()
            aliases = index.db.execute(
                "SELECT nm.key, n.rel FROM names nm JOIN notes n ON n.id = nm.note "
                "WHERE nm.kind = 2"
            ).fetchall()
        self.ids = {rel: nid for nid, rel, _, _ in rows}
        self.rels = {nid: rel for nid, rel, _, _ in rows}
        # (each note as "mtime:size:path", joined by NUL, which no path holds: one string
        # to keep and to compare as a set, where 10,000 small lists cost a run's time)
        self.stats = {f"{m}:{sz}:{rel}" for _, rel, m, sz in rows}
        self.aliases = sorted({f"{k}\t{rel}" for k, rel in aliases})
        base = json.dumps([_SINCE_VERSION, brain.pack_key, types])
        last = brain.store.read_json(SINCE, None)
        if (
            isinstance(last, dict)
            and last.get("key", "").startswith(base[:-1] + ",")
            and set(str(last.get("stats") or "").split("\x00")) - {""} == self.stats
        ):
            # (no note changed since: the people's names, made from the notes, neither)
            self.key = str(last["key"])
        else:
            # (as note paths: a rebuilt index numbers its notes anew)
            names = sorted(f"{k}\t{self.rels.get(v, '')}" for k, v in self.people.items())
            self.key = base[:-1] + "," + json.dumps(names, ensure_ascii=False) + "]"
        self.records: dict[str, dict[str, Any]] = {}
        self.dirty: set[str] | None = None  # None: every record
        self.found_new = False
        self.last_day: str | None = None
        self.last_stats: set[str] = set()
        if isinstance(last, dict) and str(last.get("key", "")).startswith(base[:-1] + ","):
            self.records = last.get("records") or {}
            for rel in str(last.get("plain") or "").split("\x00"):
                if rel:
                    self.records[rel] = _PLAIN
            # (the people's names changed: the records a line naming one of them may say
            # something about; None: every record)
            named = set() if last.get("key") == self.key else self._named_anew(last)
            if named is None:
                self.records = {}
            else:
                self.last_day = last.get("day")
                self.last_stats = set(str(last.get("stats") or "").split("\x00")) - {""}
                self.dirty = self._dirty(last) | named

    @property
    def people(self) -> dict[str, int]:
        """The folded names of the vault's people, to their notes (made when first asked)."""
        if self._people is None:
            self._people = self._people_of()
        return self._people

    def _named_anew(self, last: dict[str, Any]) -> set[str] | None:
        """The records whose contact a change of the people's names may change (the names
        are what tells a line about someone else, enrich_rules.py ``_contact``): those whose
        note, or a note they are found from, holds a changed name as words, or any letter
        beyond ASCII (where folding is more than lower case). None: names not plain words."""
        try:
            old = json.loads(str(last["key"]))[-1]
        except (ValueError, IndexError, TypeError):
            return None
        if not isinstance(old, list):
            return None
        now = {f"{k}\t{self.rels.get(v, '')}" for k, v in self.people.items()}
        changed = {str(line).split("\t", 1)[0] for line in now.symmetric_difference(old)}
        if not all(_PLAIN_NAME.fullmatch(n) for n in changed):
            return None
        if not changed:
            return set()
        query = " OR ".join(f'"{n}"' for n in sorted(changed))
        with self.index.lock:
            found = {
                r
                for (r,) in self.index.db.execute(
                    "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?", (query,)
                )
            }
            found |= {
                r
                for (r,) in self.index.db.execute(
                    "SELECT rowid FROM notes_fts WHERE length(body) != length(CAST(body AS BLOB))"
                )
            }
        named = {self.rels[r] for r in found if r in self.rels}
        return {
            rel
            for rel, rec in self.records.items()
            if rel in named or not named.isdisjoint(rec.get("deps") or ())
        }

    def _dirty(self, last: dict[str, Any]) -> set[str]:
        changed = {line.split(":", 2)[2] for line in self.stats - self.last_stats}
        before = {line.split(":", 2)[2] for line in self.last_stats - self.stats}
        gone = {rel for rel in before if rel not in self.ids}
        came = changed - before
        touched: set[str] = set()
        for rel in came | gone:
            touched |= {note_key(rel), base_key(rel)}
        old_aliases = set(last.get("aliases") or [])
        for pair in old_aliases.symmetric_difference(self.aliases):
            touched.add(pair.split("\t", 1)[0])
        dirty = {rel for rel in changed if rel in self.ids}
        moved = last.get("day") != self.today.isoformat()
        moved_or_gone = changed | gone
        for rel, rec in self.records.items():
            if (
                rel in moved_or_gone
                or not moved_or_gone.isdisjoint(rec.get("deps") or ())
                or not touched.isdisjoint(rec.get("keys") or ())
                or (moved and rec.get("future"))
            ):
                dirty.add(rel)
        index = self.index
        srcs = [self.ids[r] for r in changed if r in self.ids]
        out_keys: set[str] = set(touched)  # a changed note links to what they resolve to
        in_keys: set[str] = set(touched)  # a note linking by one shows another note now
        with index.lock:
            for i in range(0, len(srcs), 500):
                part = srcs[i : i + 500]
                marks = ",".join("?" * len(part))
                sql = f"SELECT DISTINCT key FROM links WHERE src IN ({marks})"  # noqa: S608
                out_keys |= {k for (k,) in index.db.execute(sql, part)}
                sql = f"SELECT key FROM names WHERE note IN ({marks})"  # noqa: S608
                in_keys |= {k for (k,) in index.db.execute(sql, part)}
            for k in out_keys:
                nid = index.resolve(k)
                if nid is not None and nid in self.rels:
                    dirty.add(self.rels[nid])
            for k in in_keys:
                for (src,) in index.db.execute("SELECT DISTINCT src FROM links WHERE key=?", (k,)):
                    if src in self.rels:
                        dirty.add(self.rels[src])
        return dirty

    def nothing(self, nid: int) -> bool:
        """A record the last run found nothing for, and nothing it is found from changed."""
        rel = self.rels.get(nid)
        rec = self.records.get(rel) if rel is not None else None
        return (
            rec is not None
            and self.dirty is not None
            and rel not in self.dirty
            and not rec.get("proposals")
        )

    def proposals(
        self, nid: int, rel: str, ptype: Any, summarise: Any
    ) -> dict[str, dict[str, Any]]:
        rec = self.records.get(rel)
        if self.dirty is not None and rec is not None and rel not in self.dirty:
            return dict(rec.get("proposals") or {})
        found = propose(self.index, nid, ptype, self.today, summarise, self.people)
        self.found_new = True
        index = self.index
        data = index.note_data(nid)
        if not any(_empty(data.get(f)) for f in ptype.fields):
            # (every field filled: nothing but its own note says otherwise)
            self.records[rel] = _PLAIN
            return dict(found)
        with index.lock:
            back = _backlinks(index, nid)
            own_keys = index.keys_of(nid)
            link_keys = link_keys_of(index, nid)
            outs = {index.resolve(k) for k in link_keys}
            future = any((_stated_day(index, s)[0] or 0) > self.today.toordinal() for s in back)
        deps = sorted({self.rels[s] for s in back if s in self.rels})
        deps += sorted({self.rels[o] for o in outs if o is not None and o in self.rels})
        self.records[rel] = {
            "proposals": found,
            "deps": deps,
            "keys": sorted(set(own_keys) | set(link_keys)),
            "future": future,
        }
        return dict(found)

    def save(self) -> None:
        keep = {rel: r for rel, r in self.records.items() if rel in self.ids and r != _PLAIN}
        plain = [rel for rel, r in self.records.items() if rel in self.ids and r == _PLAIN]
        if self.dirty is not None and not self.dirty and not self.found_new:
            if self.last_day == self.today.isoformat() and self.last_stats == self.stats:
                return  # (the same as kept)
        self.brain.store.write_json(
            SINCE,
            {
                "key": self.key,
                "day": self.today.isoformat(),
                "stats": "\x00".join(sorted(self.stats)),
                "plain": "\x00".join(plain),
                "aliases": self.aliases,
                "records": keep,
            },
            durable=False,
        )
