"""The person's Markdown in a thought, end to end on a real vault with the daemon as a
subprocess (issue 47, item 1): a strike-through in a thought is its words, so ticking its
suggestion confirms it and nothing is dismissed; a typed wikilink files into the note it
links, never a new one; a thought's own arrow and link stay on its line, and it is filed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply

STRUCK = "the call moved from ~~Monday~~ to Friday"
ALIAS = "Lunch with [[People/Sarah Connor|Sarah]] next week"
PROJECT = "Talk about [[Projects/Kiln]] budget with Tom"
ARROW = "ping Bob → [[Projects/Kiln]]"


def _answer(body: dict) -> str:
    """What a classifier may say of each thought: the titles with the person's syntax in
    them, the link's alias and target run together, a linked project taken for a person."""
    said = json.dumps(body["messages"][-1], ensure_ascii=False)
    if "Monday" in said:
        return reply([{"type": "admin", "title": STRUCK, "fields": {}}], 0.6, "a task")
    if "Lunch" in said:
        return reply([{"type": "person", "title": "Sarah Connor Sarah", "fields": {}}], 0.95, "p")
    if "budget" in said:
        return reply(
            [
                {"type": "person", "title": "Kiln", "fields": {}},
                {"type": "person", "title": "Tom", "fields": {}},
            ],
            0.95,
            "people",
        )
    if "ping" in said:
        return reply([{"type": "person", "title": "Bob", "fields": {}}], 0.95, "a person")
    return reply([{"type": "idea", "title": "Other", "fields": {}}], 0.95, "an idea")


