"""gbrain's own manifests load: subtypes, migration_from, mapping_rules, leading-slash
prefixes, a root pack's own types before what it borrows, and opt-in ``path_match``.

The manifests here follow the shape of gbrain's ``src/core/schema-pack/base/
gbrain-base-v2.yaml`` (a standalone root pack with ``extends: null``) and of its test
fixtures (prefixes written ``/media/``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures.packs.packkit import manifest, ptype, write_pack

from vaultbrain.cli.group import cli
from vaultbrain.packs.lint import lint_pack
from vaultbrain.packs.loader import load_pack
from vaultbrain.packs.model import PackError

BASE_V2 = """\
# a gbrain-base-v2 style pack: 3 canonical types, subtypes, and the three mapping rules
api_version: gbrain-schema-pack-v1
name: gb-base-v2
version: 1.0.0
description: canonical taxonomy with a note catch-all
gbrain_min_version: 0.42.0
extends: null
borrow_from: []
takes_kinds: [fact, take, bet, hunch]
migration_from:
  pack: gbrain-base
  version: "1.x"
page_types:
  - name: person
    primitive: entity
    path_prefixes: [people/, person/]
    aliases: [people, contact, founder]
    extractable: false
    expert_routing: true
  - name: media
    primitive: media
    path_prefixes: [media/, videos/, books/]
    subtypes:
      - name: video
        when:
          path_pattern: "^videos/"
      - name: book
        when:
          path_pattern: "^books/"
    aliases: [video, book]
    extractable: true
    expert_routing: false
  - name: tweet
    primitive: media
    path_prefixes: [tweets/]
    subtypes:
      - name: single
        when:
          frontmatter_field: thread_length
          frontmatter_value: 1
      - name: bundle
        when:
          frontmatter_field: bundle
          frontmatter_value: true
    extractable: true
    expert_routing: false
  - name: note
    primitive: concept
    path_prefixes: [notes/]
    aliases: [memo]
    extractable: true
    expert_routing: false
link_types:
  - name: partner_of
    inverse: partner_of
  - name: works_at
    inverse: employs
mapping_rules:
  - kind: retype
    from_type: tweet-single
    to_type: tweet
    subtype: single
  - kind: page_to_link
    from_type: partner-atom-link
    link_type: partner_of
    source_slug_from:
      frontmatter_field: source
    target_slug_from:
      frontmatter_field: target
  - kind: page_to_alias
    from_type: concept-redirect
    canonical_from: body_first_link
    alias_slug_from: slug
    notes_from: body_excerpt
  - kind: retype
    from_type: "*unknown*"
    to_type: note
    subtype_field: legacy_type
    subtype: "*original_type*"
