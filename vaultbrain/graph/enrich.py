"""``vaultbrain enrich``: fill the empty declared fields of records of the pack's
``enrichable_types`` from what the vault already says. Nothing leaves the machine.

Per record (its note and the notes that link to it, read from the graph index; never a note
vaultbrain archived under ``Brain/Archive/``):
- a ``contact`` field: the e-mail address (else phone number) written most often about the
  record: on a line of its own note, or of a linking note that names it; never on a line
  about someone else (another person of the vault named, "Ann's …"), never an address whose
  mailbox is another person's name, never a date taken for a phone number;
- a ``last_interaction`` (or any ``on_capture: today``) date field: the latest date a note
  linking to the record states (a date property, or a daily note's name): a file's
  modification time justifies nothing;
- a ``topics`` list: the topics and tags the linking notes carry at least twice;
- a ``link``/``links`` field named after a link type, or ``company`` / ``employer``: the
  record's typed links of that verb (``works_at`` → its company);
- a ``context`` text field, only when asked (``--llm``): the lines of the linking notes that
  name the record, summarised by the LLM (``prompts/brain-enrich.md``), the local server the
  settings name; the reply goes to the audit trail.

Only a field that is missing or empty is filled; a value a person wrote is never replaced
(checked again inside the compare-and-swap edit), and only vaultbrain's own notes (and the
ones adopted) are written unless ``--apply-to-mine`` says the person's may be too. Every
value added goes to the audit trail with the notes and lines it came from. ``--dry-run``
says what would be filled, and from where, and writes nothing.

:func:`run_enrich` is the daemon's scheduled run (setting ``enrich_schedule``, a cron string,
empty = off; vaultbrain/digest/scheduler.py runs it): every enrichable record, offline only.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError, UserError
from vaultbrain.graph.extract import base_key, note_key
from vaultbrain.graph.index import LIVE, GraphIndex
from vaultbrain.graph.links import find_note, outgoing
from vaultbrain.graph.open import graph_of
from vaultbrain.graph.show import wikilink
from vaultbrain.vault.names import fold
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

PROMPT = "brain-enrich.md"
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


def _backlinks(index: GraphIndex, nid: int) -> list[int]:
    keys = index.keys_of(nid)
    if not keys:
        return []
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


def llm_summariser(brain: Brain) -> Any:
    """lines -> one or two sentences, by the brain's LLM client (None: no client)."""
    client = brain.client
    if client is None:
        raise UserError("--llm needs an LLM server (`vaultbrain settings set provider lmstudio`)")
    from vaultbrain.classify.prompt import fill, load_template

    template, _ = load_template(PROMPT)
    schema = {
        "type": "object",
        "properties": {"context": {"type": "string", "maxLength": 400}},
        "required": ["context"],
        "additionalProperties": False,
    }

    def summarise(row: dict[str, Any], lines: list[str]) -> str | None:
        content = fill(
            template,
            {"name": row["title"], "type": row["type"] or "note", "lines": "\n".join(lines)},
        )
        try:
            reply = client.chat_json([{"role": "user", "content": content}], schema, name="context")
        except LLMError as exc:  # the other fields are still filled; context waits
            brain.store.audit(
                {
                    "at": brain.now().isoformat(),
                    "kind": "enrich-llm",
                    "path": row["rel"],
                    "error": str(exc),
                }
            )
            return None
        text = reply.data.get("context") if isinstance(reply.data, dict) else None
        brain.store.audit(
            {
                "at": brain.now().isoformat(),
                "kind": "enrich-llm",
                "path": row["rel"],
                "model": reply.model,
                "raw": reply.raw[:4000],
            }
        )
        return " ".join(text.split())[:400] if isinstance(text, str) and text.strip() else None

    return summarise


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


def people_names(index: GraphIndex, types: list[str]) -> dict[str, int]:
    """Folded names (title, aliases, the first name of a full name) of every note of these
    types, to the note (a name two notes share is left out: it names neither surely)."""
    out: dict[str, int] = {}
    shared: set[str] = set()
    if not types:
        return out
    marks = ",".join("?" * len(types))
    with index.lock:
        rows = index.db.execute(
            f"SELECT n.id, n.title, n.data FROM notes n WHERE n.type IN ({marks}) AND {LIVE}",  # noqa: S608
            types,
        ).fetchall()
    for nid, title, data in rows:
        keys = {fold(title)}
        try:
            # (no properties to decode when none is named "aliases")
            aliases = (json.loads(data).get("aliases") or []) if '"aliases"' in (data or "") else []
        except ValueError:
            aliases = []
        keys |= (
            {fold(str(a)) for a in aliases if isinstance(a, str | int)}
            if isinstance(aliases, list)
            else set()
        )
        keys |= {k.split(" ", 1)[0] for k in list(keys) if " " in k}
        for key in keys - {""}:
            if key in out and out[key] != nid:
                shared.add(key)
            out[key] = nid
    return {k: v for k, v in out.items() if k not in shared and len(k) > 1}


