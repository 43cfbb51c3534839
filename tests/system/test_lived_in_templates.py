"""Templates are never proposed, never records and never "unreadable"; `schema detect`
names types as a person would and says which folder each came from (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run, run_json
from support.lived_in import lived_in_shapes

TEMPLATE_FOLDERS = ("Meta/Scaffolds", "Templater", "Templates", "Blueprints")


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    lived_in_shapes(root)
    run(root, "init")
    return root


def test_detect_proposes_no_template_and_no_topic_folder(vault: Path) -> None:
    # (how a folder's name becomes a type's: tests/unit/test_packs_survey.py, slug_for)
    found = run_json(vault, "schema", "detect", "--min-notes", "5")
    by_folder = {c["folder"]: c for c in found["candidates"]}
    for folder in TEMPLATE_FOLDERS:
        assert not any(f == folder or f.startswith(folder + "/") for f in by_folder), folder
    # Notes with a tag each and nothing else in common are about a topic: no kind of note
    for folder in ("00 Home", "1 LifeOS", "Physics", "Windows", "Files and folders"):
        assert folder not in by_folder, by_folder[folder]["reason"]
    assert all(
        c["reason"].startswith(f"named after the folder {c['folder']}/")
        for c in found["candidates"]
        if c["action"] == "new" and c["evidence"] == "folder"
    )
    text = run(vault, "schema", "detect", "--min-notes", "5").output
    assert "Blueprints" not in text and "Physics/" not in text


def test_templates_are_never_records_nor_unreadable(vault: Path, tmp_path: Path) -> None:
    # A pack that (as `schema detect` once proposed) makes the template folders a type.
    pack_dir = tmp_path / "home" / "schema-packs" / "with-templates"
    pack_dir.mkdir(parents=True)
    (pack_dir / "pack.yaml").write_text(
        "api_version: vaultbrain-schema-pack-v1\nname: with-templates\nversion: 1.0.0\n"
        "extends: vaultbrain-base\npage_types:\n"
        "  - name: template-note\n    primitive: concept\n"
        "    path_prefixes: [Templates/, Blueprints/, Meta/, Templater/]\n"
    )
    env = {"VAULTBRAIN_HOME": str(tmp_path / "home")}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        run(vault, "schema", "use", "with-templates")
        report = run_json(vault, "reindex")
        assert not [p for p in report["problems"] if any(f in p for f in TEMPLATE_FOLDERS)]
        notes = run_json(vault, "db", "list", "template-note")
        assert notes == [], notes
        doctor = run(vault, "doctor", ok=False).output
        assert "{{" not in doctor and "Scaffolds" not in doctor and "Blueprint" not in doctor
        review = vault / "Brain" / "Needs Review.md"
        assert not review.exists() or "Blueprint" not in review.read_text()
        # adopt never offers them
        planned = run_json(vault, "adopt", "--dry-run")
        assert not [a for a in planned if a["path"].startswith(TEMPLATE_FOLDERS)]
