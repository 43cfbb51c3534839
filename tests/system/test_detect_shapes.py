"""``schema detect`` on generated vaults of each shape a person's vault takes: the types it
proposes are the ones the person would name, topic and area folders get none, and accepting
every proposal (install the delta, use it, reindex, adopt) leaves no note whose own ``type:``
disagrees with its record's type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from vaultbrain.cli.group import cli

TOPICS = ["entropy", "gradient descent", "the printing press", "Rome", "tea", "sleep"]


def run(vault: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args])
    if result.exit_code != code:
        raise AssertionError(
            f"exit {result.exit_code} (wanted {code}) for {args}:\n{result.output}\n"
            f"{result.exception!r}"
        )
    return result


def note(vault: Path, rel: str, front: dict[str, Any] | None = None, body: str = "") -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    head = "---\n" + yaml.safe_dump(front, allow_unicode=True, sort_keys=False) + "---\n"
    path.write_text((head if front else "") + (body or "Some words of my own.\n"), "utf-8")


def detected(vault: Path) -> dict[str, dict[str, Any]]:
    """The proposals of `schema detect --json`, by how they are named (folder or evidence)."""
    doc = json.loads(run(vault, "schema", "detect", "--json").stdout)
    return {c["prefix"]: c for c in doc["candidates"]}


def accept_all(vault: Path) -> list[dict[str, Any]]:
    """Accept every proposal, install and use the delta, reindex; adopt's dry-run plan."""
    keys = list(detected(vault))
    if keys:
        args = [a for k in keys for a in ("--apply", k)]
        doc = json.loads(run(vault, "schema", "review-candidates", *args, "--json").stdout)
        delta = Path(doc["delta"]["path"])
        assert doc["delta"]["lint"]["ok"], doc["delta"]["lint"]
        run(vault, "schema", "install", str(delta.parent))
        run(vault, "schema", "use", doc["delta"]["name"])
    run(vault, "reindex")
    return json.loads(run(vault, "adopt", "--dry-run", "--json").stdout)


def type_conflicts(plan: list[dict[str, Any]]) -> list[str]:
    return [f"{a['path']}: {a['problem']}" for a in plan if "type:" in str(a.get("problem"))]


# -- typed notes: the vault's own `type:` values are the types ----------------------------


def test_typed_notes_keep_their_names_and_adopt_without_conflict(vault: Path) -> None:
    for i, topic in enumerate(TOPICS):
        note(vault, f"Slip box/On {topic}.md", {"type": "permanent", "links_out": i})
    for i in range(4):
        note(vault, f"Slip box/Notes from book {i}.md", {"type": "literature", "author": "X"})
    for i in range(5):
        note(vault, f"Recipes/Dish {i}.md", {"type": "Recipe", "servings": i + 1})
    found = detected(vault)
    # Slip box/ holds two kinds: no folder type; each kind keeps the vault's name
    assert set(found) == {"type:permanent", "type:literature", "Recipes/"}
    assert found["type:permanent"]["name"] == "permanent"  # never "permanent-note"
    assert found["type:permanent"]["folders"] == []
    assert found["type:literature"]["primitive"] == "media"
    recipe = found["Recipes/"]
    assert (recipe["name"], recipe["evidence"], recipe["notes"]) == ("recipe", "type", 5)
    assert recipe["aliases"] == []  # (`Recipe` is `recipe`: a type matches in any case)
    assert recipe["fields"]["servings"] == {"type": "number"}
    plan = accept_all(vault)
    assert type_conflicts(plan) == []
    # Records come from the pack's folders: the Recipes/ notes, adopted by an id alone
    assert {a["type"] for a in plan} == {"recipe"} and len(plan) == 5
    assert all(set(a["changes"]) == {"id"} for a in plan)
    # and every note has a type of the pack now, the Slip box ones by their own `type:`
    assert untyped(vault) == 0


def untyped(vault: Path) -> int:
    return int(json.loads(run(vault, "schema", "review-orphans", "--json").stdout)["untyped"])


def test_a_type_that_names_a_pack_type_otherwise_becomes_its_alias(vault: Path) -> None:
    for i in range(3):  # `task` is an alias of admin in vaultbrain-base
        note(vault, f"Work/Thing {i}.md", {"type": "tasks", "status": "open"})
    found = detected(vault)
    tasks = found["Work/"]  # the folder all its notes are in
    assert (tasks["action"], tasks["extends_type"]) == ("extend", "admin")
    assert tasks["aliases"] == ["tasks"]
    plan = accept_all(vault)
    assert type_conflicts(plan) == [] and {a["type"] for a in plan} == {"admin"}
    assert untyped(vault) == 0


