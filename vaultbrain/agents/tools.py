"""What each MCP tool does: the core function its CLI command calls, on the one Brain the
server holds, with limits an agent cannot talk its way past.

- Every tool starts a unit of work (``brain.refresh()``) and the graph tools bring the index
  in step with the vault first (at most every :data:`CATCH_UP_EVERY` seconds: an agent asks
  in bursts), as ``vaultbrain search`` does.
- Limits: result counts capped at :data:`MAX_RESULTS` (the schema says so too), a note's
  text at :data:`MAX_NOTE_CHARS`, and any answer at :data:`MAX_ANSWER_CHARS` of JSON: the
  longest list is cut and ``truncated`` set, so one call never floods an agent's context.
- ``read_note`` reads only Markdown notes inside the vault: never a dot-folder, a sync
  conflict copy, the state dir (even one put inside the vault), a path with ``..``, an
  absolute path, or a symlink out of the vault (:meth:`Vault.resolve` and
  :meth:`Vault.read` refuse those).
- Writes (``capture``, ``review_resolve``) exist only with ``--allow-writes`` and go the
  CLI's way: the inbox line, compare-and-swap, the trust trail.

Errors a person could fix are :class:`vaultbrain.errors.VaultbrainError`; the server turns
them into a tool error with the same one line the CLI prints.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import capture_doc
from vaultbrain.errors import UserError
from vaultbrain.graph import graph_of

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.graph import GraphIndex

MAX_RESULTS = 50
MAX_NOTE_CHARS = 100_000
MAX_ANSWER_CHARS = 200_000
CATCH_UP_EVERY = 2.0


class BrainTools:
    """The tools' bodies, one call at a time (the SDK runs each in a worker thread)."""

    def __init__(self, brain: Brain, allow_writes: bool = False) -> None:
        self.brain = brain
        self.allow_writes = allow_writes
        self.lock = threading.Lock()
        self._caught_up = 0.0

    def _graph(self) -> GraphIndex:
        brain = self.brain
        brain.refresh()
        graph = graph_of(brain)
        now = time.monotonic()
        if now - self._caught_up >= CATCH_UP_EVERY or not graph.built:
            graph.catch_up(brain.vault)
            self._caught_up = time.monotonic()
        return graph

    # -- reading -------------------------------------------------------------------------
    def search(
        self, query: str, mode: str | None, type_name: str | None, limit: int
    ) -> dict[str, Any]:
        from vaultbrain.classify.embeddings import EmbeddingClient
        from vaultbrain.graph.search import find

        graph = self._graph()
        if type_name:
            t = self.brain.pack.get_type(type_name)
            type_name = t.name if t else type_name
        client = EmbeddingClient.from_settings(self.brain.settings, self.brain.state_dir)
        try:
            return bounded(find(graph, client, query, mode, type_name, _cap(limit)))
        finally:
            if client is not None:
                client.close()

    def whoknows(self, topic: str, limit: int) -> dict[str, Any]:
        from vaultbrain.graph.whoknows import whoknows

        graph = self._graph()
        experts = {t.name for t in self.brain.all_types() if t.expert_routing}
        rows = whoknows(graph, topic, experts, self.brain.today(), _cap(limit))
        return bounded({"topic": topic, "expert_types": sorted(experts), "results": rows})

    def links(self, note: str, link_type: str | None) -> dict[str, Any]:
        from vaultbrain.graph.links import links_of

        graph = self._graph()
        return bounded(links_of(graph, note, self.brain.pack, link_type))

    def takes(
        self, kind: str | None, holder: str | None, since: str | None, limit: int
    ) -> dict[str, Any]:
        """The takes found so far (``vaultbrain takes --no-extract``): nothing is extracted
        and nothing written by a read."""
        from vaultbrain.graph.takes import list_takes
        from vaultbrain.packs.usage import parse_since

        graph = self._graph()
        kinds = self.brain.pack.manifest.takes_kinds
        if kind and kind not in kinds:
            raise UserError(f"kind {kind!r}: the pack's takes kinds are {', '.join(kinds)}")
        window = self.brain.today() - parse_since(since) if since else None
        rows = list_takes(graph, self.brain.pack.identity, kind, holder, window)
        return bounded({"takes": rows[: _cap(limit)], "total": len(rows)})

    def related(self, note: str, limit: int) -> dict[str, Any]:
        from vaultbrain.graph.embed import related

        return bounded(related(self._graph(), note, _cap(limit)))

    def read_note(self, note: str, max_chars: int) -> dict[str, Any]:
        """A note's text, found by path, name or alias, only from inside the vault."""
        graph = self._graph()
        rel = self._note_path(graph, note)
        nf = self.brain.vault.read(rel)  # refuses a symlink out of the vault, binary data
        nid = graph.note_id_exact(rel)
        row = graph.note_row(nid) if nid is not None else {"type": None, "title": None}
        limit = max(1, min(int(max_chars), MAX_NOTE_CHARS))
        return {
            "path": rel,
            "type": row["type"],
            "title": row["title"],
            "chars": len(nf.text),
            "truncated": len(nf.text) > limit,
            "text": nf.text[:limit],
        }

    def _note_path(self, graph: GraphIndex, ref: str) -> str:
        from vaultbrain.vault.files import is_ignored

        ref = ref.strip()
        if not ref or "\x00" in ref:
            raise UserError("name a note: its path, name or alias")
        nid = graph.note_id(ref)  # only notes the index holds: inside the vault, no dot-folder
        if nid is not None:
            rel = str(graph.note_row(nid)["rel"])
        else:
            rel = ref.replace("\\", "/")
            if not rel.lower().endswith(".md"):
                rel += ".md"
            self.brain.vault.resolve(rel)  # refuses '..', absolute paths, symlinks out
            if not (self.brain.vault.root / rel).is_file():
                raise UserError(f"no note named {ref!r} (or more than one: give its path)")
        if is_ignored(rel):
            raise UserError(f"{rel} is not a note vaultbrain reads (a dot-folder or a copy)")
        if self._in_state_dir(rel):
            raise UserError(f"{rel} is in vaultbrain's state dir, not a note")
        return rel

    def _in_state_dir(self, rel: str) -> bool:
        state = Path(self.brain.state_dir).resolve()
        path = (self.brain.vault.root / rel).resolve()
        return path == state or state in path.parents

    def review_list(self) -> dict[str, Any]:
        """The Needs Review queue (``vaultbrain review list``). Read-only, the decisions a
        person already wrote in ``Brain/Needs Review.md`` are shown as the note has them and
        applied by the daemon; with writes allowed they are applied first, as the CLI does."""
        from vaultbrain.capture.review import queue
        from vaultbrain.capture.review_queue import ReviewQueue

        brain = self.brain
        brain.refresh()
        if self.allow_writes:
            ReviewQueue(brain).apply_decisions(now=True)
        items = queue(brain)
        return bounded(
            {
                "needs_decision": [capture_doc(r) for r in items["decide"]],
                "suggestions": [capture_doc(r) for r in items["suggest"]],
                "conflicts": items["conflicts"],
            }
        )

    def digest_latest(self) -> dict[str, Any]:
        from vaultbrain.digest import latest_digest

        self.brain.refresh()
        entry = latest_digest(self.brain)
        text = entry.get("text")
        if isinstance(text, str) and len(text) > MAX_NOTE_CHARS:
            entry["text"], entry["truncated"] = text[:MAX_NOTE_CHARS], True
        return bounded(entry)

    def pack_types(self) -> list[dict[str, Any]]:
        """The active pack's types, as resources show them."""
        self.brain.refresh()
        return [type_doc(t) for t in self.brain.all_types()]

    # -- writing (only with --allow-writes) -----------------------------------------------
    def capture(self, text: str) -> dict[str, Any]:
        """``vaultbrain capture TEXT``: the thought on an inbox line, classified and filed."""
        from vaultbrain.capture.pipeline import capture

        self._writes()
        brain = self.brain
        brain.refresh()
        return capture_doc(capture(brain, text).to_record())

    def review_resolve(
        self, capture_id: str, type_name: str, fields: dict[str, str], title: str | None
    ) -> dict[str, Any]:
        """``vaultbrain review resolve ID TYPE``: a person's decision, with its trust trail."""
        from vaultbrain.capture.resolution import resolve
        from vaultbrain.capture.review import resolve_conflict
        from vaultbrain.capture.review_queue import ReviewQueue
        from vaultbrain.capture.trust import write_trust_note

        self._writes()
        brain = self.brain
        brain.refresh()
        if brain.store.collection("conflicts").get(capture_id) is not None:
            resolve_conflict(brain, capture_id)
            doc: dict[str, Any] = {"conflict": capture_id, "kept": "the note's version"}
        else:
            doc = capture_doc(
                resolve(brain, capture_id, type_name, dict(fields), title=title).to_record()
            )
        # Brain/Needs Review.md and Brain/Trust.md follow the decision, as after the CLI's
        ReviewQueue(brain).refresh(force=True)
        write_trust_note(brain)
        return doc

    def _writes(self) -> None:
        if not self.allow_writes:
            raise UserError(
                "this server was started read-only; writing to the vault needs "
                "`vaultbrain mcp --allow-writes`"
            )


