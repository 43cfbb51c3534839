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


# -- the rest of gbrain's four files, case by case -------------------------------------------
# Every case of schema-pack-infer-type-and-subtype (9), -lint-rules (34), -loader (41) and
# -merge (25) is above or below, or is one README's table lists, or has no vaultbrain
# counterpart (the loader's per-source SQL, database tiers, ReDoS budget, candidate audit).


def test_no_path_and_the_legacy_signature(env_home: Path) -> None:
    # "returns concept for missing path": DIFFERENCE (untyped default), no type
    pack = gb(env_home, "p8", [ptype("media", "/media/")])
    assert typed(pack, "") == {} and pack.infer_type("", {}) is None
    # "inferTypeFromPack (legacy back-compat)": the type alone, no subtype
    subs = [{"name": "video", "when": {"path_pattern": "^media/"}}]
    pack = gb(env_home, "p9", [ptype("media", "/media/", subtypes=subs)])
    t = pack.type_for_path("media/x.md")
    assert t is not None and t.name == "media"


def _bt(
    name: str,
    aliases: tuple[str, ...] = (),
    prefixes: tuple[str, ...] = (),
    expert: bool = False,
    extractable: bool = False,
) -> dict[str, Any]:
    """gbrain's lint-rules ``baseType``."""
    doc = ptype(name, *prefixes, primitive="entity", aliases=list(aliases))
    return doc | {"expert_routing": expert, "extractable": extractable}


_TWO = [_bt("person"), _bt("company")]
_WORKS_AT = {"name": "works_at", "inference": {"page_type": "person", "target_type": "company"}}
_ATTENDED = {"page_type": "meeting", "fields": ["attendees"], "link_type": "attended"}

# (gbrain's case, page types, other keys, the issues (gbrain's rule, severity) vaultbrain gives)
LINT_CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any], list[tuple[str, str]]]] = [
    ("aliasShadowsType clean", [_bt("person", ("alias-only",))], {}, []),
    (
        "aliasShadowsType single",
        [_bt("person"), _bt("researcher", ("person",))],
        {},
        [("alias_shadows_type", "error")],
    ),
    ("aliasShadowsType self-alias", [_bt("person", ("person",))], {}, []),
    ("aliasDeclaredByTwoTypes clean", [_bt("p", ("x",))], {}, []),
    (
        "aliasDeclaredByTwoTypes single",
        [_bt("a", ("shared",)), _bt("b", ("shared",))],
        {},
        [("alias_declared_by_two_types", "error")],
    ),
    (
        # gbrain's a:[x,y] b:[x,y] is an alias cycle its resolvePack refuses (and so does
        # vaultbrain's loader, test_packs_merge); two collisions without a cycle:
        "aliasDeclaredByTwoTypes multiple",
        [_bt("a", ("x",)), _bt("b", ("x",)), _bt("c", ("y",)), _bt("d", ("y",))],
        {},
        [("alias_declared_by_two_types", "error")] * 2,
    ),
    (
        "aliasReferencesUndeclaredType clean",  # (its shadow is aliasShadowsType's, as there)
        [_bt("person"), _bt("researcher", ("person",))],
        {},
        [("alias_shadows_type", "error")],
    ),
    # DIFFERENCE (alias closure): gbrain warns on an alias naming no declared type; here an
    # alias is another name, and only one naming a type of a pack vaultbrain knows warns
    ("aliasReferencesUndeclaredType single", [_bt("r", ("ghost",))], {}, []),
    ("aliasReferencesUndeclaredType multiple", [_bt("r", ("g1", "g2"))], {}, []),
    (
        "enrichableTypesUndeclared clean",
        [_bt("person")],
        {"enrichable_types": [{"type": "person", "rubric": "r"}]},
        [],
    ),
    (
        "enrichableTypesUndeclared single",
        [_bt("person")],
        {"enrichable_types": [{"type": "ghost", "rubric": "r"}]},
        [("enrichable_types_undeclared", "error")],
    ),
    (
        "enrichableTypesUndeclared aggregates",
        [_bt("person")],
        {"enrichable_types": [{"type": "g1", "rubric": "r"}, {"type": "g2", "rubric": "r"}]},
        [("enrichable_types_undeclared", "error")] * 2,
    ),
    ("linkTypesUndeclared clean", _TWO, {"link_types": [_WORKS_AT]}, []),
    (
        "linkTypesUndeclared page_type",
        [_bt("company")],
        {
            "link_types": [
                _WORKS_AT | {"inference": {"page_type": "ghost", "target_type": "company"}}
            ]
        },
        [("link_types_undeclared", "error")],
    ),
    (
        "linkTypesUndeclared both",
        [_bt("person")],
        {"link_types": [_WORKS_AT | {"inference": {"page_type": "g1", "target_type": "g2"}}]},
        [("link_types_undeclared", "error")] * 2,
    ),
    (
        "frontmatterLinksUndeclared clean",
        [_bt("meeting")],
        {"link_types": [{"name": "attended"}], "frontmatter_links": [_ATTENDED]},
        [],
    ),
    (
        "frontmatterLinksUndeclared page_type",
        [_bt("meeting")],
        {
            "link_types": [{"name": "attended"}],
            "frontmatter_links": [_ATTENDED | {"page_type": "ghost"}],
        },
        [("frontmatter_links_undeclared_page_type", "error")],
    ),
    (
        "frontmatterLinksUndeclared link_type",
        [_bt("meeting")],
        {"frontmatter_links": [_ATTENDED | {"link_type": "ghost"}]},
        [("frontmatter_links_undeclared_link_type", "error")],
    ),
    ("expertRoutingWithoutPrefix clean", [_bt("r", prefixes=("people/",), expert=True)], {}, []),
    (
        "expertRoutingWithoutPrefix warns",
        [_bt("r", expert=True)],
        {},
        [("expert_routing_without_prefix", "warning")],
    ),
    ("expertRoutingWithoutPrefix non-expert", [_bt("concept")], {}, []),
    ("prefixCollision clean", [_bt("a", prefixes=("a/",)), _bt("b", prefixes=("b/",))], {}, []),
    # (the second type of a collision gets no note: vaultbrain also names it unreachable)
    (
        "prefixCollision single",
        [_bt("a", prefixes=("shared/",)), _bt("b", prefixes=("shared/",))],
        {},
        [("prefix_collision", "error"), ("unreachable_type", "error")],
    ),
    (
        "prefixCollision aggregates",
        [_bt("a", prefixes=("x/", "y/")), _bt("b", prefixes=("x/", "y/"))],
        {},
        [("prefix_collision", "error")] * 2 + [("unreachable_type", "error")],
    ),
    (
        "prefixStrictSubsetOverlap clean",
        [_bt("a", prefixes=("people/",)), _bt("b", prefixes=("companies/",))],
        {},
        [],
    ),
    (
        "prefixStrictSubsetOverlap flags",
        [
            _bt("researcher", prefixes=("people/researchers/",)),
            _bt("person", prefixes=("people/",)),
        ],
        {},
        [("prefix_strict_subset_overlap", "warning")],
    ),
    (
        "prefixStrictSubsetOverlap identical is a collision",
        [_bt("a", prefixes=("x/",)), _bt("b", prefixes=("x/",))],
        {},
        [("prefix_collision", "error"), ("unreachable_type", "error")],
    ),
]


