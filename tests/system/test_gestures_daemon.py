"""The person's gestures, made as in Obsidian on a real vault, carried out by the daemon as a
subprocess (the table of tests/unit/test_gestures.py, end to end): on the inbox line and in
``Brain/Needs Review.md``. Each test files one thought as a suggestion (People/Sarah +
Projects/Kiln, from a loopback LLM server), makes one gesture, and checks what became of the
capture, its notes and its line. A gesture that means nothing is checked after the daemon
has provably read the edit: a new line written in the same save is taken."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.cli import frontmatter, run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply

REVIEW = "Brain/Needs Review.md"
SARAH = {"type": "person", "title": "Sarah", "fields": {}}
KILN = {"type": "project", "title": "Kiln", "fields": {"status": "planned"}}
THOUGHT = "Met Sarah about the kiln"


class Scene:
    def __init__(self, vault: Path, daemon: DaemonProcess) -> None:
        self.vault = vault
        self.daemon = daemon
        self.inbox = vault / "Inbox.md"

    # -- reading -------------------------------------------------------------------------
    def captures(self) -> dict[str, dict]:
        result = run(self.vault, "inbox", "--limit", "1000", "--json")
        return {r["id"]: r for r in json.loads(result.output)}

    def status(self, cid: str) -> str:
        return self.captures()[cid]["status"]

    def line(self, cid: str) -> str:
        return next(x for x in self.inbox.read_text("utf-8").splitlines() if f"^vb-{cid}" in x)

    def lines(self) -> list[str]:
        return self.inbox.read_text("utf-8").splitlines()

    def review_line(self, cid: str) -> str:
        text = (self.vault / REVIEW).read_text("utf-8")
        return next(x for x in text.splitlines() if f"^vbr-{cid}" in x)

    # -- doing ---------------------------------------------------------------------------
    def write_line(self, text: str) -> None:
        with self.inbox.open("a", encoding="utf-8") as fh:
            fh.write(f"- {text}\n")

    def suggested(self, text: str = THOUGHT) -> str:
        """A thought filed as a suggestion, shown in the inbox and in Needs Review."""
        self.write_line(text)
        wait_for(
            lambda: self._id_of(text) and "suggest" in self.line(self._id_of(text)),
            30,
            self.daemon.log,
        )
        cid = self._id_of(text)
        wait_for(
            lambda: (
                (self.vault / REVIEW).exists()
                and f"^vbr-{cid}" in (self.vault / REVIEW).read_text("utf-8")
            ),
            30,
            self.daemon.log,
        )
        return cid

    def _id_of(self, text: str) -> str:
        for line in self.lines():
            m = re.search(r"\^vb-([a-z0-9]+)", line)
            if m and text in line:
                return m.group(1)
        return ""

    def edit_inbox(self, cid: str, change: Callable[[str], str], then: str | None = None) -> None:
        """Change the capture's inbox line as a person would (one save), with a new line
        ``then`` written in the same save when given."""
        text = self.inbox.read_text("utf-8")
        lines = text.splitlines(keepends=True)
        for i, line in enumerate(lines):
            if f"^vb-{cid}" in line:
                lines[i] = change(line.rstrip("\n")) + "\n"
                break
        if then:
            lines.append(f"- {then}\n")
        self.inbox.write_text("".join(lines), "utf-8")

    def edit_review(self, cid: str, change: Callable[[str], str]) -> None:
        path = self.vault / REVIEW
        lines = path.read_text("utf-8").splitlines(keepends=True)
        for i, line in enumerate(lines):
            if f"^vbr-{cid}" in line:
                lines[i] = change(line.rstrip("\n")) + "\n" if change(line.rstrip("\n")) else ""
                break
        path.write_text("".join(lines), "utf-8")

    def wait_status(self, cid: str, status: str) -> None:
        wait_for(lambda: self.status(cid) == status, 30, self.daemon.log)

    def wait_taken(self, text: str) -> None:
        """The daemon took ``text``: it read the inbox as the person left it."""
        wait_for(lambda: bool(self._id_of(text)), 30, self.daemon.log)
        wait_for(lambda: "⏳" not in self.line(self._id_of(text)), 30, self.daemon.log)


@pytest.fixture(params=["full"])
def scene(
    request: pytest.FixtureRequest,
    vault: Path,
    lmstudio: FakeLMStudio,
    daemon: Callable[..., DaemonProcess],
) -> Iterator[Scene]:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    # The long suffix (the most of ours on a line to gesture around); the short one has
    # its own tests below.
    run(vault, "settings", "set", "note_style", request.param)
    lmstudio.responder = lambda body: (
        reply([SARAH, KILN], 0.6, "a person and a project")
        if "kiln" in json.dumps(body["messages"][-1]).lower()
        else reply([{"type": "idea", "title": "Other", "fields": {}}], 0.95, "an idea")
    )
    proc = daemon()
    proc.start()
    proc.wait_ready()
    s = Scene(vault, proc)
    yield s
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()


def _archived(vault: Path, name: str) -> bool:
    return any(p.name == name for p in (vault / "Brain" / "Archive").glob("*.md"))


# -- the inbox line -----------------------------------------------------------------------------
def test_ticking_the_inbox_line_confirms(scene: Scene) -> None:
    cid = scene.suggested()
    scene.edit_inbox(cid, lambda line: line.replace("- [ ]", "- [x]", 1))
    scene.wait_status(cid, "filed")
    expected = f"- [x] {THOUGHT} → [[People/Sarah|Sarah]] · [[Projects/Kiln|Kiln]] ^vb-{cid}"
    wait_for(lambda: scene.line(cid) == expected, 30, scene.daemon.log)  # the last step
    assert "confirmed" not in frontmatter(scene.vault / "People/Sarah.md")
    wait_for(lambda: f"^vbr-{cid}" not in (scene.vault / REVIEW).read_text("utf-8"), 30)
    assert f"capture {cid}: confirmed (ticked in the inbox)" in scene.daemon.output()


@pytest.mark.parametrize(
    "gesture",
    [
        lambda line: line.replace("- [ ]", "- [-]", 1),
        lambda line: line.replace(THOUGHT, f"~~{THOUGHT}~~", 1),
        lambda line: f"{line[:6]}~~{line[6:]}~~",
    ],
    ids=["cancelled [-]", "words struck", "whole line struck"],
)
def test_striking_or_cancelling_the_inbox_line_dismisses(scene: Scene, gesture) -> None:
    cid = scene.suggested()
    scene.edit_inbox(cid, gesture)
    scene.wait_status(cid, "dismissed")
    assert not (scene.vault / "People/Sarah.md").exists()
    assert _archived(scene.vault, "Sarah.md") and _archived(scene.vault, "Kiln.md")
    wait_for(lambda: "→ dismissed" in scene.line(cid), 30)
    assert scene.line(cid).startswith("- [x] ")


@pytest.mark.parametrize(
    "gesture",
    [
        lambda line: f"{line} → project",
        lambda line: f"{line} →project",
        lambda line: line.replace(" ^vb-", " → project ^vb-", 1),
        lambda line: line.replace(f"{THOUGHT} ", f"{THOUGHT} -> Projects ", 1),
    ],
    ids=["after the id", "after the id, no space", "after our suffix", "before our suffix"],
)
def test_an_arrow_on_the_inbox_line_files_that_type(scene: Scene, gesture) -> None:
    cid = scene.suggested()
    scene.edit_inbox(cid, gesture)
    wait_for(lambda: scene.status(cid) == "filed", 30, scene.daemon.log)
    expected = f"- [x] {THOUGHT} → [[Projects/Kiln|Kiln]] ^vb-{cid}"
    wait_for(lambda: scene.line(cid) == expected, 30, scene.daemon.log)  # the arrow consumed
    cap = scene.captures()[cid]
    assert [d["type"] for d in cap["destinations"]] == ["project"]
    kiln = scene.vault / "Projects/Kiln.md"
    assert "confirmed" not in frontmatter(kiln)
    # The person the thought no longer names is archived, and no link of ours points at it.
    assert not (scene.vault / "People/Sarah.md").exists() and _archived(scene.vault, "Sarah.md")
    assert "People/Sarah" not in kiln.read_text("utf-8")


def test_several_types_keep_some_notes_and_add_the_missing_one(scene: Scene) -> None:
    cid = scene.suggested()
    scene.edit_inbox(cid, lambda line: f"{line} -> person, admin")
    scene.wait_status(cid, "filed")
    types = [d["type"] for d in scene.captures()[cid]["destinations"]]
    assert sorted(types) == ["admin", "person"]
    assert (scene.vault / "People/Sarah.md").exists() and _archived(scene.vault, "Kiln.md")
    assert "Projects/Kiln" not in (scene.vault / "People/Sarah.md").read_text("utf-8")


def test_a_misspelt_type_does_nothing_and_says_why_in_needs_review(scene: Scene) -> None:
    cid = scene.suggested()
    scene.edit_inbox(cid, lambda line: f"{line} → projcet", then="typed a second thought")
    scene.wait_taken("typed a second thought")
    wait_for(lambda: "not a type" in scene.review_line(cid), 30, scene.daemon.log)
    assert scene.status(cid) == "suggested"
    assert scene.line(cid).endswith("→ projcet")  # the person's words stay until they fix them


@pytest.mark.parametrize(
    ("gesture", "kept"),
    [
        (
            lambda line: line.replace(" (suggested", " -- ask Tom first (suggested", 1),
            "-- ask Tom first",
        ),
        (lambda line: f"{line} and bring cake", "and bring cake"),
        (lambda line: line.replace(" ^vb-", " -- later ^vb-", 1), "-- later"),
    ],
    ids=["inside our suffix", "after the id", "after our suffix"],
)
def test_text_typed_on_the_line_is_theirs_and_means_nothing(scene: Scene, gesture, kept) -> None:
    cid = scene.suggested()
    scene.edit_inbox(cid, gesture, then="typed a second thought")
    scene.wait_taken("typed a second thought")
    assert scene.status(cid) == "suggested" and kept in scene.line(cid)
    # Confirmed afterwards: the line takes its new form, their words stay, nothing doubles.
    run(scene.vault, "review", "confirm", cid)
    line = scene.line(cid)
    assert kept in line and line.count("[[Projects/Kiln|Kiln]]") == 1 and "(suggested" not in line


def test_unticking_a_filed_line_means_nothing(scene: Scene) -> None:
    scene.write_line("a filed idea")
    scene.wait_taken("a filed idea")
    cid = scene._id_of("a filed idea")
    assert scene.status(cid) == "filed"
    scene.edit_inbox(
        cid, lambda line: line.replace("- [x]", "- [ ]", 1), then="typed a second thought"
    )
    scene.wait_taken("typed a second thought")
    assert scene.status(cid) == "filed" and scene.line(cid).startswith("- [ ] a filed idea → ")


@pytest.mark.parametrize(
    "edit",
    ["id removed", "id moved to the front", "moved under a heading", "swapped", "pasted twice"],
)
def test_moving_the_line_or_its_id_changes_nothing(scene: Scene, edit: str) -> None:
    cid = scene.suggested()
    other = scene.suggested("typed one more about the kiln")
    text = scene.inbox.read_text("utf-8")
    line = scene.line(cid)
    if edit == "id removed":
        text = text.replace(line, line.replace(f" ^vb-{cid}", ""))
    elif edit == "id moved to the front":
        text = text.replace(
            line, line.replace(f" ^vb-{cid}", "").replace("- [ ] ", f"- [ ] ^vb-{cid} ", 1)
        )
    elif edit == "moved under a heading":
        text = text.replace(line + "\n", "") + f"\n## Later\n{line}\n"
    elif edit == "swapped":
        second = scene.line(other)
        text = text.replace(line, "\0").replace(second, line).replace("\0", second)
    else:
        text = text.replace(line + "\n", line + "\n" + line + "\n")
    scene.inbox.write_text(text + "- typed a second thought\n", "utf-8")
    scene.wait_taken("typed a second thought")
    caps = scene.captures()
    assert caps[cid]["status"] == "suggested" and caps[other]["status"] == "suggested"
    assert sum(1 for c in caps.values() if c["text"] == THOUGHT) == 1  # never a second capture
    assert scene.line(cid).endswith(f"^vb-{cid}") or edit == "pasted twice"
    assert (scene.vault / "People/Sarah.md").exists()


# -- Needs Review -----------------------------------------------------------------------------
def test_ticking_in_needs_review_confirms(scene: Scene) -> None:
    cid = scene.suggested()
    scene.edit_review(cid, lambda line: line.replace("- [ ]", "- [x]", 1))
    scene.wait_status(cid, "filed")
    wait_for(lambda: scene.line(cid).startswith("- [x] "), 30)


@pytest.mark.parametrize(
    "gesture",
    [lambda line: f"{line} → project", lambda line: line.replace(" ^vbr-", " -> project ^vbr-", 1)],
    ids=["after the id", "before the id"],
)
def test_an_arrow_in_needs_review_files_that_type(scene: Scene, gesture) -> None:
    cid = scene.suggested()
    scene.edit_review(cid, gesture)
    scene.wait_status(cid, "filed")
    assert [d["type"] for d in scene.captures()[cid]["destinations"]] == ["project"]
    assert _archived(scene.vault, "Sarah.md")
    assert "People/Sarah" not in (scene.vault / "Projects/Kiln.md").read_text("utf-8")


@pytest.mark.parametrize(
    "gesture",
    [
        lambda line: line.replace("- [ ] ", "- [ ] ~~", 1).replace(" ^vbr-", "~~ ^vbr-", 1),
        lambda line: line.replace("- [ ]", "- [-]", 1),
        lambda line: "",
    ],
    ids=["struck", "cancelled [-]", "deleted"],
)
def test_striking_cancelling_or_deleting_in_needs_review_dismisses(scene: Scene, gesture) -> None:
    cid = scene.suggested()
    scene.edit_review(cid, gesture)
    scene.wait_status(cid, "dismissed")
    wait_for(lambda: "→ dismissed" in scene.line(cid), 30)
    assert _archived(scene.vault, "Sarah.md")


# -- the short suffix (note_style minimal, the default) ------------------------------------------
SHORT = "→ [[Brain/Needs Review|2 suggestions]]"


@pytest.mark.parametrize("scene", ["minimal"], indirect=True)
def test_the_short_suffix_reads_the_same_gestures(scene: Scene) -> None:
    cid = scene.suggested()
    assert scene.line(cid) == f"- [ ] {THOUGHT} {SHORT} ^vb-{cid}"
    scene.edit_inbox(cid, lambda line: f"{line} → project")
    scene.wait_status(cid, "filed")
    expected = f"- [x] {THOUGHT} → [[Projects/Kiln|Kiln]] ^vb-{cid}"
    wait_for(lambda: scene.line(cid) == expected, 30, scene.daemon.log)
    other = scene.suggested("typed one more about the kiln")
    scene.edit_inbox(other, lambda line: line.replace(" ^vb-", " and ask Bo ^vb-", 1))
    scene.edit_inbox(other, lambda line: line.replace("- [ ]", "- [x]", 1))
    scene.wait_status(other, "filed")
    wait_for(lambda: scene.line(other).startswith("- [x] typed one more about the kiln → [["), 30)
    assert "and ask Bo" in scene.line(other) and "suggestion" not in scene.line(other)


@pytest.mark.parametrize("scene", ["minimal"], indirect=True)
def test_a_short_line_without_its_id_is_still_ours(scene: Scene) -> None:
    cid = scene.suggested()
    scene.edit_inbox(
        cid, lambda line: line.replace(f" ^vb-{cid}", ""), then="typed a second thought"
    )
    scene.wait_taken("typed a second thought")
    wait_for(lambda: scene.line(cid).endswith(f"^vb-{cid}"), 30, scene.daemon.log)
    assert sum(1 for c in scene.captures().values() if c["text"] == THOUGHT) == 1
