"""A link the person typed names the note it links, on a real vault with the daemon as a
subprocess, whatever the link holds and whatever the classifier makes of it: an arrow
inside a link to a note not made yet (``[[Kiln → Glaze]]``) is that note's name, never a
person "Kiln"; a link to a heading of a known person is that person; an embed of a project
is that project; a Markdown link to a note is that note; a link inside a code span or with
escaped brackets is text, and leaves no brackets in a title; an arrow and a link the person
types after the id of a taken line are their text, never a gesture, and the line is done."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from support.cli import frontmatter, run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply, thought_of

ARROW = "talk to [[Kiln → Glaze]] about the launch"
HEADING = "lunch with [[Sam#Work]] on Friday"
EMBED = "see ![[Kiln plan]] tomorrow"
MDLINK = "call [Sammy](People/Sam.md) about rent"
CODE = "document the `[[Sam]]` syntax"
ESCAPED = "escaped \\[\\[Nope\\]\\] brackets for Ann"
THOUGHTS = [ARROW, HEADING, EMBED, MDLINK, CODE, ESCAPED]


def _answer(body: dict) -> str:
    """What a classifier may say: the words around an arrow in a link as a person, a
    heading run into the name, the alias of a Markdown link, the text with its brackets."""
    thought = thought_of(body)

    def one(kind: str, title: str) -> str:
        return reply([{"type": kind, "title": title, "fields": {}}], 0.95, "test")

    if "launch" in thought:
        return one("person", "Kiln")
    if "lunch" in thought:
        return one("person", "Sam Work")
    if "tomorrow" in thought:
        return one("idea", "Kiln plan")
    if "rent" in thought:
        return one("person", "Sammy")
    if "syntax" in thought:
        return one("idea", "Document the [[Sam]] syntax")
    return one("person", "Ann")


def _note(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntype: {kind}\n---\n", "utf-8")


def _captures(vault: Path) -> dict[str, dict]:
    return {c["text"]: c for c in json.loads(run(vault, "inbox", "--json").output)}


def _line(vault: Path, text: str) -> str:
    return next(x for x in (vault / "Inbox.md").read_text("utf-8").split("\n") if text in x)


def test_a_typed_link_names_its_note_whatever_it_holds(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    _note(vault / "People/Sam.md", "person")
    _note(vault / "Projects/Kiln plan.md", "project")
    lmstudio.responder = _answer
    with (vault / "Inbox.md").open("a", encoding="utf-8") as fh:
        fh.writelines(f"- {t}\n" for t in THOUGHTS)
    proc = daemon()
    proc.start()
    proc.wait_ready()
    for t in THOUGHTS:
        wait_for(lambda t=t: _captures(vault).get(t, {}).get("status") == "filed", 30, proc.log)
        wait_for(lambda t=t: "⏳" not in _line(vault, t), 30, proc.log)
    caps = _captures(vault)
    paths = {t: sorted(d["path"] for d in caps[t]["destinations"]) for t in THOUGHTS}
    assert paths[ARROW] == ["People/Kiln → Glaze.md"]
    assert paths[HEADING] == ["People/Sam.md"]
    assert paths[EMBED] == ["Projects/Kiln plan.md"]
    assert paths[MDLINK] == ["People/Sam.md"]
    assert paths[ESCAPED] == ["People/Ann.md"]
    (idea,) = paths[CODE]
    assert "[" not in idea and "[[" not in str(frontmatter(vault / idea))
    people = sorted(p.name for p in (vault / "People").glob("*.md"))
    assert people == ["Ann.md", "Kiln → Glaze.md", "Sam.md"]  # no Kiln, Sam Work, Sammy
    assert not list((vault / "Ideas").glob("Kiln*.md"))
    # Each line keeps the person's words byte for byte, ticked, with the links after them.
    for t in THOUGHTS:
        assert _line(vault, t).startswith(f"- [x] {t} → [["), t
    # The person's link resolves to the note made for it.
    assert "[[People/Kiln → Glaze|Kiln → Glaze]]" in _line(vault, ARROW)

    # An arrow and a link typed after the id: the person's text, no gesture, line done.
    before = (vault / "Inbox.md").read_text("utf-8")
    line = _line(vault, HEADING)
    typed = line + " → [[Projects/Kiln plan]]"
    (vault / "Inbox.md").write_text(before.replace(line, typed), "utf-8")
    run(vault, "capture", "a thought after the typed arrow")
    wait_for(lambda: "a thought after the typed arrow" in _captures(vault), 30, proc.log)
    wait_for(lambda: "⏳" not in _line(vault, "typed arrow"), 30, proc.log)
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()
    assert _line(vault, HEADING) == typed
    caps = _captures(vault)
    assert caps[HEADING]["status"] == "filed"
    assert sorted(d["path"] for d in caps[HEADING]["destinations"]) == ["People/Sam.md"]
    assert len(caps) == len(THOUGHTS) + 1
