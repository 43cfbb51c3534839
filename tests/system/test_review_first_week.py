"""Review gestures as a person first uses them (issue 18, items 9, 10 and 11): every gesture
the Needs Review header documents works on a suggestion, ticking a suggestion's inbox line
confirms it, and a YouTube line that could not be ingested reads as what happened."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.lmstudio import FakeLMStudio, reply

from vaultbrain.brain import Brain
from vaultbrain.capture.review_queue import ReviewQueue

NOTE = "Brain/Needs Review.md"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0")
    run(root, "settings", "set", "second_opinion", "false")
    return root


def suggest(vault: Path, lm: FakeLMStudio, text: str, dests: list[dict]) -> str:
    lm.responder = lambda body: reply(dests, 0.6, "because")
    cap = run_json(vault, "capture", text)
    assert cap["status"] == "suggested", cap
    ReviewQueue(Brain(vault)).refresh(force=True)
    return cap["id"]


def gesture(vault: Path, cid: str, arrow: str) -> None:
    """Write ``→ TYPES`` at the end of the item, as the header says, and let it be applied."""
    path = vault / NOTE
    lines = path.read_text().splitlines(keepends=True)
    hit = [i for i, line in enumerate(lines) if line.rstrip().endswith(f"^vbr-{cid}")]
    assert hit, path.read_text()
    lines[hit[0]] = lines[hit[0]].replace(f" ^vbr-{cid}", f" {arrow} ^vbr-{cid}")
    path.write_text("".join(lines))
    ReviewQueue(Brain(vault)).refresh(force=True)


SARAH = [
    {"type": "person", "title": "Sarah", "fields": {}},
    {"type": "admin", "title": "Call Sarah back", "fields": {}},
]


def test_arrow_on_a_suggestion_with_several_notes_refiles_it(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    cid = suggest(vault, lmstudio, "Sarah wants the garden plan by Friday", SARAH)
    gesture(vault, cid, "→ project")
    review = (vault / NOTE).read_text()
    assert f"^vbr-{cid}" not in review, review
    cap = run_json(vault, "inbox", "--status", "filed")[0]
    assert cap["id"] == cid
    assert [d["type"] for d in cap["destinations"]] == ["project"]
    project = vault / cap["destinations"][0]["path"]
    record = run_json(vault, "db", "show", "project", frontmatter(project)["id"])
    assert record["classified_by"] == "person" and "classified_by" not in frontmatter(project)
    assert not (vault / "People/Sarah.md").exists()  # the suggestion's notes left
    assert not (vault / "Admin/Call Sarah back.md").exists()
    assert list((vault / "Brain/Archive").glob("*.md"))


def test_arrow_adds_a_destination_the_classifier_missed(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    cid = suggest(
        vault,
        lmstudio,
        "Sarah says the bee hotel needs a roof",
        [{"type": "person", "title": "Sarah", "fields": {}}],
    )
    sarah_id = frontmatter(vault / "People/Sarah.md")["id"]
    gesture(vault, cid, "→ person, admin")
    cap = run_json(vault, "inbox", "--status", "filed")[0]
    assert cap["id"] == cid
    assert sorted(d["type"] for d in cap["destinations"]) == ["admin", "person"]
    person = frontmatter(vault / "People/Sarah.md")
    assert person["id"] == sarah_id and "confirmed" not in person  # kept, and confirmed
    admin = next(d for d in cap["destinations"] if d["type"] == "admin")
    assert (vault / admin["path"]).is_file()
    assert f"^vb-{cid}" in (vault / admin["path"]).read_text()
    assert f"^vbr-{cid}" not in (vault / NOTE).read_text()


def test_ticking_a_suggested_line_in_the_inbox_confirms_it(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    cid = suggest(vault, lmstudio, "Sarah wants the garden plan by Friday", SARAH)
    inbox = vault / "Inbox.md"
    text = inbox.read_text()
    assert "- [ ] Sarah wants the garden plan by Friday → " in text
    inbox.write_text(text.replace("- [ ] Sarah wants", "- [x] Sarah wants"))
    time.sleep(0.05)
    run(vault, "daemon", "--once")
    line = next(x for x in inbox.read_text().splitlines() if x.endswith(f"^vb-{cid}"))
    assert line.startswith("- [x] Sarah wants the garden plan by Friday → "), line
    assert "suggested" not in line
    assert run_json(vault, "inbox", "--status", "filed")[0]["id"] == cid
    assert "confirmed" not in frontmatter(vault / "People/Sarah.md")
    assert "confirmed" not in frontmatter(vault / "Admin/Call Sarah back.md")


@pytest.fixture
def no_ffmpeg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without ffmpeg (a PATH that holds none): `#audio` cannot be ingested, and
    that is found before anything is fetched."""
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setenv("PATH", str(bare))