def enrich(
    brain: Brain,
    index: GraphIndex,
    type_name: str | None = None,
    name: str | None = None,
    dry_run: bool = False,
    use_llm: bool = False,
    apply_to_mine: bool = False,
    ours: Callable[[str], bool] | None = None,
    since_last: bool = False,
) -> list[dict[str, Any]]:
    """Fill (or, dry run, list) empty fields of enrichable records. The changes, per note:
    each value with where it came from; ``mine``: a note the person made (written only with
    ``apply_to_mine``: vaultbrain writes its own notes, and the ones adopted). ``ours(rel)``:
    whether vaultbrain made (or the person adopted) the note at ``rel`` (the layer above
    knows the records: filing/index.py ``made_by_vaultbrain``); without it, every note is
    the person's. ``since_last`` (every record, offline: the tending cycle): a record's
    proposals are found again only when a note they were found from changed since the last
    such run (:class:`_Since`); the others are the last run's, the same by construction."""
    pack = brain.pack
    enrichable = [e.type for e in pack.manifest.enrichable_types]
    if type_name:
        t = pack.get_type(type_name)
        if t is None or t.name not in enrichable:
            raise UserError(
                f"{type_name!r} is not enrichable in {pack.name}; enrichable types: "
                + (", ".join(enrichable) or "none")
            )
        enrichable = [t.name]
    targets: list[int]
    if name:
        targets = [find_note(index, name)]
    else:
        marks = ",".join("?" * len(enrichable)) or "''"
        with index.lock:
            targets = [
                n
                for (n,) in index.db.execute(
                    f"SELECT n.id FROM notes n WHERE n.type IN ({marks}) AND {LIVE} "  # noqa: S608
                    "ORDER BY n.rel",
                    enrichable,
                )
            ]
    today = brain.today()
    summarise = llm_summariser(brain) if use_llm else None
    people_types = sorted({t.name for t in brain.all_types() if t.expert_routing})
    since = (
        _Since(
            brain,
            index,
            [*enrichable, "|", *people_types],
            lambda: people_names(index, people_types),
            today,
        )
        if since_last and not (type_name or name or use_llm)
        else None
    )
    people = people_names(index, people_types) if since is None else {}
    out = []
    for nid in targets:
        if since is not None and since.nothing(nid):
            continue
        row = index.note_row(nid)
        if row["type"] not in enrichable:
            raise UserError(f"{row['rel']} is a {row['type'] or 'untyped note'}, not enrichable")
        ptype = pack.get_type(row["type"])
        if since is not None:
            proposals = since.proposals(nid, row["rel"], ptype, summarise)
        else:
            proposals = propose(index, nid, ptype, today, summarise, people)
        if not proposals:
            continue
        mine = ours is None or not ours(row["rel"])
        entry = {"path": row["rel"], "fields": proposals, "written": False, "mine": mine}
        if not dry_run and (apply_to_mine or not mine):
            entry["written"] = _write(brain, index, row["rel"], proposals)
        out.append(entry)
    if since is not None:
        since.save()
    return out


SINCE = "enrich-since.json"  # what the last run found per record, and from which notes
_SINCE_VERSION = "4"
# A record the last run found nothing for, from nothing but its own note (kept as a name).
_PLAIN: dict[str, Any] = {"proposals": {}, "deps": [], "keys": [], "future": False}


class _Since:
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
        if isinstance(last, dict) and last.get("key") == self.key:
            self.records = last.get("records") or {}
            for rel in str(last.get("plain") or "").split("\x00"):
                if rel:
                    self.records[rel] = _PLAIN
            self.last_day = last.get("day")
            self.last_stats = set(str(last.get("stats") or "").split("\x00")) - {""}
            self.dirty = self._dirty(last)

    @property
    def people(self) -> dict[str, int]:
        """The folded names of the vault's people, to their notes (made when first asked)."""
        if self._people is None:
            self._people = self._people_of()
        return self._people

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
        for rel, rec in self.records.items():
            deps = rec.get("deps") or []
            if (
                rel in changed
                or rel in gone
                or any(d in changed or d in gone for d in deps)
                or any(k in touched for k in rec.get("keys") or [])
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
            link_keys = [
                k for (k,) in index.db.execute("SELECT DISTINCT key FROM links WHERE src=?", (nid,))
            ]
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


def _write(brain: Brain, index: GraphIndex, rel: str, proposals: dict[str, dict[str, Any]]) -> bool:
    def build(note: Any) -> str | None:
        if note is None:
            return None
        parsed = parse_note(note.text)
        if parsed.error:
            return None
        changes = {
            k: p["value"] for k, p in proposals.items() if _empty(parsed.data.get(k))
        }  # a value written since the proposal wins
        return update_frontmatter(note.text, changes) if changes else None

    edit = brain.vault.edit(rel, build)
    if not edit.written:
        return False
    now = brain.now().isoformat()
    for field, p in proposals.items():
        brain.store.audit(
            {
                "at": now,
                "kind": "enrich",
                "path": rel,
                "field": field,
                "value": p["value"],
                "from": p["from"],
            }
        )
    return True


def run_enrich(
    brain: Brain,
    day: dt.date | None = None,
    *,
    now: dt.datetime | None = None,
    trigger: str = "manual",
    wait: float = 0.0,
    ours: Callable[[str], bool] | None = None,
) -> dict[str, Any]:
    """The scheduled enrichment (the digest scheduler's job signature): every enrichable
    record's empty fields, from the vault alone. Never the LLM: on a schedule nobody is there
    to have asked for it. Returns what was filled, as a history entry."""
    stamp = now or brain.now()
    # (never a note of yours)
    rows = enrich(brain, graph_of(brain), dry_run=False, use_llm=False, ours=ours)
    written = [r for r in rows if r["written"]]
    return {
        "kind": "enrich",
        "date": (day or stamp.date()).isoformat(),
        "generated": stamp.strftime("%Y-%m-%dT%H:%M:%S"),
        "trigger": trigger,
        "notes": [r["path"] for r in written],
        "fields": sum(len(r["fields"]) for r in written),
    }
