"""An inbox's own line endings through the whole path, on a real vault with the daemon as a
subprocess: a Windows (CRLF) inbox, an old Mac one (lone CR, with Properties), a mixed one,
and a thought holding U+2028. Obsidian's editor (CodeMirror) ends a line at ``\\r\\n``,
``\\r`` and ``\\n`` and at nothing else, so a lone CR is a line break (two thoughts, as the
person sees two lines) and U+2028 is not (one thought). Each line is taken once, keeps its
ending, and the person's gestures on it (a correction, a dismissal) and a CLI capture added
while the daemon runs keep the file's endings."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply, thought_of

HEAD = "---{nl}tags:{nl}  - inbox{nl}---{nl}# Inbox{nl}{nl}"
THOUGHTS = ["Call Sarah about the kiln", "buy milk", "and eggs", "idea: a line\u2028still one"]


def _answer(body: dict) -> str:
    thought = thought_of(body)
    if "Sarah" in thought:
        return reply([{"type": "person", "title": "Sarah", "fields": {}}], 0.95, "a person")
    if "idea" in thought:
        return reply([{"type": "idea", "title": "A line still one", "fields": {}}], 0.95, "i")
    title = thought.strip().capitalize()
    return reply([{"type": "admin", "title": title, "fields": {}}], 0.95, "a task")


def _inbox(kind: str) -> bytes:
    """The inbox as an editor of each kind saves it: every line ends with its ending; a
    lone CR inside "buy milk / and eggs" in each (two lines to Obsidian)."""
    nl = {"crlf": "\r\n", "cr": "\r", "mixed": "\r\n"}[kind]
    lines = [f"- {THOUGHTS[0]}{nl}", f"- {THOUGHTS[1]}\r- {THOUGHTS[2]}{nl}"]
    lines.append(f"- {THOUGHTS[3]}" + ("\n" if kind == "mixed" else nl))
    return (HEAD.format(nl=nl) + "".join(lines)).encode("utf-8")


def _captures(vault: Path) -> dict[str, dict]:
    return {c["text"]: c for c in json.loads(run(vault, "inbox", "--json").output)}


def _lines(data: bytes) -> list[str]:
    """The note's lines as Obsidian reads them, each with its ending."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", data.decode("utf-8"))


@pytest.mark.parametrize("kind", ["crlf", "cr", "mixed"])
def test_each_line_ending_is_kept_through_take_gesture_and_capture(
    kind: str, vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    lmstudio.responder = _answer
    inbox = vault / "Inbox.md"
    before = _inbox(kind)
    inbox.write_bytes(before)
    endings = [line[len(line.rstrip("\r\n")) :] for line in _lines(before)]
    proc = daemon()
    proc.start()
    proc.wait_ready()
    wait_for(
        lambda: all(_captures(vault).get(t, {}).get("status") == "filed" for t in THOUGHTS),
        40,
        proc.log,
    )
    wait_for(lambda: inbox.read_bytes().count("→ [[".encode()) == 4, 30, proc.log)
    after = _lines(inbox.read_bytes())
    # The same lines, each with its own ending; the frontmatter and heading byte for byte.
    assert [line[len(line.rstrip("\r\n")) :] for line in after] == endings
    assert after[:6] == _lines(before)[:6]
    taken = [line for line in after if "^vb-" in line]
    assert [line.split("] ", 1)[1].split(" → ")[0] for line in taken] == THOUGHTS
    assert all(line.startswith("- [x] ") for line in taken)
    assert len(_captures(vault)) == 4  # two for the lone CR, one for U+2028: none twice
    assert (vault / "Ideas/A line still one.md").exists()

    # Gestures on the lines: a correction on the line after the lone CR, a dismissal.
    data = inbox.read_bytes().decode("utf-8")
    data = data.replace("- [x] and eggs →", "- [x] and eggs → idea →", 1)
    data = data.replace("- [x] buy milk", "- [-] buy milk", 1)
    inbox.write_bytes(data.encode("utf-8"))
    wait_for(lambda: _captures(vault)["buy milk"]["status"] == "dismissed", 30, proc.log)
    wait_for(lambda: _captures(vault)["and eggs"]["status"] == "corrected", 30, proc.log)
    wait_for(lambda: b"idea \xe2\x86\x92" not in inbox.read_bytes(), 30, proc.log)
    # A capture from the command line while the daemon runs: a line of the file's kind.
    run(vault, "capture", "water the plants")
    wait_for(lambda: _captures(vault).get("water the plants", {}).get("status") == "filed", 30)
    wait_for(lambda: b"water the plants \xe2\x86\x92" in inbox.read_bytes(), 30, proc.log)
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()
    final = _lines(inbox.read_bytes())
    assert len(final) == len(after) + 1
    assert [line[len(line.rstrip("\r\n")) :] for line in final[: len(after)]] == endings
    added = final[-1]
    assert "water the plants" in added
    assert added.endswith({"crlf": "\r\n", "cr": "\r", "mixed": "\r\n"}[kind])
    assert not added.endswith("\n\n") and "\r\r" not in added
    assert len(_captures(vault)) == 5
    assert _captures(vault)["idea: a line\u2028still one"]["status"] == "filed"
