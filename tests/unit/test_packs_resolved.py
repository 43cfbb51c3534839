"""The resolved pack's plain parts (issue 33): what a command reads is the validated manifest
frozen into plain objects, the same data and the same answers as the pydantic models, and a
pack from the state dir's cache is read without importing pydantic."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vaultbrain.packs.loader import load_pack, pack_file, read_manifest
from vaultbrain.packs.model import Manifest, TasksSpec
from vaultbrain.packs.resolved import (
    FieldSpec,
    PageType,
    Part,
    ResolvedPack,
    as_data,
    canonical_json,
    freeze,
    replaced,
)

ROOT = Path(__file__).resolve().parents[2]

# Every kind of part a manifest has: subtypes, a tasks block, an extractable rubric, a prefix
# written with a leading slash, link inference, gbrain's mapping rules of each kind.
RICH: dict[str, Any] = {
    "api_version": "gbrain-schema-pack-v1",
    "name": "rich",
    "version": "1.2.3",
    "extends": None,
    "page_types": [
        {
            "name": "note",
            "path_prefixes": ["/Notes/", "Misc/Notes"],
            "aliases": ["memo"],
            "extractable": {"rubric": "claims"},
            "fields": {
                "title": {},
                "status": {"type": "enum", "values": ["open", "done"]},
                "due": {"type": "date"},
                "people": {"type": "links", "collects": ["person"]},
            },
            "tasks": {"title": "title", "priority": None},
            "subtypes": [
                {"name": "daily", "when": {"path_pattern": "notes/daily/"}},
                {"name": "pinned", "when": {"frontmatter_field": "pin", "frontmatter_value": True}},
            ],
        },
        {"name": "person", "path_prefixes": ["People/"], "fields": {"name": {}}},
    ],
    "link_types": [
        {"name": "mentions", "inference": {"regex": r"mentions \[\[(.+?)\]\]"}},
    ],
    "enrichable_types": ["person"],
    "mapping_rules": [
        {"kind": "retype", "from_type": "memo", "to_type": "note"},
        {
            "kind": "page_to_link",
            "from_type": "ref",
            "link_type": "mentions",
            "source_slug_from": "frontmatter",
            "target_slug_from": {"field": "target"},
        },
        {
            "kind": "page_to_alias",
            "from_type": "alias",
            "canonical_from": "slug",
            "alias_slug_from": "body_first_link",
        },
    ],
}


def manifests() -> list[Manifest]:
    bundled = [read_manifest(pack_file(n)) for n in ("vaultbrain-base", "vaultbrain-recommended")]
    return [*bundled, Manifest.model_validate(RICH)]


@pytest.mark.parametrize("manifest", manifests(), ids=lambda m: m.name)
def test_parts_hold_what_the_models_hold(manifest: Manifest) -> None:
    frozen = freeze(manifest)
    assert as_data(frozen) == manifest.model_dump(mode="json")
    dropped = manifest.model_dump(mode="json", exclude_none=True)
    assert as_data(frozen, drop_none=True) == dropped
    # so the identity a capture records is the one the models gave
    sha8 = ResolvedPack(manifest).sha8
    expected = canonical_json(manifest.model_dump(mode="json"))
    assert sha8 == hashlib.sha256(expected.encode()).hexdigest()[:8]


@pytest.mark.parametrize("manifest", manifests(), ids=lambda m: m.name)
def test_parts_answer_as_the_models_do(manifest: Manifest) -> None:
    pack = ResolvedPack(manifest)
    offered = ["x", " ", 3, 2.5, True, None, ["a", 1], "2026-12-01", "2026-12-01T10:00", "DONE"]
    for model, part in zip(manifest.page_types, pack.types, strict=True):
        assert isinstance(part, PageType)
        assert (part.folder, part.store_collection, part.title_key) == (
            model.folder,
            model.store_collection,
            model.title_key,
        )
        assert part.stripped_prefixes == model.stripped_prefixes
        for rel, fm in [("Notes/daily/x.md", None), ("Notes/x.md", {"pin": True})]:
            assert part.subtype_for(rel, fm) == model.subtype_for(rel, fm)
        for name, field in model.fields.items():
            spec = part.fields[name]
            assert isinstance(spec, FieldSpec)
            assert spec.json_schema() == field.json_schema()
            assert [spec.coerce(v) for v in offered] == [field.coerce(v) for v in offered]
            assert spec.collects_type("person") == field.collects_type("person")


def test_a_part_is_its_fields() -> None:
    pack = ResolvedPack(Manifest.model_validate(RICH))
    note = pack.get_type("memo")
    assert note is not None and note.name == "note"
    assert note.stripped_prefixes == ["/Notes/"] and note.path_prefixes[0] == "Notes/"
    assert pack.get_type("note") == freeze(Manifest.model_validate(RICH)).page_types[0]
    with pytest.raises(AttributeError, match="no field 'colour'"):
        _ = note.colour
    tasks = replaced(note.tasks, due=None)
    assert tasks.due is None and note.tasks.due == "due"  # a copy: the pack is unchanged
    with pytest.raises(AttributeError):
        replaced(note.tasks, colour="red")
    default = freeze(TasksSpec())
    assert isinstance(default, Part) and default.statuses["done"] == "x"


def test_a_cached_pack_is_read_without_pydantic(tmp_path: Path) -> None:
    pack = load_pack("vaultbrain-recommended")
    blob = tmp_path / "pack.pickle"
    blob.write_bytes(pickle.dumps(pack, protocol=pickle.HIGHEST_PROTOCOL))
    probe = (
        "import json, pickle, sys\n"
        f"pack = pickle.loads(open({str(blob)!r}, 'rb').read())\n"
        "person = pack.get_type('person')\n"
        "print(json.dumps([pack.identity, person.folder, person.fields['name'].coerce(' Ada '),\n"
        "                  sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic')]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    identity, folder, coerced, loaded = json.loads(done.stdout)
    assert identity == pack.identity and folder == "People" and coerced == [True, "Ada"]
    assert loaded == []