"""


def _install_base_v2(home: Path) -> None:
    write_pack(home, "gb-base-v2", BASE_V2)


def test_a_gbrain_base_v2_manifest_loads_with_its_gbrain_only_keys(env_home: Path) -> None:
    _install_base_v2(env_home)
    pack = load_pack("gb-base-v2")
    m = pack.manifest
    assert [t.name for t in pack.types] == ["person", "media", "tweet", "note"]
    assert m.migration_from is not None and m.migration_from.pack == "gbrain-base"
    assert m.migration_from.version == "1.x"
    assert [r.kind for r in m.mapping_rules] == [
        "retype",
        "page_to_link",
        "page_to_alias",
        "retype",
    ]
    assert m.mapping_rules[3].subtype_field == "legacy_type"
    media = pack.get_type("media")
    assert media is not None and [s.name for s in media.subtypes or []] == ["video", "book"]


@pytest.mark.parametrize(
    ("rel", "front", "expected"),
    [
        ("videos/Intro.md", None, ("media", "video")),
        ("Books/Dune.md", None, ("media", "book")),
        ("media/Clip.md", None, ("media", None)),
        ("tweets/a.md", {"bundle": True}, ("tweet", "bundle")),
        ("tweets/b.md", {"thread_length": 1}, ("tweet", "single")),
        ("tweets/c.md", {"bundle": False}, ("tweet", None)),
        ("elsewhere/x.md", None, (None, None)),
    ],
)
def test_subtypes_from_path_pattern_or_frontmatter(
    env_home: Path, rel: str, front: dict | None, expected: tuple
) -> None:
    _install_base_v2(env_home)
    pack = load_pack("gb-base-v2")
    t = pack.infer_type(rel, front)
    assert ((t.name if t else None), pack.subtype_for(rel, front)) == expected


def test_a_bad_mapping_rule_is_refused_naming_it(env_home: Path) -> None:
    doc = manifest(
        "bad-rules",
        extends=None,
        page_types=[ptype("note", "notes/")],
        mapping_rules=[
            {"kind": "retype", "from_type": "a", "to_type": "b", "subtype_field": "title"}
        ],
    )
    doc["api_version"] = "gbrain-schema-pack-v1"
    write_pack(env_home, "bad-rules", doc)
    with pytest.raises(PackError) as err:
        load_pack("bad-rules")
    assert err.value.code == "INVALID_SHAPE"
    assert (err.value.field or "").startswith("mapping_rules[0]")


def test_gbrain_only_keys_carry_through_merge_and_show(env_home: Path, vault: Path) -> None:
    _install_base_v2(env_home)
    child = manifest(
        "gb-child",
        extends="gb-base-v2",
        page_types=[ptype("researcher", "researchers/", expert_routing=True)],
        mapping_rules=[{"kind": "retype", "from_type": "scientist", "to_type": "researcher"}],
        migration_from={"pack": "gb-base-v2", "version": "1.0.0"},
    )
    child["api_version"] = "gbrain-schema-pack-v1"
    write_pack(env_home, "gb-child", child)
    pack = load_pack("gb-child")
    assert [t.name for t in pack.types][:2] == ["researcher", "person"]
    media = pack.get_type("media")
    assert media is not None and media.subtypes  # inherited types keep their subtypes
    # migration_from and mapping_rules describe the pack itself: the child's own
    assert pack.manifest.migration_from and pack.manifest.migration_from.pack == "gb-base-v2"
    assert [r.from_type for r in pack.manifest.mapping_rules] == ["scientist"]

    result = CliRunner().invoke(
        cli, ["--vault", str(vault), "schema", "show", "gb-child", "--json"]
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)["manifest"]
    assert shown["migration_from"] == {"pack": "gb-base-v2", "version": "1.0.0"}
    assert shown["mapping_rules"][0]["kind"] == "retype"
    by_name = {t["name"]: t for t in shown["page_types"]}
    assert by_name["media"]["subtypes"][0] == {
        "name": "video",
        "when": {"path_pattern": "^videos/"},
    }
    explain = CliRunner().invoke(
        cli, ["--vault", str(vault), "schema", "explain", "media", "--pack", "gb-child"]
    )
    assert "Subtypes: video (path matches '^videos/')" in explain.output


def test_a_leading_slash_is_stripped_with_a_lint_warning(env_home: Path) -> None:
    doc = manifest(
        "slashed",
        extends=None,
        page_types=[ptype("media", "/media/"), ptype("note", "notes/")],
    )
    doc["api_version"] = "gbrain-schema-pack-v1"
    write_pack(env_home, "slashed", doc)
    pack = load_pack("slashed")
    media = pack.get_type("media")
    assert media is not None and media.path_prefixes == ["media/"]
    assert pack.type_for_path("media/x.md") is media
    report = lint_pack(pack)
    slash = [i for i in report.issues if i.rule == "prefix_leading_slash"]
    assert len(slash) == 1 and slash[0].severity == "warning" and "'/media/'" in slash[0].message
    assert report.ok


@pytest.mark.parametrize("prefix", ["/", "/../x/", "/.obsidian/"])
def test_a_leading_slash_does_not_excuse_a_bad_prefix(env_home: Path, prefix: str) -> None:
    write_pack(env_home, "p", manifest("p", extends=None, page_types=[ptype("note", prefix)]))
    with pytest.raises(PackError) as err:
        load_pack("p")
    assert err.value.field == "page_types[0](note).path_prefixes"


def test_a_root_pack_that_borrows_keeps_its_own_types_first(env_home: Path) -> None:
    write_pack(
        env_home,
        "lender",
        manifest(
            "lender", extends=None, page_types=[ptype("gadget", "Gadgets/"), ptype("x", "X/")]
        ),
    )
    write_pack(
        env_home,
        "rooted",
        manifest(
            "rooted",
            extends=None,
            borrow_from=[{"pack": "lender", "types": ["gadget", "x"]}],
            page_types=[ptype("x", "MyX/", description="mine"), ptype("y", "Y/")],
        ),
    )
    pack = load_pack("rooted")
    assert [t.name for t in pack.types] == ["x", "y", "gadget"]
    x = pack.get_type("x")
    assert x is not None and x.description == "mine"  # the pack's own declaration wins
    assert pack.origins["gadget"] == ["lender (borrowed by rooted)"]
    assert pack.origins["x"] == ["rooted", "lender (borrowed by rooted)"]


@pytest.mark.parametrize(
    ("path_match", "rel", "expected"),
    [
        ("root", "media/a.md", "media"),
        ("root", "archive/media/a.md", None),
        ("anywhere", "archive/media/a.md", "media"),
        ("anywhere", "archive/wiki/analysis/a.md", "analysis"),
        ("anywhere", "x/wiki/a.md", "wiki"),
        ("anywhere", "multimedia/a.md", None),  # still whole folder names
        ("anywhere", "media.md", None),
    ],
)
def test_path_match_anywhere_is_opt_in(
    env_home: Path, path_match: str, rel: str, expected: str | None
) -> None:
    doc = manifest(
        "anywhere",
        extends=None,
        path_match=path_match,
        page_types=[
            ptype("analysis", "wiki/analysis/"),
            ptype("wiki", "wiki/"),
            ptype("media", "/media/"),
        ],
    )
    write_pack(env_home, "anywhere", doc)
    t = load_pack("anywhere").type_for_path(rel)
    assert (t.name if t else None) == expected
