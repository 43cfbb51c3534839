"""Manifest validation, error codes and field paths, identity, fields, aliases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fixtures.packs.packkit import manifest, ptype, write_pack

from vaultbrain.packs.loader import load_pack, load_pack_path, read_manifest
from vaultbrain.packs.model import FieldSpec, Manifest, PackError, ResolvedPack


def _err(path: Path) -> PackError:
    with pytest.raises(PackError) as info:
        read_manifest(path)
    return info.value


def test_unknown_keys_are_refused_with_the_field_path(env_home: Path) -> None:
    doc = manifest("p", extends=None, page_types=[ptype("note", "Notes/", colour="red")])
    err = _err(write_pack(env_home, "p", doc))
    assert err.code == "INVALID_SHAPE"
    assert err.field == "page_types[0](note).colour"
    assert "unknown key" in str(err)


def test_unknown_top_level_key_is_refused(env_home: Path) -> None:
    err = _err(write_pack(env_home, "p", manifest("p", extends=None, folders=["A"])))
    assert err.code == "INVALID_SHAPE" and err.field == "folders"


def test_nested_field_errors_name_the_whole_path(env_home: Path) -> None:
    doc = manifest(
        "p",
        extends=None,
        page_types=[ptype("note", "Notes/", fields={"status": {"type": "dropdown"}})],
    )
    err = _err(write_pack(env_home, "p", doc))
    assert err.field == "page_types[0](note).fields.status.type"


def test_enum_needs_values_and_values_need_enum(env_home: Path) -> None:
    doc = manifest(
        "p", extends=None, page_types=[ptype("note", "Notes/", fields={"status": {"type": "enum"}})]
    )
    assert "needs `values`" in str(_err(write_pack(env_home, "p", doc)))
    doc = manifest(
        "p",
        extends=None,
        page_types=[ptype("note", "Notes/", fields={"status": {"type": "text", "values": ["a"]}})],
    )
    assert "enum fields only" in str(_err(write_pack(env_home, "p", doc)))


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("name", "My Pack", "name"),
        ("version", "1.0", "version"),
        ("version", 1.0, "version"),
        ("extends", "Not A Pack", "extends"),
        ("min_version", "soon", "min_version"),
    ],
)
def test_identity_fields_are_validated(env_home: Path, key: str, value: object, field: str) -> None:
    doc = manifest("p", extends=None)
    doc[key] = value
    err = _err(write_pack(env_home, "p", doc))
    assert err.code == "INVALID_SHAPE" and err.field == field


@pytest.mark.parametrize("prefix", ["../People/", "People/../x/", ".obsidian/", "", "A//B/"])
def test_bad_path_prefixes_are_refused(env_home: Path, prefix: str) -> None:
    doc = manifest("p", extends=None, page_types=[ptype("note", prefix)])
    assert _err(write_pack(env_home, "p", doc)).field == "page_types[0](note).path_prefixes"


def test_type_names_are_slugs(env_home: Path) -> None:
    doc = manifest("p", extends=None, page_types=[ptype("Meeting Notes", "M/")])
    assert _err(write_pack(env_home, "p", doc)).field == "page_types[0](Meeting Notes).name"


def test_api_version_errors(env_home: Path) -> None:
    doc = manifest("p", extends=None)
    doc["api_version"] = "vaultbrain-schema-pack-v9"
    assert _err(write_pack(env_home, "p", doc)).code == "INVALID_API_VERSION"
    doc["api_version"] = "gbrain-skillpack-v1"
    err = _err(write_pack(env_home, "p", doc))
    assert err.code == "INVALID_API_VERSION" and "skillpack" in str(err)


def test_parse_and_missing_file_errors(env_home: Path, tmp_path: Path) -> None:
    assert _err(write_pack(env_home, "p", "api_version: [unclosed\n")).code == "PARSE_ERROR"
    assert _err(write_pack(env_home, "q", "{not json", fmt="json")).code == "PARSE_ERROR"
    assert _err(write_pack(env_home, "r", "- a list\n- not a mapping\n")).code == "INVALID_SHAPE"
    assert _err(tmp_path / "nowhere.yaml").code == "FILE_NOT_FOUND"
    (tmp_path / "empty").mkdir()
    assert _err(tmp_path / "empty").code == "FILE_NOT_FOUND"


def test_unknown_pack_is_an_error_code(env_home: Path) -> None:
    with pytest.raises(PackError) as info:
        load_pack("no-such-pack")
    assert info.value.code == "UNKNOWN_PACK"


def test_block_scalars_do_not_swallow_the_keys_after_them(env_home: Path) -> None:
    text = """\