@pytest.mark.parametrize(
    ("case", "page_types", "keys", "want"), LINT_CASES, ids=[c[0] for c in LINT_CASES]
)
def test_gbrain_lint_rule_cases(
    env_home: Path,
    case: str,
    page_types: list[dict[str, Any]],
    keys: dict[str, Any],
    want: list[tuple[str, str]],
) -> None:
    report = lint(env_home, "lr", page_types, **keys)
    got = sorted((GBRAIN_RULES.get(i.rule, i.rule), i.severity) for i in report.issues)
    assert got == sorted(want), case
    assert report.ok == (not any(s == "error" for _, s in want))


def test_lint_composition_as_gbrain_reports_it(env_home: Path) -> None:
    clean = lint(env_home, "k1", [_bt("person", prefixes=("people/",))])
    assert clean.ok and clean.errors == [] and clean.issues == []
    bad = lint(env_home, "k2", [_bt("a", prefixes=("x/",)), _bt("b", prefixes=("x/",))])
    assert not bad.ok and bad.errors
    warned = lint(env_home, "k3", [_bt("r", expert=True)])
    assert warned.ok and warned.errors == [] and warned.warnings
    # gbrain's database-aware rules (extractable_empty_corpus, …) are not run on a file:
    # vaultbrain's lint is all file plane, so `schema lint` is runFilePlaneLintRules
    db = lint(env_home, "k4", [_bt("r", prefixes=("ghost/",), extractable=True)])
    assert db.issues == []


def test_the_rule_registry_names_gbrains_file_plane_rules() -> None:
    # gbrain's ALL_LINT_RULES: 14, of which 4 read its database; the other 10 are the file
    # plane, each under its gbrain name here (frontmatter_links_undeclared as its two issues)
    file_plane = {
        "alias_shadows_type",
        "alias_declared_by_two_types",
        "alias_references_undeclared_type",
        "enrichable_types_undeclared",
        "link_types_undeclared",
        "frontmatter_links_undeclared",
        "expert_routing_without_prefix",
        "prefix_collision",
        "prefix_strict_subset_overlap",
        "link_regex_catastrophic_backtrack",
    }
    named = {r.removesuffix("_page_type").removesuffix("_link_type") for r in GBRAIN_RULES.values()}
    assert named == file_plane
    assert len(set(GBRAIN_RULES.values())) == len(GBRAIN_RULES)  # unique names