# -- tag-typed notes ------------------------------------------------------------------------


def test_tags_and_categories_used_as_types(vault: Path) -> None:
    for i in range(4):
        note(vault, f"Notes/Book {i}.md", {"tags": ["type/book", "fiction"], "author": "A"})
    for i in range(3):
        note(vault, f"Notes/Film {i}.md", {"categories": ["[[Movies]]"], "year": 1990 + i})
    for i in range(6):  # a plain tag on notes of one shape the others lack
        note(vault, f"Kitchen/Dish {i}.md", {"tags": ["recipe"], "servings": 2, "time": "1h"})
    for i, topic in enumerate(TOPICS):  # topic tags: notes with nothing in common
        note(vault, f"Notes/About {topic}.md", {"tags": ["ideas", "misc"][i % 2 :]})
    found = detected(vault)
    assert found["tag:book"]["name"] == "book" and found["tag:book"]["evidence"] == "tag"
    assert found["category:Movies"]["evidence"] == "category"
    assert found["category:Movies"]["name"] == "movies"
    assert found["Kitchen/"]["name"] == "recipe"  # its tag's name, its folder
    assert found["Kitchen/"]["folders"] == ["Kitchen"]
    assert not any(c["name"] in ("idea", "ideas", "misc", "note") for c in found.values())
    assert type_conflicts(accept_all(vault)) == []


# -- topic and area folders: no types ------------------------------------------------------


def test_topic_folders_are_not_types(vault: Path) -> None:
    for folder in ("Machine Learning", "History", "Cooking", "Philosophy"):
        for i, topic in enumerate(TOPICS):
            front = {"tags": [folder.lower().replace(" ", "-")]} if i % 2 else None
            if i == 3:
                front = {"source": "https://example.org", "created": "2026-01-02"}
            note(vault, f"{folder}/{topic} {i}.md", front, f"# {topic}\n\nThoughts.\n")
    assert detected(vault) == {}
    assert accept_all(vault) == []  # nothing proposed, nothing to adopt


def test_area_folders_are_not_types_but_a_kind_inside_one_is(vault: Path) -> None:
    for area in ("Areas/Health", "Areas/Finance", "Areas/Home"):
        for i in range(3):
            note(vault, f"{area}/Plan {i}.md", {"review": "monthly"} if i == 0 else None)
            note(vault, f"{area}/Thought {i}.md")
            note(vault, f"{area}/Log {i}.md", {"mood": "ok"} if i == 1 else None)
    for i in range(5):  # one folder below an area of notes of one kind
        note(vault, f"Areas/Health/Workouts/Session {i}.md", {"sets": 3, "reps": 10})
    found = detected(vault)
    assert set(found) == {"Areas/Health/Workouts/"}
    assert found["Areas/Health/Workouts/"]["name"] == "workout"
    assert found["Areas/Health/Workouts/"]["primitive"] != "temporal"
    plan = accept_all(vault)  # the workouts become records, no area note does
    assert type_conflicts(plan) == [] and {a["type"] for a in plan} == {"workout"}
    assert len(plan) == 5


def test_a_folder_written_by_one_tool_with_the_vaults_own_properties_is_no_type(
    vault: Path,
) -> None:
    """mdelmontep's `knowledge/learnings/`: hundreds of notes a coding session wrote, each
    with the title, date, source and tags every note of the vault carries, free prose, no
    shared section. Their one sign is what wrote them (`source: claude-code-session`, which
    the session's project notes elsewhere carry too): provenance, not a kind, and nothing
    tells the folder from a topic folder but its name."""
    for i in range(40):
        front = {"title": f"lesson {i}", "date": "2026-07-07", "tags": ["git", "gotchas"]}
        front["source"] = "claude-code-session" if i % 8 else "obsidian-vault"
        note(vault, f"knowledge/learnings/lesson-{i}.md", front, f"Fix: do {i} first.\n")
    for i in range(12):
        front = {"title": f"doc {i}", "date": "2026-05-01", "tags": ["n8n"]}
        if i % 3 == 0:
            front["source"] = "claude-code-session"
        note(vault, f"knowledge/agentesia/doc-{i}.md", front, f"# {TOPICS[i % 6]}\n")
        note(vault, f"Stack/tool-{i}.md", front | {"title": f"tool {i}"}, "Notes.\n")
    assert detected(vault) == {}


