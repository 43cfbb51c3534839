"""The resolution chain (each tier beats the next), tier 3 per folder, and the cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fixtures.packs.packkit import manifest, ptype, write_pack

from vaultbrain.brain import Brain
from vaultbrain.packs.choice import active_pack, pack_for_path, tier_report, typer_for
from vaultbrain.packs.loader import load_pack
from vaultbrain.packs.model import PackError


def _packs(home: Path) -> None:
    for i in range(1, 7):
        write_pack(
            home,
            f"tier{i}",
            manifest(f"tier{i}", extends=None, page_types=[ptype(f"t{i}", f"T{i}/")]),
        )


def _app(vault: Path, **kw) -> Brain:  # type: ignore[no-untyped-def]
    env = dict(os.environ) | kw.pop("env", {})
    return Brain(vault, env=env, **kw)


def _set_all(vault: Path, home: Path) -> None:
    """Tiers 3 to 6 all name a pack (tiers 1 and 2 are per call / per process)."""
    app = _app(vault)
    # Tier 4 is a schema_pack an earlier version kept in this machine's settings.json;
    # `settings set schema_pack` now writes vaultbrain.yml's `schema:` (tier 5).
    app.settings.set("schema_pack", "tier5")
    app.settings.set("schema_pack.source.Work", "tier3")
    app.state_dir.mkdir(parents=True, exist_ok=True)
    (app.state_dir / "settings.json").write_text(json.dumps({"schema_pack": "tier4"}), "utf-8")
    (home / "config.json").write_text(json.dumps({"schema_pack": "tier6"}), "utf-8")


def test_each_tier_beats_the_next(vault: Path, env_home: Path) -> None:
    _packs(env_home)
    _set_all(vault, env_home)
    note = "Work/Plan.md"

    def winner(**kw) -> tuple[str, int]:  # type: ignore[no-untyped-def]
        app = _app(vault, **kw)
        a = active_pack(app.vault.root, app.settings, app.schema_override, app.env, rel=note)
        return a.pack.name, a.tier

    assert winner(schema_pack="tier1", env={"VAULTBRAIN_SCHEMA_PACK": "tier2"}) == ("tier1", 1)
    assert winner(env={"VAULTBRAIN_SCHEMA_PACK": "tier2"}) == ("tier2", 2)
    assert winner() == ("tier3", 3)
    _app(vault).settings.set("schema_pack.source.Work", "")
    assert winner() == ("tier4", 4)
    (_app(vault).state_dir / "settings.json").write_text("{}", "utf-8")
    assert winner() == ("tier5", 5)
    (vault / "vaultbrain.yml").unlink()
    assert winner() == ("tier6", 6)
    (env_home / "config.json").unlink()
    assert winner() == ("vaultbrain-base", 7)


def test_tier_3_types_only_notes_under_its_folder(vault: Path, env_home: Path) -> None:
    _packs(env_home)
    _set_all(vault, env_home)
    app = _app(vault)
    assert app.active.pack.name == "tier4"  # no note: the vault's pack
    assert pack_for_path(app, "Work/Plan.md").name == "tier3"
    assert pack_for_path(app, "work/sub/deeper.md").name == "tier3"  # any case, nested
    assert pack_for_path(app, "Workshop/Plan.md").name == "tier4"  # near miss
    assert pack_for_path(app, "Plan.md").name == "tier4"
    a = active_pack(app.vault.root, app.settings, None, app.env, rel="Work/x.md")
    assert (a.tier, a.folder, a.source) == (3, "Work", "setting schema_pack.source.Work")


def test_the_deepest_folder_setting_wins(vault: Path, env_home: Path) -> None:
    _packs(env_home)
    app = _app(vault)
    app.settings.set("schema_pack.source.Work", "tier1")
    app.settings.set("schema_pack.source.Work/Clients/", "tier2")
    assert pack_for_path(app, "Work/Clients/Acme.md").name == "tier2"
    assert pack_for_path(app, "Work/Other.md").name == "tier1"
    typer = typer_for(app)
    assert typer("Work/Clients/Acme.md").name == "tier2"
    assert typer("Work/x.md").name == "tier1"
    assert typer("Else/x.md").name == "vaultbrain-base"


def test_env_beats_the_folder_setting(vault: Path, env_home: Path) -> None:
    _packs(env_home)
    _app(vault).settings.set("schema_pack.source.Work", "tier3")
    app = _app(vault, env={"VAULTBRAIN_SCHEMA_PACK": "tier2"})
    assert pack_for_path(app, "Work/x.md").name == "tier2"
    assert typer_for(app)("Work/x.md").name == "tier2"


def test_vaultbrain_yml_accepts_a_mapping(vault: Path, env_home: Path) -> None:
    _packs(env_home)
    (vault / "vaultbrain.yml").write_text("schema:\n  pack: tier5\n", "utf-8")
    assert _app(vault).active.pack.name == "tier5"


def test_a_tier_naming_a_missing_pack_says_which_and_files_with_the_default(
    vault: Path, env_home: Path
) -> None:
    """A pack this machine does not have (another machine's, issue 29) stops nothing: the
    default (or the pack it last filed with) is in force, and why is said."""
    (vault / "vaultbrain.yml").write_text("schema: nowhere-pack\n", "utf-8")
    app = _app(vault)
    assert app.active.pack.name == "vaultbrain-base"
    assert app.pack_problem is not None
    assert "'nowhere-pack'" in app.pack_problem and "vaultbrain.yml" in app.pack_problem
    with pytest.raises(PackError) as info:  # named for this run: its error stands
        _ = _app(vault, schema_pack="nowhere-pack").active
    assert info.value.code == "UNKNOWN_PACK" and "tier 1" in str(info.value)


def test_broken_config_files_are_parse_errors(vault: Path, env_home: Path) -> None:
    (env_home / "config.json").write_text("{oops", "utf-8")
    with pytest.raises(PackError) as info:
        _ = _app(vault).active
    assert info.value.code == "PARSE_ERROR"
    (env_home / "config.json").unlink()
    (vault / "vaultbrain.yml").write_text("schema: [unclosed\n", "utf-8")
    with pytest.raises(PackError) as info:
        _ = _app(vault).active
    assert info.value.code == "PARSE_ERROR"


def test_tier_1_accepts_a_manifest_path(vault: Path, tmp_path: Path) -> None:
    path = tmp_path / "loose.yaml"
    path.write_text(
        "api_version: vaultbrain-schema-pack-v1\nname: loose\nversion: 0.1.0\n"
        "page_types: [{name: note, path_prefixes: [Notes/]}]\n",
        "utf-8",
    )
    active = _app(vault, schema_pack=str(path)).active
    assert active.pack.name == "loose" and active.tier == 1
    assert active.pack.get_type("person") is not None  # extends vaultbrain-base by default


def test_tier_report_lists_what_every_tier_names(vault: Path, env_home: Path) -> None:
    _packs(env_home)
    _set_all(vault, env_home)
    app = _app(vault)
    rows = {r["tier"]: r["value"] for r in tier_report(vault, app.settings, None, app.env)}
    assert rows == {
        1: None,
        2: None,
        3: {"Work/": "tier3"},
        4: "tier4",
        5: "tier5",
        6: "tier6",
        7: "vaultbrain-base",
    }


def test_a_pack_edit_is_seen_without_a_restart(env_home: Path) -> None:
    write_pack(env_home, "live", manifest("live", extends=None, page_types=[ptype("a", "A/")]))
    first = load_pack("live")
    assert load_pack("live") is first  # cached
    write_pack(env_home, "live", manifest("live", extends=None, page_types=[ptype("b", "B/")]))
    second = load_pack("live")
    assert second is not first and second.get_type("b") and not second.get_type("a")


def test_a_parent_or_borrow_edit_invalidates_the_child(env_home: Path) -> None:
    write_pack(env_home, "par", manifest("par", extends=None, page_types=[ptype("a", "A/")]))
    write_pack(env_home, "lend", manifest("lend", extends=None, page_types=[ptype("l", "L/")]))
    write_pack(
        env_home,
        "kid",
        manifest("kid", extends="par", borrow_from=[{"pack": "lend", "types": ["l"]}]),
    )
    first = load_pack("kid")
    write_pack(env_home, "lend", manifest("lend", extends=None, page_types=[ptype("l", "Lent/")]))
    assert load_pack("kid").get_type("l").path_prefixes == ["Lent/"]
    write_pack(env_home, "par", manifest("par", extends=None, page_types=[ptype("a", "Aa/")]))
    assert load_pack("kid").get_type("a").path_prefixes == ["Aa/"]
    assert load_pack("kid").identity != first.identity


def test_installing_a_pack_that_shadows_a_bundled_one_is_seen(env_home: Path) -> None:
    bundled = load_pack("vaultbrain-base")
    assert bundled.source and "schema-packs" not in bundled.source
    write_pack(
        env_home,
        "vaultbrain-base",
        manifest("vaultbrain-base", extends=None, page_types=[ptype("only", "Only/")]),
    )
    shadow = load_pack("vaultbrain-base")
    assert [t.name for t in shadow.types] == ["only"]
    (env_home / "schema-packs" / "vaultbrain-base" / "pack.yaml").unlink()
    assert load_pack("vaultbrain-base").identity == bundled.identity


def test_a_pack_file_whose_name_differs_from_its_folder_is_refused(env_home: Path) -> None:
    write_pack(env_home, "folder-name", manifest("other-name", extends=None))
    with pytest.raises(PackError, match="other-name"):
        load_pack("folder-name")


def test_app_active_follows_setting_changes(vault: Path, env_home: Path) -> None:
    _packs(env_home)
    app = _app(vault)
    assert app.pack.name == "vaultbrain-base"
    _app(vault).settings.set("schema_pack", "tier4")  # another process changes it
    assert app.pack.name == "vaultbrain-base"  # until the next unit of work begins
    assert app.refresh().pack.name == "tier4"


def test_a_resolved_pack_is_kept_in_the_state_dir_for_the_next_process(
    env_home: Path, tmp_path: Path
) -> None:
    """The next command finds the resolved pack in the state dir (no manifest validated
    again); a pack edit since is seen there too; a state dir that does not exist gets none."""
    import vaultbrain.packs.loader as loader
    from vaultbrain.store import Store

    state = Store(tmp_path / "state")
    state.write_json("made", True)  # (a state dir whose database exists)
    write_pack(env_home, "kept", manifest("kept", extends=None, page_types=[ptype("a", "A/")]))
    try:
        loader.keep_on_disk(state)
        first = load_pack("kept")
        kept = state.conn().execute("SELECT name FROM blobs WHERE name LIKE 'packs-cache/%'")
        assert kept.fetchall()
        loader._cache.clear()  # a new process
        validated: list[object] = []
        real = loader.read_manifest
        loader.read_manifest = lambda path: validated.append(path) or real(path)  # type: ignore[assignment]
        try:
            again = load_pack("kept")
            assert validated == [] and again is not first  # from the state dir
            assert again.identity == first.identity and again.get_type("a") is not None
            write_pack(
                env_home, "kept", manifest("kept", extends=None, page_types=[ptype("b", "B/")])
            )
            loader._cache.clear()
            edited = load_pack("kept")
            assert validated and edited.get_type("b") and not edited.get_type("a")
        finally:
            loader.read_manifest = real  # type: ignore[assignment]
        loader.keep_on_disk(Store(tmp_path / "no-such-state-dir"))
        assert loader._disk is None
    finally:
        loader.keep_on_disk(None)
