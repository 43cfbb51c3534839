"""The LLM client against each server people run, as the loopback stub plays them: the form it
negotiates, what it remembers, how it bounds replies, the kind of each failure, and cancel()."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.lmstudio import ERRORS, FakeLMStudio, reply

from vaultbrain.classify.classifier import LLMClassifier, classify_with_fallback
from vaultbrain.classify.forms import FORMS_FILE
from vaultbrain.classify.health import FailureLog
from vaultbrain.classify.llm import LLMClient
from vaultbrain.classify.prompt import bound_schema
from vaultbrain.classify.result import reply_schema
from vaultbrain.classify.servers import guess_server_by_port, server_from_models, short_model_name
from vaultbrain.errors import LLMError
from vaultbrain.packs import load_pack
from vaultbrain.store import Store

TODAY = dt.date(2026, 12, 1)
THOUGHT = "Call Bob tomorrow about the roof"


def answer(_body: dict[str, Any]) -> str:
    return reply([{"type": "person", "title": "Bob", "fields": {}}], 0.9)


@pytest.fixture
def stub(request: pytest.FixtureRequest) -> Iterator[FakeLMStudio]:
    server = FakeLMStudio(persona=getattr(request, "param", "lmstudio")).start()
    server.responder = answer
    try:
        yield server
    finally:
        server.stop()


def classify(client: LLMClient) -> Any:
    pack = load_pack("vaultbrain-base")
    return LLMClassifier(client).classify(pack, THOUGHT, TODAY, [], [])


def new_client(stub: FakeLMStudio, state: Path, **kw: Any) -> LLMClient:
    kw.setdefault("timeout", 5)
    kw.setdefault("backoff", 0.01)
    return LLMClient(stub.url, state_dir=state, **kw)


# persona -> (the form it ends up answering, the server kind vaultbrain names it by)
EXPECTED = {
    "lmstudio": ("json_schema_strict", "lmstudio"),
    "llama-cpp-python": ("json_object_schema", "llama-cpp-python"),
    "llama.cpp": ("json_schema_strict", "llama.cpp"),
    "ollama": ("json_schema_strict", "ollama"),
    "vllm": ("json_schema_strict", "vllm"),
    "openai": ("json_schema", "other"),
    "plain": ("prompt_json", "other"),
}


@pytest.mark.parametrize("stub", list(EXPECTED), indirect=True)
def test_each_server_is_asked_in_the_form_it_takes_and_the_form_is_remembered(
    stub: FakeLMStudio, tmp_path: Path
) -> None:
    form, kind = EXPECTED[stub.persona]
    client = new_client(stub, tmp_path)
    result, audit = classify(client)
    assert (audit["form"], audit["server"]) == (form, kind)
    assert result.classified_by == f"{kind}:test-model"
    assert [d.title for d in result.destinations] == ["Bob"]
    probes = len(stub.requests)
    last = stub.requests[-1]
    if form == "prompt_json":
        assert "response_format" not in last
        assert '"destinations"' in last["messages"][0]["content"], "the schema is in the prompt"
    memory = Store(tmp_path).read_json(FORMS_FILE)
    assert not (tmp_path / FORMS_FILE).exists()  # (a document of state.db, no file)
    (entry,) = memory["entries"].values()
    assert (entry["form"], entry["server"]) == (form, kind)
    # Another process (a new client on the same state dir) asks straight in that form.
    again = new_client(stub, tmp_path)
    result2, audit2 = classify(again)
    assert audit2["form"] == form and result2.classified_by == result.classified_by
    assert len(stub.requests) == probes + 1


@pytest.mark.parametrize("stub", ["llama-cpp-python"], indirect=True)
def test_llama_cpp_python_costs_one_request_per_refused_form_and_never_retries_them(
    stub: FakeLMStudio, tmp_path: Path
) -> None:
    classify(new_client(stub, tmp_path))
    kinds = [
        (r["response_format"]["type"], r["response_format"].get("json_schema", {}).get("strict"))
        for r in stub.requests
    ]
    assert kinds == [("json_schema", True), ("json_schema", None), ("json_object", None)]
    assert stub.requests[-1]["response_format"]["schema"]["required"] == [
        "destinations",
        "confidence",
        "reasoning",
    ]


@pytest.mark.parametrize("stub", ["llama-cpp-python"], indirect=True)
def test_a_new_model_is_probed_again(stub: FakeLMStudio, tmp_path: Path) -> None:
    classify(new_client(stub, tmp_path))
    assert len(stub.requests) == 3
    stub.model = "/models/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"
    result, _audit = classify(new_client(stub, tmp_path))
    assert len(stub.requests) == 6, "the remembered form belongs to the old model"
    assert result.classified_by == "llama-cpp-python:Qwen2.5-0.5B-Instruct-Q4_K_M"
    entries = Store(tmp_path).read_json(FORMS_FILE)["entries"]
    assert len(entries) == 2


@pytest.mark.parametrize("stub", ["ollama"], indirect=True)
def test_ollama_that_refuses_openai_formats_is_asked_in_its_native_format(
    stub: FakeLMStudio, tmp_path: Path
) -> None:
    stub.refuse_formats = {"json_schema", "json_object"}
    result, audit = classify(new_client(stub, tmp_path, max_tokens=321))
    assert audit["form"] == "ollama_format" and result.classified_by == "ollama:test-model"
    assert stub.paths[-1] == "/api/chat"
    native = stub.requests[-1]
    assert native["format"]["type"] == "object" and native["stream"] is False
    assert native["options"]["num_predict"] == 321
    assert result.usage == {"prompt_tokens": 100, "completion_tokens": 50}


@pytest.mark.parametrize("stub", ["plain"], indirect=True)
def test_only_ollama_is_asked_in_ollamas_format(stub: FakeLMStudio, tmp_path: Path) -> None:
    classify(new_client(stub, tmp_path))
    assert "/api/chat" not in stub.paths


@pytest.mark.parametrize(
    ("persona", "penalty"),
    [("lmstudio", True), ("llama.cpp", True), ("llama-cpp-python", True), ("vllm", False)],
)
def test_every_request_is_bounded(persona: str, penalty: bool, tmp_path: Path) -> None:
    stub = FakeLMStudio(persona=persona).start()
    stub.responder = answer
    try:
        classify(new_client(stub, tmp_path, max_tokens=444))
    finally:
        stub.stop()
    body = stub.requests[-1]
    assert body["max_tokens"] == 444
    assert ("repeat_penalty" in body) is penalty, "only servers that take it are sent it"
    rf = body["response_format"]
    schema = rf["json_schema"]["schema"] if rf["type"] == "json_schema" else rf["schema"]
    assert schema["properties"]["destinations"]["maxItems"] <= 4

    def walk(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            yield node
            for v in node.values():
                yield from walk(v)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v)

    nodes = list(walk(schema))
    arrays = [n for n in nodes if n.get("type") == "array"]
    strings = [n for n in nodes if n.get("type") == "string" and "enum" not in n]
    assert arrays and all(n["maxItems"] <= 4 for n in arrays)
    assert strings and all(n["maxLength"] <= 160 for n in strings)


def test_bound_schema_keeps_bounds_already_there_and_leaves_enums_alone() -> None:
    got = bound_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                "b": {"type": "string", "enum": ["x", "y"]},
                "c": {"type": ["string", "null"]},
            },
        }
    )
    assert got["properties"]["a"] == {
        "type": "array",
        "items": {"type": "string", "maxLength": 120},
        "maxItems": 2,
    }
    assert got["properties"]["b"] == {"type": "string", "enum": ["x", "y"]}
    assert got["properties"]["c"]["maxLength"] == 120
    schema = reply_schema(load_pack("vaultbrain-base"))
    assert bound_schema(schema) == schema, "the classifier's schema is already bounded"


# -- failures by kind -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "kind", "retryable", "posts", "says"),
    [
        ("length", "length", False, 1, "cut off at 600 tokens"),
        ("context_exceeded", "context_exceeded", False, 1, "did not fit the model's context"),
        ("no_models", "no_models", True, 1, "no model loaded"),
        ("unknown_model", "unknown_model", True, 1, "has no model 'test-model'"),
        ("error500", "server", True, 3, "failed (500)"),
        ("bad_gateway", "server", True, 3, "temporarily unavailable (502)"),
        ("invalid_json", "invalid_json", False, 2, "not JSON"),  # asked once more
    ],
)
def test_each_failure_has_its_kind(
    stub: FakeLMStudio,
    tmp_path: Path,
    mode: str,
    kind: str,
    retryable: bool,
    posts: int,
    says: str,
) -> None:
    stub.mode = mode
    with pytest.raises(LLMError) as err:
        # the model named, so the chat request is sent even when /models lists none
        classify(new_client(stub, tmp_path, model="test-model"))
    assert (err.value.kind, err.value.retryable) == (kind, retryable)
    assert says in err.value.cause
    assert len(stub.requests) == posts, "temporary failures retried; an answer not JSON asked again"
    if mode == "no_models":
        assert "lms load" in str(err.value)
    if mode == "unknown_model":
        assert "ollama pull test-model" in str(err.value)


def test_a_timeout_names_the_limit_and_the_speed_last_seen(
    stub: FakeLMStudio, tmp_path: Path
) -> None:
    client = new_client(stub, tmp_path, timeout=0.5)
    classify(client)  # 50 tokens: a speed to report later
    stub.mode, stub.hang_seconds = "hang", 3
    with pytest.raises(LLMError) as err:
        classify(client)
    assert err.value.kind == "timeout" and err.value.retryable
    assert "within 0.5s" in str(err.value) and "tokens/s" in str(err.value)


def test_nothing_listening_is_unreachable_with_how_to_start_the_server() -> None:
    client = LLMClient("http://127.0.0.1:9/v1", "m", timeout=2)
    with pytest.raises(LLMError) as err:
        classify(client)
    assert err.value.kind == "unreachable" and err.value.retryable
    assert "cannot reach the LLM server at http://127.0.0.1:9/v1" in err.value.cause


def test_the_fallback_carries_a_short_cause_and_the_audit_the_servers_words(
    stub: FakeLMStudio,
) -> None:
    stub.mode = "replay:llama-cpp-python-json-schema"
    client = LLMClient(stub.url, timeout=5, backoff=0.01)
    pack = load_pack("vaultbrain-base")
    result, audit = classify_with_fallback(
        "lmstudio", "heuristic", client, pack, THOUGHT, TODAY, [], [], 0.8
    )
    assert result.classified_by == "heuristic"
    assert result.fallback is not None and result.fallback["kind"] == "format_rejected"
    note = result.fallback_note or ""
    assert note.startswith("embedded classifier: the LLM server refused the request — ")
    assert "site-packages" not in note and "literal_error" not in note
    assert "literal_error" in audit["llm_error"], "the server's own words go to the audit trail"


# -- server kinds and names -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "short"),
    [
        ("/home/me/models/SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_1"),
        ("C:\\models\\phi-3.gguf", "phi-3"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct"),
        ("llama3.2:3b", "llama3.2:3b"),
        ("qwen2.5-7b-instruct", "qwen2.5-7b-instruct"),
    ],
)
def test_a_model_is_named_by_its_short_name(model: str, short: str) -> None:
    assert short_model_name(model) == short


def test_the_server_kind_comes_from_the_model_list_then_the_port() -> None:
    for persona in ("lmstudio", "llama-cpp-python", "llama.cpp", "ollama", "vllm"):
        entry = FakeLMStudio.model_entry(_Persona(persona))  # type: ignore[arg-type]
        payload: dict[str, Any] = {"object": "list", "data": [entry]}
        assert server_from_models(payload) == persona
    assert server_from_models({"data": []}, {"server": "llama.cpp"}) == "llama.cpp"
    assert guess_server_by_port("http://localhost:1234/v1") == "lmstudio"
    assert guess_server_by_port("http://localhost:11434/v1") == "ollama"
    assert guess_server_by_port("http://localhost:8080/v1") == "llama.cpp"
    assert guess_server_by_port("http://localhost:9999/v1") == "other"


class _Persona:
    def __init__(self, persona: str) -> None:
        self.persona, self.model = persona, "m"


@pytest.mark.parametrize("stub", ["ollama", "llama.cpp"], indirect=True)
def test_ollama_and_llama_cpp_are_known_by_their_own_routes_too(
    stub: FakeLMStudio, tmp_path: Path
) -> None:
    # A model list that gives nothing away: /api/version or /props tells.
    stub.model_entry = lambda: {"id": stub.model, "object": "model"}  # type: ignore[method-assign]
    assert new_client(stub, tmp_path).server_kind() == stub.persona


# -- one warning per kind, a recovery line, cancel ---------------------------------------------
def test_failures_are_logged_once_per_kind_and_recovery_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = FailureLog("http://x/v1")
    with caplog.at_level(logging.INFO, logger="vaultbrain.llm"):
        assert log.failed("timeout", "slow") is True
        assert log.failed("timeout", "slow") is False
        assert log.failed("unreachable", "down") is True
        assert log.failed("cancelled", "stop") is False
        assert log.succeeded() is True
        assert log.succeeded() is False
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [lvl for lvl, _ in lines] == ["WARNING", "WARNING", "INFO"]
    assert "works again (after: timeout, unreachable)" in lines[-1][1]


def test_the_client_reports_each_request_to_its_failure_log(
    stub: FakeLMStudio, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client = new_client(stub, tmp_path)
    stub.mode = "context_exceeded"
    with caplog.at_level(logging.INFO, logger="vaultbrain.llm"):
        for _ in range(3):
            with pytest.raises(LLMError):
                classify(client)
        stub.mode = "ok"
        classify(client)
        classify(client)
    said = [r.getMessage() for r in caplog.records if r.name == "vaultbrain.llm"]
    assert len(said) == 2, said
    assert "[context_exceeded]" in said[0] and "works again" in said[1]


def test_cancel_ends_a_request_in_flight_at_once_and_refuses_new_ones(
    stub: FakeLMStudio, tmp_path: Path
) -> None:
    stub.mode, stub.hang_seconds = "hang", 30
    client = new_client(stub, tmp_path, timeout=60)
    got: list[BaseException] = []

    def ask() -> None:
        try:
            classify(client)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            got.append(exc)

    worker = threading.Thread(target=ask)
    worker.start()
    for _ in range(200):
        if stub.in_flight:
            break
        threading.Event().wait(0.02)
    assert stub.in_flight == 1
    client.cancel()
    worker.join(10)
    assert not worker.is_alive(), "a cancelled request does not wait for the server"
    assert isinstance(got[0], LLMError) and got[0].kind == "cancelled" and got[0].retryable
    before = len(stub.requests)
    with pytest.raises(LLMError) as err:
        classify(client)
    assert err.value.kind == "cancelled" and len(stub.requests) == before


def test_the_stub_replays_the_real_llama_cpp_python_refusal() -> None:
    code, body = ERRORS["llama-cpp-python-json-schema"]
    assert code == 500 and "Input should be 'text' or 'json_object'" in body["error"]["message"]


# -- doctor -------------------------------------------------------------------------------------
def _doctor_llm_line(vault: Path) -> str:
    from support.cli import run

    run(vault, "init")
    out = run(vault, "doctor", ok=False).output
    (line,) = [x for x in out.splitlines() if "] llm: " in x]
    return line


@pytest.mark.parametrize("stub", ["llama-cpp-python", "ollama"], indirect=True)
def test_doctor_classifies_once_and_reports_server_model_form_and_speed(
    stub: FakeLMStudio, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", stub.url)
    line = _doctor_llm_line(tmp_path / "Vault")
    form = EXPECTED[stub.persona][0]
    assert line.startswith("[ok  ] llm: "), line
    assert f"{stub.persona} serving test-model" in line and f"in form {form}" in line
    assert "(50 tokens, " in line and "tokens/s)" in line
    assert f"classified_by {stub.persona}:test-model" in line


def test_doctor_shows_the_servers_exact_refusal(
    stub: FakeLMStudio, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", stub.url)
    monkeypatch.setenv("VAULTBRAIN_MODEL", "test-model")
    stub.mode = "context_exceeded"
    line = _doctor_llm_line(tmp_path / "Vault")
    assert line.startswith("[warn] llm: "), line
    assert "Context size has been exceeded." in line and "[context_exceeded]" in line
    assert "the embedded classifier files suggestions meanwhile" in line


def test_doctor_with_no_server_says_which_one_the_port_suggests_and_how_to_start_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 11434)) == 0:
            pytest.skip("something listens on Ollama's port here")
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", "http://127.0.0.1:11434/v1")
    line = _doctor_llm_line(tmp_path / "Vault")
    assert line.startswith("[warn] llm: nothing answers at http://127.0.0.1:11434/v1"), line
    assert "(Ollama's port)" in line and "`ollama serve`" in line
    assert "the embedded classifier files suggestions meanwhile" in line


def test_a_cancelled_request_is_not_decided_by_the_fallback(stub: FakeLMStudio) -> None:
    client = LLMClient(stub.url, timeout=5)
    client.cancel()
    pack = load_pack("vaultbrain-base")
    with pytest.raises(LLMError) as err:
        classify_with_fallback("lmstudio", "heuristic", client, pack, THOUGHT, TODAY, [], [], 0.8)
    assert err.value.kind == "cancelled", "the capture stays pending, journaled"