# -- places, never kinds --------------------------------------------------------------------


def test_inbox_archive_attachment_and_template_folders_are_not_types(vault: Path) -> None:
    for i in range(6):
        note(vault, f"Inbox/Capture {i}.md", {"status": "new"})
        note(vault, f"00 Archive/Old {i}.md", {"status": "done"})
        note(vault, f"Attachments/Drawing {i}.md", {"excalidraw-plugin": "parsed"})
        note(vault, f"Templates/T{i}.md", {"status": "{{status}}"})
    assert detected(vault) == {}


def test_daily_notes_are_no_type_and_a_word_is_no_time(vault: Path) -> None:
    for i in range(8):
        note(vault, f"Daily/2026-11-{i + 1:02d}.md", {"mood": "fine"}, "## Log\n- woke up\n")
        note(vault, f"Journal/2026/2026-10-{i + 1:02d} Thursday.md", {"sleep": 7})
    for i in range(6):  # Obsidian's Daily Notes folder, named without a date
        note(vault, f"Days/Entry {i}.md", {"mood": "fine"})
    (vault / ".obsidian" / "daily-notes.json").write_text('{"folder": "Days"}')
    for i in range(5):  # dated names with a title: a time-based kind
        note(vault, f"Meetings/2026-11-{i + 1:02d} Sync with team {i}.md")
    for i in range(5):  # "log" in the name, notes of one kind, no dates: not temporal
        note(vault, f"Catalog/Item {i}.md", {"price": i, "sku": f"S{i}"})
    found = detected(vault)
    assert set(found) == {"Meetings/", "Catalog/"}
    assert (found["Meetings/"]["name"], found["Meetings/"]["primitive"]) == (
        "meeting",
        "temporal",
    )
    assert found["Catalog/"]["primitive"] != "temporal"
    plan = accept_all(vault)  # the daily notes stay as they are, records of no type
    assert type_conflicts(plan) == [] and len(plan) == 10
    assert {a["type"] for a in plan} == {"meeting", "catalog"}
    assert not any(a["path"].startswith(("Daily/", "Journal/", "Days/")) for a in plan)


# -- a Zettelkasten of mixed kinds -----------------------------------------------------------


def test_a_zettelkasten_of_mixed_kinds(vault: Path) -> None:
    kinds = ["fleeting", "literature", "permanent", "permanent", "hub"]
    for i in range(20):
        kind = kinds[i % 5]
        front = {"type": kind, "tags": ["zettel"]} if i % 7 else {"tags": ["zettel"]}
        note(vault, f"Zettelkasten/2026{i:02d}01{i:02d}00 Thought {i}.md", front)
    found = detected(vault)
    names = {c["name"]: c for c in found.values()}
    assert set(names) == {"fleeting", "literature", "permanent", "hub"}
    assert all(c["folders"] == [] for c in names.values())  # the folder holds them all
    assert type_conflicts(accept_all(vault)) == []


def test_a_folder_of_notes_whose_type_links_their_kinds(vault: Path) -> None:
    """kepano's vault: `References/` holds notes of many kinds, each saying its own with a
    link (`type: ["[[Authors]]"]`), and some with none. The linked kinds are the evidence
    (named as linked); the folder is no type, since each of its notes typed by path would be
    an adopt conflict with the vault's own words."""
    kinds = ["[[Authors]]", "[[Cities]]", "[[Apps]]", "[[Authors]]", "[[Musicians]]"]
    for i in range(15):
        front: dict[str, Any] = {"categories": ["[[References]]"], "rating": i % 5 + 1}
        if i % 3:
            front["type"] = [kinds[i % 5]] if i % 4 else kinds[i % 5]
        note(vault, f"References/Thing {i}.md", front)
    found = detected(vault)
    assert "References/" not in found and all(c["folders"] == [] for c in found.values())
    assert {c["name"] for c in found.values() if c["evidence"] == "type"} >= {"authors"}
    assert type_conflicts(accept_all(vault)) == []


# -- a vault in another language ------------------------------------------------------------


