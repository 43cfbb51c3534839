"""Untyped warning, orphans, detect's clustering and fields, deltas, doctor's consistency."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import yaml
from fixtures.packs.packkit import manifest, ptype, write_pack

from vaultbrain.brain import Brain
from vaultbrain.packs import schema_pack_consistency, untyped_warning
from vaultbrain.packs.candidates import load_candidates
from vaultbrain.packs.delta import review_candidates
from vaultbrain.packs.detect import detect
from vaultbrain.packs.inference import infer_fields
from vaultbrain.packs.loader import load_pack_path
from vaultbrain.packs.naming import slug_for
from vaultbrain.packs.suggest import apply_refinements
from vaultbrain.packs.survey import NoteTyping, review_orphans


def note(vault: Path, rel: str, front: dict | None = None, body: str = "text\n") -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = body
    if front is not None:
        text = "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n" + body
    path.write_text(text, "utf-8")


def _app(vault: Path) -> Brain:
    return Brain(vault, env=dict(os.environ))


def test_untyped_warning_fires_at_ten_percent(vault: Path) -> None:
    for i in range(9):
        note(vault, f"People/P{i}.md")
    note(vault, "Inbox.md")  # root-level notes are not counted
    note(vault, "Loose.md")
    app = _app(vault)
    assert untyped_warning(app.vault, app.pack) is None
    note(vault, "Reading/Book.md")  # 1 of 10 = 10%
    warning = untyped_warning(app.vault, app.pack)
    assert warning == (
        f"[schema] 1 of the 10 notes in folders (10%) have no type of the active schema pack "
        f"({app.pack.identity}): `vaultbrain schema review-orphans` lists them by folder."
    )  # (one note: no folder `schema detect` would propose a type for)
    assert untyped_warning(app) == warning
    for i in range(4):
        note(vault, f"Reading/More {i}.md")
    assert untyped_warning(app.vault, app.pack).endswith(
        "`vaultbrain schema detect` proposes types for them."
    )


def test_generated_folders_and_undeclared_frontmatter_types(vault: Path) -> None:
    for i in range(5):
        note(vault, f"People/P{i}.md")
        note(vault, f"Brain/Digests/2026-12-0{i + 1}.md")  # vaultbrain's own output
        note(vault, f"Consumed/YouTube/V{i}.md")
    note(vault, "People/Recipe.md", {"type": "recipe"})  # a type the pack does not declare
    app = _app(vault)
    warning = untyped_warning(app)
    assert warning and warning.startswith("[schema] 1 of the 6 notes in folders (17%)")


def test_untyped_warning_honours_per_folder_packs(vault: Path, env_home: Path) -> None:
    write_pack(env_home, "reading", manifest("reading", page_types=[ptype("book", "Reading/")]))
    for i in range(5):
        note(vault, f"Reading/B{i}.md")
        note(vault, f"People/P{i}.md")
    app = _app(vault)
    assert untyped_warning(app).startswith("[schema] 5 of the 10 notes")
    app.settings.set("schema_pack.source.Reading", "reading")
    assert untyped_warning(app) is None


def test_review_orphans_groups_by_folder(vault: Path) -> None:
    for i in range(3):
        note(vault, f"Reading/B{i}.md")
    note(vault, "People/Sarah.md")
    note(vault, "People/Odd.md", {"type": "recipe"})
    note(vault, "Loose.md")
    note(vault, "Inbox.md")
    note(vault, "People/README.md")  # counted, but no record: neither typed nor an orphan
    orphans = review_orphans(_app(vault), samples=2)
    # A `type:` of the note's own is a type (the pack not declaring it is listed apart).
    assert orphans.total == 7 and orphans.untyped == 4
    assert [(f.folder, f.count) for f in orphans.folders] == [
        ("Reading", 3),
        ("(vault root)", 1),
    ]
    assert orphans.folders[0].samples == ["Reading/B0.md", "Reading/B1.md"]
    assert orphans.undeclared_types == {"recipe": 1}


def _reading_vault(vault: Path) -> None:
    statuses = ["reading", "done", "done", "to-read", "done", "reading"]
    for i, status in enumerate(statuses):
        note(
            vault,
            f"Reading/Book {i}.md",
            {
                "author": f"Author {i}",
                "status": status,
                "rating": i,
                "finished": f"2026-01-0{i + 1}",
                "tags": ["book"],
                "related": ["[[Ideas/X]]"],
                "type": "book" if i < 2 else None,
            },
        )
    for i in range(7):  # daily notes: named by a date alone, never a type
        note(vault, f"Journal/2026-11-{i + 10:02d}.md", {"mood": "good"})
    for i in range(5):  # named by a date and a title: a time-based kind
        note(vault, f"Meetings/2026-11-{i + 10:02d} Standup {i}.md")
    for i in range(5):
        note(vault, f"Work/Clients/Client {i}.md", {"website": "https://x"})
        note(vault, f"Work/Vendors/Vendor {i}.md", {"contract": "[[Contracts/C]]"})
    for i in range(3):
        note(vault, f"Misc/M{i}.md")  # below the threshold
    for i in range(6):
        note(vault, f"Contacts/C{i}.md")  # 'contact' is an alias of person
        note(vault, f"People/P{i}.md")


def test_detect_clusters_folders_and_infers_fields(vault: Path) -> None:
    _reading_vault(vault)
    d = detect(_app(vault))
    assert (d.total, d.untyped) == (43, 37)
    by = {c.folder: c for c in d.candidates}
    # (Journal: daily notes; Misc: too few)
    assert set(by) == {"Reading", "Meetings", "Work/Clients", "Work/Vendors", "Contacts"}
    assert [c.folder for c in d.candidates][:2] == ["Work/Clients", "Work/Vendors"]  # deepest first
    reading = by["Reading"]
    # Two of its notes say `type: book`: the vault's own name wins over the folder's, and
    # the folder is the type's (its other notes are alike).
    assert (reading.name, reading.primitive, reading.notes, reading.action) == (
        "book",
        "media",
        6,
        "new",
    )
    assert (reading.evidence, reading.path_prefixes) == ("type", ["Reading/"])
    assert reading.fields == {
        "title": {"type": "text", "required": True},
        "author": {"type": "text"},
        "finished": {"type": "date"},
        "rating": {"type": "number"},
        "related": {"type": "links"},
        "status": {"type": "enum", "values": ["done", "reading", "to-read"]},
        "tags": {"type": "list"},
    }
    assert reading.frontmatter_types == {"book": 2}
    meetings = by["Meetings"]
    assert (meetings.name, meetings.primitive) == ("meeting", "temporal")
    assert "named by date" in meetings.reason
    assert by["Work/Clients"].name == "client" and by["Work/Vendors"].name == "vendor"
    assert by["Work/Vendors"].fields["contract"] == {"type": "link"}
    contacts = by["Contacts"]
    assert (contacts.action, contacts.extends_type) == ("extend", "person")
    assert load_candidates(_app(vault)).candidates[0].folder == "Work/Clients"


def test_detect_min_notes(vault: Path) -> None:
    _reading_vault(vault)
    folders = {c.folder for c in detect(_app(vault), min_notes=3).candidates}
    assert "Misc" not in folders  # three notes with nothing in common: no kind at any size
    folders = {c.folder for c in detect(_app(vault), min_notes=7).candidates}
    # Work's 10 notes are two kinds half each: no one type; `type: book` needs two notes
    assert folders == {"Reading"}


def test_slugs_for_folders() -> None:
    assert slug_for("Daily Notes") == "daily-note"
    assert slug_for("Work/Companies") == "company"
    assert slug_for("Reading") == "reading"
    assert slug_for("Boxes") == "box"
    assert slug_for("2024") == "t-2024"
    assert slug_for("Status") == "status"
    assert slug_for("Physics") == "physics" and slug_for("Windows") == "windows"
    assert slug_for("Files and folders") == "files-and-folders"
    assert slug_for("00 Home") == "home" and slug_for("1 LifeOS") == "lifeos"
    # the vault's own words, in its letters: no English singular of another language
    assert slug_for("Bücher") == "bücher" and slug_for("Книги") == "книги"
    assert slug_for("02 Café Notes") == "café-note"


def test_infer_fields_types_by_value() -> None:
    notes = [
        NoteTyping(f"F/{i}.md", "F", None, None, data)
        for i, data in enumerate(
            [
                {"done": True, "when": "2026-01-01T10:00:00", "n": 1.5, "mixed": 1},
                {"done": False, "when": "2026-01-02T10:00", "n": 2, "mixed": "x"},
            ]
        )
    ]
    fields = infer_fields(notes)
    assert fields["done"] == {"type": "checkbox"}
    assert fields["when"] == {"type": "datetime"}
    assert fields["n"] == {"type": "number"}
    assert fields["mixed"] == {"type": "text"}


def test_review_candidates_writes_a_delta_and_edits_no_pack(vault: Path, env_home: Path) -> None:
    _reading_vault(vault)
    app = _app(vault)
    detect(app)
    review = review_candidates(
        app,
        apply=["reading/", "Contacts"],
        rename=[("Meetings", "standup")],
        ignore=["Work/Vendors"],
    )
    delta = review.delta
    assert delta is not None and delta.name == "vaultbrain-base-local"
    assert delta.path == app.state_dir / "schema-deltas" / "vaultbrain-base-local" / "pack.yaml"
    assert (delta.added, delta.extended) == (["book"], ["person"])
    assert delta.lint.ok
    assert not (env_home / "schema-packs").exists()  # nothing installed or edited
    assert app.pack.name == "vaultbrain-base"
    pack = load_pack_path(delta.path)
    assert pack.chain == ["vaultbrain-base-local", "vaultbrain-base"]
    assert pack.type_for_path("Reading/Book 1.md").name == "book"
    assert pack.type_for_path("Contacts/C1.md").name == "person"
    assert pack.get_type("person").path_prefixes == ["People/", "Contacts/"]
    assert pack.types[-6].name == "person"  # the override kept the base position
    stored = {c.folder: c for c in load_candidates(app).candidates}
    assert stored["Reading"].status == "applied"
    assert stored["Work/Vendors"].status == "ignored"
    assert stored["Meetings"].name == "standup"
    # Decisions survive a fresh detect.
    again = {c.folder: c for c in detect(app).candidates}
    assert again["Work/Vendors"].status == "ignored" and again["Meetings"].name == "standup"


def test_a_second_apply_builds_on_the_installed_delta(vault: Path, env_home: Path) -> None:
    from vaultbrain.packs.config import use_pack
    from vaultbrain.packs.install import install_pack

    _reading_vault(vault)
    app = _app(vault)
    first = review_candidates(app, apply=["Reading"]).delta
    install_pack(first.path.parent)
    use_pack(first.name, at=app.now())
    assert app.refresh().pack.name == "vaultbrain-base-local"  # the next unit of work
    second = review_candidates(app, apply=["Meetings"]).delta
    assert second.name == "vaultbrain-base-local" and second.replaces_installed
    pack = load_pack_path(second.path)
    assert pack.version == "0.1.1" and pack.chain[1] == "vaultbrain-base"
    assert pack.get_type("book") and pack.get_type("meeting")


def test_llm_refinements_are_validated(vault: Path) -> None:
    _reading_vault(vault)
    app = _app(vault)
    d = detect(app, save=False)
    n = apply_refinements(
        d,
        {
            "types": [
                {
                    "folder": "Reading/",
                    "name": "Book",
                    "primitive": "media",
                    "description": "  A book  ",
                    "fileable": False,
                    "fields": [
                        {"name": "author", "type": "text", "values": []},
                        {"name": "shelf", "type": "enum", "values": []},
                        {"name": "bad key!", "type": "text", "values": []},
                        {"name": "kind", "type": "colour", "values": []},
                    ],
                },
                {
                    "folder": "Meetings",
                    "name": "person",
                    "primitive": "weird",
                    "description": "",
                    "fileable": False,
                    "fields": [],
                },
                {
                    "folder": "Nowhere",
                    "name": "x",
                    "primitive": "entity",
                    "description": "",
                    "fileable": False,
                    "fields": [],
                },
                "junk",
            ]
        },
        app.pack,
    )
    assert n == 2
    by = {c.folder: c for c in d.candidates}
    assert by["Reading"].name == "book" and by["Reading"].description == "A book"
    assert by["Reading"].fields == {
        "title": {"type": "text", "required": True},
        "author": {"type": "text"},
        "shelf": {"type": "text"},
    }
    assert by["Meetings"].name == "meeting"  # 'person' is taken; primitive stays valid
    assert by["Meetings"].primitive == "temporal"
    assert apply_refinements(d, "not a dict", app.pack) == 0


def test_consistency_ok_then_untyped_then_broken(vault: Path, env_home: Path) -> None:
    for i in range(5):
        note(vault, f"People/P{i}.md")
    app = _app(vault)
    ok, detail = schema_pack_consistency(app)
    assert ok and "5 of 5 notes typed" in detail and app.pack.identity in detail
    note(vault, "Reading/B.md")
    ok, detail = schema_pack_consistency(app)
    assert not ok and detail.startswith("[schema] 1 of the 6 notes in folders")
    write_pack(env_home, "linty", manifest("linty", page_types=[ptype("x", "People/")]))
    app.settings.set("schema_pack", "linty")
    ok, detail = schema_pack_consistency(app.refresh())
    assert not ok and "lint error" in detail
    # A pack that was set, then uninstalled (`settings set` refuses one that is absent).
    gone = write_pack(env_home, "ghost-pack", manifest("ghost-pack"))
    app.settings.set("schema_pack", "ghost-pack")
    shutil.rmtree(gone.parent)
    ok, detail = schema_pack_consistency(app.refresh())
    assert not ok and "UNKNOWN_PACK" in detail
    app.settings.set("schema_pack", "")
    # A pack named for a folder, then uninstalled (`settings set` refuses one that is absent).
    ghost = write_pack(env_home, "ghost-pack", manifest("ghost-pack"))
    app.settings.set("schema_pack.source.Reading", "ghost-pack")
    shutil.rmtree(ghost.parent)
    ok, detail = schema_pack_consistency(app.refresh())
    assert not ok and "Reading/" in detail


def test_llm_keeps_the_names_the_vault_gives_its_kinds(vault: Path) -> None:
    _reading_vault(vault)
    app = _app(vault)
    d = detect(app, save=False)
    answer = [
        {"folder": f, "name": n, "primitive": "media", "description": "d", "fileable": False}
        | {"fields": []}
        for f, n in (("Reading", "volume"), ("Meetings", "standup"))
    ]
    assert apply_refinements(d, {"types": answer}, app.pack) == 2
    by = {c.folder: c for c in d.candidates}
    assert by["Reading"].name == "book"  # two of its notes say `type: book`
    assert by["Meetings"].name == "standup"  # a folder's name is the heuristic's guess
    assert by["Reading"].description == "d"