def test_the_primitives_are_gbrains() -> None:
    # gbrain's PACK_PRIMITIVES; its per-primitive defaults table (link verbs, entity's expert
    # routing) is exported but nothing of gbrain reads it: a type is expert-routed when it
    # says so, in both tools
    from vaultbrain.packs.model import PRIMITIVES

    assert PRIMITIVES == ("entity", "media", "temporal", "annotation", "concept")


def test_a_yaml_manifest_round_trips_with_a_block_description(env_home: Path) -> None:
    text = (
        "api_version: gbrain-schema-pack-v1\nname: round\nversion: 1.2.3\nextends: null\n"
        "description: |\n  A pack.\n  # not a comment\npage_types:\n  - name: person\n"
        "    primitive: entity\n    path_prefixes: [people/]\n    description: |\n"
        "      Someone.\n  - name: paper\n    path_prefixes: [papers/]\n"
        "link_types:\n  - name: cites\n"
    )
    write_pack(env_home, "round", text)
    pack = load_pack("round", env_home)
    assert (pack.name, pack.version) == ("round", "1.2.3")
    assert [t.name for t in pack.types] == ["person", "paper"]
    assert pack.manifest.description == "A pack.\n# not a comment\n"
    assert [lt.name for lt in pack.manifest.link_types] == ["cites"]


# -- merge: the rest of schema-pack-merge.test.ts ----------------------------------------


def _pt(name: str, *prefixes: str, aliases: tuple[str, ...] = ()) -> dict[str, Any]:
    return ptype(name, *prefixes, primitive="entity", aliases=list(aliases))


def _chain(home: Path, *packs: tuple[str, str | None, dict[str, Any]]) -> ResolvedPack:
    for name, parent, keys in packs:
        write_pack(home, name, manifest(name, extends=parent, **keys))
    return load_pack(packs[-1][0], home)


def test_merge_parent_types_visible_and_a_middle_packs_new_type_prepended(env_home: Path) -> None:
    pack = _chain(
        env_home,
        ("base", None, {"page_types": [_pt("note", "notes/")]}),
        ("parent", "base", {"page_types": [_pt("paper", "notes/papers/")]}),
        ("gc", "parent", {"page_types": []}),
    )
    assert [t.name for t in pack.types] == ["paper", "note"]
    assert pack.type_for_path("notes/papers/x.md").name == "paper"
    assert pack.type_for_path("notes/other.md").name == "note"


def test_merge_three_levels_override_keeps_the_base_position(env_home: Path) -> None:
    pack = _chain(
        env_home,
        ("base", None, {"page_types": [_pt("strong", "s/"), _pt("person", "p/")]}),
        (
            "parent",
            "base",
            {"page_types": [_pt("person", "p/", "people/"), _pt("mid", "m/")]},
        ),
        ("child", "parent", {"page_types": [_pt("kid", "k/")]}),
    )
    assert [t.name for t in pack.types] == ["kid", "mid", "strong", "person"]
    assert pack.get_type("person").path_prefixes == ["p/", "people/"]
    assert len(pack.types) == 4  # the merged total is what `schema active` counts


def test_merge_link_frontmatter_enrichable_and_filing_keys(env_home: Path) -> None:
    base = {
        "page_types": [_pt("person", "people/"), _pt("paper", "papers/")],
        "link_types": [{"name": "founded"}, {"name": "works_at", "description": "base"}],
        "frontmatter_links": [
            {"page_type": "person", "fields": ["company"], "link_type": "works_at"}
        ],
        "enrichable_types": [{"type": "person", "rubric": "person-default"}],
        "filing_rules": [{"kind": "person", "directory": "people/", "examples": []}],
    }
    child = {
        "link_types": [
            {"name": "invested_in"},
            {"name": "works_at", "description": "child"},
            {"name": "member_of"},
        ],
        "frontmatter_links": [{"page_type": "person", "fields": ["org"], "link_type": "member_of"}],
        "enrichable_types": [{"type": "paper", "rubric": "paper-default"}],
        "filing_rules": [{"kind": "paper", "directory": "papers/", "examples": []}],
    }
    pack = _chain(env_home, ("lb", None, base), ("lc", "lb", child))
    m = pack.manifest
    assert sorted(lt.name for lt in m.link_types) == [
        "founded",
        "invested_in",
        "member_of",
        "works_at",
    ]
    assert next(lt for lt in m.link_types if lt.name == "works_at").description == "child"
    assert sorted(f"{f.page_type}/{f.link_type}" for f in m.frontmatter_links) == [
        "person/member_of",
        "person/works_at",
    ]
    assert sorted(e.type for e in m.enrichable_types) == ["paper", "person"]
    assert sorted(f.kind for f in m.filing_rules) == ["paper", "person"]


