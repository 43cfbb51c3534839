"""Every `vaultbrain schema` verb through the real CLI, with ~/.vaultbrain in a temp dir."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from fixtures.packs.packkit import manifest, ptype, write_pack
from support.state import entries as state_entries

from vaultbrain.cli.group import cli
from vaultbrain.errors import UserError
from vaultbrain.packs.model import PackError


def run(vault: Path, *args: str, code: int = 0, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args], env=env)
    if result.exit_code != code:
        raise AssertionError(
            f"exit {result.exit_code} (wanted {code}) for {args}:\n{result.output}\n"
            f"{result.exception!r}"
        )
    return result


def fails(vault: Path, *args: str, kind: type[Exception] = UserError) -> Exception:
    """Run a verb that must fail with a one-line error; that error, rebuilt from stderr.

    (Read from what the person sees: click 8.5 exits outside its ``except`` block, so the
    original exception is not reachable from ``result.exception``.)
    """
    result = run(vault, "schema", *args, code=1)
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.stderr
    message = lines[0][len("error: ") :]
    if kind is PackError:
        code, _, rest = message.partition(": ")
        assert code.isupper(), message
        return PackError(code, rest)
    return kind(message)


def schema(vault: Path, *args: str, **kw: Any) -> Result:
    return run(vault, "schema", *args, **kw)


def events(vault: Path) -> list[str]:
    if not (vault / ".vaultbrain" / "state.db").exists():
        return []
    return [e["verb"] for e in state_entries(vault / ".vaultbrain", "schema-events.jsonl")]


def note(vault: Path, rel: str, front: dict | None = None) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    head = "---\n" + yaml.safe_dump(front) + "---\n" if front else ""
    path.write_text(head + "body\n", "utf-8")


# -- active / list / show ------------------------------------------------------------------


def test_active_names_the_tier_and_every_tier(vault: Path) -> None:
    out = schema(vault, "active").output
    assert out.splitlines()[0].startswith("vaultbrain-base@1.0.0+")
    assert "tier 7: default" in out and "* 7. default: vaultbrain-base" in out
    doc = json.loads(schema(vault, "active", "--json").stdout)
    assert doc["tier"] == 7 and doc["chain"] == ["vaultbrain-base"] and len(doc["tiers"]) == 7


def test_active_with_override_env_and_folder(vault: Path) -> None:
    doc = json.loads(
        run(vault, "--schema-pack", "vaultbrain-recommended", "schema", "active", "--json").stdout
    )
    assert (doc["tier"], doc["identity"].split("@")[0]) == (1, "vaultbrain-recommended")
    doc = json.loads(
        schema(
            vault, "active", "--json", env={"VAULTBRAIN_SCHEMA_PACK": "vaultbrain-recommended"}
        ).stdout
    )
    assert doc["tier"] == 2
    run(vault, "settings", "set", "schema_pack.source.Work", "vaultbrain-recommended")
    doc = json.loads(schema(vault, "active", "--path", "Work/Meetings/x.md", "--json").stdout)
    assert (doc["tier"], doc["folder"], doc["type"]) == (3, "Work", None)
    doc = json.loads(schema(vault, "active", "--path", "Meetings/Standup.md", "--json").stdout)
    assert (doc["tier"], doc["type"]) == (7, None)
    assert (
        "Meetings/Standup.md: untyped"
        in schema(vault, "active", "--path", "Meetings/Standup.md").output
    )


def test_active_names_the_tier_of_a_missing_pack_and_what_is_used_instead(vault: Path) -> None:
    """A pack this machine does not have (issue 29): the default is in force meanwhile."""
    (vault / "vaultbrain.yml").write_text("schema: missing-pack\n")
    out = schema(vault, "active").output
    assert out.startswith("vaultbrain-base") and "in place of missing-pack" in out
    assert "vaultbrain.yml: missing-pack" in out


def test_list_shows_bundled_installed_shadowed_broken_and_active(
    vault: Path, env_home: Path
) -> None:
    write_pack(env_home, "mine", manifest("mine", description="Mine.\nSecond line."))
    write_pack(env_home, "vaultbrain-recommended", manifest("vaultbrain-recommended"))
    write_pack(env_home, "broken", "api_version: [\n")
    out = schema(vault, "list").output
    assert "* vaultbrain-base" in out
    assert "installed (shadows bundled)" in out
    assert "Mine." in out and "Second line" not in out
    assert "PARSE_ERROR" in out
    rows = {r["name"]: r for r in json.loads(schema(vault, "list", "--json").stdout)}
    assert rows["vaultbrain-base"]["active"] and rows["vaultbrain-base"]["where"] == "bundled"
    assert rows["mine"]["where"] == "installed" and rows["mine"]["extends"] == "vaultbrain-base"
    assert rows["broken"]["error"].startswith("PARSE_ERROR")


def test_show_text_json_and_filing_rules(vault: Path) -> None:
    out = schema(vault, "show").output
    assert "person" in out and "People/" in out and "takes kinds: fact, take, bet, hunch" in out
    doc = json.loads(schema(vault, "show", "vaultbrain-recommended", "--json").stdout)
    assert doc["chain"] == ["vaultbrain-recommended", "vaultbrain-base"]
    assert doc["manifest"]["page_types"][0]["name"] == "meeting"
    assert doc["origins"]["person"] == ["vaultbrain-base"]
    rules = json.loads(schema(vault, "show", "--as-filing-rules", "--json").stdout)
    assert rules["filing_rules"][0] == {
        "kind": "person",
        "directory": "People/",
        "fileable": True,
        "description": "A person the thought mentions by name (someone met, called, emailed, "
        "to follow up with).",
        "examples": [],
        "title_field": "name",
        "fields": {
            "name": {"type": "text", "required": True},
            "aliases": {"type": "list"},
            "contact": {"type": "text"},
            "last_interaction": {"type": "date"},
            "topics": {"type": "list"},
            "follow_ups": {"type": "list"},
            "context": {"type": "text"},
        },
    }
    text = schema(vault, "show", "--as-filing-rules").output
    assert "Admin/" in text and "kind" in text.splitlines()[0]


# -- validate / lint ----------------------------------------------------------------------


def test_validate_ok_and_each_failure_names_what_is_wrong(vault: Path, env_home: Path) -> None:
    assert schema(vault, "validate").output.startswith("ok: vaultbrain-base@1.0.0+")
    write_pack(env_home, "kid", manifest("kid", extends="lost-parent"))
    assert "lost-parent" in str(fails(vault, "validate", "kid", kind=PackError))
    write_pack(env_home, "borrower", manifest("borrower", borrow_from=[{"pack": "lost-lender"}]))
    assert "lost-lender" in str(fails(vault, "validate", "borrower", kind=PackError))
    write_pack(env_home, "c1", manifest("c1", extends="c2"))
    write_pack(env_home, "c2", manifest("c2", extends="c1"))
    assert "c1 -> c2 -> c1" in str(fails(vault, "validate", "c1", kind=PackError))
    bad = write_pack(env_home, "bad", manifest("bad", page_types=[ptype("x", "X/", oops=1)]))
    err = fails(vault, "validate", str(bad), kind=PackError)
    assert "page_types[0](x).oops" in str(err) and "INVALID_SHAPE" in str(err)
    result = schema(vault, "validate", "kid", "--json", code=1)
    doc = json.loads(result.stdout)
    assert (
        doc == {"ok": False, "code": "UNKNOWN_PACK", "field": "extends", "error": doc["error"]}
        and "lost-parent" in doc["error"]
    )
    assert schema(vault, "validate", "vaultbrain-recommended", "--json").output.count('"ok": true')


def test_lint_clean_exits_0_and_errors_exit_1(vault: Path, env_home: Path) -> None:
    assert "0 error(s), 0 warning(s)" in schema(vault, "lint").output
    assert "0 error(s)" in schema(vault, "lint", "vaultbrain-recommended").output
    write_pack(
        env_home,
        "clash",
        manifest("clash", page_types=[ptype("crm", "People/")], enrichable_types=["ghost"]),
    )
    result = schema(vault, "lint", "clash", code=1)
    assert "prefix_collision" in result.output and "enrichable_type_undeclared" in result.output
    # crm is prepended, so it takes People/ and base's person is no longer reachable
    assert "error: 3 lint error(s)" in result.stderr
    doc = json.loads(schema(vault, "lint", "clash", "--json", code=1).stdout)
    assert not doc["ok"] and {e["rule"] for e in doc["errors"]} == {
        "prefix_collision",
        "enrichable_type_undeclared",
        "unreachable_type",
    }


# -- use / downgrade ----------------------------------------------------------------------


def test_use_writes_config_and_history_and_downgrade_walks_back(
    vault: Path, env_home: Path
) -> None:
    (env_home / "config.json").write_text(json.dumps({"other": 1}))
    out = schema(vault, "use", "vaultbrain-recommended", "--default").output
    assert "using vaultbrain-recommended" in out and "was (unset)" in out
    assert json.loads((env_home / "config.json").read_text()) == {
        "other": 1,
        "schema_pack": "vaultbrain-recommended",
    }
    assert json.loads(schema(vault, "active", "--json").stdout)["tier"] == 6
    history = [
        json.loads(x) for x in (env_home / "schema-pack-history.jsonl").read_text().splitlines()
    ]
    assert history[0]["verb"] == "use" and history[0]["to"] == "vaultbrain-recommended"
    assert history[0]["from"] is None and history[0]["identity"].startswith(
        "vaultbrain-recommended@"
    )
    write_pack(env_home, "mine", manifest("mine"))
    schema(vault, "use", "mine", "--default")
    out = schema(vault, "downgrade", "--default").output
    assert "using vaultbrain-recommended" in out and "was mine" in out
    assert json.loads((env_home / "config.json").read_text())["schema_pack"] == (
        "vaultbrain-recommended"
    )
    schema(vault, "downgrade", "--to", "vaultbrain-base", "--default")
    assert json.loads((env_home / "config.json").read_text())["schema_pack"] == "vaultbrain-base"
    verbs = [
        json.loads(x)["verb"]
        for x in (env_home / "schema-pack-history.jsonl").read_text().splitlines()
    ]
    assert verbs == ["use", "use", "downgrade", "downgrade"]


def test_downgrade_back_to_unset(vault: Path, env_home: Path) -> None:
    schema(vault, "use", "vaultbrain-recommended", "--default")
    assert "unset" in schema(vault, "downgrade", "--default").output
    assert "schema_pack" not in json.loads((env_home / "config.json").read_text())
    assert json.loads(schema(vault, "active", "--json").stdout)["tier"] == 7


def test_use_refuses_what_does_not_resolve_and_writes_nothing(vault: Path, env_home: Path) -> None:
    assert fails(vault, "use", "no-such-pack", kind=PackError).code == "UNKNOWN_PACK"
    assert "install it first" in str(fails(vault, "use", "./somewhere/pack.yaml"))
    assert not (env_home / "config.json").exists()
    assert not (env_home / "schema-pack-history.jsonl").exists()
    assert "no pack history" in str(fails(vault, "downgrade"))


def test_use_says_when_a_higher_tier_still_wins(vault: Path) -> None:
    # `settings set schema_pack` is the vault's `schema:` line, the one `schema use` writes:
    run(vault, "settings", "set", "schema_pack", "vaultbrain-base")
    schema(vault, "use", "vaultbrain-recommended")
    lines = (vault / "vaultbrain.yml").read_text().splitlines()
    assert [line for line in lines if line.startswith("schema:")] == [
        "schema: vaultbrain-recommended"
    ]
    # Tier 4: a schema_pack an earlier version kept in this machine's settings.json.
    (vault / ".vaultbrain" / "settings.json").write_text('{"schema_pack": "vaultbrain-base"}')
    out = schema(vault, "use", "vaultbrain-recommended").output
    assert "still wins (tier 4" in out


# -- install / init / fork / edit ---------------------------------------------------------


def _pack_folder(tmp: Path, name: str, **keys: Any) -> Path:
    folder = tmp / f"src-{name}"
    folder.mkdir()
    (folder / "pack.yaml").write_text(yaml.safe_dump(manifest(name, **keys)))
    (folder / "templates").mkdir()
    (folder / "templates" / "thing.md").write_text("# {{title}}\n")
    return folder


def _tarball(tmp: Path, name: str, members: dict[str, bytes], wrap: str | None = None) -> Path:
    path = tmp / f"{name}.vaultbrain-schema"
    with tarfile.open(path, "w:gz") as tar:
        for rel, data in members.items():
            info = tarfile.TarInfo(f"{wrap}/{rel}" if wrap else rel)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_install_a_folder_then_use_it(vault: Path, env_home: Path, tmp_path: Path) -> None:
    src = _pack_folder(tmp_path, "things", page_types=[ptype("thing", "Things/")])
    out = schema(vault, "install", str(src)).output
    assert out.startswith("installed things@1.0.0+")
    dest = env_home / "schema-packs" / "things"
    assert (dest / "pack.yaml").is_file() and (dest / "templates" / "thing.md").is_file()
    assert "already installed" in str(fails(vault, "install", str(src)))
    assert schema(vault, "install", str(src), "--force").output.startswith("replaced")
    schema(vault, "use", "things")
    assert json.loads(schema(vault, "active", "--json").stdout)["identity"].startswith("things@")
    assert not [p for p in (env_home / "schema-packs").iterdir() if p.name.startswith(".")]


def test_install_a_tarball_wrapped_in_a_folder(vault: Path, env_home: Path, tmp_path: Path) -> None:
    body = yaml.safe_dump(manifest("tarred", page_types=[ptype("t", "T/")])).encode()
    tar = _tarball(tmp_path, "tarred", {"pack.yaml": body, "README.md": b"hi"}, wrap="tarred-1.0")
    assert "installed tarred@" in schema(vault, "install", str(tar)).output
    assert (env_home / "schema-packs" / "tarred" / "README.md").read_bytes() == b"hi"


def test_install_refuses_a_skillpack_and_bad_manifests(
    vault: Path, env_home: Path, tmp_path: Path
) -> None:
    skill = manifest("skills")
    skill["api_version"] = "vaultbrain-skillpack-v1"
    tar = _tarball(tmp_path, "skills", {"pack.yaml": yaml.safe_dump(skill).encode()})
    assert "skillpack" in str(fails(vault, "install", str(tar), kind=PackError))
    bad = _pack_folder(tmp_path, "badpack", page_types=[{"name": "x", "folder": "X"}])
    assert "page_types[0](x).folder" in str(fails(vault, "install", str(bad), kind=PackError))
    orphan = _pack_folder(tmp_path, "orphaned", extends="no-parent")
    assert "no-parent" in str(fails(vault, "install", str(orphan), kind=PackError))
    installed = env_home / "schema-packs"
    assert not installed.exists() or not [p for p in installed.iterdir()]


def test_install_refuses_unsafe_tarballs(vault: Path, env_home: Path, tmp_path: Path) -> None:
    body = yaml.safe_dump(manifest("evil")).encode()
    tar = _tarball(tmp_path, "evil", {"pack.yaml": body, "../../escape.txt": b"x"})
    assert "leads outside" in str(fails(vault, "install", str(tar)))
    link = tmp_path / "link.vaultbrain-schema"
    with tarfile.open(link, "w:gz") as t:
        info = tarfile.TarInfo("pack.yaml")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        t.addfile(info)
    assert "links and devices" in str(fails(vault, "install", str(link)))
    assert not (tmp_path.parent / "escape.txt").exists()
    junk = tmp_path / "junk.txt"
    junk.write_text("not a pack")
    assert "neither" in str(fails(vault, "install", str(junk)))
    assert "does not exist" in str(fails(vault, "install", str(tmp_path / "nope")))


def test_init_scaffolds_a_valid_lint_clean_pack(vault: Path, env_home: Path) -> None:
    out = schema(vault, "init", "my-pack").output
    path = env_home / "schema-packs" / "my-pack" / "pack.yaml"
    assert str(path) in out and path.is_file()
    assert schema(vault, "validate", "my-pack").output.startswith("ok: my-pack@0.1.0+")
    assert "0 error(s), 0 warning(s)" in schema(vault, "lint", "my-pack").output
    assert "already exists" in str(fails(vault, "init", "my-pack"))
    assert "already exists" in str(fails(vault, "init", "vaultbrain-base"))
    assert "not a pack name" in str(fails(vault, "init", "My Pack"))
    schema(vault, "init", "on-top", "--extends", "vaultbrain-recommended")
    assert "meeting" in schema(vault, "show", "on-top").output


def test_fork_copies_renames_and_keeps_comments(vault: Path, env_home: Path) -> None:
    out = schema(vault, "fork", "vaultbrain-recommended", "my-rec").output
    path = env_home / "schema-packs" / "my-rec" / "pack.yaml"
    assert str(path) in out
    text = path.read_text()
    assert text.startswith("# vaultbrain-recommended: an operational brain")
    assert "\nname: my-rec\n" in text
    doc = json.loads(schema(vault, "show", "my-rec", "--json").stdout)
    assert doc["identity"].startswith("my-rec@1.0.0+")
    assert next(t["name"] for t in doc["manifest"]["page_types"]) == "meeting"
    assert "already exists" in str(fails(vault, "fork", "vaultbrain-base", "my-rec"))
    assert fails(vault, "fork", "ghost", "x", kind=PackError).code == "UNKNOWN_PACK"


def test_edit_surfaces_the_path(vault: Path, env_home: Path) -> None:
    out = schema(vault, "edit", "vaultbrain-base").output
    assert out.splitlines()[0].endswith("vaultbrain-base.yaml")
    assert "read-only" in out and "schema fork vaultbrain-base" in out
    write_pack(env_home, "broken", "api_version: [\n")
    out = schema(vault, "edit", "broken").output
    assert out.splitlines()[0] == str(env_home / "schema-packs" / "broken" / "pack.yaml")
    assert "currently broken: PARSE_ERROR" in out


# -- diff / graph / explain ---------------------------------------------------------------


def test_diff_packs(vault: Path, env_home: Path) -> None:
    out = schema(vault, "diff", "vaultbrain-base", "vaultbrain-recommended").output
    assert "types only in b: meeting, concept" in out
    write_pack(
        env_home,
        "tweaked",
        manifest(
            "tweaked",
            page_types=[ptype("person", "People/", "Contacts/", fields={"name": {"type": "text"}})],
        ),
    )
    doc = json.loads(schema(vault, "diff", "vaultbrain-base", "tweaked", "--json").stdout)
    change = doc["types_changed"]["person"]
    assert change["path_prefixes"] == {"a": ["People/"], "b": ["People/", "Contacts/"]}
    assert "contact" in change["fields_only_in_a"]
    assert "fields_changed" in change  # name lost `required`
    assert doc["types_only_in_a"] == doc["types_only_in_b"] == []
    same = schema(vault, "diff", "vaultbrain-base", "vaultbrain-base").output
    assert "identical" in same


def test_graph_lists_types_folders_and_links(vault: Path) -> None:
    out = schema(vault, "graph", "vaultbrain-recommended").output
    assert out.splitlines()[1] == "  chain: vaultbrain-recommended -> vaultbrain-base"
    assert (
        "├── meeting [temporal, fileable, extractable]  Meetings/  <vaultbrain-recommended>" in out
    )
    assert "--works_at--> company" in out
    assert "└── memory [annotation]  Memories/  <vaultbrain-base>" in out.splitlines()


def test_explain_by_name_or_alias(vault: Path) -> None:
    out = schema(vault, "explain", "task").output
    assert out.startswith("admin: An action item")
    assert "Any note under Admin/ is a admin" in out or "Any note under Admin/ is an admin" in out
    assert "status (enum of open | waiting | done | cancelled, default open)" in out
    assert "Declared by vaultbrain-base." in out
    out = schema(vault, "explain", "meeting", "--pack", "vaultbrain-recommended").output
    assert "Declared by vaultbrain-recommended." in out
    assert "has no type 'meeting'" in str(fails(vault, "explain", "meeting"))


# -- detect / suggest / review ------------------------------------------------------------


def _shape(vault: Path) -> None:
    for i in range(6):
        note(
            vault,
            f"Reading/Book {i}.md",
            {"author": f"A{i}", "status": "done" if i % 2 else "to-read"},
        )
        note(vault, f"People/P{i}.md")
    for i in range(5):
        note(vault, f"Recipes/R{i}.md", {"servings": i + 1})


def test_detect_proposes_and_remembers(vault: Path) -> None:
    _shape(vault)
    out = schema(vault, "detect").output
    assert "11 of 17 notes in folders have no type" in out
    assert "Reading/" in out and "new type reading (media)" in out
    assert "new type recipe" in out
    doc = json.loads(schema(vault, "detect", "--json", "--min-notes", "6").stdout)
    assert [c["folder"] for c in doc["candidates"]] == ["Reading"]
    # remembered (in the state dir): review lists the last detect's, not a fresh one's
    doc = json.loads(schema(vault, "review-candidates", "--json").stdout)
    assert [c["folder"] for c in doc["candidates"]] == ["Reading"]


def test_suggest_offline_says_so_and_falls_back(vault: Path) -> None:
    _shape(vault)
    out = schema(vault, "suggest").output
    assert "the LLM is unavailable (unreachable" in out
    assert "heuristic proposals of `schema detect`" in out
    assert "new type reading (media)" in out and "[heuristic]" in out


def test_suggest_refines_through_the_llm(vault: Path, lmstudio: Any) -> None:
    _shape(vault)

    def answer(req: dict[str, Any]) -> str:
        return json.dumps(
            {
                "types": [
                    {
                        "folder": "Reading",
                        "name": "book",
                        "primitive": "media",
                        "description": "A book being read or finished.",
                        "fileable": True,
                        "fields": [
                            {"name": "author", "type": "text", "values": []},
                            {"name": "status", "type": "enum", "values": ["to-read", "done"]},
                        ],
                    },
                    {
                        "folder": "Recipes",
                        "name": "recipe",
                        "primitive": "concept",
                        "description": "A recipe.",
                        "fileable": False,
                        "fields": [{"name": "servings", "type": "number", "values": []}],
                    },
                ]
            }
        )

    lmstudio.responder = answer
    doc = json.loads(schema(vault, "suggest", "--json").stdout)
    assert doc["source"] == "llm" and "2 of 2 proposals refined" in doc["note"]
    by = {c["folder"]: c for c in doc["candidates"]}
    assert by["Reading"]["name"] == "book" and by["Reading"]["source"] == "llm"
    assert by["Reading"]["fields"]["status"] == {"type": "enum", "values": ["to-read", "done"]}
    body = lmstudio.requests[-1]
    assert body["response_format"]["json_schema"]["name"] == "schema_suggest"
    assert "Reading" in body["messages"][1]["content"]
    # The refined proposal is what review-candidates applies.
    doc = json.loads(schema(vault, "review-candidates", "--apply", "Reading/", "--json").stdout)
    assert doc["delta"]["added"] == ["book"]


def test_review_candidates_apply_rename_ignore(vault: Path, env_home: Path) -> None:
    _shape(vault)
    out = schema(vault, "review-candidates").output
    assert "Reading/" in out and "Recipes/" in out
    out = schema(
        vault,
        "review-candidates",
        "--rename",
        "Recipes=dish",
        "--ignore",
        "Reading",
        "--apply",
        "recipes/",
    ).output
    assert "Recipes/ renamed to dish" in out and "Reading/ ignored" in out
    delta = vault / ".vaultbrain" / "schema-deltas" / "vaultbrain-base-local" / "pack.yaml"
    assert f"wrote pack delta {delta}" in out
    assert "next: review" in out and "schema use vaultbrain-base-local" in out
    data = yaml.safe_load(delta.read_text())
    assert data["extends"] == "vaultbrain-base"
    assert [t["name"] for t in data["page_types"]] == ["dish"]
    assert not (env_home / "schema-packs").exists()  # nothing installed behind their back
    assert json.loads(schema(vault, "active", "--json").stdout)["identity"].startswith(
        "vaultbrain-base@"
    )
    # The person installs and uses it; the folder is typed from then on.
    schema(vault, "install", str(delta.parent))
    schema(vault, "use", "vaultbrain-base-local")
    assert "3 of 17" not in schema(vault, "detect").output
    assert "6 of 17 notes in folders have no type" in schema(vault, "detect").output
    assert "no candidate for 'Nowhere/'" in str(
        fails(vault, "review-candidates", "--apply", "Nowhere/")
    )
    result = schema(vault, "review-candidates", "--rename", "oops", code=2)
    assert "FOLDER=NAME" in result.output


def test_a_second_apply_before_install_keeps_the_types_accepted_first(
    vault: Path, env_home: Path
) -> None:
    # Accepting one proposal, then another before the delta is installed: the delta holds
    # both (it used to be rewritten with the second only, the first still said "applied").
    _shape(vault)
    schema(vault, "review-candidates", "--apply", "Reading/")
    delta = vault / ".vaultbrain" / "schema-deltas" / "vaultbrain-base-local" / "pack.yaml"
    first = yaml.safe_load(delta.read_text())
    assert [t["name"] for t in first["page_types"]] == ["reading"]
    schema(vault, "review-candidates", "--apply", "Recipes/")
    second = yaml.safe_load(delta.read_text())
    assert sorted(t["name"] for t in second["page_types"]) == ["reading", "recipe"]
    assert second["version"] != first["version"]
    schema(vault, "install", str(delta.parent))
    schema(vault, "use", "vaultbrain-base-local")
    out = schema(vault, "detect").output
    assert "0 of 17 notes in folders have no type" in out and "no folder needs a new type" in out


def test_review_orphans(vault: Path) -> None:
    _shape(vault)
    note(vault, "People/Odd.md", {"type": "recipe"})
    out = schema(vault, "review-orphans", "--samples", "1").output
    assert "11 of 18 notes have no type" in out  # People/Odd.md has one of its own
    assert (
        "Reading/  6 note(s)" in out
        and "frontmatter types the pack does not declare: recipe (1)" in out
    )
    doc = json.loads(schema(vault, "review-orphans", "--json").stdout)
    assert doc["untyped"] == 11 and doc["folders"][0]["folder"] == "Reading"


# -- usage and telemetry ------------------------------------------------------------------


def test_every_verb_records_its_use_and_usage_counts_them(vault: Path, env_home: Path) -> None:
    verbs = [
        ["active"],
        ["list"],
        ["show"],
        ["validate"],
        ["lint"],
        ["graph"],
        ["explain", "person"],
        ["diff", "vaultbrain-base", "vaultbrain-recommended"],
        ["init", "p1"],
        ["fork", "p1", "p2"],
        ["edit", "p1"],
        ["use", "p1"],
        ["downgrade"],
        ["detect"],
        ["suggest"],
        ["review-candidates"],
        ["review-orphans"],
        ["install", str(env_home / "schema-packs" / "p2")],
    ]
    for args in verbs:
        code = 1 if args[0] == "install" else 0  # p2 is already installed
        schema(vault, *args, code=code)
    schema(vault, "usage")
    recorded = events(vault)
    assert recorded == [a[0] for a in verbs] + ["usage"]
    lines = state_entries(vault / ".vaultbrain", "schema-events.jsonl")
    assert [e["ok"] for e in lines if e["verb"] == "install"] == [False]
    doc = json.loads(schema(vault, "usage", "--since", "30d", "--json").stdout)
    rows = {r["verb"]: r for r in doc["verbs"]}
    assert rows["active"]["count"] == 1 and rows["usage"]["count"] == 1
    assert rows["install"]["failed"] == 1
    assert rows["fork"]["experimental"] and not rows["lint"]["experimental"]
    out = schema(vault, "usage").output
    assert "fork *" in out and "* experimental" in out


def test_usage_window(vault: Path) -> None:
    state = vault / ".vaultbrain"
    state.mkdir()
    (state / "schema-events.jsonl").write_text(
        '{"at":"2000-01-01T00:00:00","verb":"lint","ok":true}\nnot json\n'
    )
    doc = json.loads(schema(vault, "usage", "--since", "2w", "--json").stdout)
    assert {r["verb"]: r["count"] for r in doc["verbs"]}["lint"] == 0
    assert "--since" in str(fails(vault, "usage", "--since", "soon"))


def test_outside_a_vault_nothing_is_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["schema", "list"])
    assert result.exit_code == 0 and "vaultbrain-base" in result.output
    assert not (tmp_path / ".vaultbrain").exists()


def test_experimental_verbs_say_so_in_help(vault: Path) -> None:
    listing = schema(vault, "--help").output
    every = schema(vault, "--help-all").output.split("Experimental (may change or go):")[1]
    for verb in ("init", "fork", "edit", "diff", "graph", "explain"):
        assert "(experimental)" in schema(vault, verb, "--help").output
        # listed apart: named in one line of --help, described by --help-all
        assert not any(x.strip().startswith(verb + " ") for x in listing.splitlines())
        assert any(x.strip().startswith(verb + " ") for x in every.splitlines())
    for verb in ("active", "lint", "use", "detect"):
        assert "(experimental)" not in schema(vault, verb, "--help").output
