"""The merge contract: extends chains, borrow_from, ordering, unions, cycles and depth."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fixtures.packs.packkit import install_chain, manifest, ptype, write_pack

from vaultbrain.packs.loader import load_pack
from vaultbrain.packs.model import PackError


def _names(pack) -> list[str]:  # type: ignore[no-untyped-def]
    return [t.name for t in pack.types]


@pytest.fixture
def chain(env_home: Path) -> Path:
    install_chain(env_home)
    return env_home


def test_three_level_ordering_new_types_prepended_nearest_first(chain: Path) -> None:
    pack = load_pack("leaf-pack")
    assert pack.chain == ["leaf-pack", "middle-pack", "root-pack"]
    # leaf's new type, then what leaf borrows, then middle's new type; the root's types form
    # the tail in the root's order, overrides included.
    assert _names(pack) == ["zeta", "epsilon", "delta", "alpha", "beta", "gamma"]


def test_overrides_keep_the_base_position_and_take_the_nearest_value(chain: Path) -> None:
    pack = load_pack("leaf-pack")
    alpha, beta = pack.get_type("alpha"), pack.get_type("beta")
    assert alpha.description == "alpha as the leaf sees it"
    assert alpha.path_prefixes == ["Alpha/", "People/"]
    assert beta.description == "beta as the middle pack sees it"
    assert "score" in beta.fields
    assert pack.origins["beta"] == ["middle-pack", "root-pack"]
    assert pack.origins["alpha"] == ["leaf-pack", "root-pack"]
    assert pack.origins["epsilon"] == ["lender-pack (borrowed by leaf-pack)"]


def test_an_override_of_a_middle_type_keeps_the_middle_position(env_home: Path) -> None:
    write_pack(env_home, "r", manifest("r", extends=None, page_types=[ptype("a", "A/")]))
    write_pack(
        env_home,
        "m",
        manifest("m", extends="r", page_types=[ptype("m1", "M1/"), ptype("m2", "M2/")]),
    )
    write_pack(
        env_home,
        "c",
        manifest(
            "c",
            extends="m",
            page_types=[ptype("c1", "C1/"), ptype("m1", "M1/", description="child's m1")],
        ),
    )
    pack = load_pack("c")
    assert _names(pack) == ["c1", "m1", "m2", "a"]
    assert pack.get_type("m1").description == "child's m1"


def test_a_more_derived_prefix_wins_however_deep_the_chain(env_home: Path) -> None:
    write_pack(env_home, "r", manifest("r", extends=None, page_types=[ptype("note", "Work/")]))
    write_pack(
        env_home, "m", manifest("m", extends="r", page_types=[ptype("client", "Work/Clients/")])
    )
    write_pack(env_home, "c", manifest("c", extends="m"))
    for name in ("m", "c"):
        assert load_pack(name).type_for_path("Work/Clients/Acme.md").name == "client"
        assert load_pack(name).type_for_path("Work/Plan.md").name == "note"


def test_borrow_takes_only_the_named_types_and_link_types(chain: Path) -> None:
    pack = load_pack("leaf-pack")
    assert pack.get_type("epsilon") is not None
    assert pack.get_type("eta") is None  # lender declares it but leaf did not name it
    links = {lt.name for lt in pack.manifest.link_types}
    assert "lends" in links and "keeps" not in links


def test_borrow_is_non_transitive_own_declarations_only(chain: Path) -> None:
    # lender-pack inherits gamma from root-pack, but gamma is not lender's own declaration.
    write_pack(
        chain,
        "greedy",
        manifest("greedy", extends=None, borrow_from=[{"pack": "lender-pack", "types": ["gamma"]}]),
    )
    with pytest.raises(PackError) as info:
        load_pack("greedy")
    assert info.value.code == "UNKNOWN_TYPE" and info.value.field == "borrow_from[0].types[0]"
    assert "own declarations" in str(info.value)


def test_omitting_a_category_borrows_none_of_it(chain: Path) -> None:
    write_pack(
        chain,
        "typesonly",
        manifest(
            "typesonly", extends=None, borrow_from=[{"pack": "lender-pack", "types": ["epsilon"]}]
        ),
    )
    pack = load_pack("typesonly")
    assert _names(pack) == ["epsilon"]
    assert pack.manifest.link_types == []


def test_a_missing_borrow_target_fails_closed(env_home: Path) -> None:
    write_pack(env_home, "b", manifest("b", borrow_from=[{"pack": "ghost", "types": ["x"]}]))
    with pytest.raises(PackError) as info:
        load_pack("b")
    assert info.value.code == "UNKNOWN_PACK" and "ghost" in str(info.value)
    assert info.value.field == "borrow_from[0].pack"


def test_a_missing_borrowed_link_type_fails_closed(chain: Path) -> None:
    write_pack(
        chain,
        "b",
        manifest("b", extends=None, borrow_from=[{"pack": "lender-pack", "link_types": ["nope"]}]),
    )
    with pytest.raises(PackError) as info:
        load_pack("b")
    assert info.value.code == "UNKNOWN_TYPE" and info.value.field == "borrow_from[0].link_types[0]"


def test_borrowing_from_itself_is_refused(env_home: Path) -> None:
    write_pack(
        env_home,
        "selfish",
        manifest("selfish", extends=None, borrow_from=[{"pack": "selfish", "types": []}]),
    )
    with pytest.raises(PackError, match="names the pack itself"):
        load_pack("selfish")


def test_a_missing_parent_names_it(env_home: Path) -> None:
    write_pack(env_home, "orphan", manifest("orphan", extends="lost-parent"))
    with pytest.raises(PackError) as info:
        load_pack("orphan")
    assert info.value.code == "UNKNOWN_PACK" and "lost-parent" in str(info.value)


def test_an_extends_cycle_is_refused_with_the_chain(env_home: Path) -> None:
    write_pack(env_home, "one", manifest("one", extends="two"))
    write_pack(env_home, "two", manifest("two", extends="three"))
    write_pack(env_home, "three", manifest("three", extends="one"))
    with pytest.raises(PackError) as info:
        load_pack("one")
    assert info.value.code == "EXTENDS_TOO_DEEP"
    assert "one -> two -> three -> one" in str(info.value)


def test_a_pack_extending_itself_is_a_cycle(env_home: Path) -> None:
    write_pack(env_home, "loop", manifest("loop", extends="loop"))
    with pytest.raises(PackError, match="loop -> loop"):
        load_pack("loop")


def _ladder(home: Path, depth: int) -> str:
    """p1 <- p2 <- ... <- p<depth>; returns the leaf's name."""
    write_pack(home, "p1", manifest("p1", extends=None, page_types=[ptype("t1", "T1/")]))
    for i in range(2, depth + 1):
        write_pack(
            home,
            f"p{i}",
            manifest(f"p{i}", extends=f"p{i - 1}", page_types=[ptype(f"t{i}", f"T{i}/")]),
        )
    return f"p{depth}"


