"""Each lint rule, on the merged manifest (inherited types included); a pack's patterns run in
RE2, a linear-time engine (vaultbrain/packs/linear.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixtures.packs.packkit import manifest, ptype, write_pack

from vaultbrain.graph.extract import infer_links
from vaultbrain.packs.linear import UnsupportedRegex, compile_pack_regex
from vaultbrain.packs.lint import LintReport, chain_layers, known_type_names, lint_pack
from vaultbrain.packs.loader import load_pack


def _lint(home: Path, name: str, **keys) -> LintReport:  # type: ignore[no-untyped-def]
    keys.setdefault("extends", None)
    write_pack(home, name, manifest(name, **keys))
    pack = load_pack(name)
    return lint_pack(pack, chain_layers(pack, home), known_type_names(home), "0.1.0")


def _rules(report: LintReport, severity: str | None = None) -> list[str]:
    return [i.rule for i in report.issues if severity is None or i.severity == severity]


@pytest.mark.parametrize("name", ["vaultbrain-base", "vaultbrain-recommended"])
def test_bundled_packs_are_lint_clean(name: str) -> None:
    pack = load_pack(name)
    report = lint_pack(pack, chain_layers(pack), known_type_names(), "0.1.0")
    assert report.issues == []


def test_duplicate_type(env_home: Path) -> None:
    r = _lint(env_home, "dup", page_types=[ptype("a", "A/"), ptype("a", "A2/")])
    assert _rules(r, "error") == ["duplicate_type"]
    assert not r.ok


def test_duplicate_link_type(env_home: Path) -> None:
    r = _lint(
        env_home, "dupl", page_types=[ptype("a", "A/")], link_types=[{"name": "x"}, {"name": "x"}]
    )
    assert _rules(r) == ["duplicate_link_type"]


def test_duplicate_type_in_an_inherited_layer_is_found(env_home: Path) -> None:
    write_pack(
        env_home,
        "base2",
        manifest("base2", extends=None, page_types=[ptype("a", "A/"), ptype("a", "B/")]),
    )
    r = _lint(env_home, "kid", extends="base2", page_types=[ptype("k", "K/")])
    assert "duplicate_type" in _rules(r, "error")


def test_type_without_prefix_warns_when_it_files_or_routes_experts(env_home: Path) -> None:
    # gbrain: a type only a `type:` names is legitimate ("concept-only"); an expert-routed
    # one without a prefix warns; vaultbrain also warns for a fileable one (where it files)
    r = _lint(env_home, "nopath", page_types=[ptype("a", "A/"), ptype("floating")])
    assert _rules(r) == [] and r.ok
    r = _lint(env_home, "nopath2", page_types=[ptype("floating", fileable=True)])
    assert _rules(r) == ["unreachable_type"]
    assert r.ok and r.warnings[0].type == "floating"
    r = _lint(env_home, "nopath3", page_types=[ptype("expert", expert_routing=True)])
    assert _rules(r) == ["expert_routing_without_prefix"] and r.ok
    assert r.warnings[0].as_dict()["gbrain_rule"] == "expert_routing_without_prefix"


def test_an_empty_pack_warns(env_home: Path) -> None:
    r = _lint(env_home, "hollow", page_types=[])
    assert _rules(r) == ["empty_pack"] and r.ok


def test_type_whose_prefixes_are_all_claimed_first_is_unreachable(env_home: Path) -> None:
    r = _lint(env_home, "shadowed", page_types=[ptype("a", "A/"), ptype("b", "A/Sub/")])
    assert "unreachable_type" in _rules(r, "error")


def test_inherited_types_count_for_reachability(env_home: Path) -> None:
    # The child's new type is prepended, so its People/Friends/ wins over base's People/.
    r = _lint(
        env_home,
        "friends",
        extends="vaultbrain-base",
        page_types=[ptype("friend", "People/Friends/")],
    )
    assert "unreachable_type" not in _rules(r)
    assert _rules(r) == ["prefix_nested"] and r.ok  # a warning: it works, but say so


def test_alias_shadowing_a_type(env_home: Path) -> None:
    r = _lint(env_home, "shadow", page_types=[ptype("a", "A/"), ptype("b", "B/", aliases=["A"])])
    assert _rules(r, "error") == ["alias_shadows_type"]


def test_alias_shadowing_an_inherited_type(env_home: Path) -> None:
    r = _lint(
        env_home,
        "shadow2",
        extends="vaultbrain-base",
        page_types=[ptype("contact-card", "Cards/", aliases=["idea"])],
    )
    assert "alias_shadows_type" in _rules(r, "error")


def test_alias_declared_by_two_types(env_home: Path) -> None:
    r = _lint(
        env_home,
        "twice",
        page_types=[ptype("a", "A/", aliases=["thing"]), ptype("b", "B/", aliases=["Thing"])],
    )
    assert _rules(r, "error") == ["alias_declared_by_two_types"]


def test_alias_to_an_undeclared_type(env_home: Path) -> None:
    # A root pack without `person` that aliases it, gbrain-style: the alias only names its own
    # type; person is a type of vaultbrain-base, which this pack does not declare.
    r = _lint(
        env_home,
        "researchers",
        page_types=[ptype("researcher", "R/", aliases=["person", "scientist"])],
    )
    assert _rules(r) == ["alias_to_undeclared_type"]
    assert r.warnings[0].type == "researcher" and "person" in r.warnings[0].message


def test_undeclared_enrichable_type(env_home: Path) -> None:
    r = _lint(env_home, "enrich", page_types=[ptype("a", "A/")], enrichable_types=["ghost"])
    assert _rules(r, "error") == ["enrichable_type_undeclared"]


def test_enrichable_type_inherited_from_the_parent_is_declared(env_home: Path) -> None:
    r = _lint(
        env_home,
        "enrich2",
        extends="vaultbrain-base",
        page_types=[ptype("x", "X/")],
        enrichable_types=["person", "x"],
    )
    assert r.issues == []


def test_undeclared_types_in_link_types(env_home: Path) -> None:
    r = _lint(
        env_home,
        "links",
        page_types=[ptype("a", "A/")],
        link_types=[
            {"name": "knows", "inference": {"page_type": "a", "target_type": "ghost"}},
            {"name": "from_ghost", "inference": {"page_type": "phantom"}},
        ],
    )
    assert _rules(r, "error") == ["link_type_undeclared_type", "link_type_undeclared_type"]
    assert {i.type for i in r.errors} == {"ghost", "phantom"}


def test_undeclared_types_and_links_in_frontmatter_links(env_home: Path) -> None:
    r = _lint(
        env_home,
        "fm",
        page_types=[ptype("a", "A/", fields={"owner": {"type": "link"}})],
        link_types=[{"name": "owned_by"}],
        frontmatter_links=[
            {"page_type": "ghost", "fields": ["x"], "link_type": "owned_by"},
            {"page_type": "a", "fields": ["owner"], "link_type": "nope"},
            {"page_type": "a", "fields": ["missing"], "link_type": "owned_by"},
        ],
    )
    assert sorted(_rules(r)) == [
        "frontmatter_link_undeclared_link",
        "frontmatter_link_undeclared_type",
        "frontmatter_link_unknown_field",
    ]
    assert [i.rule for i in r.warnings] == ["frontmatter_link_unknown_field"]


def test_undeclared_calibration_domain_type(env_home: Path) -> None:
    r = _lint(
        env_home,
        "cal",
        page_types=[ptype("a", "A/")],
        calibration_domains=[{"name": "d", "page_types": ["a", "ghost"]}],
    )
    assert _rules(r) == ["calibration_domain_undeclared_type"]


def test_same_prefix_on_two_types(env_home: Path) -> None:
    r = _lint(env_home, "collide", page_types=[ptype("a", "Shared/"), ptype("b", "shared")])
    assert "prefix_collision" in _rules(r, "error")


def test_prefix_collision_with_an_inherited_type(env_home: Path) -> None:
    r = _lint(
        env_home,
        "collide2",
        extends="vaultbrain-base",
        page_types=[ptype("contact-card", "People/")],
    )
    assert "prefix_collision" in _rules(r, "error")


def test_prefix_inside_another_declared_later_is_an_error(env_home: Path) -> None:
    r = _lint(env_home, "nested", page_types=[ptype("a", "Work/"), ptype("b", "B/", "Work/Sub/")])
    nested = [i for i in r.issues if i.rule == "prefix_nested"]
    assert len(nested) == 1 and nested[0].severity == "error"


def test_prefix_inside_another_declared_first_is_a_warning(env_home: Path) -> None:
    r = _lint(env_home, "nested2", page_types=[ptype("b", "Work/Sub/"), ptype("a", "Work/")])
    assert _rules(r) == ["prefix_nested"] and r.ok


def test_a_link_regex_the_linear_engine_cannot_run_is_a_one_line_error(env_home: Path) -> None:
    r = _lint(
        env_home,
        "lookaround",
        page_types=[ptype("a", "A/")],
        link_types=[
            {"name": "behind", "inference": {"regex": r"(?<=met )\[\[([^\]]+)", "page_type": "a"}},
            {"name": "again", "inference": {"regex": r"(\w+) and \1", "page_type": "a"}},
            {"name": "catastrophic", "inference": {"regex": r"(\w+\s?)+$", "page_type": "a"}},
            {"name": "fine", "inference": {"regex": r"\[\[([^\]|#]{1,200})", "page_type": "a"}},
        ],
    )
    issues = [i for i in r.issues if i.rule == "link_regex_unsupported"]
    assert [(i.link, i.severity) for i in issues] == [("behind", "error"), ("again", "error")]
    assert not r.ok
    for issue in issues:
        assert "\n" not in issue.message and "RE2" in issue.message


def test_invalid_field_default(env_home: Path) -> None:
    r = _lint(
        env_home,
        "defaults",
        page_types=[
            ptype(
                "a",
                "A/",
                fields={
                    "status": {"type": "enum", "values": ["open", "done"], "default": "later"},
                    "due": {"type": "date", "default": "2026-12-01"},
                },
            )
        ],
    )
    assert _rules(r) == ["field_default_invalid"]


def test_title_field_not_among_fields(env_home: Path) -> None:
    r = _lint(
        env_home,
        "titles",
        page_types=[ptype("a", "A/", title_field="headline", fields={"title": {"type": "text"}})],
    )
    assert _rules(r) == ["title_field_undeclared"]


def test_deep_chain_and_newer_min_version_warn(env_home: Path) -> None:
    write_pack(env_home, "d1", manifest("d1", extends=None, page_types=[ptype("a", "A/")]))
    for i in range(2, 6):
        write_pack(env_home, f"d{i}", manifest(f"d{i}", extends=f"d{i - 1}"))
    r = _lint(env_home, "d6", extends="d5", min_version="9.0.0")
    assert _rules(r) == ["extends_deep", "min_version_newer"]


@pytest.mark.parametrize(
    ("pattern", "almost"),
    [
        (r"(a+)+$", "a" * 40 + "b"),
        (r"(a*)*b", "a" * 40),
        (r"^(\d+)*$", "1" * 40 + "x"),
        (r"(\w+\s?)+$", "word " * 15 + "!"),
        (r"(a|aa)+$", "a" * 40 + "b"),
        (r"(.*a){12}", "a" * 11 + "b" * 40),
    ],
)
def test_a_catastrophic_pattern_runs_in_linear_time_and_answers_as_re(
    pattern: str, almost: str
) -> None:
    # Python's re takes hours on a line that almost matches (2^40 ways to split the a's);
    # RE2 does not backtrack. (No timing asserted: pytest's timeout is the guard.)
    compiled = compile_pack_regex(pattern)
    assert compiled.search(almost) is None
    for text in ("a" * 6, "aaa b", "12345", "word word", "aaaaaaaaaaaa", "x"):  # short: re copes
        mine, theirs = compiled.search(text), re.search(pattern, text)
        assert (mine is None) == (theirs is None), text
        if mine is not None and theirs is not None:
            assert mine.span() == theirs.span() and mine.groups() == theirs.groups()


def test_a_catastrophic_link_regex_from_a_pack_infers_links_at_once(env_home: Path) -> None:
    write_pack(
        env_home,
        "slowlinks",
        manifest(
            "slowlinks",
            extends=None,
            page_types=[ptype("a", "A/")],
            link_types=[{"name": "runs", "inference": {"regex": r"^(a+)+$", "page_type": "a"}}],
        ),
    )
    pack = load_pack("slowlinks")
    ptype_a = next(t for t in pack.manifest.page_types if t.name == "a")
    body = "a" * 40 + "b\n" + "a" * 30 + "\n" + "AAAA"
    rows = [r for r in infer_links({}, body, ptype_a, pack) if r.link_type == "runs"]
    assert [(r.key, r.line) for r in rows] == [("a" * 30, 2), ("aaaa", 3)]


def test_a_pattern_the_linear_engine_cannot_run_is_one_line() -> None:
    with pytest.raises(UnsupportedRegex) as caught:
        compile_pack_regex(r"(?=x)y")
    assert "\n" not in str(caught.value) and "lookarounds" in str(caught.value)
