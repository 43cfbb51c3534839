"""Capture → classify → file from the command line, on a real vault, against a real HTTP server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.lmstudio import FakeLMStudio, reply
from support.state import entries as state_entries

SARAH = "Met with Sarah about the new project. Need to follow up next week."
SARAH_REPLY = reply(
    [
        {"type": "person", "title": "Sarah", "fields": {"follow_ups": ["Follow up next week"]}},
        {"type": "project", "title": "New project", "fields": {"status": "planned"}},
        {"type": "admin", "title": "Follow up with Sarah", "fields": {"due": "2026-12-08"}},
    ],
    0.85,
    "Mentions a person and a project, with an action item",
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    # the LLM's reading decides here; the pair's arbiter: tests/system/test_classify_pair.py
    run(root, "settings", "set", "second_opinion", "false")
    return root


def test_init_makes_the_skeleton_and_never_overwrites(vault: Path) -> None:
    for folder in ["People", "Projects", "Ideas", "Admin", "Links", "Memories", "Brain"]:
        assert (vault / folder).is_dir()
    (vault / "Inbox.md").write_text("my own inbox\n")
    out = run(vault, "init").output
    assert "nothing to create" in out
    assert (vault / "Inbox.md").read_text() == "my own inbox\n"


def test_sarah_with_the_llm(vault: Path, lmstudio: FakeLMStudio) -> None:
    lmstudio.responder = lambda body: SARAH_REPLY
    doc = run_json(vault, "capture", SARAH)
    assert doc["status"] == "filed" and doc["confidence"] == 0.85
    assert doc["classified_by"] == "lmstudio:test-model"
    assert [(d["type"], d["path"]) for d in doc["destinations"]] == [
        ("person", "People/Sarah.md"),
        ("project", "Projects/New project.md"),
        ("admin", "Admin/Follow up with Sarah.md"),
    ]
    person = frontmatter(vault / "People/Sarah.md")
    assert person["type"] == "person" and person["name"] == "Sarah"
    assert person["follow_ups"] == ["Follow up next week"]
    # A minimal note (the default style): the machine's values are the store's.
    assert not {"source", "confidence", "classified_by", "confirmed", "updated"} & set(person)
    stored = run_json(vault, "db", "show", "person", "Sarah")
    assert stored["source"] == f"[[Inbox#^vb-{doc['id']}]]"
    assert stored["confidence"] == 0.85 and stored["classified_by"] == "lmstudio:test-model"
    assert "confirmed" not in stored
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", person["created"])
    project = frontmatter(vault / "Projects/New project.md")
    assert project["status"] == "planned" and project["people"] == ["[[People/Sarah|Sarah]]"]
    admin_text = (vault / "Admin/Follow up with Sarah.md").read_text()
    admin = frontmatter(vault / "Admin/Follow up with Sarah.md")
    # No priority the thought did not give (the pack has no default one).
    assert admin["due"] == "2026-12-08" and admin["status"] == "open" and "priority" not in admin
    assert admin["related"] == ["[[People/Sarah|Sarah]]", "[[Projects/New project|New project]]"]
    assert "- [ ] Follow up with Sarah 📅 2026-12-08" in admin_text  # Tasks' own order
    # raw text: links are quoted, dates unquoted, lists as block lists
    assert '  - "[[People/Sarah|Sarah]]"\n' in admin_text and "due: 2026-12-08\n" in admin_text
    inbox = (vault / "Inbox.md").read_text()
    assert (
        f"- [x] {SARAH} → [[People/Sarah|Sarah]] · [[Projects/New project|New project]] · "
        f"[[Admin/Follow up with Sarah|Follow up with Sarah]] ^vb-{doc['id']}"
    ) in inbox
    record = run_json(vault, "db", "show", "person", "Sarah")
    assert record["path"] == "People/Sarah.md" and record["sources"] == [doc["id"]]
    captures = run_json(vault, "inbox")
    assert captures[0]["id"] == doc["id"] and captures[0]["status"] == "filed"
    # what the LLM was sent: json_schema response format, the thought, the pack's types
    body = lmstudio.requests[-1]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert json.dumps(SARAH) in body["messages"][1]["content"]
    assert "`person`" in body["messages"][0]["content"]


def test_second_capture_updates_sarah_instead_of_a_second_note(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    lmstudio.responder = lambda body: SARAH_REPLY
    run(vault, "capture", SARAH)
    before = (vault / "People/Sarah.md").read_text()
    lmstudio.responder = lambda body: reply(
        [
            {
                "type": "person",
                "title": "sarah",
                "fields": {"topics": ["budget"], "follow_ups": ["Send the deck"]},
            }
        ],
        0.9,
    )
    doc = run_json(vault, "capture", "Sarah says the budget is approved")
    assert doc["destinations"] == [{"type": "person", "title": "Sarah", "path": "People/Sarah.md"}]
    assert sorted(p.name for p in (vault / "People").iterdir()) == ["Sarah.md"]
    after = (vault / "People/Sarah.md").read_text()
    data = frontmatter(vault / "People/Sarah.md")
    assert data["follow_ups"] == ["Follow up next week", "Send the deck"]
    assert data["topics"] == ["budget"]
    assert "Sarah says the budget is approved" in after
    # the lines it did not change stay byte-identical
    untouched = [
        line for line in before.splitlines() if not line.startswith(("updated:", "  - Follow up"))
    ]
    for line in untouched:
        assert line in after.splitlines()
    # the thought was shown the existing record so it links instead of duplicating
    assert "person: Sarah" in lmstudio.requests[-1]["messages"][0]["content"]


def test_alias_matches_existing_record(vault: Path, lmstudio: FakeLMStudio) -> None:
    run(vault, "db", "add", "person", "--set", "name=Robert Smith", "--set", "aliases=Bob")
    lmstudio.responder = lambda body: reply([{"type": "person", "title": "BOB", "fields": {}}], 0.9)
    doc = run_json(vault, "capture", "Lunch with Bob")
    assert doc["destinations"][0]["path"] == "People/Robert Smith.md"


def test_sarah_on_the_embedded_classifier(vault: Path) -> None:
    # the embedded classifier's confidence is its measured precision, capped by nothing
    # (issue 42): below a high bar it is a suggestion
    run(vault, "settings", "set", "auto_confidence", "0.95")
    doc = run_json(vault, "capture", SARAH)
    assert doc["status"] == "suggested" and doc["classified_by"] == "heuristic"
    assert 0.5 <= doc["confidence"] < 0.95
    paths = {d["path"] for d in doc["destinations"]}
    assert paths == {"People/Sarah.md", "Projects/New project.md", "Admin/Follow up with Sarah.md"}
    assert "confirmed" not in frontmatter(vault / "People/Sarah.md")
    assert run_json(vault, "db", "show", "person", "Sarah")["confirmed"] is False
    admin = frontmatter(vault / "Admin/Follow up with Sarah.md")
    assert admin["due"] >= admin["created"][:10]
    line = next(x for x in (vault / "Inbox.md").read_text().splitlines() if "^vb-" in x)
    assert line.startswith("- [ ] ") and "suggestion" in line


def test_provider_heuristic_never_calls_the_server(vault: Path, lmstudio: FakeLMStudio) -> None:
    run(vault, "settings", "set", "provider", "heuristic")
    run(vault, "capture", "Idea: a podcast about bees")
    assert lmstudio.requests == []
    assert (vault / "Ideas").joinpath("A podcast about bees.md").is_file()


def test_a_note_titled_by_a_kind_word_is_not_what_every_such_thought_names(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    # A stray `Ideas/Idea.md` (made by hand, or by an old "#idea" line) must not swallow
    # every later "idea: …" thought: the word for a kind of thing names no record.
    run(vault, "settings", "set", "provider", "heuristic")
    run(vault, "db", "add", "idea", "--set", "title=Idea")
    assert (vault / "Ideas/Idea.md").is_file()
    run(vault, "capture", "Idea: a podcast about bees")
    assert (vault / "Ideas/A podcast about bees.md").is_file()
    assert "bees" not in (vault / "Ideas/Idea.md").read_text()
    # A record the thought does name by its title is still updated.
    run(vault, "db", "add", "idea", "--set", "title=Bee podcast")
    run(vault, "capture", "Idea: the bee podcast could have a guest beekeeper")
    assert "guest beekeeper" in (vault / "Ideas/Bee podcast.md").read_text()


def test_env_overrides_provider(
    vault: Path, monkeypatch: pytest.MonkeyPatch, lmstudio: FakeLMStudio
) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    run(vault, "capture", "Call Bob tomorrow")
    assert lmstudio.requests == []
    assert run(vault, "settings", "get", "provider").output.strip() == "heuristic"


def test_bare_url_becomes_a_link(vault: Path, lmstudio: FakeLMStudio) -> None:
    doc = run_json(vault, "capture", "https://example.com/blog/great-post.html")
    assert doc["status"] == "filed"
    assert doc["destinations"][0]["type"] == "link"
    rel = doc["destinations"][0]["path"]
    assert rel.startswith("Links/")
    assert frontmatter(vault / rel)["url"] == "https://example.com/blog/great-post.html"
    assert lmstudio.requests == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the thought is empty"),
        ("   \t ", "the thought is empty"),
        ("x" * 10_001, "the limit is 10000"),
    ],
)
def test_bad_thoughts_get_one_line_and_write_nothing(vault: Path, text: str, message: str) -> None:
    before = (vault / "Inbox.md").read_text()
    result = run(vault, "capture", text, ok=False)
    assert result.exit_code == 1
    assert message in result.output and result.output.count("\n") == 1
    assert (vault / "Inbox.md").read_text() == before
    assert run_json(vault, "inbox") == []


def test_stdin_capture(vault: Path) -> None:
    result = run(vault, "capture", "-", "--json", input="Idea: solar shed\n")
    assert json.loads(result.output)["text"] == "Idea: solar shed"


@pytest.mark.parametrize(
    ("title", "path"),
    [
        ("../../etc/passwd", "Ideas/etc-passwd.md"),
        ("a/b: c #d", "Ideas/a-b- c.md"),  # a tag at its end is not part of a title
        ("a/b: c #4", "Ideas/a-b- c -4.md"),  # "#4" is no tag (Obsidian): it stays
        ("🎉 party", "Ideas/🎉 party.md"),
        ("שלום", "Ideas/שלום.md"),
        ("\u202eevil", "Ideas/evil.md"),
    ],
)
def test_hostile_titles_stay_in_the_vault(
    vault: Path, lmstudio: FakeLMStudio, title: str, path: str
) -> None:
    lmstudio.responder = lambda body: reply([{"type": "idea", "title": title, "fields": {}}], 0.9)
    doc = run_json(vault, "capture", "some idea")
    assert doc["destinations"][0]["path"] == path
    assert (vault / path).is_file()
    # (a direction override is shown as nothing: it never reaches a title)
    assert frontmatter(vault / path)["title"] == title.removesuffix(" #d").replace("\u202e", "")


def test_unknown_type_and_bad_fields(vault: Path, lmstudio: FakeLMStudio) -> None:
    lmstudio.responder = lambda body: reply(
        [{"type": "recipe", "title": "Soup", "fields": {}}], 0.95
    )
    doc = run_json(vault, "capture", "a soup recipe")
    assert doc["status"] == "needs_review" and doc["destinations"] == []
    lmstudio.responder = lambda body: reply(
        [
            {
                "type": "admin",
                "title": "Pay rent",
                "fields": {"due": "next tuesday", "priority": "huge", "colour": "red"},
            }
        ],
        0.95,
    )
    doc = run_json(vault, "capture", "pay rent")
    assert doc["status"] == "filed"
    admin = frontmatter(vault / "Admin/Pay rent.md")
    # A value that does not fit is dropped, and no priority is made up in its place.
    assert "due" not in admin and "priority" not in admin and "colour" not in admin
    cap = next(c for c in run_json(vault, "inbox") if c["id"] == doc["id"])
    assert cap["status"] == "filed"
    audit = state_entries(vault / ".vaultbrain")
    dropped = [d for e in audit if e.get("capture") == doc["id"] for d in e.get("dropped", [])]
    assert {d.get("field") for d in dropped} == {"due", "priority", "colour"}


def test_bands(vault: Path, lmstudio: FakeLMStudio) -> None:
    def answer(conf: float) -> None:
        lmstudio.responder = lambda body: reply(
            [{"type": "idea", "title": f"Idea {conf}", "fields": {}}], conf
        )

    answer(0.6)
    assert run_json(vault, "capture", "maybe")["status"] == "suggested"
    assert run_json(vault, "db", "show", "idea", "Idea 0.6")["confirmed"] is False
    answer(0.3)
    assert run_json(vault, "capture", "unsure")["status"] == "needs_review"
    assert not (vault / "Ideas/Idea 0.3.md").exists()
    run(vault, "settings", "set", "auto_confidence", "0.55")
    answer(0.6)
    assert run_json(vault, "capture", "again")["status"] == "filed"


@pytest.mark.parametrize(
    "mode", ["error500", "invalid_json", "schema_violation", "no_models", "wrong_model", "huge"]
)
def test_llm_failures_fall_back_to_the_embedded_classifier(
    vault: Path, lmstudio: FakeLMStudio, mode: str
) -> None:
    lmstudio.mode = mode
    if mode == "wrong_model":
        run(vault, "settings", "set", "model", "test-model")
    doc = run_json(vault, "capture", SARAH)
    if mode == "schema_violation":
        # a reply that parses but fits nothing: nothing filed, the person decides
        assert doc["status"] == "needs_review"
    else:
        # the embedded classifier's reading, filed as its calibrated confidence says
        filed = "filed" if doc["confidence"] >= 0.8 else "suggested"
        assert doc["status"] == filed and doc["classified_by"] == "heuristic"
        assert doc["error"]
    assert "\n" not in (doc["error"] or "")


def test_timeout_falls_back(vault: Path, lmstudio: FakeLMStudio) -> None:
    lmstudio.mode = "hang"
    lmstudio.hang_seconds = 5
    run(vault, "settings", "set", "llm_timeout_seconds", "0.5")
    doc = run_json(vault, "capture", SARAH)
    filed = "filed" if doc["confidence"] >= 0.8 else "suggested"
    assert doc["status"] == filed and "did not answer" in doc["error"]


def test_refused_connection_with_fallback_none_stays_pending(vault: Path) -> None:
    run(vault, "settings", "set", "fallback", "none")
    doc = run_json(vault, "capture", SARAH)
    assert doc["status"] == "pending" and "cannot reach" in doc["error"]
    assert not (vault / "People/Sarah.md").exists()
    line = next(x for x in (vault / "Inbox.md").read_text().splitlines() if "^vb-" in x)
    assert SARAH in line and "waiting" in line and line.startswith("- [ ] ")


def test_the_prompt_stays_bounded(vault: Path, lmstudio: FakeLMStudio) -> None:
    for i in range(60):
        run(vault, "db", "add", "person", "--set", f"name=Person{i}")
    lmstudio.responder = lambda body: reply([{"type": "idea", "title": "x", "fields": {}}], 0.9)
    run(vault, "capture", "an idea that names nobody")
    small = len(lmstudio.requests[-1]["messages"][0]["content"])
    run(vault, "capture", "talked to Person1 and Person2")
    system = lmstudio.requests[-1]["messages"][0]["content"]
    assert "person: Person1" in system and "person: Person2" in system and "Person30" not in system
    assert len(system) < small + 200