def test_a_chain_of_eight_loads(env_home: Path) -> None:
    pack = load_pack(_ladder(env_home, 8))
    assert len(pack.chain) == 8
    assert _names(pack) == [f"t{i}" for i in range(8, 0, -1)]


def test_a_chain_deeper_than_eight_is_refused_with_the_chain(env_home: Path) -> None:
    with pytest.raises(PackError) as info:
        load_pack(_ladder(env_home, 9))
    assert info.value.code == "EXTENDS_TOO_DEEP"
    assert "p9 -> p8 -> p7 -> p6 -> p5 -> p4 -> p3 -> p2 -> p1" in str(info.value)


def test_a_chain_past_four_warns(env_home: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert load_pack(_ladder(env_home, 4)).warnings == []
    with caplog.at_level(logging.WARNING):
        pack = load_pack(_ladder(env_home, 5))
    assert pack.warnings and "5 packs deep" in pack.warnings[0]
    assert "p5 -> p4 -> p3 -> p2 -> p1" in pack.warnings[0]
    assert any("packs deep" in r.message for r in caplog.records)


def test_takes_kinds_are_a_union(chain: Path) -> None:
    assert load_pack("leaf-pack").manifest.takes_kinds == ["fact", "take", "bet", "hunch"]
    # A child cannot narrow: omitting the field still gets the defaults and the parent's.
    write_pack(chain, "narrow", manifest("narrow", extends="root-pack"))
    assert set(load_pack("narrow").manifest.takes_kinds) >= {"fact", "take", "bet", "hunch"}


def test_phases_and_calibration_domains_are_not_inherited(chain: Path) -> None:
    root = load_pack("root-pack").manifest
    assert root.phases == ["root_phase"] and root.calibration_domains
    middle = load_pack("middle-pack").manifest
    assert middle.phases == ["middle_phase"] and middle.calibration_domains == []
    leaf = load_pack("leaf-pack").manifest
    assert leaf.phases == [] and leaf.calibration_domains == []


def test_keyed_fields_child_wins_and_parents_come_through(chain: Path) -> None:
    leaf = load_pack("leaf-pack").manifest
    cites = {lt.name: lt for lt in leaf.link_types}["cites"]
    assert cites.inverse == "cited_by" and cites.inference.target_type == "alpha"
    assert [e.type for e in leaf.enrichable_types] == ["alpha"]
    assert [r.kind for r in leaf.filing_rules] == ["alpha"]
    write_pack(
        chain,
        "rules",
        manifest(
            "rules",
            extends="root-pack",
            filing_rules=[
                {"kind": "alpha", "directory": "Elsewhere/"},
                {"kind": "other", "directory": "O/"},
            ],
            frontmatter_links=[{"page_type": "alpha", "fields": ["x"], "link_type": "cites"}],
        ),
    )
    m = load_pack("rules").manifest
    assert {r.kind: r.directory for r in m.filing_rules} == {"alpha": "Elsewhere/", "other": "O/"}
    assert len(m.frontmatter_links) == 1


def test_identity_fields_are_the_childs(chain: Path) -> None:
    leaf = load_pack("leaf-pack")
    assert (leaf.name, leaf.version) == ("leaf-pack", "3.1.0")
    assert leaf.manifest.extends == "middle-pack"
    assert leaf.manifest.borrow_from[0].pack == "lender-pack"


def test_an_alias_cycle_is_refused(env_home: Path) -> None:
    write_pack(
        env_home,
        "ring",
        manifest(
            "ring",
            extends=None,
            page_types=[
                ptype("a", "A/", aliases=["b"]),
                ptype("b", "B/", aliases=["c"]),
                ptype("c", "C/", aliases=["a"]),
            ],
        ),
    )
    with pytest.raises(PackError) as info:
        load_pack("ring")
    assert info.value.code == "ALIAS_CYCLE"
    assert "c -> a -> b -> c" in str(info.value)


def test_two_types_sharing_two_aliases_form_a_cycle(env_home: Path) -> None:
    write_pack(
        env_home,
        "share",
        manifest(
            "share",
            extends=None,
            page_types=[ptype("a", "A/", aliases=["x", "y"]), ptype("b", "B/", aliases=["x", "y"])],
        ),
    )
    with pytest.raises(PackError) as info:
        load_pack("share")
    assert info.value.code == "ALIAS_CYCLE"


def test_aliases_are_symmetric_so_a_mirror_is_not_a_cycle(env_home: Path) -> None:
    write_pack(
        env_home,
        "mirror",
        manifest(
            "mirror",
            extends=None,
            page_types=[ptype("a", "A/", aliases=["b", "a"]), ptype("b", "B/", aliases=["A"])],
        ),
    )
    pack = load_pack("mirror")
    assert pack.get_type("a").name == "a" and pack.get_type("b").name == "b"


def test_an_alias_cycle_across_the_chain_is_refused(env_home: Path) -> None:
    write_pack(
        env_home,
        "r",
        manifest(
            "r",
            extends=None,
            page_types=[ptype("a", "A/", aliases=["shared"]), ptype("b", "B/", aliases=["a"])],
        ),
    )
    write_pack(
        env_home,
        "c",
        manifest("c", extends="r", page_types=[ptype("d", "D/", aliases=["shared", "b"])]),
    )
    assert load_pack("r")
    with pytest.raises(PackError) as info:
        load_pack("c")
    assert info.value.code == "ALIAS_CYCLE"


def test_recommended_extends_base_with_its_folders_first() -> None:
    pack = load_pack("vaultbrain-recommended")
    assert pack.chain == ["vaultbrain-recommended", "vaultbrain-base"]
    names = _names(pack)
    for t in (
        "meeting",
        "concept",
        "source",
        "daily",
        "personal",
        "place",
        "trip",
        "conversation",
        "writing",
        "company",
        "deal",
    ):
        assert t in names
    assert names[-6:] == ["person", "project", "idea", "admin", "link", "memory"]
    assert pack.get_type("person").store_collection == "people"
    assert pack.type_for_path("Daily Notes/2026-12-01.md").name == "daily"
    assert pack.type_for_path("Companies/Acme.md").name == "company"
