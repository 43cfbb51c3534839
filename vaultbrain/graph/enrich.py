"""``vaultbrain enrich``: fill the empty declared fields of records of the pack's
``enrichable_types`` from what the vault already says. Nothing leaves the machine.

Per record (its note and the notes that link to it, read from the graph index):
- a ``contact`` field: the e-mail address (else phone number) written most often in those
  notes, on a line that names the record;
- a ``last_interaction`` (or any ``on_capture: today``) date field: the latest date of a note
  that links to the record;
- a ``topics`` list: the topics and tags the linking notes carry at least twice;
- a ``link``/``links`` field named after a link type, or ``company`` / ``employer``: the
  record's typed links of that verb (``works_at`` → its company);
- a ``context`` text field, only when asked (``--llm``): the lines of the linking notes that
  name the record, summarised by the LLM (``prompts/brain-enrich.md``), the local server the
  settings name; the reply goes to the audit trail.

Only a field that is missing or empty is filled; a value a person wrote is never replaced
(checked again inside the compare-and-swap edit). Every value added goes to the audit trail
with the notes and lines it came from. ``--dry-run`` says what would be filled and writes
nothing.

:func:`run_enrich` is the daemon's scheduled run (setting ``enrich_schedule``, a cron string,
empty = off; vaultbrain/digest/scheduler.py runs it): every enrichable record, offline only.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError, UserError
from vaultbrain.graph import graph_of
from vaultbrain.graph.index import GraphIndex
from vaultbrain.graph.links import outgoing
from vaultbrain.graph.show import wikilink
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

PROMPT = "brain-enrich.md"
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
PHONE = re.compile(r"(?<![\w])\+?\d[\d ()./-]{6,}\d(?![\w])")
_TOPIC_KEYS = ("topics", "tags")


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
    names = {row["title"].lower()}
    data = index.note_data(nid)
    for alias in data.get("aliases") or []:
        if isinstance(alias, str):
            names.add(alias.lower())
    first = row["title"].split()[0].lower() if row["title"].split() else ""
    if len(first) > 2:
        names.add(first)
    return sorted(names)


def propose(
    index: GraphIndex, nid: int, ptype: Any, today: dt.date, summarise: Any = None
) -> dict[str, dict[str, Any]]:
    """field -> {"value", "from"} for the record's empty declared fields (``summarise``:
    lines -> a context sentence, or None for no LLM)."""
    data = index.note_data(nid)
    fields = ptype.fields
    empty = [f for f in fields if _empty(data.get(f))]
    if not empty:
        return {}
    back = _backlinks(index, nid)
    names = _names(index, nid)
    out: dict[str, dict[str, Any]] = {}
    for field in empty:
        spec = fields[field]
        if field == "contact":
            found = _contact(index, nid, back, names)
            if found:
                out[field] = found
        elif spec.type == "date" and (field == "last_interaction" or spec.on_capture):
            days = [(index.note_row(s)["day"], s) for s in back]
            days = [(d, s) for d, s in days if d and d <= today.toordinal()]
            if days:
                day, src = max(days)
                out[field] = {
                    "value": dt.date.fromordinal(day).isoformat(),
                    "from": [index.note_row(src)["rel"]],
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


def _mentions(index: GraphIndex, back: list[int], names: list[str]) -> list[tuple[str, str]]:
    """(note, line) of the linking notes' lines that name the record, at most 40."""
    out = []
    for s in back:
        rel = index.note_row(s)["rel"]
        for line in index.body(s).splitlines():
            if line.strip() and any(n in line.lower() for n in names):
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
    index: GraphIndex, nid: int, back: list[int], names: list[str]
) -> dict[str, Any] | None:
    for pattern in (EMAIL, PHONE):
        counts: Counter[str] = Counter()
        where: dict[str, list[str]] = {}
        for s in [nid, *back]:
            rel = index.note_row(s)["rel"]
            for line in index.body(s).splitlines():
                low = line.lower()
                if s != nid and not any(n in low for n in names):
                    continue  # another note: only a line that names the record counts
                for m in pattern.findall(line):
                    value = m.strip()
                    counts[value] += 1
                    where.setdefault(value, []).append(f"{rel}: {line.strip()[:160]}")
        if counts:
            value, _ = counts.most_common(1)[0]
            return {"value": value, "from": where[value][:3]}
    return None


def enrich(
    brain: Brain,
    index: GraphIndex,
    type_name: str | None = None,
    name: str | None = None,
    dry_run: bool = False,
    use_llm: bool = False,
) -> list[dict[str, Any]]:
    """Fill (or, dry run, list) empty fields of enrichable records. The changes, per note."""
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
        nid = index.note_id(name)
        if nid is None:
            raise UserError(f"no note named {name!r} (or more than one: give its path)")
        targets = [nid]
    else:
        marks = ",".join("?" * len(enrichable)) or "''"
        with index.lock:
            targets = [
                n
                for (n,) in index.db.execute(
                    f"SELECT id FROM notes WHERE type IN ({marks}) ORDER BY rel",  # noqa: S608
                    enrichable,
                )
            ]
    today = brain.today()
    summarise = llm_summariser(brain) if use_llm else None
    out = []
    for nid in targets:
        row = index.note_row(nid)
        if row["type"] not in enrichable:
            raise UserError(f"{row['rel']} is a {row['type'] or 'untyped note'}, not enrichable")
        ptype = pack.get_type(row["type"])
        proposals = propose(index, nid, ptype, today, summarise)
        if not proposals:
            continue
        entry = {"path": row["rel"], "fields": proposals, "written": False}
        if not dry_run:
            entry["written"] = _write(brain, index, row["rel"], proposals)
        out.append(entry)
    return out


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
) -> dict[str, Any]:
    """The scheduled enrichment (the digest scheduler's job signature): every enrichable
    record's empty fields, from the vault alone. Never the LLM: on a schedule nobody is there
    to have asked for it. Returns what was filled, as a history entry."""
    stamp = now or brain.now()
    rows = enrich(brain, graph_of(brain), dry_run=False, use_llm=False)
    written = [r for r in rows if r["written"]]
    return {
        "kind": "enrich",
        "date": (day or stamp.date()).isoformat(),
        "generated": stamp.strftime("%Y-%m-%dT%H:%M:%S"),
        "trigger": trigger,
        "notes": [r["path"] for r in written],
        "fields": sum(len(r["fields"]) for r in written),
    }