def test_a_vault_in_another_language_keeps_its_words(vault: Path) -> None:
    for i in range(5):
        note(vault, f"Bücher/Buch {i}.md", {"autor": f"A{i}", "gelesen": True})
        note(vault, f"Книги/Книга {i}.md", {"автор": f"Б{i}", "прочитано": True})
        note(vault, f"Eingang/Gedanke {i}.md", {"status": "neu"})
        note(vault, f"Themen/Philosophie {i}.md")
    for i in range(5):
        note(vault, f"Rezepte/Kuchen {i}.md", {"typ": "x", "portionen": i + 1})
    for i in range(4):
        note(vault, f"Notizen/Idee {i}.md", {"type": "Idee", "reife": "roh"})
    found = detected(vault)
    by_name = {c["name"]: c for c in found.values()}
    assert "bücher" in by_name and by_name["bücher"]["folders"] == ["Bücher"]
    assert "rezepte" in by_name  # no English singular made of a German plural
    assert by_name["idee"]["folders"] == ["Notizen"]
    assert not any(n.startswith(("eingang", "themen", "t-", "tip")) for n in by_name)
    assert by_name["книги"]["fields"]["автор"] == {"type": "text"}
    assert type_conflicts(accept_all(vault)) == []


def test_folders_of_one_name_and_kind_are_one_type_never_numbered(vault: Path) -> None:
    for where in ("Work", "Personal", "Side"):
        for i in range(5):
            note(vault, f"{where}/Clients/Client {where} {i}.md", {"rate": i, "since": 2020})
        for i in range(2):
            note(vault, f"{where}/Idea {i}.md")
    found = detected(vault)
    assert [c["name"] for c in found.values()] == ["client"]
    (client,) = found.values()
    assert sorted(client["folders"]) == ["Personal/Clients", "Side/Clients", "Work/Clients"]
    assert client["notes"] == 15
    plan = accept_all(vault)
    assert type_conflicts(plan) == [] and len(plan) == 15


def test_a_type_tag_outweighs_a_category_and_two_kinds_say_none(vault: Path) -> None:
    for i in range(3):
        note(vault, f"Notes/B{i}.md", {"tags": ["type/book"], "categories": ["[[Reading]]"]})
        note(vault, f"Notes/P{i}.md", {"categories": ["[[People]]", "[[Authors]]"]})
    found = detected(vault)
    assert [c["name"] for c in found.values()] == ["book"]
    assert found["tag:book"]["notes"] == 3


# -- language folders of topic folders, and a translated tree ---------------------------------

HELP_TOPICS = {
    "en": ["Files and folders", "Editing", "Sync", "Teams", "Plugins", "Publish"],
    "de": ["Dateien und Ordner", "Bearbeiten", "Sync", "Teams", "Plugins", "Publish"],
    "fr": ["Fichiers et dossiers", "Édition", "Sync", "Équipes", "Modules", "Publish"],
    "ja": ["ファイルとフォルダ", "編集", "同期", "チーム", "プラグイン", "公開"],
}
FAQ = {"en": "FAQ", "de": "Häufige Fragen", "fr": "Questions fréquentes", "ja": "よくある質問"}


def help_vault(vault: Path) -> None:
    """A help vault as obsidian-help is: a copy of one tree of topic folders per language,
    pages of prose with page metadata (``permalink``, ``description``, ``mobile``) on some
    pages of every folder, a ``## FAQ`` on most pages of one folder, ``localized`` on every
    page of one translation."""
    for lang, topics in HELP_TOPICS.items():
        for t, topic in enumerate(topics):
            for i in range(6):
                front: dict[str, Any] = {"permalink": f"{lang}/{t}/{i}"}
                if (i + t) % 3:  # on two pages of three in every folder
                    front |= {"description": "What this page is about.", "mobile": True}
                if lang == "fr":
                    front["localized"] = "2026-01-01"
                body = f"# Page {i}\n\nHow to do it.\n"
                if topic in ("Teams", "Équipes", "チーム") and i < 5:
                    body += f"\n## {FAQ[lang]}\n\nAsk us.\n"
                if t == 2 and i == 0:
                    body += "\n## Limits\n\nSome.\n"
                note(vault, f"{lang}/{topic}/{topic} page {i}.md", front, body)
        note(vault, f"{lang}/Home.md", {"permalink": lang}, "# Home\n")


def test_language_folders_of_topic_folders_are_no_types(vault: Path) -> None:
    help_vault(vault)
    assert detected(vault) == {}


