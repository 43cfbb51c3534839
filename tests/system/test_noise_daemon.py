"""Machine text pasted into the inbox files nothing (classify/noise.py and its noise_*
modules), on a real vault with the daemon as a subprocess: each line is left in the inbox
with a mark that says which kind of noise it is, Needs Review says the same, and no note is
made, whether no LLM is set up or a loopback LLM answers that every line is a person and a
project. A thought that only looks like machine text is filed as the thought it is."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from support.cli import run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply

REVIEW = "Brain/Needs Review.md"
RECORDS = ("People", "Projects", "Ideas", "Admin", "Links", "Memories")
NOISE = {
    "user@nas:~/backups$ rsync -av photos/ /mnt/usb/": "a shell command",
    # pasted as it was: the inbox reads "+ " as a list marker, and the code is left
    "+ return self.store.lookup(name)": "a line of code",
    "@@ -40,7 +40,9 @@ class Store:": "a diff line",
    "Kind regards, Maya Chen | Studio Manager | +44 161 496 0321": "an e-mail signature",
    "~/Documents/tax/2026-return.pdf": "a file path",
    "SELECT name, due FROM tasks WHERE done = 0;": "an SQL statement",
    "From: Maya Chen <maya@studio-chen.example>": "an e-mail header",
}
LOOKALIKE = "SELECT a caterer for the launch party"


def _inbox(vault: Path) -> str:
    return (vault / "Inbox.md").read_text("utf-8")


def _line_of(vault: Path, text: str) -> str:
    return next((x for x in _inbox(vault).splitlines() if text in x), "")


def _notes(vault: Path) -> list[str]:
    return sorted(
        str(p.relative_to(vault)) for folder in RECORDS for p in (vault / folder).glob("*.md")
    )


def _start(
    vault: Path, daemon: Callable[..., DaemonProcess], *texts: str, llm: bool
) -> DaemonProcess:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    if not llm:
        run(vault, "settings", "set", "provider", "heuristic")
    proc = daemon()
    proc.start()
    proc.wait_ready()
    with (vault / "Inbox.md").open("a", encoding="utf-8") as fh:
        fh.writelines(f"{t}\n" for t in texts)  # pasted as they are, no list marker
    return proc


def _wait_marked(vault: Path, proc: DaemonProcess, *texts: str) -> None:
    for text in (t.lstrip("+ ") for t in texts):
        wait_for(lambda t=text: re.search(r"\^vb-\w+", _line_of(vault, t)), 30, proc.log)
        wait_for(lambda t=text: "⏳" not in _line_of(vault, t), 30, proc.log)


def _assert_noise_marked(vault: Path, proc: DaemonProcess) -> None:
    for text, kind in NOISE.items():
        line = _line_of(vault, text.lstrip("+ "))
        assert f"needs review: noise: {kind}" in line, line
        assert "[x]" not in line  # left for the person, not ticked
    wait_for(lambda: all(f"(noise: {k})" in _review(vault) for k in NOISE.values()), 30, proc.log)


def _review(vault: Path) -> str:
    path = vault / REVIEW
    return path.read_text("utf-8") if path.exists() else ""


def test_machine_text_files_nothing_and_says_which_kind_with_no_llm(
    vault: Path, daemon: Callable[..., DaemonProcess]
) -> None:
    proc = _start(vault, daemon, *NOISE, llm=False)
    _wait_marked(vault, proc, *NOISE)
    _assert_noise_marked(vault, proc)
    assert _notes(vault) == []
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()


def test_machine_text_files_nothing_whatever_the_model_says_and_a_lookalike_is_filed(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    def answer(body: dict) -> str:
        said = json.dumps(body["messages"][-1])
        if "caterer" in said:
            return reply([{"type": "admin", "title": "Choose a caterer", "fields": {}}], 0.97)
        # a model that takes every pasted line for a person and a project, sure of it
        return reply(
            [
                {"type": "person", "title": "Maya Chen", "fields": {}},
                {"type": "project", "title": "Backups", "fields": {}},
            ],
            0.97,
        )

    lmstudio.responder = answer
    proc = _start(vault, daemon, *NOISE, LOOKALIKE, llm=True)
    _wait_marked(vault, proc, *NOISE, LOOKALIKE)
    _assert_noise_marked(vault, proc)
    assert "noise" not in _line_of(vault, LOOKALIKE)
    # the thought became what it says; nothing the model read into the noise was made
    wait_for(lambda: _notes(vault) != [], 30, proc.log)
    notes = _notes(vault)
    assert "People/Maya Chen.md" not in notes and "Projects/Backups.md" not in notes
    assert any("caterer" in n.lower() for n in notes), notes
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()
