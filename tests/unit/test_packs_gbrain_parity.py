"""gbrain parity by class: gbrain's own pack test cases (``test/schema-pack-infer-type-and-
subtype.test.ts``, ``schema-pack-lint-rules.test.ts``, ``schema-pack-loader.test.ts``'s YAML
cases, ``schema-pack-merge.test.ts``), each run on vaultbrain's loader, lint and typer. Where
vaultbrain agrees the test asserts gbrain's expectation; where it differs on purpose the test
pins vaultbrain's behaviour and names the difference, which docs/pending/detect.md (README's
pack section) lists with its reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures.packs.packkit import manifest, ptype, write_pack

from vaultbrain.packs.lint import GBRAIN_RULES, LintReport, chain_layers, lint_pack
from vaultbrain.packs.loader import load_pack, parse_manifest_text
from vaultbrain.packs.model import PackError
from vaultbrain.packs.resolved import ResolvedPack


def gb(home: Path, name: str, page_types: list[dict[str, Any]], **keys: Any) -> ResolvedPack:
    """A gbrain-style standalone pack (``extends: null``, gbrain's api_version)."""
    doc = manifest(name, extends=None, page_types=page_types, **keys)
    doc["api_version"] = "gbrain-schema-pack-v1"
    write_pack(home, name, doc)
    return load_pack(name, home)


def typed(pack: ResolvedPack, rel: str, front: dict[str, Any] | None = None) -> dict[str, str]:
    """What gbrain's ``inferTypeAndSubtypeFromPack`` returns, from vaultbrain's typer."""
    t = pack.type_for_path(rel)
    if t is None:
        return {}
    sub = t.subtype_for(rel, front)
    return {"type": t.name} | ({"subtype": sub} if sub else {})


# -- inferTypeAndSubtypeFromPack ------------------------------------------------------------


def test_prefix_match_returns_the_canonical_type(env_home: Path) -> None:
    pack = gb(env_home, "p1", [ptype("media", "/media/")])
    assert typed(pack, "media/x.md") == {"type": "media"}


def test_untyped_default_differs_none_not_concept(env_home: Path) -> None:
    # DIFFERENCE (untyped default): gbrain answers `concept` for a path no prefix matches
    # (and for no path); vaultbrain answers no type, so the note is no record.
    pack = gb(env_home, "p2", [ptype("media", "/media/")])
    assert typed(pack, "foo/bar.md") == {}
    assert pack.infer_type("foo/bar.md", {}) is None


def test_subtype_from_path_pattern(env_home: Path) -> None:
    subs = [{"name": "video", "when": {"path_pattern": "^videos/"}}]
    pack = gb(env_home, "p3", [ptype("media", "/videos/", subtypes=subs)])
    assert typed(pack, "videos/x.md") == {"type": "media", "subtype": "video"}


def test_subtype_from_frontmatter_and_none_when_no_rule_matches(env_home: Path) -> None:
    subs = [
        {"name": "bundle", "when": {"frontmatter_field": "bundle", "frontmatter_value": True}},
        {"name": "single", "when": {"frontmatter_field": "thread_length", "frontmatter_value": 1}},
    ]
    pack = gb(env_home, "p4", [ptype("tweet", "/tweets/", subtypes=subs)])
    assert typed(pack, "tweets/a.md", {"bundle": True}) == {"type": "tweet", "subtype": "bundle"}
    assert typed(pack, "tweets/a.md", {"bundle": False}) == {"type": "tweet"}
    # === : true is not 1, 1 is not "1"
    assert typed(pack, "tweets/a.md", {"bundle": 1, "thread_length": "1"}) == {"type": "tweet"}


def test_first_prefix_wins(env_home: Path) -> None:
    pack = gb(
        env_home,
        "p5",
        [ptype("concept", "/wiki/concepts/"), ptype("wiki-anything", "/wiki/")],
    )
    assert typed(pack, "wiki/concepts/foo.md") == {"type": "concept"}


def test_a_malformed_path_pattern_types_without_a_subtype(env_home: Path) -> None:
    subs = [{"name": "broken", "when": {"path_pattern": "[invalid(regex"}}]
    try:
        pack = gb(env_home, "p6", [ptype("media", "/foo/", subtypes=subs)])
    except PackError:  # pragma: no cover - the loader takes it; lint names it
        pytest.fail("a malformed path_pattern must not stop the pack loading")
    assert typed(pack, "foo/x.md") == {"type": "media"}
    report = lint_pack(pack, chain_layers(pack, env_home))
    assert "path_pattern_unsupported" in [i.rule for i in report.errors]


def test_an_empty_pack_differs_it_types_nothing_and_lint_says_so(env_home: Path) -> None:
    # DIFFERENCE (empty-pack fallback): gbrain types by gbrain-base's folders when a pack
    # declares no page_types; vaultbrain types nothing, and lint warns.
    pack = gb(env_home, "p7", [])
    assert typed(pack, "people/alice.md") == {} and typed(pack, "People/Alice.md") == {}
    assert [i.rule for i in lint_pack(pack, chain_layers(pack, env_home)).issues] == ["empty_pack"]


# -- lint rules (file plane) ----------------------------------------------------------------


def lint(home: Path, name: str, page_types: list[dict[str, Any]], **keys: Any) -> LintReport:
    pack = gb(home, name, page_types, **keys)
    return lint_pack(pack, chain_layers(pack, home))


def gbrain_rules(report: LintReport, severity: str | None = None) -> list[str]:
    return sorted(
        GBRAIN_RULES.get(i.rule, i.rule)
        for i in report.issues
        if severity is None or i.severity == severity
    )


def test_alias_rules(env_home: Path) -> None:
    clean = lint(env_home, "a1", [ptype("person", "P/", aliases=["human"]), ptype("org", "O/")])
    assert clean.issues == []
    shadow = lint(env_home, "a2", [ptype("person", "P/", aliases=["org"]), ptype("org", "O/")])
    assert gbrain_rules(shadow, "error") == ["alias_shadows_type"]
    two = lint(
        env_home, "a3", [ptype("person", "P/", aliases=["x"]), ptype("org", "O/", aliases=["x"])]
    )
    assert "alias_declared_by_two_types" in gbrain_rules(two, "error")


def test_reference_rules(env_home: Path) -> None:
    r = lint(env_home, "r1", [ptype("person", "P/")], enrichable_types=[{"type": "ghost"}])
    assert gbrain_rules(r, "error") == ["enrichable_types_undeclared"]
    r = lint(
        env_home,
        "r2",
        [ptype("person", "P/")],
        link_types=[
            {"name": "knows", "inference": {"page_type": "ghost", "target_type": "ghost2"}}
        ],
    )
    assert gbrain_rules(r, "error") == ["link_types_undeclared", "link_types_undeclared"]
    r = lint(
        env_home,
        "r3",
        [ptype("person", "P/", fields={"org": {"type": "link"}})],
        frontmatter_links=[{"page_type": "ghost", "fields": ["org"], "link_type": "nope"}],
    )
    assert set(gbrain_rules(r, "error")) == {
        "frontmatter_links_undeclared_page_type",
        "frontmatter_links_undeclared_link_type",
    }


def test_prefix_rules(env_home: Path) -> None:
    clean = lint(env_home, "x1", [ptype("a", "A/"), ptype("b", "B/")])
    assert clean.issues == []
    both = lint(env_home, "x2", [ptype("a", "A/"), ptype("b", "A/")])
    assert "prefix_collision" in gbrain_rules(both, "error")
    # the inner folder first: it wins, and gbrain's overlap warning says so
    nested = lint(env_home, "x3", [ptype("inner", "A/Sub/"), ptype("outer", "A/")])
    assert gbrain_rules(nested) == ["prefix_strict_subset_overlap"] and nested.ok
    # DIFFERENCE (lint severity): the outer folder first leaves the inner type no note in
    # either tool; gbrain warns, vaultbrain calls the unreachable type an error
    shadowed = lint(env_home, "x4", [ptype("outer", "A/"), ptype("inner", "A/Sub/")])
    assert "prefix_strict_subset_overlap" in gbrain_rules(shadowed, "error")


def test_prefixless_types(env_home: Path) -> None:
    concept_only = lint(env_home, "e1", [ptype("a", "A/"), ptype("idea")])
    assert concept_only.issues == []  # legitimate: a `type:` names it
    expert = lint(env_home, "e2", [ptype("expert", expert_routing=True)])
    assert gbrain_rules(expert, "warning") == ["expert_routing_without_prefix"]


# -- the manifest's YAML -----------------------------------------------------------------


def test_yaml_scalars_mappings_sequences_and_comments() -> None:
    data = parse_manifest_text(
        "# top comment\nname: hello # inline comment\nversion: 1.0.0\nouter:\n  inner: value\n"
        "  count: 42\nitems:\n  - a\n  - b\ntypes:\n  - name: alpha\n    weight: 1\n"
        "  - name: beta\n    weight: 2\n",
        "fixture.yaml",
    )
    assert data["name"] == "hello" and data["version"] == "1.0.0"
    assert data["outer"] == {"inner": "value", "count": 42}
    assert data["items"] == ["a", "b"] and data["types"][1]["weight"] == 2


def test_yaml_block_scalars_keep_hashes_and_following_keys() -> None:
    data = parse_manifest_text(
        "name: blocky\ndescription: |\n  See issue #2029 for context.\n  Second line.\n"
        "page_types:\n  - name: meeting\n",
        "fixture.yaml",
    )
    assert data["page_types"] == [{"name": "meeting"}]
    # DIFFERENCE (YAML): YAML keeps a literal block's final newline; gbrain's reader drops it
    assert data["description"] == "See issue #2029 for context.\nSecond line.\n"


def test_yaml_dates_are_text_as_gbrain_reads_them(env_home: Path) -> None:
    data = parse_manifest_text("value: 2026-01-05\nwhen: 2026-01-05T10:00:00\n", "f.yaml")
    assert data == {"value": "2026-01-05", "when": "2026-01-05T10:00:00"}
    write_pack(
        env_home,
        "dated",
        "api_version: gbrain-schema-pack-v1\nname: dated\nversion: 1.0.0\nextends: null\n"
        "page_types:\n  - name: event\n    path_prefixes: [events/]\n    subtypes:\n"
        "      - name: launch\n        when: {frontmatter_field: day, "
        "frontmatter_value: 2026-01-05}\n",
    )
    pack = load_pack("dated", env_home)
    assert typed(pack, "events/a.md", {"day": "2026-01-05"}) == {
        "type": "event",
        "subtype": "launch",
    }


def test_a_json_manifest_round_trips(env_home: Path) -> None:
    write_pack(
        env_home,
        "json-pack",
        manifest("json-pack", extends=None, description=""),
        fmt="json",
    )
    assert load_pack("json-pack", env_home).name == "json-pack"


# -- merge ---------------------------------------------------------------------------------


def test_merge_child_types_prepended_overrides_in_place_extends_null_overrides(
    env_home: Path,
) -> None:
    write_pack(env_home, "mb", manifest("mb", extends=None, page_types=[ptype("a", "A/")]))
    write_pack(
        env_home,
        "mc",
        manifest(
            "mc",
            extends="mb",
            page_types=[ptype("kid", "A/Kid/"), ptype("a", "A/", description="mine")],
        ),
    )
    pack = load_pack("mc", env_home)
    assert [t.name for t in pack.types] == ["kid", "a"]  # no duplicate; the new one first
    assert pack.get_type("a").description == "mine"
    assert pack.type_for_path("A/Kid/x.md").name == "kid"
    write_pack(env_home, "solo", manifest("solo", extends=None, page_types=[ptype("s", "S/")]))
    assert [t.name for t in load_pack("solo", env_home).types] == ["s"]


def test_merge_redeclaring_an_identical_parent_type_is_a_no_op(env_home: Path) -> None:
    write_pack(env_home, "ib", manifest("ib", extends=None, page_types=[ptype("a", "A/")]))
    write_pack(env_home, "ic", manifest("ic", extends="ib", page_types=[ptype("a", "A/")]))
    assert [t.name for t in load_pack("ic", env_home).types] == ["a"]


# -- the manifest: schema-pack-loader.test.ts's parse, validate, sha8 and identity cases -----
# (gbrain's file runs under bun once the tree-sitter grammars it imports are in place; the
# cases of it that are no pack behaviour of vaultbrain's, the per-source SQL, the 7-tier
# resolver's database tiers, the ReDoS time budget, the candidate audit, are not here.)


def loader_manifest(**overrides: Any) -> dict[str, Any]:
    """gbrain's ``minimalManifest``."""
    doc: dict[str, Any] = {
        "api_version": "gbrain-schema-pack-v1",
        "name": "test-pack",
        "version": "1.0.0",
        "description": "unit test pack",
        "extends": None,
        "page_types": [],
        "link_types": [],
    }
    return doc | overrides


def loaded(home: Path, doc: dict[str, Any] | str) -> ResolvedPack:
    write_pack(home, "test-pack", doc)
    return load_pack("test-pack", home)


def test_a_minimal_manifest_is_accepted(env_home: Path) -> None:
    pack = loaded(env_home, loader_manifest())
    assert (pack.name, pack.version, pack.types) == ("test-pack", "1.0.0", [])


@pytest.mark.parametrize(
    ("doc", "code"),
    [
        (loader_manifest(api_version="gbrain-skillpack-v1"), "INVALID_API_VERSION"),
        ("not an object", "INVALID_SHAPE"),
        ("[]", "INVALID_SHAPE"),
        (loader_manifest(version="1.0"), "INVALID_SHAPE"),
        (loader_manifest(name="TestPack"), "INVALID_SHAPE"),
    ],
    ids=["wrong-api-version", "a-string", "a-list", "non-semver", "bad-name"],
)
def test_a_bad_manifest_is_refused_as_gbrain_refuses_it(
    env_home: Path, doc: dict[str, Any] | str, code: str
) -> None:
    with pytest.raises(PackError) as err:
        loaded(env_home, doc)
    assert err.value.code == code


def test_sha8_is_eight_hex_deterministic_and_follows_the_content(env_home: Path) -> None:
    first = loaded(env_home, loader_manifest())
    again = loaded(env_home, loader_manifest())
    other = loaded(env_home, loader_manifest(description="different"))
    assert len(first.sha8) == 8 and int(first.sha8, 16) >= 0
    assert first.sha8 == again.sha8 != other.sha8
    assert first.identity == f"test-pack@1.0.0+{first.sha8}"


def test_alias_closure_differs_an_alias_is_another_name_not_another_type(
    env_home: Path,
) -> None:
    # DIFFERENCE (alias closure): gbrain's `researcher` with `aliases: [person]` makes the two
    # types one query closure (E8); in vaultbrain an alias is another name a note's `type:`
    # may use, and an alias that is another type's name never reaches its type: lint says so.
    types = [ptype("person", "/people/"), ptype("researcher", "/researchers/")]
    types[1]["aliases"] = ["person"]
    report = lint(env_home, "closure", types)
    assert "alias_shadows_type" in [i.rule for i in report.issues]
    pack = load_pack("closure", env_home)
    person = pack.infer_type("x.md", {"type": "person"})
    assert person is not None and person.name == "person"
