"""The schema verbs on a real vault on disk: each verb's dry run against what it then does
(the same notes, the same changes, the pack it said), its audit line in `schema log`, a
rename-field interrupted mid-way (a full disk after some notes, and kill -9) finished by a
rerun; and `schema stats`, `schema graph --mermaid`, `schema explain NOTE`."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from vaultbrain.cli.group import cli
from vaultbrain.vault import atomic
from vaultbrain.vault.note import parse_note

PACK = "Brain/Packs/my-vaultbrain-base/pack.yaml"


def vb(vault: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args])
    assert result.exit_code == code, (args, result.output, result.exception)
    return result


def verb(vault: Path, *args: str) -> dict[str, Any]:
    return json.loads(vb(vault, "schema", *args, "--json").stdout)


def write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def notes(vault: Path) -> dict[str, bytes]:
    """Every note of the vault (not the packs folder, not vaultbrain's own state) and its
    bytes."""
    out = {}
    for p in sorted(vault.rglob("*.md")):
        rel = p.relative_to(vault).as_posix()
        if not rel.startswith((".", "Brain/")):
            out[rel] = p.read_bytes()
    return out


def pack_doc(vault: Path, rel: str = PACK) -> dict[str, Any]:
    return yaml.safe_load((vault / rel).read_text("utf-8"))


def own_type(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in doc["page_types"] if t["name"] == name)


def same_as_dry_run(vault: Path, dry: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
    """The verb did what its dry run said: the same notes with the same changes, the same
    pack (its version and identity, now the active one), and one audit line saying so.
    Returns that line."""
    assert dry["dry_run"] is True and done["dry_run"] is False
    assert done["notes"] == dry["notes"] and done["skipped"] == dry["skipped"]
    assert (done["version"], done["before"], done["after"]) == (
        dry["version"],
        dry["before"],
        dry["after"],
    )
    assert done["written"] == [n["path"] for n in dry["notes"] if n["writes"]]
    active = json.loads(vb(vault, "schema", "active", "--json").stdout)
    assert active["identity"] == dry["after"]
    entry = verb(vault, "log")["changes"][-1]
    assert entry == done["audit"]
    assert entry["ok"] is True and entry["verb"] == done["verb"]
    assert entry["args"] == dry["args"]
    assert (entry["before"], entry["after"]) == (dry["before"], dry["after"])
    assert entry["notes_written"] == len(done["written"])
    assert entry["notes_skipped"] == len(dry["skipped"])
    assert entry["who"] and entry["machine"] and entry["at"].startswith("20")
    return entry


@pytest.fixture
def home(vault: Path) -> Path:
    """A vault with a few hand-made notes of the default pack's types."""
    vb(vault, "init")
    write(vault, "Recipes/Soup.md", "Leek and potato.\n")
    write(vault, "Recipes/Bread.md", "---\ncuisine: french\n---\nFlour.\n")
    write(
        vault,
        "Projects/Shed.md",
        "---\ntype: project\nstatus: active   # mine\ngoals:\n  - roof\n---\nThe shed.\n",
    )
    write(vault, "Projects/Garden.md", '---\nstatus: planned\nowner: "[[Sam]]"\n---\nBeds.\n')
    write(vault, "Projects/Both.md", "---\nstatus: active\nstate: done\n---\nTwo.\n")
    write(vault, "Projects/Plain.md", "No properties.\n")
    write(vault, "Other/Ann.md", "---\ntype: contact2\n---\nAnn.\n")
    write(vault, "People/Sam.md", "---\nname: Sam\n---\nSam.\n")
    return vault


def test_add_type_dry_run_is_what_it_does(home: Path) -> None:
    before = notes(home)
    args = (
        "add-type",
        "recipe",
        "--folder",
        "Recipes",
        "--fields",
        "cuisine:text,course:enum:main|side",
    )
    dry = verb(home, *args, "--dry-run")
    assert not (home / "Brain/Packs").exists() and notes(home) == before  # nothing written
    assert dry["forked_from"] == "vaultbrain-base" and dry["pack"] == "my-vaultbrain-base"
    assert dry["version"] == {"before": "1.0.0", "after": "1.1.0"}
    assert [n["path"] for n in dry["notes"]] == ["Recipes/Bread.md", "Recipes/Soup.md"]
    assert all(not n["writes"] for n in dry["notes"])

    done = verb(home, *args)
    same_as_dry_run(home, dry, done)
    assert done["written"] == []
    assert notes(home) == before  # no note written: the notes became records as they are
    recipe = own_type(pack_doc(home), "recipe")
    assert recipe["path_prefixes"] == ["Recipes/"]
    assert recipe["fields"]["course"] == {"type": "enum", "values": ["main", "side"]}
    assert pack_doc(home)["version"] == "1.1.0"
    assert "schema: my-vaultbrain-base" in (home / "vaultbrain.yml").read_text("utf-8")
    active = json.loads(vb(home, "schema", "active", "--json").stdout)
    assert active["identity"] == dry["after"]
    # the audit line: who, which machine, when, what, before and after
    log = verb(home, "log")["changes"]
    assert len(log) == 1
    entry = log[0]
    assert entry["verb"] == "add-type" and entry["args"]["name"] == "recipe"
    assert entry["before"] == dry["before"] and entry["after"] == dry["after"]
    assert entry["who"] and entry["machine"] and entry["at"].startswith("20")
    assert entry["forked_from"] == "vaultbrain-base" and entry["manifest"] == PACK
    text = vb(home, "schema", "log").output
    assert "add-type name=recipe" in text and f"{dry['before']} -> {dry['after']}" in text
    why = json.loads(vb(home, "schema", "explain", "Recipes/Soup.md", "--json").stdout)
    assert why["type"] == "recipe" and "Recipes/" in why["reasons"][0]


def test_add_field_and_alias_touch_no_note(home: Path) -> None:
    before = notes(home)
    dry = verb(home, "add-field", "project", "owner", "--kind", "link", "--dry-run")
    assert [n["path"] for n in dry["notes"]] == ["Projects/Garden.md"]
    done = verb(home, "add-field", "project", "owner", "--kind", "link")
    same_as_dry_run(home, dry, done)
    assert own_type(pack_doc(home), "project")["fields"]["owner"] == {"type": "link"}
    # the copied-down type keeps every field it had
    assert "status" in own_type(pack_doc(home), "project")["fields"]

    dry = verb(home, "add-alias", "person", "contact2", "--dry-run")
    assert [(n["path"], n["change"]) for n in dry["notes"]] == [
        ("Other/Ann.md", "untyped -> person (nothing written)")
    ]
    done = verb(home, "add-alias", "person", "contact2")
    same_as_dry_run(home, dry, done)
    assert done["version"]["after"] == "1.2.0"
    assert "contact2" in own_type(pack_doc(home), "person")["aliases"]
    assert notes(home) == before
    assert [e["verb"] for e in verb(home, "log")["changes"]] == ["add-field", "add-alias"]
    why = vb(home, "schema", "explain", "Other/Ann.md").output
    assert "type: contact2, an alias of person" in why


def test_add_link_type_shows_in_graph_and_stats(home: Path) -> None:
    dry = verb(
        home,
        "add-link-type",
        "owned_by",
        "--from",
        "project",
        "--to",
        "person",
        "--inverse",
        "owns",
        "--field",
        "owner",
        "--dry-run",
    )
    assert [n["path"] for n in dry["notes"]] == ["Projects/Garden.md"]
    done = verb(
        home,
        "add-link-type",
        "owned_by",
        "--from",
        "project",
        "--to",
        "person",
        "--inverse",
        "owns",
        "--field",
        "owner",
    )
    entry = same_as_dry_run(home, dry, done)
    assert entry["args"]["inverse"] == "owns" and entry["args"]["field"] == "owner"
    doc = pack_doc(home)
    link = next(lt for lt in doc["link_types"] if lt["name"] == "owned_by")
    assert link["inverse"] == "owns"
    assert link["inference"] == {"page_type": "project", "target_type": "person"}
    assert {"page_type": "project", "fields": ["owner"], "link_type": "owned_by"} in doc[
        "frontmatter_links"
    ]
    mermaid = vb(home, "schema", "graph", "--mermaid").output
    assert mermaid.startswith("```mermaid\ngraph LR\n") and mermaid.rstrip().endswith("```")
    assert "t_project -->|owned_by| t_person" in mermaid
    stats = verb(home, "stats")
    assert stats["links"]["owned_by"] == 1  # Garden's owner: [[Sam]]
    project = next(t for t in stats["types"] if t["type"] == "project")
    assert project["notes"] == 4 and project["fields"]["owner"] == 1
    assert project["fields"]["status"] == 3 and project["by_frontmatter"] == 1


def test_retire_type_stops_filing_and_keeps_notes(home: Path) -> None:
    before = notes(home)
    dry = verb(home, "retire-type", "project", "--dry-run")
    assert sorted(n["path"] for n in dry["notes"]) == [
        "Projects/Both.md",
        "Projects/Garden.md",
        "Projects/Plain.md",
        "Projects/Shed.md",
    ]
    done = verb(home, "retire-type", "project")
    same_as_dry_run(home, dry, done)
    assert done["version"]["after"] == "2.0.0"
    assert own_type(pack_doc(home), "project")["fileable"] is False
    assert notes(home) == before
    again = vb(home, "schema", "retire-type", "project", code=1)
    assert "not a filing destination already" in again.output


def _renamed(text: str) -> str:
    return text.replace("\nstatus:", "\nstate:", 1)


def test_rename_field_dry_run_is_what_it_writes(home: Path) -> None:
    before = notes(home)
    dry = verb(home, "rename-field", "project", "status", "state", "--dry-run")
    assert notes(home) == before and not (home / "Brain/Packs").exists()
    assert [n["path"] for n in dry["notes"]] == ["Projects/Garden.md", "Projects/Shed.md"]
    assert all(n["writes"] for n in dry["notes"])
    assert dry["skipped"] == [{"path": "Projects/Both.md", "reason": "has both status and state"}]
    done = verb(home, "rename-field", "project", "status", "state")
    same_as_dry_run(home, dry, done)
    after = notes(home)
    for n in dry["notes"]:  # each note is the text the dry run planned, byte for byte
        assert hashlib.sha256(after[n["path"]]).hexdigest() == n["sha256"], n["path"]
    for rel, data in before.items():
        if rel in done["written"]:
            # only the key changed: its value, its comment and every other byte are kept
            assert after[rel].decode() == _renamed(data.decode())
        else:
            assert after[rel] == data, rel
    assert parse_note(after["Projects/Shed.md"].decode()).data["state"] == "active"
    fields = own_type(pack_doc(home), "project")["fields"]
    assert "state" in fields and "status" not in fields
    assert list(fields)[:2] == ["name", "state"]  # in the old one's place
    entry = verb(home, "log")["changes"][-1]
    assert entry["notes_written"] == 2 and entry["notes_skipped"] == 1
    assert entry["before"].startswith("vaultbrain-base@1.0.0+")
    assert entry["after"].startswith("my-vaultbrain-base@2.0.0+")


def test_rename_field_interrupted_by_a_full_disk_resumes(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(12):
        write(home, f"Projects/P{i:02}.md", f"---\nstatus: active\nn: {i}\n---\nbody {i}\n")
    before = notes(home)
    dry = verb(home, "rename-field", "project", "status", "state", "--dry-run")
    planned = [n["path"] for n in dry["notes"]]
    assert len(planned) == 14

    real = atomic._os_write
    written = {"notes": 0}

    def full_after_five(fd: int, data: Any) -> int:
        if b"\nstate:" in bytes(data):
            if written["notes"] >= 5:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            written["notes"] += 1
        return real(fd, data)

    monkeypatch.setattr(atomic, "_os_write", full_after_five)
    failed = CliRunner().invoke(
        cli, ["--vault", str(home), "schema", "rename-field", "project", "status", "state"]
    )
    assert failed.exit_code == 1 and "Traceback" not in failed.output
    half = notes(home)
    done = [r for r in planned if half[r] != before[r]]
    assert len(done) == 5
    for rel in done:
        assert half[rel].decode() == _renamed(before[rel].decode())
    assert not (home / PACK).exists()  # the pack is written last, after every note
    log = verb(home, "log")
    assert log["unfinished"]["verb"] == "rename-field"
    [failure] = log["changes"]
    assert failure["ok"] is False and "no space left" in failure["reason"]
    assert "5 of 14 notes renamed" in failed.output and "run the same command again" in (
        failed.output
    )
    doctor = CliRunner().invoke(cli, ["--vault", str(home), "doctor"]).output
    assert "stopped after 5 of 14 notes" in doctor and "run it again to finish it" in doctor
    refused = vb(home, "schema", "add-alias", "person", "pal", code=1)
    assert "is not finished; run it again" in refused.output

    monkeypatch.setattr(atomic, "_os_write", real)  # the disk has room again
    resumed = verb(home, "rename-field", "project", "status", "state")
    assert sorted(resumed["written"]) == sorted(set(planned) - set(done))
    after = notes(home)
    for rel in planned:
        assert after[rel].decode() == _renamed(before[rel].decode())
    assert after["Projects/Both.md"] == before["Projects/Both.md"]
    assert "state" in own_type(pack_doc(home), "project")["fields"]
    log = verb(home, "log")
    assert log["unfinished"] is None
    assert [(e["verb"], e["ok"]) for e in log["changes"]] == [
        ("rename-field", False),
        ("add-alias", False),  # refused while the rename was unfinished
        ("rename-field", True),
    ]
    assert log["changes"][2]["after"] == dry["after"]
    assert log["changes"][2]["notes_written"] == len(planned) - 5


def test_rename_field_killed_mid_way_resumes(home: Path) -> None:
    """kill -9 of the command mid-way through 640 notes: the rerun finishes it, and the vault
    ends with exactly the changes the dry run listed (the same notes, each the text it
    planned), one audit line, and nothing else touched."""
    from vaultbrain.brain import Brain
    from vaultbrain.schema.rename import JOB

    count = 640  # ten batches of 64: killed after the first shows
    for i in range(count):
        write(home, f"Projects/K{i:03}.md", f"---\nstatus: planned\n---\nbody {i}\n")
    before = notes(home)
    dry = verb(home, "rename-field", "project", "status", "state", "--dry-run")
    planned = {n["path"]: n["sha256"] for n in dry["notes"]}
    assert len(planned) == count + 2 and all(n["writes"] for n in dry["notes"])
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    cmd = [sys.executable, "-m", "vaultbrain", "--vault", str(home), "schema", "rename-field"]
    proc = subprocess.Popen(
        [*cmd, "project", "status", "state"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = home / "Projects/Garden.md"  # the first note of the rename, in path order
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if b"\nstate:" in first.read_bytes():
            break
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    half = notes(home)
    renamed = {r for r in half if half[r] != before[r]}
    assert renamed <= set(planned) and len(renamed) < len(planned)  # killed before the end
    for rel in renamed:  # a note is renamed whole or not at all (atomic writes)
        assert hashlib.sha256(half[rel]).hexdigest() == planned[rel], rel
    assert not (home / PACK).exists()  # the pack is written last
    assert verb(home, "log")["unfinished"]["verb"] == "rename-field"
    job = Brain(home).store.read_json(JOB)
    counted = set(job["done"])  # the progress kept: a batch written is counted after it
    assert counted <= renamed
    again = verb(home, "rename-field", "project", "status", "state", "--dry-run")
    assert {n["path"] for n in again["notes"]} == set(planned) - renamed  # what is left

    rerun = subprocess.run(
        [*cmd, "project", "status", "state", "--json"], env=env, capture_output=True, text=True
    )
    assert rerun.returncode == 0, rerun.stderr
    done = json.loads(rerun.stdout)
    after = notes(home)
    changed = {r for r in after if after[r] != before[r]}
    assert changed == set(planned)  # exactly the dry run's notes, nothing else
    for rel in changed:
        assert hashlib.sha256(after[rel]).hexdigest() == planned[rel], rel
        assert after[rel].decode() == _renamed(before[rel].decode())
    assert done["after"] == dry["after"] and done["version"] == dry["version"]
    assert set(done["written"]) == set(planned) - renamed
    assert "state" in own_type(pack_doc(home), "project")["fields"]
    log = verb(home, "log")
    assert log["unfinished"] is None and len(log["changes"]) == 1
    [entry] = log["changes"]
    assert entry["ok"] and (entry["before"], entry["after"]) == (dry["before"], dry["after"])
    assert entry["notes_written"] == len(planned) - len(renamed)


def test_an_installed_pack_is_copied_into_the_vault(home: Path, env_home: Path) -> None:
    vb(home, "schema", "init", "mine")
    vb(home, "schema", "use", "mine")
    installed = (env_home / "schema-packs/mine/pack.yaml").read_bytes()
    done = verb(home, "add-field", "note", "rating", "--kind", "number")
    assert done["pack"] == "mine" and done["copied_into_vault"] is True
    doc = pack_doc(home, "Brain/Packs/mine/pack.yaml")
    assert doc["version"] == "0.2.0" and own_type(doc, "note")["fields"]["rating"] == {
        "type": "number"
    }
    assert (env_home / "schema-packs/mine/pack.yaml").read_bytes() == installed
    active = json.loads(vb(home, "schema", "active", "--json").stdout)
    assert active["identity"] == done["after"]
    # the next verb edits the vault's copy in place
    again = verb(home, "add-alias", "note", "jotting")
    assert again["copied_into_vault"] is False and again["version"]["after"] == "0.3.0"


def test_the_pack_changed_meanwhile_is_not_overwritten(home: Path) -> None:
    from vaultbrain.brain import Brain
    from vaultbrain.errors import UserError
    from vaultbrain.schema.applying import apply
    from vaultbrain.schema.audit import log_entries
    from vaultbrain.schema.planning import plan
    from vaultbrain.schema.verbs import add_alias

    verb(home, "add-alias", "person", "pal")  # the vault has its copy now
    brain = Brain(home)
    p = plan(brain, "add-alias", {"type": "idea", "alias": "notion"}, add_alias("idea", "notion"))
    path = home / PACK
    theirs = path.read_text("utf-8") + "# edited on another machine\n"
    path.write_text(theirs, "utf-8")
    with pytest.raises(UserError, match="changed while the verb ran"):
        apply(brain, p)
    assert path.read_text("utf-8") == theirs
    assert [e["verb"] for e in log_entries(brain)] == ["add-alias"]


def test_bad_requests_are_one_line_errors_and_write_nothing(home: Path) -> None:
    before = notes(home)
    for args, words in [
        (("add-type", "project", "--folder", "Elsewhere"), "already type project"),
        (("add-type", "recipe", "--folder", "Projects"), "already the folder of type project"),
        (("add-field", "project", "status"), "has a field 'status' already"),
        (("add-field", "project", "mood", "--kind", "enum"), "an enum field needs its values"),
        (("add-field", "nope", "x"), "has no type 'nope'"),
        (("add-alias", "person", "project"), "already type project"),
        (("rename-field", "project", "nope", "x"), "has no field 'nope'"),
        (("add-link-type", "x", "--from", "project", "--to", "nope"), "no type 'nope'"),
    ]:
        out = vb(home, "schema", *args, code=1).output
        assert words in out, (args, out)
        assert [ln for ln in out.splitlines() if ln.startswith("error: ")], out
    assert notes(home) == before and not (home / "Brain/Packs").exists()
    # each refusal is recorded, with its reason, as gbrain records failed mutations
    log = verb(home, "log")["changes"]
    assert len(log) == 8 and all(e["ok"] is False and e["reason"] for e in log)
    assert "refused, nothing changed: type project has a field 'status' already" in (
        vb(home, "schema", "log").output
    )


def test_one_verb_at_a_time(home: Path) -> None:
    import fcntl

    state = home / ".vaultbrain"
    fd = os.open(state / "schema-verb.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        out = vb(home, "schema", "add-alias", "person", "pal", code=1).output
        assert "another schema verb is changing this vault's pack" in out
        assert verb(home, "add-alias", "person", "pal", "--dry-run")["notes"] == []
    finally:
        os.close(fd)
    assert verb(home, "add-alias", "person", "pal")["version"]["after"] == "1.1.0"


def test_stats_and_explain_on_the_vault(home: Path) -> None:
    stats = verb(home, "stats")
    assert stats["pack"].startswith("vaultbrain-base@")
    by = {t["type"]: t for t in stats["types"]}
    assert by["project"]["notes"] == 4 and by["person"]["notes"] == 1
    assert by["person"]["fields"]["name"] == 1
    assert stats["undeclared_types"] == {"contact2": 1}
    assert {"type": "idea", "folder": "Ideas/"} in stats["dead_prefixes"]
    assert stats["untyped_notes"] == stats["total_notes"] - stats["typed_notes"] >= 3
    text = vb(home, "schema", "stats").output
    assert "project" in text and "fields filled: name 0, status 3" in text
    why = json.loads(vb(home, "schema", "explain", "Projects/Shed.md", "--json").stdout)
    assert why["type"] == "project" and why["reasons"] == ["its frontmatter says type: project"]
    assert why["fields_filled"] == ["status", "goals"]
    why = json.loads(vb(home, "schema", "explain", "Other/Ann", "--json").stdout)
    assert why["type"] is None and "does not declare" in why["reasons"][0]
    why = json.loads(vb(home, "schema", "explain", "Recipes/Soup.md", "--json").stdout)
    assert why["type"] is None and "no folder of the pack holds it" in why["reasons"][0]
    assert "person: A person" in vb(home, "schema", "explain", "person").output


def test_add_type_extends_a_type_and_checks_its_folder(home: Path) -> None:
    done = verb(home, "add-type", "chore", "--folder", "Chores", "--extends", "admin", "--fileable")
    chore = own_type(pack_doc(home), "chore")
    base = own_type(pack_doc(home), "admin")  # (in the fork: the whole base pack)
    assert list(chore["fields"]) == list(base["fields"])  # admin's fields, in admin's order
    assert chore["primitive"] == "temporal" and chore["fileable"] is True
    assert "tasks" in chore and done["lint"] == []
    out = vb(home, "schema", "add-type", "x", "--folder", "../out", code=1).output
    assert "Brain/Packs/my-vaultbrain-base/pack.yaml" in out and "from the vault root" in out
    assert ".vaultbrain" not in out


def test_a_resumed_rename_keeps_an_edit_made_to_the_pack_meanwhile(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verb(home, "add-alias", "idea", "notion")  # the vault has its own copy from here
    real = atomic._os_write
    calls = {"n": 0}

    def full_after_one(fd: int, data: Any) -> int:
        if b"\nstate:" in bytes(data):
            calls["n"] += 1
            if calls["n"] > 1:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(atomic, "_os_write", full_after_one)
    vb(home, "schema", "rename-field", "project", "status", "state", code=1)
    monkeypatch.setattr(atomic, "_os_write", real)
    # meanwhile, another machine adds an alias to the synced copy, by hand
    path = home / PACK
    text = path.read_text("utf-8").replace("- notion\n", "- notion\n  - thought\n", 1)
    path.write_text(text, "utf-8")
    done = verb(home, "rename-field", "project", "status", "state")
    assert done["written"] == ["Projects/Shed.md"] and done["version"]["after"] == "2.0.0"
    doc = pack_doc(home)
    assert own_type(doc, "idea")["aliases"] == ["ideas", "notion", "thought"]  # kept
    assert "state" in own_type(doc, "project")["fields"]
    entry = verb(home, "log")["changes"][-1]
    assert entry["ok"] and entry["notes_skipped"] == 1  # Both.md, from the first run
    assert verb(home, "log")["unfinished"] is None


def test_a_pack_whose_parent_only_the_vault_keeps(home: Path, env_home: Path) -> None:
    import shutil

    vb(home, "schema", "init", "family")
    vb(home, "schema", "init", "kid", "--extends", "family")
    vb(home, "schema", "use", "kid", "--in-vault")
    shutil.rmtree(env_home / "schema-packs")  # this machine has them only through the vault
    done = verb(home, "add-field", "note", "mood", "--kind", "text")
    assert done["pack"] == "kid" and done["copied_into_vault"] is False
    assert own_type(pack_doc(home, "Brain/Packs/kid/pack.yaml"), "note")["fields"]["mood"] == {
        "type": "text"
    }
    assert json.loads(vb(home, "schema", "active", "--json").stdout)["chain"] == [
        "kid",
        "family",
        "vaultbrain-base",
    ]


def test_a_running_daemon_takes_up_the_changed_pack(home: Path, daemon) -> None:
    from support.daemon import wait_for

    def records(type_name: str) -> set[str]:
        cmd = [sys.executable, "-m", "vaultbrain", "--vault", str(home), "db", "list"]
        out = subprocess.run([*cmd, type_name, "--json"], capture_output=True, text=True)
        return {r["path"] for r in json.loads(out.stdout)} if out.returncode == 0 else set()

    verb(home, "add-alias", "person", "friend")  # the vault's copy exists from here
    proc = daemon()
    proc.start()
    proc.wait_ready()
    try:
        wait_for(lambda: "People/Sam.md" in records("person"), 30, proc.log)
        verb(home, "add-type", "recipe", "--folder", "Recipes")  # changed under the daemon
        write(home, "Recipes/Stew.md", "Beans.\n")
        wait_for(lambda: "Recipes/Stew.md" in records("recipe"), 30, proc.log)
        # and the notes that were there before: read again under the changed pack
        wait_for(lambda: {"Recipes/Soup.md", "Recipes/Bread.md"} <= records("recipe"), 60)
    finally:
        assert proc.stop() == 0
    assert "Traceback" not in proc.output()


def test_a_rename_whose_field_left_the_pack_meanwhile_still_finishes(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verb(home, "add-field", "project", "budget", "--kind", "number")  # the vault's copy
    real = atomic._os_write

    def full(fd: int, data: Any) -> int:
        if b"\nstate:" in bytes(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(atomic, "_os_write", full)
    vb(home, "schema", "rename-field", "project", "status", "state", code=1)
    monkeypatch.setattr(atomic, "_os_write", real)
    path = home / PACK
    doc = pack_doc(home)
    del own_type(doc, "project")["fields"]["status"]  # removed by hand on another machine
    path.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    done = verb(home, "rename-field", "project", "status", "state")
    assert done["written"] == ["Projects/Garden.md", "Projects/Shed.md"]
    assert any("no longer has project.status" in w for w in done["warnings"])
    assert pack_doc(home) == doc  # the pack is as the person left it
    assert verb(home, "log")["unfinished"] is None


def test_a_type_for_a_folder_inside_another_types(home: Path) -> None:
    write(home, "Projects/Archive/Old.md", "---\nstatus: completed\n---\nDone.\n")
    dry = verb(home, "add-type", "archived", "--folder", "Projects/Archive", "--dry-run")
    assert [(n["path"], n["change"]) for n in dry["notes"]] == [
        ("Projects/Archive/Old.md", "project -> archived (nothing written)")
    ]
    done = verb(home, "add-type", "archived", "--folder", "Projects/Archive")
    assert done["notes"] == dry["notes"]
    why = json.loads(vb(home, "schema", "explain", "Projects/Archive/Old.md", "--json").stdout)
    assert why["type"] == "archived"
    assert (
        json.loads(vb(home, "schema", "explain", "Projects/Garden.md", "--json").stdout)["type"]
        == "project"
    )


def test_verbs_take_a_type_by_its_alias(home: Path) -> None:
    dry = verb(home, "retire-type", "projects", "--dry-run")  # (an alias of project)
    assert len(dry["notes"]) == 4
    dry = verb(home, "add-field", "projects", "owner", "--kind", "link", "--dry-run")
    assert [n["path"] for n in dry["notes"]] == ["Projects/Garden.md"]
    done = verb(home, "rename-field", "projects", "status", "state")
    assert done["written"] == ["Projects/Garden.md", "Projects/Shed.md"]
