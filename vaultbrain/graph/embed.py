"""Search by meaning: notes cut into chunks by heading, embedded incrementally through the
configured server (:mod:`vaultbrain.classify.embeddings`), kept in
:class:`vaultbrain.graph.vectors.VectorStore`.

What is embedded is what the graph index holds (title, properties, body), so the vectors
follow the index, which follows the vault: a note whose index row changed is *stale*; its
chunks are cut again and only those whose text changed are sent to the server (a note
touched but not changed costs no call, a moved note none either: its chunks' vectors are
copied by their text's hash). A note gone from the index, or moved into ``Brain/Archive/``,
loses its vectors. :func:`embed_pending` does one bounded round of that work: the daemon's
hook calls it in the background, ``vaultbrain embed`` until nothing is left.

What a server sends is judged one note at a time. A batch it refuses (a 500, an answer
that is not vectors) is asked again one text at a time, once a probe shows the server still
embeds; a text too long for the model's context is cut in two and its halves' vectors
averaged. Every vector is checked before it is stored (:func:`vector_problem`: numbers, the
expected size, finite, not all zeros); a note with any chunk refused is not stored but
marked (:meth:`VectorStore.mark_failed`: why, and a later try with backoff), and the other
notes go on. A batch whose sound vectors are all of another size means the model changed
under the same name: the server is asked again and, if it says so, every note is embedded
again under the new identity (never vectors of two sizes side by side, never a search that
silently finds nothing).
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError, UserError
from vaultbrain.graph.index import GraphIndex
from vaultbrain.graph.vectors import ChunkRow, NoteVectors, VectorStore, unit

if TYPE_CHECKING:
    import numpy as np

    from vaultbrain.classify.embeddings import EmbeddingClient

MAX_CHUNK_CHARS = 1500  # a section longer than this is cut at paragraphs
MAX_CHUNKS = 24  # per note: a 5 MB note must not cost a thousand calls
PREVIEW_CHARS = 160
QUERY_TIMEOUT = 15.0  # seconds a search waits for its query's vector before keywords only
MIN_SPLIT_CHARS = 200  # a text too long for the model is halved down to about this
# What servers say when a text is longer than the model's context (llama.cpp, Ollama,
# OpenAI-style): such a text is cut in two, not refused.
_TOO_LONG = re.compile(
    r"context|too (?:large|long)|exceed|maximum.{0,30}length|tokens?\b|batch size", re.I
)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


@dataclass
class Chunk:
    heading: str
    text: str  # what is embedded
    preview: str
    hash: str


def chunk_note(title: str, fields: str, body: str) -> list[Chunk]:
    """A note cut into chunks: one per section (the text under a heading, with the path of
    headings above it), long sections cut at blank lines; the title in every chunk and the
    properties in the first, so each chunk says what it belongs to."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    path: list[tuple[int, str]] = []
    fence: str | None = None
    for line in body.split("\n"):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
        elif fence is None:
            h = _HEADING.match(line)
            if h:
                level = len(h.group(1))
                path = [(lv, t) for lv, t in path if lv < level] + [(level, h.group(2))]
                sections.append((" › ".join(t for _, t in path), []))
                continue
        sections[-1][1].append(line)
    pieces: list[tuple[str, str]] = []
    for heading, lines in sections:
        for piece in _split("\n".join(lines).strip()):
            pieces.append((heading, piece))
    if not pieces:
        pieces = [("", "")]
    out: list[Chunk] = []
    for i, (heading, piece) in enumerate(pieces[:MAX_CHUNKS]):
        head = [title] + ([fields] if i == 0 and fields else []) + ([heading] if heading else [])
        text = "\n".join(p for p in [*head, piece] if p).strip()
        if not text:
            continue
        digest = hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16)
        shown = " ".join((piece or fields or title).split())[:PREVIEW_CHARS]
        out.append(Chunk(heading, text, shown, digest.hexdigest()))
    return out


