"""What each MCP tool does: the core function its CLI command calls, on the one Brain the
server holds, with limits an agent cannot talk its way past.

- Every tool starts a unit of work (``brain.refresh()``) and the graph tools bring the index
  in step with the vault first (at most every :data:`CATCH_UP_EVERY` seconds: an agent asks
  in bursts), as ``vaultbrain search`` does.
- Limits: result counts capped at :data:`MAX_RESULTS` (the schema says so too), a note's
  text at :data:`MAX_NOTE_CHARS`, and any answer at :data:`MAX_ANSWER_CHARS` of JSON: the
  longest list is cut and ``truncated`` set, so one call never floods an agent's context.
- ``read_note`` reads only Markdown notes inside the vault, judged by where the note really
  is (every symlink followed): never a dot-folder (``.obsidian``, ``.git``, ``.trash``), a
  sync conflict copy, the state dir (even one put inside the vault), a path with ``..``, an
  absolute path, or anything out of the vault. Its text comes back as
  ``untrusted_content`` beside ``source: "vault"``: words from the person's notes (or from
  whoever put text there) are data for the agent, never instructions to it, as the MCP
  specification asks of tool results.
- Writes (``capture``, ``review_resolve``) exist only with ``--allow-writes`` and go the
  CLI's way: the inbox line, compare-and-swap, the trust trail. Each takes an optional
  ``idempotency_key``: an agent that retries after its client gave up gets the same capture
  back, made once. The key's capture id is kept in the store (collection
  :data:`KEYS`) before the capture starts, so a retry after a crash or a restart finishes
  that capture instead of making another.
- Reads and writes hold different locks: a search answers while a capture waits on the LLM
  (the brain and the graph index are thread-safe; writes stay one at a time).

Errors a person could fix are :class:`vaultbrain.errors.VaultbrainError`; the server turns
them into a tool error with the same one line the CLI prints.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
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
KEYS = "agent_keys"  # the store collection: an idempotency key -> what its call made
MAX_KEY_CHARS = 200


class BrainTools:
    """The tools' bodies, one call at a time (the SDK runs each in a worker thread)."""

    def __init__(self, brain: Brain, allow_writes: bool = False) -> None:
        self.brain = brain
        self.allow_writes = allow_writes
        # Reads one at a time, writes one at a time, and a read never waits for a write.
        self.lock = threading.Lock()
        self.write_lock = threading.Lock()
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
        from vaultbrain.bounds import span
        from vaultbrain.graph.takes import list_takes

        back = span(since, "since") if since else None
        graph = self._graph()
        kinds = self.brain.pack.manifest.takes_kinds
        if kind and kind not in kinds:
            raise UserError(f"kind {kind!r}: the pack's takes kinds are {', '.join(kinds)}")
        window = self.brain.today() - back if back is not None else None
        rows = list_takes(graph, self.brain.pack.identity, kind, holder, window)
        return bounded({"takes": rows[: _cap(limit)], "total": len(rows)})

    def related(self, note: str, limit: int) -> dict[str, Any]:
        from vaultbrain.graph.embed import related

        return bounded(related(self._graph(), note, _cap(limit)))

    def read_note(self, note: str, max_chars: int) -> dict[str, Any]:
        """A note's text, found by path, name or alias, only from inside the vault; marked as
        the vault's content (``untrusted_content``), not the server's words."""
        graph = self._graph()
        rel = self._note_path(graph, note)
        real = self._readable(rel)
        nf = self.brain.vault.read(real)  # (by where it really is: no link followed again)
        nid = graph.note_id_exact(rel)
        row = graph.note_row(nid) if nid is not None else {"type": None, "title": None}
        limit = max(1, min(int(max_chars), MAX_NOTE_CHARS))
        return {
            "source": "vault",
            "path": rel,
            "type": row["type"],
            "title": row["title"],
            "chars": len(nf.text),
            "truncated": len(nf.text) > limit,
            "untrusted_content": nf.text[:limit],
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
        return rel

    def _readable(self, rel: str) -> str:
        """Where the note at ``rel`` really is (its path from the vault root, every symlink
        followed), or one clear refusal: outside the vault, in a dot-folder or a copy, in
        the state dir."""
        from vaultbrain.vault.files import is_ignored

        root = Path(os.path.realpath(self.brain.vault.root))
        real = Path(os.path.realpath(self.brain.vault.root / rel))
        refused = f"{rel} is not a note an agent may read: "
        state = Path(os.path.realpath(self.brain.state_dir))
        if real == state or state in real.parents:
            raise UserError(refused + "it is in vaultbrain's state dir")
        if root not in real.parents:
            raise UserError(refused + "it leads outside the vault")
        real_rel = real.relative_to(root).as_posix()
        if is_ignored(real_rel):
            raise UserError(
                refused + f"it leads to {real_rel}, in a dot-folder (.obsidian, .git, .trash) "
                "or a sync copy"
            )
        if not real_rel.lower().endswith(".md") or not real.is_file():
            raise UserError(refused + f"it leads to {real_rel}, which is not a Markdown note")
        return real_rel

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
    def capture(self, text: str, idempotency_key: str | None = None) -> dict[str, Any]:
        """``vaultbrain capture TEXT``: the thought on an inbox line, classified and filed.
        With ``idempotency_key``: a repeat of the call (same key, same text) returns the
        capture the first call made (finishing it if the first call was cut short)."""
        from vaultbrain.capture import lines
        from vaultbrain.capture.journal import Journal
        from vaultbrain.capture.pipeline import capture
        from vaultbrain.statuses import CaptureStatus

        self._writes()
        brain = self.brain
        brain.refresh()
        if idempotency_key is None:
            return capture_doc(capture(brain, text).to_record())
        thought = lines.check_thought(text)
        entry = self._keyed(
            "capture", idempotency_key, thought, lambda: {"capture": Journal(brain).new_id()}
        )
        cid = str(entry["capture"])
        known = Journal(brain).get(cid)
        if known is not None and known.text == thought and known.status != CaptureStatus.PENDING:
            doc = capture_doc(known.to_record())
        else:  # (made once: a line carrying the id is never added twice)
            doc = capture_doc(capture(brain, thought, cid).to_record())
        return doc | {"idempotency_key": idempotency_key, "repeated": entry["repeated"]}

    def _keyed(
        self, tool: str, key: str, request: Any, make: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """The store's entry for ``key`` of ``tool``, made (by ``make``) and kept before the
        call's work starts; ``repeated`` says whether it was there already. A key used
        before for another request is refused."""
        key = key.strip()
        if not key or len(key) > MAX_KEY_CHARS or "\x00" in key:
            raise UserError(f"an idempotency key is 1 to {MAX_KEY_CHARS} characters")
        rid = "k" + hashlib.blake2b(f"{tool}\0{key}".encode(), digest_size=16).hexdigest()
        asked = hashlib.blake2b(
            json.dumps(request, sort_keys=True, ensure_ascii=False).encode(), digest_size=16
        ).hexdigest()
        store = self.brain.store
        with store.locked():  # (two servers given one key make one entry)
            col = store.collection(KEYS)
            entry = col.get(rid)
            if entry is None:
                entry = {"id": rid, "tool": tool, "request": asked, "made": time.time()}
                entry |= make()
                col.put(entry)
                return entry | {"repeated": False}
        if entry.get("request") != asked:
            raise UserError(
                f"idempotency key {key!r} was used for another {tool} call; "
                "use a new key for a new request"
            )
        return entry | {"repeated": True}

    def _keep_result(self, entry: dict[str, Any], result: dict[str, Any]) -> None:
        store = self.brain.store
        with store.locked():
            keep = {k: v for k, v in entry.items() if k != "repeated"}
            store.collection(KEYS).put(keep | {"result": result})

    def review_resolve(
        self,
        capture_id: str,
        type_name: str,
        fields: dict[str, str],
        title: str | None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """``vaultbrain review resolve ID TYPE``: a person's decision, with its trust trail.
        With ``idempotency_key``: a repeat returns the first call's answer, resolving once."""
        self._writes()
        self.brain.refresh()
        if idempotency_key is None:
            return self._resolve(capture_id, type_name, fields, title)
        request = [capture_id, type_name, fields, title]
        entry = self._keyed("review_resolve", idempotency_key, request, dict)
        if isinstance(entry.get("result"), dict):
            return dict(entry["result"]) | {"repeated": True}
        doc = self._resolve(capture_id, type_name, fields, title)
        self._keep_result(entry, doc)
        return doc | {"repeated": entry["repeated"]}

    def _resolve(
        self, capture_id: str, type_name: str, fields: dict[str, str], title: str | None
    ) -> dict[str, Any]:
        from vaultbrain.capture.resolution import resolve
        from vaultbrain.capture.review import resolve_conflict
        from vaultbrain.capture.review_queue import ReviewQueue
        from vaultbrain.capture.trust import write_trust_note

        brain = self.brain
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