def test_merge_takes_kinds_union_phases_and_calibration_the_childs(env_home: Path) -> None:
    # (takes_kinds merge as gbrain's; nothing of vaultbrain reads them: README's table)
    cal = [{"name": "deal_success", "aggregator": "scalar_brier", "page_types": ["deal"]}]
    base = {
        "page_types": [_pt("deal", "deals/")],
        "takes_kinds": ["fact", "take", "bet", "hunch", "thesis"],
        "phases": ["extract_atoms"],
        "calibration_domains": cal,
    }
    pack = _chain(env_home, ("tb", None, base), ("tc", "tb", {}))
    assert {"thesis", "fact"} <= set(pack.manifest.takes_kinds)
    assert not pack.manifest.phases and not pack.manifest.calibration_domains
    pack = _chain(
        env_home,
        ("tb2", None, {"takes_kinds": ["fact"], "phases": ["extract_atoms"]}),
        ("tc2", "tb2", {"takes_kinds": ["fact", "wager"], "phases": ["synthesize_concepts"]}),
    )
    assert sorted(pack.manifest.takes_kinds) == ["fact", "wager"]
    assert list(pack.manifest.phases) == ["synthesize_concepts"]


def test_borrow_from_takes_the_named_parts_and_fails_closed(env_home: Path) -> None:
    lens = {
        "page_types": [_pt("atom", "atoms/"), _pt("unrelated", "u/")],
        "link_types": [{"name": "derived_from"}, {"name": "noise"}],
    }
    write_pack(env_home, "lens", manifest("lens", extends=None, **lens))
    borrow = [{"pack": "lens", "types": ["atom"], "link_types": ["derived_from"]}]
    pack = _chain(
        env_home,
        ("bc", None, {"page_types": [_pt("own", "own/")], "borrow_from": borrow}),
    )
    assert sorted(t.name for t in pack.types) == ["atom", "own"]
    assert [lt.name for lt in pack.manifest.link_types] == ["derived_from"]
    pack = _chain(env_home, ("bd", None, {"borrow_from": [{"pack": "lens", "types": ["atom"]}]}))
    assert [t.name for t in pack.types] == ["atom"] and list(pack.manifest.link_types) == []
    write_pack(
        env_home,
        "be",
        manifest("be", extends=None, borrow_from=[{"pack": "ghost", "types": ["x"]}]),
    )
    with pytest.raises(PackError) as err:
        load_pack("be", env_home)
    assert err.value.code == "UNKNOWN_PACK"


def test_an_edited_borrowed_pack_is_read_again_by_the_borrower(env_home: Path) -> None:
    # gbrain's cache invalidation of a borrower: the borrower loaded after the lender
    # changed has the lender's change
    write_pack(env_home, "lend", manifest("lend", extends=None, page_types=[_pt("atom", "a/")]))
    borrow = [{"pack": "lend", "types": ["atom"]}]
    write_pack(env_home, "borrower", manifest("borrower", extends=None, borrow_from=borrow))
    assert load_pack("borrower", env_home).get_type("atom").path_prefixes == ["a/"]
    write_pack(env_home, "lend", manifest("lend", extends=None, page_types=[_pt("atom", "b/")]))
    assert load_pack("borrower", env_home).get_type("atom").path_prefixes == ["b/"]


def test_alias_cycles_across_the_chain_and_a_dangling_alias(env_home: Path) -> None:
    write_pack(env_home, "cb", manifest("cb", extends=None, page_types=[_pt("a", aliases=("b",))]))
    write_pack(env_home, "cp", manifest("cp", extends="cb", page_types=[_pt("b", aliases=("c",))]))
    write_pack(env_home, "cc", manifest("cc", extends="cp", page_types=[_pt("c", aliases=("a",))]))
    with pytest.raises(PackError) as err:
        load_pack("cc", env_home)
    assert err.value.code == "ALIAS_CYCLE"
    # an alias naming no type is benign: the pack loads, the alias names its type
    pack = _chain(
        env_home,
        ("db", None, {"page_types": [_pt("x", "x/", aliases=("ghost",))]}),
        ("dc", "db", {"page_types": [_pt("y", "y/")]}),
    )
    assert pack.get_type("ghost").name == "x"


def test_merge_by_key_first_wins_and_union_keeps_order() -> None:
    from vaultbrain.packs.merge import merge_by_key, union

    out = merge_by_key(
        [[{"k": "a", "v": 1}], [{"k": "a", "v": 2}, {"k": "b", "v": 3}]], lambda x: x["k"]
    )
    assert out == [{"k": "a", "v": 1}, {"k": "b", "v": 3}]
    assert union([["a", "b"], ["b", "c"]]) == ["a", "b", "c"]