def _split(text: str) -> list[str]:
    if not text:
        return []
    if len(text) <= MAX_CHUNK_CHARS:
        return [text]
    out: list[str] = []
    current = ""
    for para in re.split(r"\n[ \t]*\n", text):
        while len(para) > MAX_CHUNK_CHARS:  # one paragraph longer than a chunk
            if current:
                out.append(current)
                current = ""
            out.append(para[:MAX_CHUNK_CHARS])
            para = para[MAX_CHUNK_CHARS:]
        if current and len(current) + len(para) + 2 > MAX_CHUNK_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n\n{para}" if current else para
    if current.strip():
        out.append(current)
    return [p.strip() for p in out if p.strip()]


@dataclass
class EmbedReport:
    """One round of :func:`embed_pending`."""

    model: str | None = None
    notes: int = 0  # notes whose vectors were (re)written
    embedded: int = 0  # chunks sent to the server
    reused: int = 0  # chunks whose vector was kept or copied
    dropped: int = 0  # notes whose vectors went (gone, archived)
    calls: int = 0
    server_seconds: float = 0.0  # time spent waiting for the server
    seconds: float = 0.0
    pending: int = 0  # notes still to do after this round
    error: str | None = None  # why nothing could be embedded (no server, no embeddings)
    skipped: list[str] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)  # refused notes: path, why
    model_changed: str | None = None  # the vectors were dropped: what the server now is

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ready(client: EmbeddingClient) -> Any:
    """What the server embeds with (an :class:`EmbedInfo` that is ``ok``), asking it when
    nothing is known or its last refusal is old enough. Raises LLMError when the server
    cannot be reached (or would not embed: kind ``no_embeddings``). (A model that changed
    size under its name is found by the first batch it answers, or by a search's query.)"""
    info = client.known()
    if info is None or client.due_for_probe():
        info = client.probe()
    if not info.ok:
        raise LLMError(
            f"no embeddings at {client.endpoint}: {info.why}",
            kind="no_embeddings",
            cause=info.why,
        )
    return info


class _SizeChanged(Exception):
    """Every sound vector of a batch had another size than the stored ones."""


def vector_problem(vec: Any, dim: int) -> str | None:
    """Why ``vec`` cannot be stored beside vectors of size ``dim`` (None: it can)."""
    if not isinstance(vec, list | tuple) or not vec:
        return "the server sent an empty embedding"
    if len(vec) != dim:
        return f"the server sent {len(vec)} numbers where the model gives {dim}"
    total = 0.0
    for x in vec:
        if not isinstance(x, int | float) or isinstance(x, bool):
            return "the server sent an embedding that is not numbers"
        if not math.isfinite(x):
            return "the server sent an embedding with NaN or infinity in it"
        total += float(x) * float(x)
    if total == 0.0:
        return "the server sent an embedding of all zeros"
    if not math.isfinite(total):
        return "the server sent an embedding too large to use"
    return None


def _server_wide(exc: LLMError) -> bool:
    """A failure no other text would escape: the server is down, busy or gone."""
    from vaultbrain.classify.embeddings import TEMPORARY

    return exc.kind in ("unreachable", "cancelled", *TEMPORARY)