api_version: vaultbrain-schema-pack-v1
name: blocky
version: 1.0.0
extends: null
description: |
  First line.

  A paragraph after a blank line: keys after this block must still load.
page_types:
  - name: note
    path_prefixes: [Notes/]
    description: >
      Folded text
      over two lines.
    fields:
      title: {type: text}
takes_kinds: [fact]
"""
    m = read_manifest(write_pack(env_home, "blocky", text))
    assert m.description.endswith("must still load.\n")
    assert [t.name for t in m.page_types] == ["note"]
    assert m.page_types[0].description == "Folded text over two lines.\n"
    assert m.takes_kinds == ["fact"]


def test_json_manifests_load(env_home: Path) -> None:
    doc = manifest("jsonpack", extends=None, page_types=[ptype("note", "Notes/")])
    pack = load_pack_path(write_pack(env_home, "jsonpack", doc, fmt="json"))
    assert pack.get_type("note") is not None


def test_gbrain_manifests_load_and_their_parent_maps_to_ours(env_home: Path) -> None:
    doc = manifest(
        "imported",
        extends="gbrain-base",
        gbrain_min_version="0.39.0",
        page_types=[ptype("researcher", "researchers/", extractable=True)],
    )
    doc["api_version"] = "gbrain-schema-pack-v1"
    write_pack(env_home, "imported", doc)
    pack = load_pack("imported")
    assert pack.chain == ["imported", "vaultbrain-base"]
    assert pack.get_type("researcher") and pack.get_type("person")


def test_enrichable_types_accept_the_short_form() -> None:
    m = Manifest.model_validate(
        manifest("p", enrichable_types=["person", {"type": "company", "rubric": "r"}])
    )
    assert [(e.type, e.rubric) for e in m.enrichable_types] == [("person", None), ("company", "r")]


def test_bad_link_regex_is_refused_at_load(env_home: Path) -> None:
    doc = manifest("p", extends=None, link_types=[{"name": "x", "inference": {"regex": "(["}}])
    err = _err(write_pack(env_home, "p", doc))
    assert err.field == "link_types[0](x).inference.regex"


def test_identity_is_name_version_and_sha8_of_the_canonical_merged_manifest(env_home: Path) -> None:
    doc = manifest("idpack", extends=None, page_types=[ptype("note", "Notes/")])
    write_pack(env_home, "idpack", doc)
    pack = load_pack("idpack")
    name, rest = pack.identity.split("@")
    version, sha8 = rest.split("+")
    assert (name, version) == ("idpack", "1.0.0")
    assert len(sha8) == 8 and int(sha8, 16) >= 0
    # Same content written differently (defaults spelled out, other key order): same identity.
    spelled = dict(reversed(list(doc.items())))
    spelled["takes_kinds"] = ["fact", "take", "bet", "hunch"]
    spelled["page_types"] = [ptype("note", "Notes/", aliases=[], fileable=False)]
    write_pack(env_home, "idpack", json.dumps(spelled), fmt="json")
    assert load_pack("idpack").identity == pack.identity
    # A change of content changes it.
    doc["page_types"][0]["fileable"] = True
    write_pack(env_home, "idpack", doc)
    assert load_pack("idpack").sha8 != pack.sha8


def test_a_parent_change_changes_the_child_identity(env_home: Path) -> None:
    write_pack(env_home, "parent", manifest("parent", extends=None, page_types=[ptype("a", "A/")]))
    write_pack(env_home, "kid", manifest("kid", extends="parent"))
    before = load_pack("kid").identity
    write_pack(
        env_home,
        "parent",
        manifest("parent", extends=None, page_types=[ptype("a", "A/", fileable=True)]),
    )
    assert load_pack("kid").identity != before


def test_bundled_base_pack_keeps_the_filing_contract() -> None:
    pack = load_pack("vaultbrain-base")
    assert pack.folders() == ["People", "Projects", "Ideas", "Admin", "Links", "Memories"]
    assert [t.name for t in pack.fileable_types()] == ["person", "project", "idea", "admin"]
    person = pack.get_type("person")
    assert person.store_collection == "people" and person.title_key == "name"
    assert pack.get_type("admin").store_collection == "admin"
    assert pack.get_type("project").fields["status"].values == [
        "active",
        "planned",
        "on-hold",
        "completed",
    ]


def test_get_type_by_name_or_alias_any_case() -> None:
    pack = load_pack("vaultbrain-base")
    assert pack.get_type("PERSON").name == "person"
    assert pack.get_type(" Contact ").name == "person"
    assert pack.get_type("ToDo").name == "admin"
    assert pack.get_type("unknown") is None
    assert pack.get_type("") is None


def test_infer_type_frontmatter_wins_and_undeclared_means_untyped() -> None:
    pack = load_pack("vaultbrain-base")
    assert pack.infer_type("People/Sarah.md", {}).name == "person"
    assert pack.infer_type("People/Sarah.md", {"type": "idea"}).name == "idea"
    assert pack.infer_type("Misc/x.md", {"type": "task"}).name == "admin"
    assert pack.infer_type("People/Sarah.md", {"type": "recipe"}) is None
    assert pack.infer_type("Misc/x.md", None) is None


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ({"type": "text"}, " hi ", (True, "hi")),
        ({"type": "text"}, 3, (True, "3")),
        ({"type": "text"}, True, (False, None)),
        ({"type": "list"}, "one", (True, ["one"])),
        ({"type": "links"}, ["[[A]]", 2], (True, ["[[A]]", "2"])),
        ({"type": "list"}, [{"x": 1}], (False, None)),
        ({"type": "number"}, "4.5", (True, 4.5)),
        ({"type": "number"}, "four", (False, None)),
        ({"type": "number"}, True, (False, None)),
        ({"type": "checkbox"}, False, (True, False)),
        ({"type": "checkbox"}, "yes", (False, None)),
        ({"type": "date"}, "2026-12-08", (True, "2026-12-08")),
        ({"type": "date"}, "next week", (False, None)),
        ({"type": "datetime"}, "2026-12-08T10:30", (True, "2026-12-08T10:30:00")),
        ({"type": "enum", "values": ["Open", "Done"]}, "done", (True, "Done")),
        ({"type": "enum", "values": ["Open", "Done"]}, "later", (False, None)),
        ({"type": "link"}, "[[People/Sarah|Sarah]]", (True, "[[People/Sarah|Sarah]]")),
        ({"type": "text"}, None, (False, None)),
    ],
)
def test_field_coercion(spec: dict, value: object, expected: tuple) -> None:
    assert FieldSpec.model_validate(spec).coerce(value) == expected


def test_field_json_schema() -> None:
    assert FieldSpec(type="enum", values=["a"]).json_schema() == {"type": "string", "enum": ["a"]}
    assert FieldSpec(type="links").json_schema()["type"] == "array"
    assert FieldSpec(type="checkbox").json_schema() == {"type": "boolean"}


def test_page_type_defaults_for_collection_title_and_folder() -> None:
    m = Manifest.model_validate(
        manifest(
            "p",
            page_types=[
                {"name": "daily", "fields": {"title": {"type": "text"}}},
                {"name": "company", "path_prefixes": ["Work/Companies/"], "fields": {"name": {}}},
            ],
        )
    )
    daily, company = m.page_types
    assert daily.store_collection == "dailies" and daily.folder == "Daily"
    assert daily.title_key == "title"
    assert company.store_collection == "companies" and company.folder == "Work/Companies"
    assert company.title_key == "name"


def test_resolved_pack_of_bare_manifest_works_without_loader() -> None:
    pack = ResolvedPack(
        Manifest.model_validate(
            yaml.safe_load(
                "api_version: vaultbrain-schema-pack-v1\nname: bare\nversion: 0.0.1\n"
                "page_types: [{name: note, path_prefixes: [Notes/]}]\n"
            )
        )
    )
    assert pack.chain == ["bare"] and pack.type_for_path("notes/x.md").name == "note"
