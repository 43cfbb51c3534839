"""Type from path: first matching prefix in merged order, from the root, any case, whole names."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.packs.packkit import manifest, ptype, write_pack

from vaultbrain.packs.loader import load_pack


@pytest.fixture
def pack(env_home: Path):  # type: ignore[no-untyped-def]
    write_pack(
        env_home,
        "paths",
        manifest(
            "paths",
            extends=None,
            page_types=[
                ptype("client", "Work/Clients/"),
                ptype("work", "Work/"),
                ptype("daily", "Daily Notes/", "Journal"),
                ptype("person", "People/"),
                ptype("project", "Projects/"),
                ptype("deep", "A/B/C/"),
                ptype("late", "Projects/Archive/"),  # after Projects/: never reached (lint says so)
            ],
        ),
    )
    return load_pack("paths")


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("People/Sarah.md", "person"),
        ("people/sarah.md", "person"),  # case
        ("PEOPLE/Sarah.md", "person"),
        ("People/Friends/Sam.md", "person"),  # nesting below a prefix
        ("People-old/Sarah.md", None),  # near-miss folder names
        ("Peoples/Sarah.md", None),
        ("People.md", None),  # a note named like the folder
        ("Archive/People/Sarah.md", None),  # matched from the root only
        ("Projects/Vaultbrain.md", "project"),
        ("Projects-old/Vaultbrain.md", None),
        ("Projects/Archive/Old.md", "project"),  # first match in merged order wins
        ("Work/Clients/Acme.md", "client"),  # the nested prefix declared first wins
        ("Work/clients/acme.md", "client"),
        ("Work/Plan.md", "work"),
        ("Work/Clientele/Big.md", "work"),  # near miss of a nested prefix
        ("Workshop/Plan.md", None),
        ("Daily Notes/2026-12-01.md", "daily"),
        ("daily notes/2026-12-01.md", "daily"),
        ("Daily/2026-12-01.md", None),
        ("Journal/2026-12-01.md", "daily"),  # a prefix written without its slash
        ("A/B/C/x.md", "deep"),
        ("A/B/x.md", None),
        ("a/b/c/d/e.md", "deep"),
        ("./People/Sarah.md", "person"),
        ("People\\Sarah.md", "person"),  # Windows separators
        ("Inbox.md", None),
        ("", None),
    ],
)
def test_type_for_path(pack, rel: str, expected: str | None) -> None:  # type: ignore[no-untyped-def]
    found = pack.type_for_path(rel)
    assert (found.name if found else None) == expected


def test_frontmatter_type_beats_the_path(pack) -> None:  # type: ignore[no-untyped-def]
    assert pack.infer_type("People/Sarah.md", {"type": "project"}).name == "project"
    assert pack.infer_type("Elsewhere/x.md", {"type": "Person"}).name == "person"
    assert pack.infer_type("People/x.md", {"type": ""}).name == "person"
    assert pack.infer_type("People/x.md", {"type": 3}).name == "person"
