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
"""

from __future__ import annotations

import hashlib
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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ready(client: EmbeddingClient) -> Any:
    """What the server embeds with (an :class:`EmbedInfo` that is ``ok``), asking it when
    nothing is known or its last refusal is old enough. Raises LLMError when the server
    cannot be reached (or would not embed: kind ``no_embeddings``)."""
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
    later). Raises LLMError when the server cannot be reached or will not embed."""
    started = time.perf_counter()
    report = EmbedReport()
    info = ready(client)
    report.model = info.identity
    store = VectorStore(graph)
    if store.identity != info.identity:
        store.reset(info.identity, info.dim)
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
    vectors: dict[str, list[float]] = {}
    order = list(texts)
    from vaultbrain.classify.embeddings import BATCH

    for i in range(0, len(order), BATCH):
        if stop is not None and stop():
            break
        part = order[i : i + BATCH]
        t0 = time.perf_counter()
        got_vectors = client.embed([texts[h] for h in part])
        report.server_seconds += time.perf_counter() - t0
        report.calls += 1
        vectors.update(zip(part, got_vectors, strict=True))
    for nv, chunks in batch:
        nv.fresh = {c.hash: vectors[c.hash] for c in chunks if c.hash in vectors}
    complete = [
        nv for nv, chunks in batch if all(c.hash in have or c.hash in nv.fresh for c in chunks)
    ]
    report.skipped = [nv.rel for nv, _ in batch if nv not in complete]
    report.embedded = len(vectors)
    report.notes = store.write(complete) if complete else 0
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
        skip.update(r.skipped)
        total.seconds = time.perf_counter() - started
        if progress is not None:
            progress(total)
        if r.notes == 0 and r.dropped == 0:
            break  # nothing left that can be done now
    total.skipped = sorted(skip)
    return total


def query_vector(client: EmbeddingClient, text: str) -> np.ndarray:
    """The unit vector of a query, from the model the stored vectors came from."""
    (vec,) = client.embed([text], timeout=QUERY_TIMEOUT)
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
    return {
        "enabled": client is not None,
        "endpoint": client.endpoint if client is not None else None,
        "model": store.identity,
        "server": None if info is None else (info.identity if info.ok else info.why),
        "notes": notes,
        "chunks": chunks,
        "pending": store.pending(),
        "bytes": store.size_bytes(),
    }