def test_a_translated_tree_with_a_kind_in_it(vault: Path) -> None:
    """The copies of one tree: the topic folders are none, the language folders are none,
    and a folder of one kind in every copy (named alike) is one type with every copy."""
    help_vault(vault)
    for lang in HELP_TOPICS:
        for i in range(6):
            front = {"plugin_id": f"p{i}", "min_version": "1.0", "permalink": f"{lang}/p/{i}"}
            note(vault, f"{lang}/Core plugins/Plugin {i}.md", front, "# A plugin\n")
    found = detected(vault)
    assert [c["name"] for c in found.values()] == ["core-plugin"]
    (plugin,) = found.values()
    assert sorted(plugin["folders"]) == [f"{lang}/Core plugins" for lang in sorted(HELP_TOPICS)]
    plan = accept_all(vault)
    assert type_conflicts(plan) == [] and len(plan) == 24


def test_a_kind_in_each_translation_is_one_type(vault: Path) -> None:
    """The same kind under a translated folder name in each language's copy: one type,
    named as the English copy names it, with every copy's folder."""
    help_vault(vault)
    names = {"en": "Recipes", "de": "Rezepte", "fr": "Recettes", "ja": "レシピ"}
    for lang, folder in names.items():
        for i in range(5):
            front = {"servings": i + 1, "cuisine": "x", "permalink": f"{lang}/r/{i}"}
            note(vault, f"{lang}/{folder}/Dish {i}.md", front)
    found = detected(vault)
    assert [c["name"] for c in found.values()] == ["recipe"]
    (recipe,) = found.values()
    assert sorted(recipe["folders"]) == sorted(f"{lang}/{f}" for lang, f in names.items())
    plan = accept_all(vault)
    assert type_conflicts(plan) == [] and len(plan) == 20


# -- a topic tag on some notes of a kind's folder ------------------------------------------


def test_a_topic_tag_inside_a_kind_is_no_type_of_its_own(vault: Path) -> None:
    """Release notes tagged by platform: the platform tag shares what every release note
    shares, so it is no kind; the folder is."""
    for i in range(14):
        front = {"tags": ["desktop"], "date": f"2026-01-{i + 1:02d}"} if i % 3 == 0 else None
        body = "## Shiny new things\n\n- a\n\n## No longer broken\n\n- b\n"
        note(vault, f"Release notes/v1.{i}.md", front, body)
    for i in range(30):
        note(vault, f"Notes/On {TOPICS[i % 6]} {i}.md", {"tags": ["desktop"]} if i == 1 else None)
    found = detected(vault)
    assert set(found) == {"Release notes/"}
    assert found["Release notes/"]["name"] == "release-note"
    assert found["Release notes/"]["notes"] == 14


# -- one section on a few pages, folders of one kind side by side, a name that recurs ------


def test_one_section_on_a_few_pages_is_no_kind(vault: Path) -> None:
    for client in ("Acme", "Globex"):
        for i in range(7):
            body = "Notes.\n" + ("\n## Related\n\n- [[x]]\n" if i else "")
            note(vault, f"Clients/{client}/{client} call {i}.md", {"source": "call"}, body)
    for topic in TOPICS:
        note(vault, f"Notes/{topic}.md")
    assert detected(vault) == {}


def test_folders_of_one_kind_side_by_side_make_their_parent_the_type(vault: Path) -> None:
    """Trips filed by year: no year folder is a kind of its own among the others (each holds
    a third of the trips), so the folder holding them is the type, never `trip-2024`."""
    for year in (2024, 2025, 2026):
        for i in range(4):
            front = {"destination": f"City {i}", "nights": i + 1, "budget": 100 * i}
            note(vault, f"Trips/{year}/Trip {year} {i}.md", front)
    for topic in TOPICS:
        note(vault, f"Notes/{topic}.md")
    found = detected(vault)
    assert set(found) == {"Trips/"}
    assert found["Trips/"]["name"] == "trip" and found["Trips/"]["notes"] == 12
    plan = accept_all(vault)
    assert type_conflicts(plan) == [] and len(plan) == 12


