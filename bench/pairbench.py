"""The LLM, the embedded classifier and the pair (classify/arbiter.py) on the same thoughts,
for ``bench_classifier.py``: a real llama-cpp-python server with SmolLM2-135M (the CI
contract) when it is installed, or any server ``--endpoint`` names.

Each voter is scored as it would file alone (the LLM by its own confidence, the embedded
classifier as the fallback files: by its calibrated confidence), and the pair by the band the
arbiter decides. The pair is run twice: as in a fresh vault (no confirmations yet; the LLM's
prior is the probe's measure of the model, ``classify/probe.py``, as the daemon takes it the
first time it meets a model) and after the person confirmed or corrected the other dev set's
thoughts (the reliabilities measured on those outcomes).

A strong model is simulated by a stub server on 127.0.0.1 (``tests/support/lmstudio.py``)
that answers right 95% of the time, the probe's thoughts included; the pair on a fresh vault
should be at least as accurate as that model alone.

    python bench/pairbench.py [--llm-sample 30] [--endpoint URL] [--no-llm] [--llm-cache DIR]
        [--port N]

The LLM's answers are kept in a state dir (``--llm-cache``), with the seconds each took when
it was asked, so a second run asks nothing again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support import llama  # noqa: E402
from support.lmstudio import FakeLMStudio, reply  # noqa: E402

from vaultbrain.classify.arbiter import decide, names_found, primary
from vaultbrain.classify.reliability import Reliability
from vaultbrain.classify.result import Band, Classification, judge

TYPES = ["person", "project", "idea", "admin"]
AUTO, MINIMUM = 0.8, 0.5
Case = tuple[str, tuple[str, ...], tuple[str, ...]]


def ask_all(
    url: str, model: str, texts: list[str], cache: Path, today: dt.date, pack: Any
) -> dict[str, tuple[Classification | None, float | None]]:
    """The LLM's reading of each thought (None: it failed) and the seconds it took when it
    was asked (None: answered before this bench kept times)."""
    from vaultbrain.classify.cache import ask_cached
    from vaultbrain.classify.classifier import LLMClassifier
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.errors import LLMError

    cache.mkdir(parents=True, exist_ok=True)
    times_path = cache / "llm-seconds.json"
    times: dict[str, float] = json.loads(times_path.read_text()) if times_path.exists() else {}
    client = LLMClient(url, model, timeout=300, state_dir=cache, max_tokens=600)
    llm = LLMClassifier(client)
    out: dict[str, tuple[Classification | None, float | None]] = {}
    try:
        for n, text in enumerate(texts):
            started = time.perf_counter()
            try:
                result, audit = ask_cached(llm, cache, pack, text, today, [], [])
            except LLMError as exc:
                print(f"  LLM failed on {text[:40]!r}: {exc.kind}", file=sys.stderr)
                out[text] = (None, None)
                continue
            if not (audit.get("cache") or {}).get("hit"):
                times[text] = time.perf_counter() - started
                times_path.write_text(json.dumps(times))
                print(f"  asked {n + 1}/{len(texts)}: {times[text]:.1f} s", file=sys.stderr)
            out[text] = (result, times.get(text))
    finally:
        client.close()
    return out


def score(cases: list[Case], decided: list[tuple[Classification, Band]]) -> dict[str, float]:
    """Primary-type accuracy (a thought of no type is right in review), recall of every
    destination, and the share of named people filed under their name."""
    right = recall_hit = recall_all = people_hit = people_all = 0
    for (_, gold, people), (c, band) in zip(cases, decided, strict=True):
        dests = [d for d in c.destinations if d.type in TYPES] if band is not Band.REVIEW else []
        first = dests[0].type if dests else None
        right += first == gold[0] if gold else first is None
        recall_all += len(gold)
        recall_hit += len(set(gold) & {d.type for d in dests})
        found = {_key(d.title) for d in c.destinations if d.type == "person"}
        people_all += len(people)
        people_hit += sum(1 for p in people if _key(p) in found)
    n = len(cases) or 1
    return {
        "accuracy": right / n,
        "recall": recall_hit / recall_all if recall_all else 0.0,
        "people": people_hit / people_all if people_all else 0.0,
    }


def _key(name: str) -> str:
    return " ".join(name.lower().replace("’", "'").split())


def run_pair(
    cases: list[Case],
    llm: dict[str, tuple[Classification | None, float | None]],
    embedded: Callable[[str], Any],
    history: Reliability | None = None,
    measured: dict[str, list[float]] | None = None,
) -> list[tuple[Classification, Band, str]]:
    """The pair's decision on each thought in order; the reliabilities learn each one's
    votes as a vault would (agreement only: nobody confirms anything here). ``embedded``
    gives the embedded classifier's Analysis of a thought; ``measured``: the probe's record
    of the model (the LLM's prior), None for a model not measured."""
    rel = (history or Reliability(types=len(TYPES))).with_measured(measured)
    out = []
    for text, _, _ in cases:
        theirs = llm[text][0]
        a = embedded(text)
        d = decide(
            text, theirs, a.classification, rel, AUTO, MINIMUM, frozenset(TYPES), names_found(a)
        )
        rel.add(d.votes, None, 0.0)
        out.append((d.classification, d.band, str(d.audit.get("decided_by"))))
    return out


def history_from(
    cases: list[Case],
    llm: dict[str, tuple[Classification | None, float | None]],
    embedded: Callable[[str], Any],
) -> Reliability:
    """The reliabilities of a vault whose person confirmed or corrected each of ``cases``."""
    rel = Reliability(types=len(TYPES))
    for text, gold, _ in cases:
        theirs = llm[text][0]
        mine = embedded(text).classification
        votes = {
            "llm": {"type": primary(theirs), "confidence": theirs.confidence if theirs else None},
            "embedded": {"type": primary(mine), "confidence": mine.confidence},
        }
        rel.add(votes, tuple(gold), 1.0)
    return rel


def probe_record(url: str, model: str, cache: Path, today: dt.date, pack: Any) -> Any:
    """The probe's record of the model at ``url`` (``classify/probe.py``), kept in ``cache``
    so a second run asks nothing again; None when the probe could not run to its end."""
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.classify.probe import Measured, measure

    cache.mkdir(parents=True, exist_ok=True)
    client = LLMClient(url, model, timeout=300, state_dir=cache, max_tokens=600)
    try:
        picked = client.pick_model()
        path = cache / f"probe-{hashlib.sha1(picked.encode()).hexdigest()[:10]}.json"
        if path.exists():
            return Measured.from_dict(json.loads(path.read_text()))
        started = time.perf_counter()
        found = measure(client, pack, today)
        print(f"  probe: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    finally:
        client.close()
    if found is not None:
        path.write_text(json.dumps(found.to_dict()))
    return found


def llm_alone(c: Classification | None) -> tuple[Classification, Band]:
    if c is None:
        return Classification([], 0.0, "", "llm", error="failed"), Band.REVIEW
    return c, judge(c, AUTO, MINIMUM)


def seconds(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def sample(cases: list[Case], n: int) -> list[Case]:
    """``n`` thoughts chosen by a hash of their text (the same ones however the file grows),
    in file order; all when ``n`` is 0."""
    if not n or n >= len(cases):
        return cases
    chosen = set(sorted((hashlib.sha1(c[0].encode()).hexdigest(), c[0]) for c in cases)[:n])
    keep = {t for _, t in chosen}
    return [c for c in cases if c[0] in keep]


def env_threads() -> int:
    return int(os.environ.get("VB_LLM_THREADS", min(2, os.cpu_count() or 1)))


def pair_rows(
    args: Any,
    work: Path,
    pack: Any,
    emb: Any,
    sets: dict[str, list[Case]],
    today: dt.date,
    minimum: float,
) -> list[Any]:
    """The LLM alone, the embedded classifier alone and the pair, on a sample of each dev set."""
    from benchlib import row

    from vaultbrain.classify.embedded import analyse, classify_embedded

    def voter(text: str) -> Any:  # as the arbiter reads it: its calibrated confidence
        return analyse(text, today, emb, None, 1.0, pack)

    strong = strong_rows(sets, voter, work, today, pack)
    if args.endpoint is None and (why := llama.missing()):
        print(f"the LLM and the pair: skipped ({why})")
        return strong
    cache = Path(args.llm_cache) if args.llm_cache else work / "llm-cache"
    sizes = [int(n) for n in str(args.llm_sample).split(",")]
    samples = {
        name: sample(cases, sizes[min(i, len(sizes) - 1)])
        for i, (name, cases) in enumerate(sets.items())
    }
    texts = list(dict.fromkeys(t for cases in samples.values() for t, _, _ in cases))
    if args.endpoint:
        record = probe_record(args.endpoint, args.model, cache, today, pack)
        answers = ask_all(args.endpoint, args.model, texts, cache, today, pack)
        label = args.endpoint
    else:
        if getattr(args, "port", None):  # the same endpoint each run: the answers' cache
            port = args.port  # keys include it (classify/cache.py), so nothing is asked again
            llama.free_port = lambda: port
        with llama.llama_server(work / "llama-server.log", n_threads=env_threads()) as url:
            record = probe_record(url, "", cache, today, pack)
            answers = ask_all(url, "", texts, cache, today, pack)
        label = "SmolLM2-135M on llama-cpp-python"
    measured = record.per_type if record is not None else None
    if record is not None:
        from vaultbrain.classify.probe import describe

        print("  the probe's record: " + describe(record), file=sys.stderr)

    def alone(text: str) -> Any:  # as the fallback files: its calibrated confidence
        return classify_embedded(text, today, None, 1.0, emb, pack)

    from vaultbrain.classify.result import Band

    out = []
    for name, cases in samples.items():
        n = len(cases)
        emb_times, decided_emb = [], []
        for text, _, _ in cases:
            started = time.perf_counter()
            c = alone(text)
            emb_times.append(time.perf_counter() - started)
            decided_emb.append((c, Band.SUGGEST if c.confidence >= minimum else Band.REVIEW))
        decided_llm = [llm_alone(answers[t][0]) for t, _, _ in cases]
        fresh = run_pair(cases, answers, voter, measured=measured)
        # the person's outcomes on the other sets (the second and third for the first…)
        other = [c for n_, cs in samples.items() if n_ != name for c in cs]
        learnt = run_pair(cases, answers, voter, history_from(other, answers, voter), measured)
        llm_s = seconds([answers[t][1] for t, _, _ in cases])
        emb_s = statistics.median(emb_times)
        scored = {
            "LLM alone": (score(cases, decided_llm), llm_s),
            "embedded alone": (score(cases, decided_emb), emb_s),
            "pair, fresh vault (probe prior)": (
                score(cases, [(c, b) for c, b, _ in fresh]),
                None,
            ),
            "pair, after corrections on the other sets": (
                score(cases, [(c, b) for c, b, _ in learnt]),
                None,
            ),
        }
        pair_s = None if llm_s is None else llm_s + emb_s
        best = max(scored["LLM alone"][0]["accuracy"], scored["embedded alone"][0]["accuracy"])
        for who, (sc, secs) in scored.items():
            secs = pair_s if who.startswith("pair") else secs
            note = f"recall {sc['recall']:.3f}, names {sc['people']:.3f}" + (
                f", {secs:.3g} s per thought" if secs is not None else ""
            )
            target = f"better alone {best:.3f}" if who.startswith("pair") else label
            rows_ = row(f"{name} ({n}), {who}: accuracy", [sc["accuracy"]], "", target, note=note)
            if who.startswith("pair"):
                rows_.ratio = sc["accuracy"] / best if best else None
                rows_.ok = sc["accuracy"] >= best
            out.append(rows_)
        # nonsense and lines addressed to the model: never filed as confident
        noise = [
            i
            for i, (text, gold, _) in enumerate(cases)
            if not gold and voter(text).classification.noise
        ]
        confident_llm = sum(decided_llm[i][1] is Band.AUTO for i in noise)
        confident_pair = sum(fresh[i][1] is Band.AUTO for i in noise)
        if noise:
            r = row(
                f"{name}: nonsense/injection lines filed as confident, pair",
                [confident_pair],
                "",
                "must be 0",
                note=f"of {len(noise)}; the LLM alone: {confident_llm}",
            )
            r.ok = confident_pair == 0
            out.append(r)
    return out + strong


def strong_responder(cases: list[Case], right: float = 0.95) -> Callable[[dict], str]:
    """A stub server's answers as a strong model's: the thought's own types and people
    ``right`` of the time (chosen by a hash of the text: the same thoughts every run), a
    wrong first type otherwise; confidence 0.9. A thought of no type is right as "unknown"."""
    gold = {text: (types, people) for text, types, people in cases}

    def answer(body: dict) -> str:
        content = body["messages"][-1]["content"]
        text = json.loads(content.split("Thought:\n", 1)[1])
        types, people = gold.get(text, ((), ()))
        lucky = int(hashlib.sha1(text.encode()).hexdigest(), 16) % 1000 < right * 1000
        if types and lucky:
            named = iter(people)
            dests = [
                {"type": t, "title": next(named, "") if t == "person" else text[:40]} for t in types
            ]
            dests = [d for d in dests if d["title"]] or [{"type": types[0], "title": text[:40]}]
        elif not types and lucky:
            dests = [{"type": "unknown", "title": ""}]
        else:
            wrong = [t for t in TYPES if not types or t != types[0]]
            dests = [{"type": wrong[len(text) % len(wrong)], "title": text[:40]}]
        return reply([{**d, "fields": {}} for d in dests], 0.9, "simulated")

    return answer


def strong_rows(
    sets: dict[str, list[Case]],
    embedded: Callable[[str], Any],
    work: Path,
    today: dt.date,
    pack: Any,
    right: float = 0.95,
) -> list[Any]:
    """The pair with a strong model, simulated by a stub server on 127.0.0.1: measured on the
    probe as a fresh vault measures a model it meets, then asked each dev set. On a fresh
    vault the pair should be at least as accurate as the model alone."""
    from benchlib import row

    from vaultbrain.classify.probe import describe, load_probe

    probe = [(e.text, e.labels, e.people) for e in load_probe()]
    everything = [c for cases in sets.values() for c in cases]
    server = FakeLMStudio(model="strong-simulated")
    server.responder = strong_responder(probe + everything, right)
    server.start()
    cache = work / "strong-cache"
    try:
        record = probe_record(server.url, "", cache, today, pack)
        texts = list(dict.fromkeys(t for t, _, _ in everything))
        answers = ask_all(server.url, "", texts, cache, today, pack)
    finally:
        server.stop()
    measured = record.per_type if record is not None else None
    if record is not None:
        print("  the simulated model's probe record: " + describe(record), file=sys.stderr)
    out = []
    for name, cases in sets.items():
        alone = score(cases, [llm_alone(answers[t][0]) for t, _, _ in cases])
        fresh = score(
            cases, [(c, b) for c, b, _ in run_pair(cases, answers, embedded, None, measured)]
        )
        unmeasured = score(cases, [(c, b) for c, b, _ in run_pair(cases, answers, embedded)])
        r = row(
            f"{name} ({len(cases)}), pair with a simulated model right {right:.0%} "
            "(stub server), fresh vault: accuracy",
            [fresh["accuracy"]],
            "",
            f"the model alone {alone['accuracy']:.3f}",
            baseline=alone["accuracy"],
            note=f"recall {fresh['recall']:.3f} (model {alone['recall']:.3f}); before the "
            f"probe measured it: {unmeasured['accuracy']:.3f}",
        )
        r.ok = fresh["accuracy"] >= alone["accuracy"]
        out.append(r)
    return out


def main() -> int:
    """The pair alone, without the rest of bench_classifier.py: every dev set."""
    import argparse

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_classifier as bc
    import vaultgen
    from benchlib import emit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-sample", default="30", help="thoughts of each dev set (0: all)")
    parser.add_argument("--llm-cache", help="a state dir that keeps the LLM's answers")
    parser.add_argument("--endpoint", help="a running server's /v1 URL (default: start one)")
    parser.add_argument("--model", default="", help="the model id (default: the first listed)")
    parser.add_argument("--no-llm", action="store_true", help="the simulated strong model only")
    parser.add_argument(
        "--port", type=int, help="the port to start the server on (the same each run: cached)"
    )
    args = parser.parse_args()
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)
    from vaultbrain.classify.training import corpus_embedded
    from vaultbrain.packs import load_pack

    pack = load_pack("vaultbrain-base")
    emb = corpus_embedded(tuple(TYPES), "vaultbrain-base")
    sets = {
        "dev set": bc.dev_cases(),
        "second dev set": bc.held_out_cases(bc.DEV2)[0],
        "third dev set": bc.held_out_cases(bc.DEV3)[0],
        "fourth dev set": bc.held_out_cases(bc.DEV4)[0],
        "fifth dev set": bc.held_out_cases(bc.DEV5)[0],
        "sixth dev set": bc.held_out_cases(bc.DEV6)[0],
        "seventh dev set": bc.held_out_cases(bc.DEV7)[0],
        "eighth dev set": bc.held_out_cases(bc.DEV8)[0],
        "ninth dev set": bc.held_out_cases(bc.DEV9)[0],
    }
    if args.no_llm:
        from vaultbrain.classify.embedded import analyse

        def voter(text: str) -> Any:
            return analyse(text, bc.TODAY, emb, None, 1.0, pack)

        emit(strong_rows(sets, voter, work, bc.TODAY, pack))
        return 0
    emit(pair_rows(args, work, pack, emb, sets, bc.TODAY, MINIMUM))
    return 0


if __name__ == "__main__":
    sys.exit(main())
