"""Markdown a person really types in an inbox, through a real vault with the daemon as a
subprocess (issue 47's classes, cases of our own): an Obsidian comment opened in the middle
of a line hides the lines after it until it closes; a line of only tags or only a footnote
reference is no thought; characters Obsidian shows as nothing (a zero-width space, a
direction override) never reach a title or a file name; nested emphasis, HTML entities,
a callout, other checkbox states, a Tasks emoji inside code, RTL text and a lone link are
read as Obsidian shows them. Every line is kept byte for byte apart from our rewrite of the
lines taken, and none is taken twice."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from support.cli import frontmatter, run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply, thought_of

# The thought as typed, and the title a classifier gives it: what it was given, or, for the
# invisible characters, the thought as typed (an LLM may echo them).
TAKEN = {
    "buy paint %% a note to self that": "Buy paint",
    "***really*** call **Ann _today_** about the fence": "Call **Ann _today_** about the fence",
    "buy milk &amp; eggs for Dana": "Buy milk &amp; eggs for Dana",
    "document the `📅 2026-01-05` syntax for the team": "Document the `📅 2026-01-05` syntax",
    "call\u200bSam about the lease": "Call\u200bSam about the lease",
    "call \u202eTom\u202c about rent": "Call \u202eTom\u202c about rent",
    "להתקשר לדנה מחר בבוקר": "להתקשר לדנה מחר בבוקר",
    "[[Sam]]": "Sam",
    "pottery course next spring[^1]": "Pottery course next spring[^1]",
}
LINES = [
    "- buy paint %% a note to self that",
    "goes on in the comment %% until here",  # inside the comment: hidden
    *(f"- {t}" for t in list(TAKEN)[1:]),
    "- #todo #later",  # only tags
    "- [^2]",  # only a footnote reference
    "- [/] write the quarterly report",  # the person's own status
    "- [>] forward the invoice to Tom",
    "> [!note] a callout is not a thought",
]
LEFT = [LINES[1], *LINES[-5:]]


def _answer(body: dict) -> str:
    thought = thought_of(body)
    if thought.strip() == "Sam":
        return reply([{"type": "person", "title": "Sam", "fields": {}}], 0.95, "a person")
    key = thought.split()[-1]
    title = next((t for w, t in TAKEN.items() if w.endswith(key)), thought)
    return reply([{"type": "admin", "title": title, "fields": {}}], 0.95, "a task")


def _captures(vault: Path) -> dict[str, dict]:
    return {c["text"]: c for c in json.loads(run(vault, "inbox", "--json").output)}


def test_markdown_a_person_types_is_read_as_obsidian_shows_it(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    (vault / "People").mkdir(exist_ok=True)
    (vault / "People/Sam.md").write_text("---\ntype: person\n---\n", "utf-8")
    lmstudio.responder = _answer
    typed = list(TAKEN)
    inbox = vault / "Inbox.md"
    head = inbox.read_text("utf-8")
    inbox.write_text(head + "".join(f"{x}\n" for x in LINES), "utf-8")
    proc = daemon()
    proc.start()
    proc.wait_ready()
    for t in typed:
        wait_for(lambda t=t: _captures(vault).get(t, {}).get("status") == "filed", 30, proc.log)
    wait_for(lambda: "⏳" not in inbox.read_text("utf-8"), 30, proc.log)
    # A type after an arrow, in emphasis and with a full stop: the type, as Obsidian shows it.
    milk = "buy milk &amp; eggs for Dana"
    text = inbox.read_text("utf-8")
    (line,) = [x for x in text.split("\n") if x.startswith(f"- [x] {milk}")]
    inbox.write_text(text.replace(line, f"{line} → **project**."), "utf-8")
    wait_for(lambda: _captures(vault)[milk]["status"] == "corrected", 30, proc.log)
    wait_for(lambda: "**project**" not in inbox.read_text("utf-8"), 30, proc.log)
    # A second look changes nothing (no line taken twice).
    run(vault, "capture", "one more thought to make a pass")
    wait_for(lambda: "one more thought to make a pass" in _captures(vault), 30, proc.log)
    wait_for(lambda: "⏳" not in inbox.read_text("utf-8"), 30, proc.log)
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()
    caps = _captures(vault)
    assert set(caps) == {*typed, "one more thought to make a pass"}
    text = inbox.read_text("utf-8")
    assert text.startswith(head)
    after = text[len(head) :].split("\n")
    for line in LEFT:
        assert line in after, line  # as typed, untouched
    for t in typed:
        (line,) = [x for x in after if x.startswith(f"- [x] {t} → [[")]
        assert line.count("^vb-") == 1
    assert [d["type"] for d in caps[milk]["destinations"]] == ["project"]
    for t in typed:
        for d in caps[t]["destinations"]:
            assert not any(c in d["path"] for c in "\u200b\u202e\u202c"), d
            data = frontmatter(vault / d["path"])
            assert not any(c in json.dumps(data) for c in ("\\u200b", "\\u202e", "[[", "`")), d
    paths = {t: [d["path"] for d in caps[t]["destinations"]] for t in typed}
    assert paths["[[Sam]]"] == ["People/Sam.md"]
    assert paths["call\u200bSam about the lease"] == ["Admin/CallSam about the lease.md"]
    assert paths["call \u202eTom\u202c about rent"] == ["Admin/Call Tom about rent.md"]
    due = frontmatter(vault / paths["document the `📅 2026-01-05` syntax for the team"][0])
    assert "due" not in due  # a Tasks date inside code is text


def test_a_line_that_is_only_a_markdown_link_is_saved_as_a_link(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    """``[The kiln guide](https://…)``, as a web page's "copy as Markdown" gives it: a link
    note titled by the link's text, as a bare URL is; with words around it, a thought."""
    run(vault, "init")
    run(vault, "settings", "set", "second_opinion", "false")
    lmstudio.responder = _answer
    url = "https://example.org/guides/kiln-firing"
    doc = json.loads(run(vault, "capture", "--json", f"[The **kiln** guide]({url})").output)
    assert doc["status"] == "filed"
    (dest,) = doc["destinations"]
    assert dest["type"] == "link" and dest["path"] == "Links/The kiln guide.md"
    assert frontmatter(vault / dest["path"])["url"] == url
    assert not any("kiln" in json.dumps(r, ensure_ascii=False) for r in lmstudio.requests)
    doc = json.loads(run(vault, "capture", "--json", f"read [the guide]({url}) soon").output)
    assert [d["type"] for d in doc["destinations"]] == ["admin"]
