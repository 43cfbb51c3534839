"""Embeddings degrade one note at a time (issue 47, item 2): the embedding path run against a
real HTTP server on 127.0.0.1 that answers some texts with a 500, a vector with NaN or
infinity in it, an empty list, a vector of the wrong size, all zeros, a "too long for the
context" refusal, and later changes its vector size under the same model name; on a vault
of 1,000 notes.

What must hold: every other note is embedded and found by meaning where it should rank
(first for its own word); the refused notes are not stored, are listed as waiting with why
(``embed --status``, ``doctor``) and are not asked again until their backoff is due (or
the note changes); a text too long for the context is cut and embedded; ``search --json``
is valid JSON; a change of vector size is noticed and every note embedded again, never a
semantic search that silently finds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import run
from support.embedserver import HashEmbedServer

pytestmark = [pytest.mark.timeout(600)]

N = 1000
# note numbers -> the word their body holds, and what the server does to a text with it
FAULTS = {
    "boomword": ("error500", range(10, 15)),
    "nanword": ("nan", range(20, 25)),
    "infword": ("inf", range(30, 35)),
    "emptyword": ("empty", range(40, 45)),
    "wideword": ("wide", range(50, 55)),
    "zeroword": ("zeros", range(60, 65)),
    "longword": ("too_long", range(70, 75)),  # refused whole, embedded once cut
}
WHY = {
    "error500": "500",
    "nan": "NaN or infinity",
    "inf": "NaN or infinity",
    "empty": "empty",
    "wide": "numbers where the model gives 256",
    "zeros": "all zeros",
}


def _key(i: int) -> str:
    return f"kw{i:04d}q"


def _rel(i: int) -> str:
    return f"Ideas/Note {i:04d}.md"


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> Iterator[HashEmbedServer]:
    server = HashEmbedServer().start()
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", server.url)
    try:
        yield server
    finally:
        server.stop()


def _make_vault(root: Path) -> dict[int, str]:
    run(root, "init")
    (root / "Ideas").mkdir(exist_ok=True)
    marked: dict[int, str] = {}
    for word, (_fault, numbers) in FAULTS.items():
        for i in numbers:
            marked[i] = word
    for i in range(N):
        word = marked.get(i, "")
        body = f"About {_key(i)} and the plans for it. {word}\n"
        if word == "longword":
            body += "\n" + " ".join(f"sentence {j} of a long note" for j in range(60)) + "\n"
        (root / _rel(i)).write_text(f"# Note {i:04d}\n\n{body}", "utf-8")
    return marked


def _semantic(vault: Path, query: str) -> list[dict[str, Any]]:
    result = run(vault, "search", "--mode", "semantic", "--json", "--limit", "5", query)
    assert "Traceback" not in result.output
    return _strict(result.stdout)["results"]


def test_a_faulty_server_costs_only_the_notes_it_refused(
    tmp_path: Path, embedder: HashEmbedServer
) -> None:
    vault = tmp_path / "Vault"
    marked = _make_vault(vault)
    embedder.faults = {word: fault for word, (fault, _n) in FAULTS.items()}
    refused = {i for i, w in marked.items() if w != "longword"}

    first = run(vault, "embed", "--json", ok=False)
    assert first.exit_code == 0 and "Traceback" not in first.output, first.output
    report = _strict(first.stdout)
    status = report["status"]
    assert status["model"] == "hash-embed:256"
    waiting = {w["path"]: w for w in status["waiting"]}
    assert set(waiting) == {_rel(i) for i in refused}, "exactly the refused notes wait"
    assert status["refused"] == len(refused) and status["pending"] >= len(refused)
    for i in refused:
        fault = FAULTS[marked[i]][0]
        assert WHY[fault] in waiting[_rel(i)]["why"], (fault, waiting[_rel(i)])
        assert waiting[_rel(i)]["tries"] == 1
    embedded_notes = status["notes"]
    assert embedded_notes >= N - len(refused), "every other note is embedded"

    # Found by meaning, each first for its own word; the refused ones never by meaning.
    for i in [*range(0, N, 97), *FAULTS["longword"][1]]:
        rows = _semantic(vault, _key(i))
        assert rows and rows[0]["path"] == _rel(i), (i, rows[:2])
        assert all(isinstance(r["similarity"], float) for r in rows)
    for i in sorted(refused)[::3]:
        rows = _semantic(vault, _key(i))
        assert _rel(i) not in [r["path"] for r in rows], (i, rows)
    hybrid = _strict(run(vault, "search", "--json", _key(12)).stdout)
    assert hybrid["mode"] == "hybrid"
    assert hybrid["results"][0]["path"] == _rel(12), "by its words, still found first"

    # What waits, and why, in the person's words.
    text = run(vault, "embed", "--status").output
    assert f"{len(refused)} refused by the server, tried again later:" in text
    assert f"{_rel(10)}: " in text and "500" in text
    doctor = run(vault, "doctor", ok=False).output
    assert f"{len(refused)} note(s) wait to be embedded" in doctor and "Traceback" not in doctor

    # Not asked again before its backoff is due: a second run sends none of them.
    posts = embedder.posts
    again = _strict(run(vault, "embed", "--json").stdout)
    assert embedder.posts == posts and again["notes"] == 0
    assert {w["tries"] for w in again["status"]["waiting"]} == {1}

    # The server heals; a note the person edits is tried at once.
    embedder.faults = {}
    note = vault / _rel(10)
    note.write_text(note.read_text("utf-8") + "\nEdited.\n", "utf-8")
    healed = _strict(run(vault, "embed", "--json").stdout)
    assert healed["notes"] == 1 and healed["status"]["refused"] == len(refused) - 1
    assert _semantic(vault, _key(10))[0]["path"] == _rel(10)

    # The model changes size under the same name: noticed, never a search finding nothing.
    # (The search that finds it out remembers it; the next round embeds every note again.)
    embedder.dim = 384
    result = run(vault, "search", "--mode", "semantic", "--json", _key(5), ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "now embeds with 384 numbers" in result.output, result.output
    mixed = run(vault, "search", "--json", _key(5))
    doc = _strict(mixed.stdout)
    assert doc["mode"] == "keyword" and "384" in doc["note"]
    assert doc["results"][0]["path"] == _rel(5)

    redone = run(vault, "embed", "--json", ok=False)
    assert redone.exit_code == 0, redone.output
    redo = _strict(redone.stdout)
    assert redo["model_changed"] == "hash-embed:384"
    assert redo["status"]["model"] == "hash-embed:384"
    assert redo["status"]["refused"] == 0, "a new model: every note tried again"
    assert redo["status"]["notes"] >= N, "every note embedded again, the refused ones too"
    for i in (3, 12, 555, 999):
        rows = _semantic(vault, _key(i))
        assert rows and rows[0]["path"] == _rel(i), (i, rows[:2])
    # Nothing the person wrote was touched.
    assert (vault / _rel(10)).read_text("utf-8").endswith("\nEdited.\n")
    assert len(list((vault / "Ideas").glob("*.md"))) == N


def test_a_size_change_found_by_a_batch_embeds_every_note_again(
    tmp_path: Path, embedder: HashEmbedServer
) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    (vault / "Ideas").mkdir(exist_ok=True)
    for i in range(40):
        (vault / _rel(i)).write_text(f"# Note {i:04d}\n\nAbout {_key(i)}.\n", "utf-8")
    first = _strict(run(vault, "embed", "--json").stdout)
    assert first["status"]["model"] == "hash-embed:256"
    embedder.dim = 128  # no search notices it: the next note's batch does
    (vault / _rel(40)).write_text(f"# Note 0040\n\nAbout {_key(40)}.\n", "utf-8")
    result = run(vault, "embed", "--json", ok=False)
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    doc = _strict(result.stdout)
    assert doc["model_changed"] == "hash-embed:128"
    assert doc["status"]["model"] == "hash-embed:128" and doc["status"]["pending"] == 0
    assert doc["status"]["notes"] >= 41 and doc["status"]["refused"] == 0
    for i in (0, 17, 40):
        assert _semantic(vault, _key(i))[0]["path"] == _rel(i)


def test_the_daemon_embeds_every_other_note_past_a_faulty_one(
    tmp_path: Path, embedder: HashEmbedServer, daemon
) -> None:
    from support.daemon import wait_for

    vault = tmp_path / "Vault"
    run(vault, "init")
    (vault / "Ideas").mkdir(exist_ok=True)
    n = 300
    bad = {7: "boomword", 8: "nanword", 150: "wideword", 151: "emptyword", 299: "infword"}
    for i in range(n):
        body = f"About {_key(i)}. {bad.get(i, '')}\n"
        (vault / _rel(i)).write_text(f"# Note {i:04d}\n\n{body}", "utf-8")
    embedder.faults = {word: fault for word, (fault, _n) in FAULTS.items()}
    run(vault, "search", "bees")  # builds the graph index, which the daemon keeps in step
    d = daemon(vault).start()
    d.wait_ready()

    def status() -> dict[str, Any]:
        return _strict(run(vault, "embed", "--status", "--json").stdout)

    wait_for(lambda: status()["notes"] >= n - len(bad), 60, d.log)
    wait_for(lambda: status()["refused"] == len(bad), 60, d.log)
    doc = status()
    assert {w["path"] for w in doc["waiting"]} == {_rel(i) for i in bad}
    for i in (0, 6, 9, 149, 152, 298):
        assert _semantic(vault, _key(i))[0]["path"] == _rel(i)
    # A note the person edits after the server healed is embedded at once.
    embedder.faults = {}
    note = vault / _rel(150)
    note.write_text(note.read_text("utf-8") + "\nEdited.\n", "utf-8")
    wait_for(lambda: _semantic(vault, _key(150))[0]["path"] == _rel(150), 60, d.log)
    assert status()["refused"] == len(bad) - 1
    assert d.alive()
    assert d.stop() == 0
    out = d.output()
    assert "Traceback" not in out and "waits, tried again later" in out