def type_doc(t: Any) -> dict[str, Any]:
    from vaultbrain.packs.resolved import as_data

    doc = as_data(t, drop_none=True)
    return {k: v for k, v in doc.items() if v not in ([], {}, False) or k == "fileable"}


def _cap(limit: int) -> int:
    return max(1, min(int(limit), MAX_RESULTS))


def bounded(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as it is when its JSON fits :data:`MAX_ANSWER_CHARS`; else its longest list
    cut until it does, with ``truncated: true``."""
    size = len(json.dumps(doc, default=str, ensure_ascii=False))
    if size <= MAX_ANSWER_CHARS:
        return doc
    lists = [k for k, v in doc.items() if isinstance(v, list) and v]
    if not lists:
        for k, v in doc.items():
            if isinstance(v, str) and len(v) > MAX_ANSWER_CHARS // 2:
                doc[k] = v[: MAX_ANSWER_CHARS // 2]
        doc["truncated"] = True
        return doc
    key = max(lists, key=lambda k: len(json.dumps(doc[k], default=str, ensure_ascii=False)))
    items = list(doc[key])
    while items and size > MAX_ANSWER_CHARS:
        items = items[: len(items) * 3 // 4]
        doc[key] = items
        size = len(json.dumps(doc, default=str, ensure_ascii=False))
    doc["truncated"] = True
    return doc