def test_a_youtube_line_that_was_not_ingested_reads_so_and_resolves_to_its_link(
    vault: Path, no_ffmpeg: None
) -> None:
    url = "https://youtu.be/dQw4w9WgXcQ"
    line = f"{url} #audio #music -- summarise the argument"
    cap = run_json(vault, "capture", line)
    assert cap["status"] == "needs_review", cap
    ReviewQueue(Brain(vault)).refresh(force=True)
    item = next(x for x in (vault / NOTE).read_text().splitlines() if x.endswith(cap["id"]))
    assert "ingested" not in item.replace("not ingested", ""), item
    detail = item.split(" · ")[-1].split(" ^vbr-")[0]
    # Cut, if at all, at a word, and said so.
    assert not detail.endswith("onl)"), item
    gesture(vault, cap["id"], "→ link")
    filed = run_json(vault, "inbox", "--status", "filed")[0]
    link = vault / filed["destinations"][0]["path"]
    data = frontmatter(link)
    assert data["url"] == url, link.read_text()
    assert "<>" not in link.read_text()
    assert "summarise" not in link.name and "audio" not in link.name, link


def test_a_thought_resolved_as_a_link_takes_its_url(vault: Path, lmstudio: FakeLMStudio) -> None:
    lmstudio.responder = lambda body: reply([{"type": "unknown", "title": "", "fields": {}}], 0.2)
    url = "https://example.com/essays/slow-software"
    cap = run_json(vault, "capture", f"read this later {url}, about patience")
    assert cap["status"] == "needs_review", cap
    run(vault, "review", "resolve", cap["id"], "link")
    filed = run_json(vault, "inbox", "--status", "filed")[0]
    link = vault / filed["destinations"][0]["path"]
    assert frontmatter(link)["url"] == url, link.read_text()
    assert f"<{url}>" in link.read_text()


def test_a_youtube_line_not_ingested_says_why_and_keeps_its_tags_and_prompt(
    vault: Path, no_ffmpeg: None
) -> None:
    """On the line itself (not only in --json), in Needs Review, and once ticked: the link
    keeps the person's tags, the line its tags and prompt, and the record says who
    classified it (the YouTube handler), not "person"."""
    url = "https://youtu.be/dQw4w9WgXcQ"
    line = f"{url} #audio #music -- summarise the argument"
    cap = run_json(vault, "capture", line)
    inbox = (vault / "Inbox.md").read_text()
    mine = next(x for x in inbox.splitlines() if cap["id"] in x)
    assert "ffmpeg" in mine, mine  # why, on the line
    assert "ffmpeg" in (vault / NOTE).read_text()
    ticked = inbox.replace(mine, mine.replace("- [ ]", "- [x]", 1))
    (vault / "Inbox.md").write_text(ticked)
    run(vault, "review", "list")  # what the person did in the notes counts
    filed = run_json(vault, "inbox", "--status", "filed")
    assert [f["id"] for f in filed] == [cap["id"]]
    after = next(x for x in (vault / "Inbox.md").read_text().splitlines() if cap["id"] in x)
    assert after.startswith(f"- [x] {line} → [[Links/"), after
    link = vault / filed[0]["destinations"][0]["path"]
    assert {"audio", "music"} <= set(frontmatter(link).get("tags") or []), link.read_text()
    assert "summarise the argument" in link.read_text()
    assert filed[0]["classified_by"] == "youtube"