class _Asker:
    """The texts of one round sent to the server and what came back, checked."""

    def __init__(self, client: EmbeddingClient, info: Any, report: EmbedReport) -> None:
        self.client = client
        self.info = info
        self.dim = int(info.dim)
        self.report = report
        self.vectors: dict[str, list[float]] = {}
        self.refused: dict[str, str] = {}  # hash -> why
        self._probed = False

    def _ask(self, texts: list[str]) -> list[list[float]]:
        t0 = time.perf_counter()
        try:
            return self.client.embed(texts)
        finally:
            self.report.server_seconds += time.perf_counter() - t0
            self.report.calls += 1

    def still_embeds(self) -> None:
        """After a refusal: whether the server embeds at all (a probe, once a round).
        Raises LLMError when it does not (the round stops as before), _SizeChanged when it
        now embeds with another model or size."""
        if self._probed:
            return
        self._probed = True
        info = self.client.probe()
        if not info.ok:
            raise LLMError(
                f"no embeddings at {self.client.endpoint}: {info.why}",
                kind="no_embeddings",
                cause=info.why,
            )
        if info.identity != self.info.identity:
            raise _SizeChanged(info.identity)

    def batch(self, hashes_: list[str], texts: list[str]) -> None:
        try:
            got: list[list[float]] | None = self._ask(texts)
        except LLMError as exc:
            if _server_wide(exc):
                raise
            self.still_embeds()
            got = None
        if got is None or len(got) != len(texts):
            for h, text in zip(hashes_, texts, strict=True):
                self.one(h, text)
            return
        problems = [vector_problem(v, self.dim) for v in got]
        sizes = {len(v) for v in got if isinstance(v, list) and v}
        if sizes and self.dim not in sizes:
            self.still_embeds()  # raises _SizeChanged when the server says so
        for h, vec, why in zip(hashes_, got, problems, strict=True):
            if why is None:
                self.vectors[h] = vec
            else:
                self.refused[h] = why

    def one(self, h: str, text: str) -> None:
        vec, why = self._single(text, 0)
        if vec is not None:
            self.vectors[h] = vec
        else:
            self.refused[h] = why or "the server would not embed it"

    def _single(self, text: str, depth: int) -> tuple[list[float] | None, str | None]:
        try:
            got = self._ask([text])
        except LLMError as exc:
            if _server_wide(exc):
                raise
            why = str(exc.cause or exc)
            if _TOO_LONG.search(why) and len(text) > MIN_SPLIT_CHARS and depth < 4:
                return self._halves(text, depth, why)
            return None, why
        vec = got[0] if len(got) == 1 else None
        problem = vector_problem(vec, self.dim)
        return (vec, None) if problem is None and vec is not None else (None, problem)

    def _halves(self, text: str, depth: int, why: str) -> tuple[list[float] | None, str | None]:
        """A text too long for the model: the mean of its two halves' vectors."""
        cut = text.rfind(" ", 0, len(text) // 2 + 1)
        cut = cut if cut > len(text) // 4 else len(text) // 2
        parts = [p for p in (text[:cut].strip(), text[cut:].strip()) if p]
        vecs = []
        for part in parts:
            vec, part_why = self._single(part, depth + 1)
            if vec is None:
                return None, part_why or why
            vecs.append(vec)
        norms = [math.sqrt(sum(x * x for x in v)) or 1.0 for v in vecs]
        mean = [sum(v[i] / n for v, n in zip(vecs, norms, strict=True)) for i in range(self.dim)]
        problem = vector_problem(mean, self.dim)
        return (mean, None) if problem is None else (None, problem)


def embed_pending(
    graph: GraphIndex,
    client: EmbeddingClient,
    notes: int = 64,
    skip: Iterable[str] = (),
    stop: Callable[[], bool] | None = None,
    rels: Iterable[str] | None = None,
) -> EmbedReport:
    """One bounded round: vectors of gone or archived notes dropped, then up to ``notes``
    stale notes embedded (their changed chunks only; ``rels``: of these notes, those still
    stale), in one write. ``skip``: notes a caller could not embed this time (left for
    later). A note the server refuses (or answers with a vector no search could use) is
    marked and left to a later round; the rest are stored. Raises LLMError when the server
    cannot be reached or will not embed."""
    started = time.perf_counter()
    report = EmbedReport()
    info = ready(client)
    report.model = info.identity
    store = VectorStore(graph)
    if store.identity != info.identity:
        if store.identity is not None:
            report.model_changed = info.identity
        store.reset(info.identity, info.dim)
    elif rels is None and not store.checked():
        unsound = store.unsound()  # (an index written before vectors were checked)
        if unsound:
            store.drop(unsound)
        store.set_checked()
    # Dropped after the write: a moved note's vectors are copied first. A round for named
    # notes looks only at those (the daemon's periodic look finds the rest): a look at every
    # row was most of the cost of following one edit.
    gone = store.gone() if rels is None else store.gone_of(rels)
    batch: list[tuple[NoteVectors, list[Chunk]]] = []
    todo = store.stale(notes, skip) if rels is None else store.stale_of(rels, skip)
    for rel, _m, _s in todo[:notes]:
        got = store.note_text(rel)
        if got is None:
            continue
        stamp, title, fields, body = got
        chunks = chunk_note(title, fields, body)
        rows = [ChunkRow(i, c.heading, c.preview, c.hash) for i, c in enumerate(chunks)]
        batch.append((NoteVectors(rel, stamp, rows, {}), chunks))
    have = store.known_hashes(c.hash for _, chunks in batch for c in chunks)
    texts: dict[str, str] = {}
    for _, chunks in batch:
        for c in chunks:
            if c.hash not in have:
                texts.setdefault(c.hash, c.text)
    report.reused = sum(len(chunks) for _, chunks in batch) - len(texts)
    order = list(texts)
    from vaultbrain.classify.embeddings import BATCH

    asker = _Asker(client, info, report)
    try:
        for i in range(0, len(order), BATCH):
            if stop is not None and stop():
                break
            part = order[i : i + BATCH]
            asker.batch(part, [texts[h] for h in part])
    except _SizeChanged as exc:
        # The model changed under its name (or the server now embeds with another): its
        # vectors and the stored ones do not compare. Everything is embedded again.
        now = client.known()
        assert now is not None
        store.reset(now.identity, now.dim)
        report.model = report.model_changed = str(exc)
        report.pending = store.pending() if rels is None else 0
        report.seconds = time.perf_counter() - started
        return report
    vectors = asker.vectors
    for nv, chunks in batch:
        nv.fresh = {c.hash: vectors[c.hash] for c in chunks if c.hash in vectors}
    complete = [
        nv for nv, chunks in batch if all(c.hash in have or c.hash in nv.fresh for c in chunks)
    ]
    failed: list[tuple[str, tuple[int, int], str]] = []
    for nv, chunks in batch:
        whys = [asker.refused[c.hash] for c in chunks if c.hash in asker.refused]
        if whys:
            failed.append((nv.rel, nv.stamp, whys[0]))
    report.failed = [{"path": rel, "why": why} for rel, _, why in failed]
    refused = {rel for rel, _, _ in failed}
    report.skipped = [nv.rel for nv, _ in batch if nv not in complete and nv.rel not in refused]
    report.embedded = len(vectors)
    report.notes = store.write(complete) if complete else 0
    if failed:
        store.mark_failed(failed)
    report.dropped = store.drop(gone)
    report.pending = store.pending() if rels is None else 0
    report.seconds = time.perf_counter() - started
    return report


def embed_all(
    graph: GraphIndex,
    client: EmbeddingClient,
    progress: Callable[[EmbedReport], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> EmbedReport:
    """Rounds of :func:`embed_pending` until no note is left (``vaultbrain embed``)."""
    total = EmbedReport()
    started = time.perf_counter()
    skip: set[str] = set()
    while stop is None or not stop():
        r = embed_pending(graph, client, 64, skip, stop)
        total.model = r.model
        for name in ("notes", "embedded", "reused", "dropped", "calls"):
            setattr(total, name, getattr(total, name) + getattr(r, name))
        total.server_seconds += r.server_seconds
        total.pending = r.pending
        total.failed += r.failed
        total.model_changed = r.model_changed or total.model_changed
        skip.update(r.skipped)
        skip.update(f["path"] for f in r.failed)
        total.seconds = time.perf_counter() - started
        if progress is not None:
            progress(total)
        if r.notes == 0 and r.dropped == 0 and not r.failed and not r.model_changed:
            break  # nothing left that can be done now
    total.skipped = sorted(skip - {f["path"] for f in total.failed})
    return total


def query_vector(client: EmbeddingClient, text: str, dim: int | None = None) -> np.ndarray:
    """The unit vector of a query, from the model the stored vectors came from. Raises
    LLMError for a vector no search could use (NaN, infinity, another size than
    ``dim``: the model changed, and the notes are embedded again)."""
    got = client.embed([text], timeout=QUERY_TIMEOUT)
    vec = got[0] if len(got) == 1 else []
    size = len(vec) if isinstance(vec, list) else 0
    why = vector_problem(vec, dim or size)
    if why is not None and "all zeros" not in why:  # (a query of no words: near nothing)
        if dim and size and size != dim:
            try:  # (remembered: the next round of embedding embeds every note again)
                client.probe()
            except LLMError:
                pass
            why = (
                f"the server now embeds with {size} numbers, the notes were embedded with "
                f"{dim}: the daemon (or `vaultbrain embed`) embeds them again"
            )
        raise LLMError(why, kind="bad_vector", cause=why)
    return unit(vec)


def usable(graph: GraphIndex, client: EmbeddingClient | None) -> str | None:
    """Why a search by meaning cannot run now (None: it can): no vectors, or vectors of
    another model than the server embeds with. Asks the server nothing."""
    if client is None:
        return "search by meaning is off (embedding_model: off, or provider: heuristic)"
    store = VectorStore(graph)
    if store.empty() or store.identity is None:
        info = client.known()
        if info is not None and not info.ok:
            return f"no embeddings at {client.endpoint}: {info.why}"
        return "no note is embedded yet (the daemon embeds them; or run `vaultbrain embed`)"
    info = client.known()
    if info is not None and info.ok and info.identity != store.identity:
        return (
            f"the notes were embedded with {store.identity}, the server now embeds with "
            f"{info.identity}: the daemon (or `vaultbrain embed`) embeds them again"
        )
    return None


def related(graph: GraphIndex, ref: str, limit: int = 10) -> dict[str, Any]:
    """The notes nearest a note in meaning (``ref``: its path, name or alias), best first.
    Asks the server nothing: the note's own vectors are the question."""
    nid = graph.note_id(ref)
    if nid is None:
        raise UserError(f"no note named {ref!r} (or more than one: give its path)")
    rel = graph.note_row(nid)["rel"]
    store = VectorStore(graph)
    vec = store.note_vector(rel)
    if vec is None:
        why = (
            "no note is embedded yet"
            if store.count()[0] == 0
            else f"{rel} is not embedded yet (or holds no text)"
        )
        raise UserError(f"{why}: the daemon embeds notes as they change, or run `vaultbrain embed`")
    return {"note": rel, "model": store.identity, "results": store.nearest(vec, limit, exclude=rel)}


def status(graph: GraphIndex, client: EmbeddingClient | None) -> dict[str, Any]:
    """How far search by meaning is: the model, notes embedded, chunks, notes waiting."""
    store = VectorStore(graph)
    notes, chunks = store.count()
    info = client.known() if client is not None else None
    failed = store.failed()
    changed = None
    if info is not None and info.ok and store.identity and info.identity != store.identity:
        changed = (
            f"the notes were embedded with {store.identity}, the server now embeds with "
            f"{info.identity}: every note is embedded again"
        )
    return {
        "enabled": client is not None,
        "endpoint": client.endpoint if client is not None else None,
        "model": store.identity,
        "server": None if info is None else (info.identity if info.ok else info.why),
        "notes": notes,
        "chunks": chunks,
        "pending": store.pending(),
        "refused": len(failed),
        "waiting": [
            {
                "path": f["path"],
                "why": f["why"],
                "tries": f["tries"],
                "next_try": _when(f["retry_at"]),
            }
            for f in failed[:STATUS_LIST]
        ],
        "model_changed": changed,
        "bytes": store.size_bytes(),
    }


STATUS_LIST = 50  # refused notes listed by `embed --status` (the count says how many)


def _when(at: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(at).isoformat(timespec="seconds")


def doctor_lines(brain: Any) -> list[tuple[bool, str]]:
    """What ``doctor`` says of search by meaning's waiting notes: (ok, line) for notes the
    server refused and a model that changed; nothing when the graph index is not built
    (no index is made by a doctor)."""
    from vaultbrain.classify.embeddings import EmbeddingClient
    from vaultbrain.graph import graph_of, index_path

    if not index_path(brain.state_dir, brain.pack_key).exists():
        return []
    client = EmbeddingClient.from_settings(brain.settings, brain.state_dir)
    if client is None:
        return []
    try:
        doc = status(graph_of(brain), client)
    finally:
        client.close()
    out: list[tuple[bool, str]] = []
    if doc["refused"]:
        shown = "; ".join(f"{w['path']}: {w['why']}" for w in doc["waiting"][:3])
        more = f" (and {doc['refused'] - 3} more)" if doc["refused"] > 3 else ""
        out.append(
            (
                False,
                f"{doc['refused']} note(s) wait to be embedded, tried again later: "
                f"{shown}{more}; `vaultbrain embed --status` lists them",
            )
        )
    if doc["model_changed"]:
        out.append((False, doc["model_changed"]))
    return out
