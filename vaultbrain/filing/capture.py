"""Filing a thought exactly once.

Each step records its effect before the next begins and checks for its own effect before it
acts, so any step may run twice after a crash without harm:

1. anchor + journal: the inbox line carries ``^vb-<id>``; a capture record ``pending`` exists
   (a line with an id but no record gets its record on the next pass);
2. classify: the parsed result is stored on the record and never asked for again;
3. plan: the exact target paths and operations (create / update) are stored on the record;
4. write: each note is written with compare-and-swap; a note that already holds
   ``^vb-<id>`` is not written again; the store follows the note;
5. finish: the status is set and the inbox line rewritten to its final form.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from vaultbrain.classify.classifier import classify_with_fallback
from vaultbrain.classify.llm import LLMClient
from vaultbrain.classify.result import Band, Classification, Destination, band_for
from vaultbrain.errors import ConflictError, LLMError, UserError
from vaultbrain.filing import inbox as inbox_note
from vaultbrain.filing.index import RecordIndex, collections_of
from vaultbrain.filing.links import bare_url, title_for_url
from vaultbrain.filing.records import (
    block_link,
    link_to,
    new_id,
    ordered_frontmatter,
    record_from_note,
    render_body,
)
from vaultbrain.packs import PageType, ResolvedPack
from vaultbrain.procs import pid_alive
from vaultbrain.vault import content_hash
from vaultbrain.vault.names import sanitize_filename, unique_name
from vaultbrain.vault.note import append_to_section, parse_note, render_note, update_frontmatter

log = logging.getLogger("vaultbrain.filing")

MAX_THOUGHT = 10_000
LEASE_SECONDS = 300.0
LOG_HEADING = "## Log"
_LINK_FIELDS = {"project": ("people",), "admin": ("related",), "idea": ("related",)}


def check_thought(text: str) -> str:
    """The thought to file, or a UserError saying why it cannot be."""
    thought = text.strip()
    if not thought:
        raise UserError("nothing to capture: the thought is empty")
    if len(thought) > MAX_THOUGHT:
        raise UserError(
            f"the thought is {len(thought)} characters; the limit is {MAX_THOUGHT}. "
            "Put long text in a note of its own and capture a line about it."
        )
    if "\n" in thought or "\r" in thought:
        raise UserError("a thought is one line; capture each line on its own")
    return thought


class Filer:
    """Files captures for one app; shared by the CLI and the daemon (thread-safe)."""

    def __init__(self, app: Any, client: LLMClient | None = None) -> None:
        self.app = app
        self.lock = threading.RLock()
        self._client = client
        self._index: RecordIndex | None = None
        # capture id -> ((updated, status), what its inbox line needs): see inbox_pass
        self.line_views: dict[str, tuple[Any, dict[str, Any]]] = {}

    # -- collaborators -------------------------------------------------------------------
    @property
    def pack(self) -> ResolvedPack:
        return self.app.pack

    @property
    def inbox_rel(self) -> str:
        rel = str(self.app.settings.get("inbox_note"))
        self.app.vault.shared_own.add(rel)
        return rel

    def folder_packs(self) -> list[ResolvedPack]:
        """Packs that type notes under particular folders (tier 3 of the resolution chain)."""
        from vaultbrain.packs.loader import folder_packs, home_dir, load_pack

        stamp = self.app.settings._mtime
        if self._folder_stamp == stamp and self._folder_packs is not None:
            return self._folder_packs[1]
        self._folder_stamp = stamp
        names = tuple(name for _, name in folder_packs(self.app.settings))
        if not names:
            self._folder_packs = ((), [])
            return []
        if self._folder_packs is None or self._folder_packs[0] != names:
            self._folder_packs = (names, [load_pack(n, home_dir(self.app.env)) for n in names])
        return self._folder_packs[1]

    _folder_packs: tuple[tuple[str, ...], list[ResolvedPack]] | None = None
    _folder_stamp: int | None = -1

    @property
    def index(self) -> RecordIndex:
        pack = self.pack
        extra = self.folder_packs()
        key = (pack.identity, *[p.identity for p in extra])
        if self._index is None or self._index_key != key:
            self._index = RecordIndex(self.app.store, pack, extra)
            self._index_key = key
        else:
            self._index.refresh()
        return self._index

    _index_key: tuple[str, ...] = ()

    def loaded_index(self) -> RecordIndex | None:
        """The record index if it has been built (building it loads every summary)."""
        return self._index

    def collections(self) -> list[str]:
        """The store collections the index covers, without building it."""
        return collections_of(self.pack, self.folder_packs())

    def client(self) -> LLMClient | None:
        s = self.app.settings
        if s.get("provider") == "heuristic":
            return None
        fresh = LLMClient.from_settings(s, self.app.state_dir)  # cheap: no request is made
        c = self._client
        if c is None or (c.endpoint, c.model, c.timeout, c.max_tokens) != (
            fresh.endpoint,
            fresh.model,
            fresh.timeout,
            fresh.max_tokens,
        ):
            self._client = fresh
        return self._client

    # -- step 1: journal -----------------------------------------------------------------
    def journal(self, capture_id: str, text: str, origin: str, note: str | None) -> dict[str, Any]:
        """The capture record for an anchored line (created once; returned as is after)."""
        store = self.app.store
        with store.locked():
            existing = store.inbox.get(capture_id, include_deleted=True)
            if existing is not None:
                return existing
            now = self.app.now().isoformat()
            record = {
                "id": capture_id,
                "text": text,
                "text_hash": content_hash(text),
                "note": note,
                "origin": origin,
                "created": now,
                "updated": now,
                "status": "pending",
                "attempts": 0,
            }
            store.inbox.put(record)
            return record

    def new_capture_id(self) -> str:
        while True:
            cid = new_id(6)
            if self.app.store.inbox.summary(cid, include_deleted=True) is None:
                return cid

    def capture(self, text: str) -> dict[str, Any]:
        """The CLI's capture: a new inbox line, then the whole pipeline, in this process."""
        thought = check_thought(text)
        cid = self.new_capture_id()
        rel = self.inbox_rel
        lease = self._lease()
        inbox_note.add_line(self.app.vault, rel, f"- [ ] {thought} {inbox_note.WAITING} ^vb-{cid}")
        record = self.journal(cid, thought, "cli", rel)
        record["lease"] = lease
        record["line_suffix"] = inbox_note.WAITING
        with self.app.store.locked():
            self.app.store.inbox.put(record)
        done = self.process(cid, hold_lease=True)
        if done.get("lease"):  # still pending: let the daemon retry it at once, not in 5 min
            with self.app.store.locked():
                fresh = self.app.store.inbox.get(cid) or done
                fresh.pop("lease", None)
                self.app.store.inbox.put(fresh)
                done = fresh
        return done

    # -- leases: one process works on a capture at a time ---------------------------------
    def _lease(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "until": time.time() + LEASE_SECONDS}

    @staticmethod
    def _leased_elsewhere(record: dict[str, Any]) -> bool:
        lease = record.get("lease")
        if not lease or lease.get("pid") == os.getpid() or lease.get("until", 0) < time.time():
            return False
        try:
            return pid_alive(int(lease["pid"]))
        except (ValueError, TypeError):
            return False

    # -- the pipeline --------------------------------------------------------------------
    def process(
        self, capture_id: str, hold_lease: bool = False, rewrite_line: bool = True
    ) -> dict[str, Any]:
        """Run every step still to do for a capture. Returns the record as it ends up."""
        store = self.app.store
        record = store.inbox.get(capture_id)
        if record is None:
            raise UserError(f"no capture {capture_id!r}")
        if not hold_lease and self._leased_elsewhere(record):
            return record
        if record["status"] == "pending" and "classification" not in record:
            record = self.take_special(record) or self.classify(record)
            if "classification" not in record:
                return record  # still pending: the LLM is down and there is no fallback
        if record["status"] == "pending":
            record = self.file(record)
        return self.finish_line(record) if rewrite_line else record

    def take_special(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """A bare URL becomes a link and a YouTube video URL an ingest, without the classifier."""
        text = record["text"]
        first = text.split()[0] if text.split() else ""
        # Every YouTube host has "youtu" in its name: other thoughts never import the ingest.
        if "youtu" in first.lower():
            from vaultbrain.youtube import is_youtube_url

            if is_youtube_url(first):
                return self._ingest_youtube(record)
        url = bare_url(text)
        if url is None:
            return None
        result = Classification(
            [Destination("link", title_for_url(url), {"url": url})],
            1.0,
            "A bare URL: saved as a link",
            "url",
        )
        return self._store_classification(record, result, {"provider": "url"}, 0.0)

    def _ingest_youtube(self, record: dict[str, Any]) -> dict[str, Any]:
        from vaultbrain import youtube

        text = record["text"]
        try:
            request = youtube.parse_inbox_line(text)
            if request is None:
                raise UserError(youtube.inbox_refusal(text) or "not a single-video YouTube URL")
            request = request.with_source(block_link(self.inbox_rel, record["id"]))
            result = youtube.ingest(self.app, request, progress=youtube.progress_logger(log))
        except UserError as exc:
            outcome = {"status": "needs_review", "destinations": [], "last_error": str(exc)}
        else:
            title = str(getattr(result, "title", "") or result.video_id)
            dests = []
            if result.note_path:
                dests.append(
                    {
                        "type": "youtube",
                        "title": title,
                        "path": result.note_path,
                        "record_id": "",
                        "op": "create",
                    }
                )
            if result.link_path:
                link = self.index.by_path(result.link_path)
                dests.append(
                    {
                        "type": "link",
                        "title": title,
                        "path": result.link_path,
                        "record_id": link[1]["id"] if link else "",
                        "op": "create",
                    }
                )
            outcome = {
                "status": "filed",
                "destinations": dests,
                "warnings": list(result.warnings or []),
            }
        with self.app.store.locked():
            fresh = self.app.store.inbox.get(record["id"]) or record
            fresh.update(outcome)
            fresh["classification"] = Classification(
                [], 1.0, "A YouTube video URL: ingested", "youtube"
            ).to_dict()
            fresh["updated"] = self.app.now().isoformat()
            self.app.store.inbox.put(fresh)
        return fresh

    def _store_classification(
        self, record: dict[str, Any], result: Classification, audit: dict[str, Any], elapsed: float
    ) -> dict[str, Any]:
        pack = self.pack
        with self.app.store.locked():
            fresh = self.app.store.inbox.get(record["id"]) or record
            if "classification" in fresh:
                return fresh  # another worker got there first; never ask twice
            fresh["classification"] = result.to_dict()
            fresh["pack"] = pack.identity
            fresh["model"] = result.model
            fresh.setdefault("timings", {})["classify_ms"] = round(elapsed, 2)
            fresh["updated"] = self.app.now().isoformat()
            fresh.pop("last_error", None)
            # Not fsynced: a power cut that loses it means asking the model again.
            self.app.store.inbox.put(fresh, durable=False)
        self.app.store.audit(
            {
                "at": self.app.now().isoformat(),
                "kind": "classification",
                "capture": record["id"],
                "input": record["text"],
                "pack": pack.identity,
                "model": result.model,
                "classified_by": result.classified_by,
                "raw": (result.raw or "")[:20000],
                "parsed": result.to_dict(),
                "dropped": result.dropped,
                "confidence": result.confidence,
                "reasoning": result.reasoning,
                "timings": {
                    "classify_ms": round(elapsed, 2),
                    "llm_ms": round(result.elapsed_ms, 2),
                },
                "tokens": result.usage,
                **audit,
            }
        )
        return fresh

    def classify(self, record: dict[str, Any]) -> dict[str, Any]:
        s = self.app.settings
        pack = self.pack
        index = self.index
        known = [
            {"type": k["type"], "title": k["title"], "aliases": k.get("aliases", [])}
            for k in index.mentioned(record["text"])
        ]
        examples = self.correction_examples(record["text"])
        started = time.perf_counter()
        try:
            result, audit = classify_with_fallback(
                s.get("provider"),
                s.get("fallback"),
                self.client(),
                pack,
                record["text"],
                self.app.today(),
                known,
                examples,
                float(s.get("auto_confidence")),
            )
        except LLMError as exc:
            return self._classify_failed(record, exc)
        elapsed = (time.perf_counter() - started) * 1000
        return self._store_classification(record, result, audit, elapsed)

    def _classify_failed(self, record: dict[str, Any], exc: LLMError) -> dict[str, Any]:
        attempts = int(record.get("attempts", 0)) + 1
        with self.app.store.locked():
            fresh = self.app.store.inbox.get(record["id"]) or record
            fresh["attempts"] = attempts
            fresh["last_error"] = f"{exc.kind}: {exc.cause}"  # shown in notes: no raw server text
            base = float(self.app.settings.get("retry_seconds"))
            fresh["next_attempt"] = time.time() + min(600.0, base * 2 ** min(attempts - 1, 12))
            fresh["updated"] = self.app.now().isoformat()
            if not exc.retryable and attempts >= 3:
                fresh["classification"] = Classification(
                    [], 0.0, "", "lmstudio", error=f"the classifier failed: {exc.cause}"
                ).to_dict()
            self.app.store.inbox.put(fresh)
        self.app.store.audit(
            {
                "at": self.app.now().isoformat(),
                "kind": "classification_failed",
                "capture": record["id"],
                "error": str(exc),
                "error_kind": exc.kind,
                "attempts": attempts,
            }
        )
        # INFO: the client's FailureLog warns once per kind of failure, not once per line.
        log.info("capture %s: classifier failed (%s); will retry", record["id"], exc)
        return fresh

    def correction_examples(self, text: str) -> list[dict[str, Any]]:
        from vaultbrain.filing.corrections import similar_corrections

        return similar_corrections(
            self.app.store, text, int(self.app.settings.get("correction_examples"))
        )

    # -- plan + write --------------------------------------------------------------------
    def band(self, confidence: float) -> Band:
        s = self.app.settings
        return band_for(confidence, float(s.get("auto_confidence")), float(s.get("min_confidence")))

    def file(self, record: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        result = Classification.from_dict(record["classification"])
        band = self.band(result.confidence)
        with self.lock, self.app.store.locked():
            record = self.app.store.inbox.get(record["id"]) or record
            if record["status"] != "pending":
                return record
            dests = result.fileable
            if band is Band.REVIEW or not dests or result.error and not result.destinations:
                record["status"] = "needs_review"
                record["destinations"] = []
            else:
                if "plan" not in record:
                    record["plan"] = self.plan(record["id"], dests)
                    self.app.store.inbox.put(record)
                confirmed = band is Band.AUTO
                record["destinations"] = self.write(record, result, confirmed)
                record["status"] = "filed" if confirmed else "suggested"
            record.setdefault("timings", {})["file_ms"] = round(
                (time.perf_counter() - started) * 1000, 2
            )
            record["band"] = band.value
            record["updated"] = self.app.now().isoformat()
            # Not fsynced: the plan above was, and filing it again finds its notes written.
            self.app.store.inbox.put(record, durable=False)
        return record

    def plan(self, capture_id: str, dests: list[Destination]) -> list[dict[str, Any]]:
        """Exact targets for each destination: an existing record to update, or a new path."""
        self.index.refresh(force=True)  # under the store lock: another process's new record counts
        ops: list[dict[str, Any]] = []
        seen: set[tuple[str, str]] = set()
        planned: set[str] = set()
        for d in dests:
            ptype = self.pack.get_type(d.type)
            if ptype is None:
                continue
            key = (ptype.name, d.title.lower())
            if key in seen:
                continue
            seen.add(key)
            existing = self.index.find(ptype.name, d.title)
            if existing and existing.get("path"):
                ops.append(
                    {
                        "op": "update",
                        "type": ptype.name,
                        "title": existing["title"],
                        "path": existing["path"],
                        "record_id": existing["id"],
                        "collection": ptype.store_collection,
                        "fields": d.fields,
                    }
                )
                continue
            path = self._free_path(ptype, d.title, planned)
            planned.add(path.lower())
            ops.append(
                {
                    "op": "create",
                    "type": ptype.name,
                    "title": d.title,
                    "path": path,
                    "record_id": new_id(),
                    "collection": ptype.store_collection,
                    "fields": d.fields,
                }
            )
        return ops

    def _free_path(self, ptype: PageType, title: str, planned: set[str]) -> str:
        folder = ptype.folder
        stem = sanitize_filename(title)

        def taken(name: str) -> bool:
            rel = f"{folder}/{name}"
            return rel.lower() in planned or os.path.lexists(self.app.vault.resolve(rel))

        return f"{folder}/{unique_name(stem, taken)}"

    def write(
        self, record: dict[str, Any], result: Classification, confirmed: bool
    ) -> list[dict[str, Any]]:
        cid = record["id"]
        ops = record["plan"]
        links = {i: link_to(op["path"], op["title"]) for i, op in enumerate(ops)}
        out = []
        for i, op in enumerate(ops):
            others = [links[j] for j in links if j != i]
            related = {ops[j]["type"]: [] for j in links if j != i}
            for j in links:
                if j != i:
                    related[ops[j]["type"]].append(links[j])
            if op["op"] == "update":
                done = self._update(cid, record, op, others, related, result)
                if not done:  # the note vanished: file as a new record instead
                    op.update({"op": "create", "record_id": new_id()})
                    op["path"] = self._free_path(self.pack.get_type(op["type"]), op["title"], set())
            if op["op"] == "create":
                self._create(cid, record, op, others, related, result, confirmed)
            out.append({k: op[k] for k in ("type", "title", "path", "record_id", "op")})
        return out

    def _log_line(self, cid: str, record: dict[str, Any], others: list[str]) -> str:
        text = record["text"]
        if len(text) > 500:
            text = text[:499] + "…"
        text = text.replace("\n", " ")
        tail = f" → {' · '.join(others)}" if others else ""
        when = str(record["created"])[:10]
        return f"- {when} {text}{tail} ({block_link(self.inbox_rel, cid, 'capture')})"

    def _fields_for(
        self, ptype: PageType, op: dict[str, Any], related: dict[str, list[str]]
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for name, spec in ptype.fields.items():
            if spec.default is not None:
                fields[name] = spec.default
        fields.update(op.get("fields") or {})
        fields[ptype.title_key] = op["title"]
        if ptype.name == "person" and "last_interaction" in ptype.fields:
            fields["last_interaction"] = self.app.today().isoformat()
        for fname in _LINK_FIELDS.get(ptype.name, ()):
            if fname not in ptype.fields:
                continue
            wanted = []
            for tname, links in related.items():
                if fname == "people" and tname != "person":
                    continue
                wanted += links
            if wanted:
                current = list(fields.get(fname) or [])
                fields[fname] = current + [w for w in wanted if w not in current]
        return fields

    def _create(
        self,
        cid: str,
        record: dict[str, Any],
        op: dict[str, Any],
        others: list[str],
        related: dict[str, list[str]],
        result: Classification,
        confirmed: bool,
    ) -> None:
        vault = self.app.vault
        ptype = self.pack.get_type(op["type"])
        assert ptype is not None
        existing = vault.try_read(op["path"])
        if existing is not None and f"^vb-{cid}" in existing.text:
            self._store_note(op, existing, cid, record)
            return
        if existing is not None:  # someone took the path since the plan was made
            op["path"] = self._free_path(ptype, op["title"], set())
        now = self.app.now().isoformat()
        fields = self._fields_for(ptype, op, related)
        core = {
            "type": ptype.name,
            "id": op["record_id"],
            "source": block_link(self.inbox_rel, cid),
            "confidence": round(result.confidence, 2),
            "classified_by": result.classified_by,
            "confirmed": None if confirmed else False,
            "created": now,
            "updated": now,
        }
        text = render_note(
            ordered_frontmatter(ptype, core, fields),
            render_body(ptype, op["title"], fields, self._log_line(cid, record, others)),
        )
        for _ in range(5):
            try:
                vault.create(op["path"], text)
                break
            except FileExistsError:
                op["path"] = self._free_path(ptype, op["title"], set())
        self._store_note(op, vault.read(op["path"]), cid, record)

    def _update(
        self,
        cid: str,
        record: dict[str, Any],
        op: dict[str, Any],
        others: list[str],
        related: dict[str, list[str]],
        result: Classification,
    ) -> bool:
        vault = self.app.vault
        ptype = self.pack.get_type(op["type"])
        assert ptype is not None
        for _ in range(inbox_note.MAX_CAS_RETRIES):
            note = vault.try_read(op["path"])
            if note is None:
                return False
            if f"^vb-{cid}" in note.text:
                self._store_note(op, note, cid, record)
                return True
            if not note.text.strip():
                # An emptied note is what an editor's save looks like halfway (truncate, then
                # write). Writing now would replace the file under the editor, so the update
                # waits on the record and is applied when the note next changes.
                self._defer(op, cid, record, others, related)
                return True
            parsed = parse_note(note.text)
            text = note.text
            if parsed.error is None:
                changes = self._merge_changes(ptype, parsed.data, op, related)
                text = update_frontmatter(text, changes)
            else:
                record.setdefault("warnings", []).append(
                    f"{op['path']}: {parsed.error}; only the log line was added"
                )
            text = append_to_section(text, LOG_HEADING, self._log_line(cid, record, others))
            try:
                vault.replace(op["path"], text, note.hash)
            except ConflictError:
                continue
            self._store_note(op, vault.read(op["path"]), cid, record)
            return True
        raise UserError(f"{op['path']} keeps changing; the capture will be retried")

    def _defer(
        self,
        op: dict[str, Any],
        cid: str,
        record: dict[str, Any],
        others: list[str],
        related: dict[str, list[str]],
    ) -> None:
        col = self.app.store.collection(op["collection"])
        target = col.get(op["record_id"])
        if target is None:
            return
        waiting = target.setdefault("deferred_updates", [])
        if not any(w["capture"] == cid for w in waiting):
            waiting.append({"capture": cid, "op": op, "others": others, "related": related})
            col.put(target)
        record.setdefault("warnings", []).append(
            f"{op['path']} was empty (being saved?); the update waits until it changes"
        )

    def apply_deferred(self, collection: str, record_id: str) -> int:
        """Updates that waited for a note caught mid-save; applied once it has content again."""
        col = self.app.store.collection(collection)
        target = col.get(record_id)
        if not target or not target.get("deferred_updates"):
            return 0
        note = self.app.vault.try_read(target["path"])
        if note is None or not note.text.strip():
            return 0
        done = 0
        with self.lock, self.app.store.locked():
            for item in list(target["deferred_updates"]):
                cap = self.app.store.inbox.get(item["capture"])
                if cap is not None:
                    op = dict(item["op"], path=target["path"])
                    result = Classification.from_dict(cap.get("classification") or {})
                    self._update(cap["id"], cap, op, item["others"], item["related"], result)
                    done += 1
            fresh = col.get(record_id) or target
            fresh.pop("deferred_updates", None)
            col.put(fresh)
        return done

    def _merge_changes(
        self,
        ptype: PageType,
        data: dict[str, Any],
        op: dict[str, Any],
        related: dict[str, list[str]],
    ) -> dict[str, Any]:
        """New values for an existing note: lists grow, empty fields fill, nothing is overwritten."""
        wanted = self._fields_for(ptype, op, related)
        wanted.pop(ptype.title_key, None)
        changes: dict[str, Any] = {}
        for name, value in wanted.items():
            spec = ptype.fields.get(name)
            current = data.get(name)
            if spec is not None and spec.type in ("list", "links"):
                cur = current if isinstance(current, list) else ([current] if current else [])
                merged = cur + [v for v in value if v not in cur]
                if merged != cur:
                    changes[name] = merged
            elif name == "last_interaction":
                if str(current or "") < str(value):
                    changes[name] = value
            elif current in (None, "", []) and name not in data:
                if spec is not None and spec.default is not None and value == spec.default:
                    continue  # a default does not belong in a note the person already has
                changes[name] = value
        changes["updated"] = self.app.now().isoformat()
        return changes

    def _store_note(self, op: dict[str, Any], note: Any, cid: str, record: dict[str, Any]) -> None:
        """The store follows the note just written (idempotent)."""
        ptype = self.pack.get_type(op["type"])
        assert ptype is not None
        col = self.app.store.collection(op["collection"])
        existing = col.get(op["record_id"], include_deleted=True)
        parsed = parse_note(note.text)
        if parsed.error is None:
            rec = record_from_note(note.rel, parsed, ptype, existing, note.hash)
        else:
            rec = dict(
                existing
                or {"id": op["record_id"], "type": ptype.name, "title": op["title"], "fields": {}}
            )
            rec.update({"path": note.rel, "base_hash": note.hash})
        rec["id"] = op["record_id"]
        index = self.index  # before the write, so our own change is not mistaken for another's
        sources = rec.setdefault("sources", [])
        if cid not in sources:
            sources.append(cid)
            rec.setdefault("log", []).append(
                {"date": str(record["created"])[:10], "text": record["text"][:500], "capture": cid}
            )
        col.put(rec, durable=False)  # the note is the truth: a rescan rebuilds this from it
        index.upsert(op["collection"], rec)

    # -- finish --------------------------------------------------------------------------
    def line_form(self, record: dict[str, Any]) -> tuple[str, bool]:
        """Our suffix for the record's inbox line, and whether the line is ticked."""
        status = record["status"]
        links = " · ".join(link_to(d["path"], d["title"]) for d in record.get("destinations", []))
        review = link_to(inbox_note.REVIEW_NOTE, "Needs Review")
        if status in ("filed", "corrected"):
            return (f"→ {links}" if links else "→ filed"), True
        if status == "suggested":
            return f"→ {links} (suggested: confirm in {review})", False
        if status == "needs_review":
            return f"→ needs review in {review}", False
        if status == "dismissed":
            return "→ dismissed", True
        if record.get("last_error"):
            return f"{inbox_note.WAITING} (offline, will retry)", False
        return inbox_note.WAITING, False

    def finish_line(self, record: dict[str, Any]) -> dict[str, Any]:
        note = record.get("note")
        if not note:
            return record
        suffix, done = self.line_form(record)
        if record.get("line_suffix") == suffix and record.get("line_done") == done:
            return record
        present = inbox_note.rewrite_line(
            self.app.vault, note, record["id"], record.get("line_suffix"), suffix, done
        )
        with self.app.store.locked():
            fresh = self.app.store.inbox.get(record["id"]) or record
            fresh["line_suffix"], fresh["line_done"] = suffix, done
            if not present:
                fresh["line_missing"] = True
            fresh.pop("lease", None)
            self.app.store.inbox.put(fresh, durable=False)  # the line itself says it
        return fresh
