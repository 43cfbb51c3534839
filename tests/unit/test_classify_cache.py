"""The classification cache (vaultbrain/classify/cache.py): its key as a table, the file in a
temp state dir, and classify_with_fallback against the loopback LLM server."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.lmstudio import FakeLMStudio, reply
from support.state import lines as state_lines

from vaultbrain.classify.cache import (
    MAX_ROWS,
    CacheKey,
    ClassificationCache,
    normalise_thought,
    slot_for,
)
from vaultbrain.classify.classifier import classify_with_fallback
from vaultbrain.classify.llm import LLMClient
from vaultbrain.classify.result import Classification, Destination
from vaultbrain.packs import load_pack
from vaultbrain.store import Store

TODAY = dt.date(2026, 12, 1)
THOUGHT = "Call Bob tomorrow about the roof"
BASE = ("Call Bob tomorrow", "vaultbrain-base@1+aaaa", "http://h/v1|m", "p1")


# -- the key as a table --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("other", "same"),
    [
        (("Call Bob tomorrow", *BASE[1:]), True),
        (("  Call   Bob\ttomorrow \n", *BASE[1:]), True),  # whitespace is not meaning
        (("Call Bob tomorrow".replace("o", "o\u0308", 1), *BASE[1:]), False),
        (("call bob tomorrow", *BASE[1:]), False),  # capitals shape the title written
        (("Call Bob today", *BASE[1:]), False),
        ((BASE[0], "vaultbrain-recommended@1+bbbb", *BASE[2:]), False),  # another pack
        ((BASE[0], "vaultbrain-base@1+cccc", *BASE[2:]), False),  # the same pack, edited
        ((*BASE[:2], "http://h/v1|other", BASE[3]), False),  # another model
        ((*BASE[:2], "http://elsewhere/v1|m", BASE[3]), False),  # another server
        ((*BASE[:3], "p2"), False),  # another prompt
    ],
)
def test_the_cache_key(other: tuple[str, str, str, str], same: bool) -> None:
    assert (CacheKey.of(*other).digest == CacheKey.of(*BASE).digest) is same


def test_the_key_keeps_its_parts_apart() -> None:
    assert CacheKey.of("a|b", "c", "m", "p").digest != CacheKey.of("a", "b|c", "m", "p").digest


def test_normalising_keeps_unicode_forms_equal() -> None:
    assert normalise_thought("Caf\u00e9  ") == normalise_thought("Cafe\u0301")


# -- the key from what the prompt is built of ----------------------------------------------
CORRECTION = {"text": "Call Ann about tiles", "from": "person", "to": "admin"}
KNOWN = {"type": "person", "title": "Bob", "aliases": []}


class _Named(LLMClient):
    """A client of a server that serves the configured model (the key's table needs no
    server; the test below swaps real ones)."""

    def __init__(self, model: str = "test-model") -> None:
        super().__init__("http://127.0.0.1:9/v1", model)

    def served_model(self) -> str:
        return self.model


@pytest.mark.parametrize(
    ("change", "same"),
    [
        ({}, True),
        ({"text": "  Call Bob tomorrow   about the roof"}, True),
        ({"examples": [CORRECTION]}, False),  # a correction enters the prompt
        ({"known": [KNOWN]}, False),
        ({"today": TODAY + dt.timedelta(days=1)}, False),  # "tomorrow" means another day
        ({"pack": "vaultbrain-recommended"}, False),
        ({"model": "another-model"}, False),
    ],
)
def test_the_key_follows_the_prompt(tmp_path: Path, change: dict[str, Any], same: bool) -> None:
    def key(pack: str = "vaultbrain-base", model: str = "test-model", **kw: Any) -> str:
        args: dict[str, Any] = {"text": THOUGHT, "today": TODAY, "known": [], "examples": []}
        args.update(kw)
        slot = slot_for(tmp_path, _Named(model), load_pack(pack), **args)
        assert slot is not None
        return slot.key.digest

    assert (key(**change) == key()) is same


def test_no_state_dir_no_cache() -> None:
    assert slot_for(None, _Named(), load_pack("vaultbrain-base"), THOUGHT, TODAY, [], []) is None


# -- the file --------------------------------------------------------------------------------
def _result(title: str) -> Classification:
    return Classification(
        [Destination("person", title, {})], 0.9, "a name", "lmstudio:test-model", model="m"
    )


def test_a_row_written_under_one_pack_is_not_read_under_another(tmp_path: Path) -> None:
    cache = ClassificationCache(tmp_path)
    under_a = CacheKey.of(THOUGHT, "vaultbrain-base@1+aaaa", "m", "p")
    under_b = CacheKey.of(THOUGHT, "vaultbrain-recommended@1+bbbb", "m", "p")
    cache.put(under_a, _result("Bob"), {"prompt_hash": "x"})
    assert cache.get(under_b) is None
    hit = cache.get(under_a)
    assert hit is not None
    result, audit = hit
    assert [d.title for d in result.destinations] == ["Bob"] and result.model == "m"
    assert audit["prompt_hash"] == "x" and audit["cache"]["hit"] is True
    # and back: switching packs again finds the row, nothing evicted
    assert cache.get(under_a) is not None and len(cache) == 1


def test_the_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vaultbrain.classify.cache as cache_mod

    monkeypatch.setattr(cache_mod, "MAX_ROWS", 3)
    cache = ClassificationCache(tmp_path)
    keys = [CacheKey.of(f"thought {i}", "pack", "m", "p") for i in range(5)]
    for k in keys:
        cache.put(k, _result("Bob"), {})
    assert len(cache) == 3 and MAX_ROWS > 3
    assert cache.get(keys[-1]) is not None


def test_a_broken_cache_file_of_an_earlier_version_is_only_removed(tmp_path: Path) -> None:
    (tmp_path / "classify-cache.sqlite").write_bytes(b"not a database at all" * 100)
    cache = ClassificationCache(tmp_path)
    key = CacheKey.of(THOUGHT, "pack", "m", "p")
    assert cache.get(key) is None  # (the store opened: the file taken in, nothing in it)
    assert not (tmp_path / "classify-cache.sqlite").exists()
    cache.put(key, _result("Bob"), {})
    assert cache.get(key) is not None and len(cache) == 1


# -- classify_with_fallback ----------------------------------------------------------------
@pytest.fixture
def stub() -> Iterator[FakeLMStudio]:
    server = FakeLMStudio().start()
    server.responder = lambda _body: reply([{"type": "person", "title": "Bob", "fields": {}}], 0.9)
    try:
        yield server
    finally:
        server.stop()


def _classify(
    stub: FakeLMStudio, store: Store | None, text: str = THOUGHT, **kw: Any
) -> tuple[Classification, dict[str, Any]]:
    client = LLMClient(stub.url, timeout=5, backoff=0.01, retries=0)
    pack = load_pack(kw.pop("pack", "vaultbrain-base"))
    examples = kw.pop("examples", [])
    return classify_with_fallback(
        "lmstudio", "heuristic", client, pack, text, TODAY, [], examples, 0.8, store=store
    )


def test_an_identical_thought_is_not_asked_twice(tmp_path: Path, stub: FakeLMStudio) -> None:
    store = Store(tmp_path)
    first, audit = _classify(stub, store)
    asked = len(stub.requests)
    assert asked >= 1 and "cache" not in audit
    again, audit2 = _classify(stub, store, "Call Bob  tomorrow about the roof ")
    assert len(stub.requests) == asked, "answered from the cache"
    assert again.to_dict() == first.to_dict()
    assert audit2["cache"]["hit"] is True and audit2["provider"] == "lmstudio"
    # another pack, or a correction in the prompt: asked again
    _classify(stub, store, pack="vaultbrain-recommended")
    assert len(stub.requests) == asked + 1
    _classify(stub, store, examples=[CORRECTION])
    assert len(stub.requests) == asked + 2


def test_without_a_store_nothing_is_cached(tmp_path: Path, stub: FakeLMStudio) -> None:
    _classify(stub, None)
    _classify(stub, None)
    assert len(stub.requests) == 2


def test_a_fallback_result_is_not_cached(tmp_path: Path, stub: FakeLMStudio) -> None:
    store = Store(tmp_path)
    stub.mode = "error500"
    result, _ = _classify(stub, store)
    assert result.classified_by == "heuristic"
    assert len(ClassificationCache(tmp_path)) == 0
    stub.mode = "ok"
    result, audit = _classify(stub, store)
    assert result.classified_by != "heuristic" and "cache" not in audit
    assert len(ClassificationCache(tmp_path)) == 1


# -- through the CLI ---------------------------------------------------------------------------
def test_classify_then_capture_asks_the_llm_once(vault: Path, lmstudio: FakeLMStudio) -> None:
    from support.cli import run, run_json

    lmstudio.responder = lambda _body: reply(
        [{"type": "project", "title": "Gas bill", "fields": {}}], 0.95, "a bill to pay"
    )
    run(vault, "init")
    run(vault, "settings", "set", "second_opinion", "false")  # the LLM's answer is filed as is
    doc = run_json(vault, "classify", "pay the gas bill by friday")
    assert doc["llm"]["destinations"][0]["title"] == "Gas bill"
    assert len(lmstudio.requests) == 1
    filed = run_json(vault, "capture", "pay the gas bill  by friday")
    assert len(lmstudio.requests) == 1, "the capture found the answer in the cache"
    assert [d["title"] for d in filed["destinations"]] == ["Gas bill"]
    lines = state_lines(vault / ".vaultbrain")
    audit = [e for e in map(json.loads, lines) if e.get("kind") == "classification"]
    assert audit[-1]["cache"]["hit"] is True and audit[-1]["raw"], "the trail says where from"
    run(vault, "schema", "use", "vaultbrain-recommended")  # another pack: asked again
    run_json(vault, "capture", "pay the gas bill by friday")
    assert len(lmstudio.requests) == 2


def test_another_server_on_the_same_port_is_asked_afresh(tmp_path: Path) -> None:
    """The cache is keyed by the model the server says it serves, not by the port: LM Studio
    swapped for llama.cpp on the same port (the same model configured) is asked again, and
    the first server back with its model is answered from the cache once more."""
    store = Store(tmp_path)
    said = lambda _body: reply([{"type": "person", "title": "Bob", "fields": {}}], 0.9)  # noqa: E731

    def classify_at(url: str) -> dict[str, Any]:
        client = LLMClient(url, "qwen2.5-7b-instruct", timeout=5, backoff=0.01, retries=0)
        try:
            return classify_with_fallback(
                "lmstudio",
                "heuristic",
                client,
                load_pack("vaultbrain-base"),
                THOUGHT,
                TODAY,
                [],
                [],
                0.8,
                store=store,
            )[1]
        finally:
            client.close()

    first = FakeLMStudio("qwen2.5-7b-instruct").start()
    port, url = first.httpd.server_address[1], first.url
    first.responder = said
    try:
        assert "cache" not in classify_at(url) and len(first.requests) == 1
        assert classify_at(url)["cache"]["hit"] is True and len(first.requests) == 1
    finally:
        first.stop()
    swapped = FakeLMStudio("SmolLM2-135M-Instruct", port=port, persona="llama.cpp").start()
    swapped.responder = said
    try:
        assert swapped.url == url
        audit = classify_at(url)
        assert "cache" not in audit and len(swapped.requests) == 1, "asked afresh"
    finally:
        swapped.stop()
    back = FakeLMStudio("qwen2.5-7b-instruct", port=port).start()
    try:
        assert classify_at(url)["cache"]["hit"] is True and back.requests == []
    finally:
        back.stop()
    keys = {r[0] for r in store.conn().execute("SELECT model FROM classify_cache")}
    assert keys == {
        f"{url}|qwen2.5-7b-instruct",
        f"{url}|SmolLM2-135M-Instruct (asked for qwen2.5-7b-instruct)",
    }