def test_a_folder_name_recurring_deep_in_every_branch_is_one_type(vault: Path) -> None:
    """zmzm's vault: a skill's folder deep in a topic tree, each with a `references/` folder
    of notes of one kind; the topic folders are none, the references one type."""
    for area in ("backend", "frontend"):
        for skill in ("api", "testing", "security"):
            where = f"Coding/{area}/{skill}"
            note(vault, f"{where}/SKILL.md", {"name": skill, "description": "How to."})
            for i in range(5):
                front = {"kind": "reference", "domain": area, "priority": i}
                note(vault, f"{where}/references/{skill} ref {i}.md", front)
    for i in range(2):  # a skill with two references: its folder is the kind's too
        front = {"kind": "reference", "domain": "backend", "priority": i}
        note(vault, f"Coding/backend/debug/references/debug ref {i}.md", front)
    note(vault, "Coding/backend/debug/SKILL.md", {"name": "debug", "description": "How to."})
    found = detected(vault)
    assert [c["name"] for c in found.values()] == ["reference", "skill"]
    ref = found["Coding/backend/api/references/"]
    assert len(ref["folders"]) == 7 and ref["notes"] == 32
    assert "Coding/backend/debug/references" in ref["folders"]
    skill = found["name:SKILL"]  # one SKILL.md in each skill's folder: a kind by its name
    assert (skill["evidence"], skill["notes"], len(skill["folders"])) == ("name", 7, 7)
    plan = accept_all(vault)
    assert type_conflicts(plan) == []
    by_type = {a["path"]: a["type"] for a in plan}
    assert sorted(p for p, t in by_type.items() if t == "skill") == sorted(
        f"{f}/SKILL.md" for f in skill["folders"]
    )
    assert sum(1 for t in by_type.values() if t == "reference") == 32


def test_a_kind_accepted_before_the_kind_inside_its_folders(vault: Path) -> None:
    """The skill accepted first, its references later (install and use between): the later
    type goes before the earlier one in the delta, so its folders, inside the skill's, still
    type its notes (the first prefix that matches wins)."""
    for skill in ("api", "auth", "cache", "queue", "search"):
        where = f"Coding/{skill}"
        note(vault, f"{where}/SKILL.md", {"name": skill, "description": "How to."})
        for i in range(5):
            note(vault, f"{where}/references/{skill} {i}.md", {"kind": "ref", "priority": i})
    found = detected(vault)
    assert sorted(found) == ["Coding/api/references/", "name:SKILL"]
    for key in ("name:SKILL", "Coding/api/references/"):
        doc = json.loads(run(vault, "schema", "review-candidates", "--apply", key, "--json").stdout)
        assert doc["delta"]["lint"]["ok"], doc["delta"]["lint"]
        run(vault, "schema", "install", str(Path(doc["delta"]["path"]).parent), "--force")
        run(vault, "schema", "use", doc["delta"]["name"])
    run(vault, "reindex")
    plan = json.loads(run(vault, "adopt", "--dry-run", "--json").stdout)
    kinds = {a["path"]: a["type"] for a in plan}
    assert kinds["Coding/api/SKILL.md"] == "skill"
    assert kinds["Coding/api/references/api 0.md"] == "reference"
    assert sorted(set(kinds.values())) == ["reference", "skill"] and len(kinds) == 30


def test_a_kind_named_by_its_file_name_in_folder_after_folder(vault: Path) -> None:
    """One note of one name in each of many folders, of one shape (a SKILL.md per skill):
    a type named by that name, its folders those where the note is the folder's own. A
    folder with other notes beside it is left out (they would become of the kind by path);
    a README, an Untitled note, and a name of one shape in no two notes are no kind."""
    skills = {"Backend": ["api", "cache", "queue"], "Frontend": ["auth", "forms", "search"]}
    for area, names in skills.items():
        for skill in names:
            where = f"Coding/{area}/{skill}"
            note(vault, f"{where}/SKILL.md", {"name": skill, "description": "When to use it."})
            note(vault, f"{where}/README.md", {"owner": "me"})
        for topic in TOPICS[:3]:  # the area's own pages, of no kind
            note(vault, f"Coding/{area}/{topic}.md")
    note(vault, "Coding/Backend/queue/Work log.md", {"status": "doing"})  # loose, of work
    for i, topic in enumerate(TOPICS):  # a name in many folders with nothing in common
        note(vault, f"Topics/{topic}/Notes.md", {"seen": True} if i == 2 else None)
        note(vault, f"Topics/{topic}/Untitled.md", {"name": "x", "description": "y"})
    found = detected(vault)
    assert list(found) == ["name:SKILL"]
    skill = found["name:SKILL"]
    assert skill["name"] == "skill" and skill["notes"] == 5 and skill["aliases"] == []
    assert "Coding/Backend/queue" not in skill["folders"] and len(skill["folders"]) == 5
    assert set(skill["fields"]) >= {"name", "description"}
    plan = accept_all(vault)
    assert type_conflicts(plan) == []
    assert sorted(a["path"] for a in plan if a["type"] == "skill") == sorted(
        f"{f}/SKILL.md" for f in skill["folders"]
    )