def _note(path: Path, kind: str, title: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntype: {kind}\n---\n# {title}\n", "utf-8")


@pytest.fixture(params=["full", "minimal"])
def started(
    request: pytest.FixtureRequest,
    vault: Path,
    lmstudio: FakeLMStudio,
    daemon: Callable[..., DaemonProcess],
) -> Iterator[tuple[Path, DaemonProcess]]:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    run(vault, "settings", "set", "note_style", request.param)
    _note(vault / "People/Sarah Connor.md", "person", "Sarah Connor")
    _note(vault / "Projects/Kiln.md", "project", "Kiln")
    lmstudio.responder = _answer
    proc = daemon()
    proc.start()
    proc.wait_ready()
    yield vault, proc
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()


def _captures(vault: Path) -> dict[str, dict]:
    return {c["text"]: c for c in json.loads(run(vault, "inbox", "--json").output)}


def _line(vault: Path, text: str) -> str:
    return next(x for x in (vault / "Inbox.md").read_text("utf-8").splitlines() if text in x)


def _write(vault: Path, *thoughts: str) -> None:
    with (vault / "Inbox.md").open("a", encoding="utf-8") as fh:
        fh.writelines(f"- {t}\n" for t in thoughts)


def test_a_struck_word_in_a_thought_is_text_and_ticking_confirms(
    started: tuple[Path, DaemonProcess],
) -> None:
    vault, proc = started
    _write(vault, STRUCK)
    wait_for(lambda: _captures(vault).get(STRUCK, {}).get("status") == "suggested", 30, proc.log)
    made = vault / "Admin/the call moved from Monday to Friday.md"
    assert made.exists()  # the title keeps the words, not the tildes
    line = _line(vault, STRUCK)
    cid = re.search(r"\^vb-([a-z0-9]+)", line).group(1)  # type: ignore[union-attr]
    assert line.startswith(f"- [ ] {STRUCK} ")
    text = (vault / "Inbox.md").read_text("utf-8")
    (vault / "Inbox.md").write_text(text.replace(f"- [ ] {STRUCK}", f"- [x] {STRUCK}"), "utf-8")
    wait_for(lambda: _captures(vault)[STRUCK]["status"] == "filed", 30, proc.log)
    wait_for(lambda: "suggest" not in _line(vault, STRUCK), 30, proc.log)
    # Filed, and it stays filed: the next passes read its line and find no strike of theirs.
    _write(vault, "a thought after the tick")
    wait_for(lambda: "a thought after the tick" in _captures(vault), 30, proc.log)
    wait_for(lambda: "⏳" not in _line(vault, "a thought after the tick"), 30, proc.log)
    assert _captures(vault)[STRUCK]["status"] == "filed"
    assert made.exists() and not list((vault / "Brain").glob("Archive/*.md"))
    trail = run(vault, "trust", "--json").output
    assert "dismiss" not in json.dumps([e for e in json.loads(trail) if cid in json.dumps(e)])
    assert _line(vault, STRUCK).startswith(f"- [x] {STRUCK} → ")


def test_a_typed_wikilink_files_into_the_note_it_links(
    started: tuple[Path, DaemonProcess],
) -> None:
    vault, proc = started
    _write(vault, ALIAS, PROJECT, ARROW)
    for thought in (ALIAS, PROJECT, ARROW):
        wait_for(
            lambda t=thought: _captures(vault).get(t, {}).get("status") == "filed", 30, proc.log
        )
    people = sorted(p.name for p in (vault / "People").glob("*.md"))
    assert people == ["Bob.md", "Sarah Connor.md", "Tom.md"]  # no "Sarah Connor Sarah", no "Kiln"
    assert sorted(p.name for p in (vault / "Projects").glob("*.md")) == ["Kiln.md"]
    caps = _captures(vault)
    assert {d["path"] for d in caps[ALIAS]["destinations"]} == {"People/Sarah Connor.md"}
    assert {d["path"] for d in caps[PROJECT]["destinations"]} == {
        "Projects/Kiln.md",
        "People/Tom.md",
    }
    # The thought's own arrow and link stay its words, and its line is finished.
    wait_for(lambda: "⏳" not in _line(vault, ARROW), 30, proc.log)
    line = _line(vault, ARROW)
    assert line.startswith(f"- [x] {ARROW} → ")
    assert "[[People/Bob" in line.split(ARROW, 1)[1]


def test_a_link_to_a_note_not_made_yet_names_the_new_note(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    """``[[Zed Quinn|Zed]]``: the new person note is the link's, so the person's own link
    resolves to it; a link to a heading of a known person is that person."""
    run(vault, "init")
    run(vault, "settings", "set", "second_opinion", "false")
    _note(vault / "People/Sarah Connor.md", "person", "Sarah Connor")

    def answer(body: dict) -> str:
        said = json.dumps(body["messages"][-1], ensure_ascii=False)
        name = "Zed" if "Zed" in said else "Sarah"
        return reply([{"type": "person", "title": name, "fields": {}}], 0.95, "a person")

    lmstudio.responder = answer
    out = run(vault, "capture", "Coffee with [[Zed Quinn|Zed]] on Monday").output
    assert "People/Zed Quinn.md" in out
    out = run(vault, "capture", "Ask [[People/Sarah Connor#Follow-ups|Sarah]] about glazes").output
    assert "People/Sarah Connor.md" in out
    assert sorted(p.name for p in (vault / "People").glob("*.md")) == [
        "Sarah Connor.md",
        "Zed Quinn.md",
    ]
    inbox = (vault / "Inbox.md").read_text("utf-8")
    assert "- [x] Coffee with [[Zed Quinn|Zed]] on Monday → [[People/Zed Quinn|Zed Quinn]]" in inbox


def test_a_captured_thought_keeps_its_arrow_and_link(vault: Path, lmstudio: FakeLMStudio) -> None:
    """``vaultbrain capture`` draws the finished line around the thought as typed: its own
    ``→ [[Projects/Kiln]]`` is not taken for vaultbrain's suffix (which would drop the link and
    leave the line waiting for ever)."""
    run(vault, "init")
    run(vault, "settings", "set", "second_opinion", "false")
    _note(vault / "Projects/Kiln.md", "project", "Kiln")
    lmstudio.responder = _answer
    run(vault, "capture", ARROW)
    run(vault, "capture", "meeting moved → Friday")
    line = _line(vault, ARROW)
    assert re.fullmatch(
        re.escape(f"- [x] {ARROW} → [[People/Bob|Bob]] · [[Projects/Kiln|Kiln]] ^vb-")
        + "[a-z0-9]+",
        line,
    ), line
    other = _line(vault, "meeting moved")
    assert other.startswith("- [x] meeting moved → Friday → [[") and "⏳" not in other, other
