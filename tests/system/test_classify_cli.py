"""``vaultbrain classify``: what each classifier would do, writing nothing; and the embedded
classifier learning from a correction made with ``fix`` by the very next capture."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.lmstudio import FakeLMStudio, reply


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_classify_prints_each_classifier_and_writes_nothing(vault: Path) -> None:
    run(vault, "db", "add", "person", "--set", "name=Priya Shah")
    before = snapshot(vault)
    out = run(vault, "classify", "coffee w priya tmrw re: the Hive Health plan").output
    assert snapshot(vault) == before
    assert "embedded (corpus+vault)" in out and "Priya Shah" in out
    assert "due:     2026" in out or "due:" in out
    assert "rules (the old pattern classifier)" in out
    assert "llm: unreachable" in out
    doc = run_json(vault, "classify", "pay Dr. Müller's invoice (€84.20) by friday")
    assert snapshot(vault) == before
    emb = doc["embedded"]
    assert set(emb["probabilities"]) == {"person", "project", "idea", "admin"}
    assert [p["name"] for p in emb["people"]] == ["Dr. Müller"]
    admin = next(d for d in emb["destinations"] if d["type"] == "admin")
    assert admin["title"] == "Pay Dr. Müller's invoice (€84.20)"
    assert admin["fields"]["due"] == emb["due"]
    # no cap below auto_confidence (issue 42): the band follows the calibrated confidence
    conf = emb["confidence"]
    assert emb["band"] == ("auto" if conf >= 0.8 else "suggest" if conf >= 0.5 else "review")
    assert run_json(vault, "inbox") == []


def test_classify_shows_the_llm_and_the_second_opinion(vault: Path, lmstudio: FakeLMStudio) -> None:
    lmstudio.responder = lambda body: reply(
        [{"type": "project", "title": "Gas bill", "fields": {}}], 0.95, "looks like a project"
    )
    doc = run_json(vault, "classify", "pay the gas bill by friday")
    assert doc["llm"]["destinations"][0]["type"] == "project"
    assert doc["llm"]["band"] == "auto"
    op = doc["second_opinion"]
    assert (op["agree"], op["llm_type"], op["embedded_type"]) == (False, "project", "admin")
    assert op["final_band"] == "suggest" and op["note"]
    assert "embedded" in run(vault, "classify", "--no-llm", "pay the gas bill").output
    assert len(lmstudio.requests) == 1


def test_classify_refuses_an_empty_thought(vault: Path) -> None:
    result = run(vault, "classify", "   ", ok=False)
    assert result.exit_code == 1 and "nothing to classify" in result.output


def test_a_correction_teaches_the_next_capture(vault: Path) -> None:
    first = run_json(vault, "capture", "book the zorbing weekend for the lads")
    assert first["classified_by"] == "heuristic" and first["destinations"]
    wrong = first["destinations"][0]
    want = "idea" if wrong["type"] != "idea" else "project"
    rec = run_json(vault, "db", "show", wrong["type"], wrong["title"])
    run(vault, "fix", rec["id"], want)
    again = run_json(vault, "classify", "--no-llm", "book the zorbing weekend for the lads")
    assert again["embedded"]["destinations"][0]["type"] == want
    second = run_json(vault, "capture", "book the zorbing weekend for the lads again")
    assert second["destinations"][0]["type"] == want


def test_trust_summary_has_the_agreement_rate(vault: Path) -> None:
    run(vault, "capture", "idea: a trust note needs something to show")
    from vaultbrain.store import Store

    store = Store(vault / ".vaultbrain")
    for agree in (True, True, False):
        store.audit({"kind": "classification", "second_opinion": {"agree": agree}})
    store.close()
    s = run_json(vault, "trust", "--summary")
    assert s["second_opinion"]["agreement_rate"] == 0.667
    run(vault, "trust", "--write-note")
    assert "## Second opinion" in (vault / "Brain/Trust.md").read_text()


def test_thoughts_that_name_the_vaults_records_link_to_them(vault: Path) -> None:
    for name in (
        "Priya Shah",
        "Marco Rossi",
        "Liam O'Brien",
        "José Álvarez",
        "Anneke van der Berg",
    ):
        run(vault, "db", "add", "person", "--set", f"name={name}")
    for name in ("Kitchen renovation", "Podcast website", "Catan"):
        run(vault, "db", "add", "project", "--set", f"name={name}")
    thoughts = {
        "coffee w priya tmrw": "People/Priya Shah.md",
        "Marco's birthday is next week, he wants a book": "People/Marco Rossi.md",
        "liam sent the quote for the fuse box": "People/Liam O'Brien.md",
        "kitchen renovation: tiler booked for the 14th": "Projects/Kitchen renovation.md",
        "podcast website - write the about page": "Projects/Podcast website.md",
        "play Catan with José on friday": "People/José Álvarez.md",
    }
    for text, path in thoughts.items():
        doc = run_json(vault, "capture", text)
        paths = [d["path"] for d in doc["destinations"]]
        assert path in paths, (text, doc)
        assert "People/Catan.md" not in paths
    assert sorted(p.name for p in (vault / "People").iterdir()) == [
        "Anneke van der Berg.md",
        "José Álvarez.md",
        "Liam O'Brien.md",
        "Marco Rossi.md",
        "Priya Shah.md",
    ]
