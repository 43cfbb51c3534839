"""The LLM measured, not guessed (classify/probe.py): a model met for the first time is asked
the probe's labelled thoughts, its record is kept per endpoint and model id and reused, and
it is the pair's prior on a fresh vault. The model is a real HTTP server on 127.0.0.1 that
answers right 95% of the time (a simulated strong model); the embedded classifier is the
shipped one."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest
from support.brains import new_brain
from support.lmstudio import FakeLMStudio, reply

from vaultbrain.classify.arbiter import decide, names_found
from vaultbrain.classify.classifier import LLMClassifier
from vaultbrain.classify.corpus import Example, parse_line
from vaultbrain.classify.llm import LLMClient
from vaultbrain.classify.probe import kept, load_probe, measure_once, model_key
from vaultbrain.classify.reliability import Reliability
from vaultbrain.classify.result import UNKNOWN, Band

ROOT = Path(__file__).resolve().parents[2]
DEV2 = ROOT / "bench" / "data" / "classifier-dev2.txt"
TYPES = ["person", "project", "idea", "admin"]
TODAY = dt.date(2026, 12, 5)
AUTO, MIN = 0.8, 0.5


def dev2() -> list[Example]:
    with open(DEV2, encoding="utf-8") as fh:
        return [ex for ex in map(parse_line, fh) if ex is not None]


def strong_model(examples: list[Example], right: float = 0.95):
    """A responder right ``right`` of the time on these thoughts (chosen by a hash of the
    text, so the same thoughts every run), a wrong type otherwise; confidence 0.9."""
    gold = {ex.text: ex for ex in examples}

    def answer(body: dict) -> str:
        content = body["messages"][-1]["content"]
        text = json.loads(content.split("Thought:\n", 1)[1])
        ex = gold[text]
        lucky = int(hashlib.sha1(text.encode()).hexdigest(), 16) % 1000 < right * 1000
        if ex.labels and lucky:
            names = iter(ex.people)
            dests = [
                {"type": t, "title": next(names, "") if t == "person" else text[:40]}
                for t in ex.labels
            ]
            dests = [d for d in dests if d["title"]] or [{"type": ex.labels[0], "title": text[:40]}]
        elif not ex.labels and lucky:
            dests = [{"type": UNKNOWN, "title": ""}]
        else:
            wrong = [t for t in TYPES if not ex.labels or t != ex.labels[0]]
            dests = [{"type": wrong[len(text) % len(wrong)], "title": text[:40]}]
        return reply([{**d, "fields": {}} for d in dests], 0.9, "simulated")

    return answer


def test_a_model_is_measured_once_and_its_record_kept_per_model_id(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    brain = new_brain(vault)
    lmstudio.responder = strong_model(load_probe())
    client = LLMClient(lmstudio.url, "", state_dir=brain.state_dir)
    try:
        measured, now = measure_once(brain.store, client, brain.pack, TODAY)
        asked = len(lmstudio.requests)
        assert now and measured is not None
        assert measured.asked == len(load_probe()) == asked
        assert measured.accuracy is not None and measured.accuracy >= 0.85
        assert set(measured.per_type) >= {"person", "project", "idea", "admin", UNKNOWN}
        # met again: the record is reused, nothing is asked
        again, now = measure_once(brain.store, client, brain.pack, TODAY)
        assert not now and again == measured and len(lmstudio.requests) == asked
    finally:
        client.close()
    # kept per endpoint and model id: another model at the same address is not measured
    model = measured.model
    assert kept(brain.store, lmstudio.url, model) == measured
    assert kept(brain.store, lmstudio.url, model + "-other") is None
    stored = brain.store.read_json("llm-probe.json", {})
    assert list(stored) == [model_key(lmstudio.url, model)]


def test_on_a_fresh_vault_the_pair_is_as_accurate_as_a_strong_measured_model(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    from vaultbrain.classify.adapt import embedded_for
    from vaultbrain.classify.embedded import analyse

    brain = new_brain(vault)
    cases = dev2()
    lmstudio.responder = strong_model(load_probe() + cases)
    client = LLMClient(lmstudio.url, "", state_dir=brain.state_dir)
    try:
        measured, _ = measure_once(brain.store, client, brain.pack, TODAY)
        assert measured is not None
        rel = Reliability(types=len(TYPES)).with_measured(measured.per_type)
        emb = embedded_for(brain.store, brain.pack, save=False)
        llm = LLMClassifier(client)
        model_right = pair_right = 0
        for ex in cases:
            theirs, _ = llm.classify(brain.pack, ex.text, TODAY, [], [])
            mine = analyse(ex.text, TODAY, emb, None, 1.0, brain.pack)
            d = decide(
                ex.text,
                theirs,
                mine.classification,
                rel,
                AUTO,
                MIN,
                frozenset(TYPES),
                names_found(mine),
            )
            truth = ex.labels[0] if ex.labels else None
            model_right += _first(theirs.destinations) == truth
            filed = d.classification.destinations if d.band is not Band.REVIEW else []
            pair_right += _first(filed) == truth
    finally:
        client.close()
    n = len(cases)
    assert model_right / n >= 0.9  # the simulated model is strong
    assert pair_right >= model_right, (pair_right / n, model_right / n)


def _first(dests) -> str | None:
    for d in dests:
        return d.type if d.type in TYPES else None
    return None


@pytest.mark.parametrize("path", ["corpus/vaultbrain-base.txt", "bench/data/classifier-dev2.txt"])
def test_the_probe_is_no_line_of_the_corpus_or_a_dev_set(path: str) -> None:
    with open(ROOT / path, encoding="utf-8") as fh:
        other = {ex.text for ex in map(parse_line, fh) if ex is not None}
    probe = load_probe()
    assert len(probe) >= 40 and not {ex.text for ex in probe} & other
    assert {ex.labels[0] for ex in probe if ex.labels} == set(TYPES)
    assert sum(1 for ex in probe if not ex.labels) >= 5  # some noise


def test_the_daemon_measures_a_new_model_in_the_background_and_says_so(
    vault: Path, lmstudio: FakeLMStudio, daemon
) -> None:
    from support.cli import run, run_json
    from support.daemon import wait_for

    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    lmstudio.responder = strong_model(load_probe() + dev2())
    proc = daemon()
    proc.start()
    proc.wait_ready()
    try:
        wait_for(lambda: "measured:" in proc.output(), 60, proc.log)
        assert "measuring the model" in proc.output()
        # a thought captured now: the pair weighs the model by its measure
        with (vault / "Inbox.md").open("a", encoding="utf-8") as fh:
            fh.write(f"- {dev2()[0].text}\n")
        # decided, not only taken: a taken line has its id while it waits for the classifier
        wait_for(lambda: "- [x]" in (vault / "Inbox.md").read_text("utf-8").split("\n")[-2], 30)
    finally:
        assert proc.stop() == 0
    assert "Traceback" not in proc.output()
    summary = run_json(vault, "trust", "--summary")
    (m,) = summary["llm_measured"]
    assert m["asked"] == len(load_probe()) and m["accuracy"] >= 0.85
    assert "LLM measured:" in run(vault, "trust", "--summary").output
    assert "llm measured" in run(vault, "doctor", ok=False).output
    trail = run_json(vault, "trust", "--limit", "100")
    pair = [e["second_opinion"] for e in trail if e.get("second_opinion")]
    assert pair and pair[-1]["llm_measured"] is True


def test_another_server_on_the_same_port_is_measured_as_another_model(vault: Path) -> None:
    """The record is kept under the model the server says it serves: LM Studio swapped for
    llama.cpp on the same port, the same model configured, is measured anew (its own record,
    not the strong model's), and the pair's prior follows the server that answers."""
    from vaultbrain.classify.probe import prior_for

    brain = new_brain(vault)
    probe = load_probe()
    first = FakeLMStudio("qwen2.5-7b-instruct").start()
    port, url = first.httpd.server_address[1], first.url
    first.responder = strong_model(probe)
    client = LLMClient(url, "qwen2.5-7b-instruct", state_dir=brain.state_dir)
    try:
        strong, now = measure_once(brain.store, client, brain.pack, TODAY)
        assert now and strong is not None and strong.model == "qwen2.5-7b-instruct"
    finally:
        client.close()
        first.stop()
    swapped = FakeLMStudio("SmolLM2-135M-Instruct", port=port, persona="llama.cpp").start()
    swapped.responder = strong_model(probe, right=0.2)
    client = LLMClient(url, "qwen2.5-7b-instruct", state_dir=brain.state_dir)
    try:
        weak, now = measure_once(brain.store, client, brain.pack, TODAY)
        assert now and weak is not None and len(swapped.requests) == len(probe)
        assert weak.model.startswith("SmolLM2-135M-Instruct")
        assert weak.accuracy is not None and strong.accuracy is not None
        assert weak.accuracy < strong.accuracy
        assert prior_for(brain.store, url, client.served_model()) == weak.per_type
    finally:
        client.close()
        swapped.stop()
    assert kept(brain.store, url, "qwen2.5-7b-instruct") == strong
    assert len(brain.store.read_json("llm-probe.json", {})) == 2
