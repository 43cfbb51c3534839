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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError, UserError
from vaultbrain.graph.enrich_rules import _empty, propose, reading
from vaultbrain.graph.index import LIVE, GraphIndex
from vaultbrain.graph.links import find_note
from vaultbrain.graph.open import graph_of
from vaultbrain.vault.names import fold
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

PROMPT = "brain-enrich.md"


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


WHOLE_AT = 200  # records found anew from which a run reads the index's links at once


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
            # (the properties only of a note that has some named "aliases": no others to
            # fetch and decode)
            "SELECT n.id, n.title, CASE WHEN instr(n.data, '\"aliases\"') > 0 THEN n.data END "  # noqa: S608
            f"FROM notes n WHERE n.type IN ({marks}) AND {LIVE}",
            types,
        ).fetchall()
    for nid, title, data in rows:
        keys = {fold(title)}
        try:
            aliases = (json.loads(data).get("aliases") or []) if data else []
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
    such run (:class:`~vaultbrain.graph.enrich_since.Since`); the others are the last run's, the same by construction."""
    from vaultbrain.graph.enrich_since import Since  # (it builds on what is here)

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
    graph, index = index, reading(index)  # (each note's rows asked once in the run)
    today = brain.today()
    summarise = llm_summariser(brain) if use_llm else None
    people_types = sorted({t.name for t in brain.all_types() if t.expert_routing})
    since = (
        Since(
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
    many = since.dirty if since is not None and since.dirty is not None else targets
    if len(targets) >= WHOLE_AT and len(many) >= WHOLE_AT:
        # (most records found anew: every name and link read at once, not note by note)
        index = reading(graph, whole=True)
        if since is not None:
            since.index = index
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
