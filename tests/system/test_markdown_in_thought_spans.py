"""The person's Markdown spans in a thought, end to end with the daemon as a subprocess
(issue 47, item 1): an arrow, a ``#`` or a type word inside a code span, a wikilink, a link
or a URL is the person's text, in ``Inbox.md`` and on a daily note's capture lines alike.
No title is cut inside a span, no gesture is read from one, the line is finished and keeps
the thought byte for byte; an arrow the person writes after it still files it."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

from support.cli import run
from support.daemon import DaemonProcess, wait_for

CODE = "renew the `ssl → cert` before friday"
LINK = "read [the doc → admin](https://x.org/a->b#frag) tonight"
WIKI = "see [[Foo → Bar]] about the `x -> admin` flag"
DAILY_CODE = "rotate the `key -> project` in ==vault → admin== today"
DAILY_URL = "check https://x.org/p->q#list for the invoice"


def _captures(vault: Path) -> dict[str, dict]:
    return {c["text"]: c for c in json.loads(run(vault, "inbox", "--json").output)}


def _line(path: Path, text: str) -> str:
    return next(x for x in path.read_text("utf-8").splitlines() if text in x)


def _finished(vault: Path, path: Path, thought: str) -> bool:
    cap = _captures(vault).get(thought)
    return bool(cap) and cap["status"] != "pending" and "⏳" not in _line(path, thought)


def test_spans_in_inbox_and_daily_lines_are_text(
    vault: Path, daemon: Callable[..., DaemonProcess]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    run(vault, "settings", "set", "provider", "heuristic")
    run(vault, "settings", "set", "daily_capture_heading", "## Inbox")
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian/daily-notes.json").write_text(
        json.dumps({"folder": "Daily", "format": "YYYY-MM-DD"}), "utf-8"
    )
    daily = vault / f"Daily/{dt.date.today().isoformat()}.md"
    daily.parent.mkdir()
    daily.write_text(f"# Today\n\n## Inbox\n- {DAILY_CODE}\n- {DAILY_URL}\n\n## Log\n", "utf-8")
    inbox = vault / "Inbox.md"
    with inbox.open("a", encoding="utf-8") as fh:
        fh.writelines(f"- {t}\n" for t in (CODE, LINK, WIKI))
    proc = daemon()
    proc.start()
    proc.wait_ready()
    places = {CODE: inbox, LINK: inbox, WIKI: inbox, DAILY_CODE: daily, DAILY_URL: daily}
    for thought, path in places.items():
        wait_for(lambda t=thought, p=path: _finished(vault, p, t), 60, proc.log)
    caps = _captures(vault)
    for thought, path in places.items():
        line = _line(path, thought)
        # the thought stays byte for byte, followed by our suffix
        assert line.startswith((f"- [x] {thought} → ", f"- [ ] {thought} → ")), line
        titles = [d["title"] for d in caps[thought]["destinations"]]
        assert titles, thought
        for title in titles:
            for mark in ("`", "[[", "==", "]("):
                assert mark not in title, (thought, title)
    # no title cut inside a span: the code span's words are whole in it
    assert any("ssl → cert" in d["title"] for d in caps[CODE]["destinations"])
    before = {t: {d["type"] for d in caps[t]["destinations"]} for t in places}
    # The person adds, after the id, a span that holds "→ admin": their text, nothing done.
    for thought, path in places.items():
        text = path.read_text("utf-8")
        old = _line(path, thought)
        path.write_text(text.replace(old, f"{old} `→ admin` [[X → person]]"), "utf-8")
    # A line added to each after the edits is filed: the passes that took it read them.
    for path, later in ((inbox, "plan the garden layout"), (daily, "plan the shed layout")):
        text = path.read_text("utf-8")
        at = text.index("\n## Log") if path == daily else len(text)
        path.write_text(f"{text[:at].rstrip(chr(10))}\n- {later}\n{text[at:]}", "utf-8")
    for path, later in ((inbox, "plan the garden layout"), (daily, "plan the shed layout")):
        wait_for(lambda p=path, t=later: _finished(vault, p, t), 60, proc.log)
    for thought, path in places.items():
        assert "`→ admin` [[X → person]] ^vb-" not in _line(path, thought)
        assert _line(path, thought).endswith(" `→ admin` [[X → person]]")
    caps = _captures(vault)
    assert {t: {d["type"] for d in caps[t]["destinations"]} for t in places} == before
    # ... and an arrow written after it files the thought as that type.
    text = daily.read_text("utf-8")
    old = _line(daily, DAILY_URL)
    daily.write_text(text.replace(old, f"{old} → project"), "utf-8")
    wait_for(
        lambda: {d["type"] for d in _captures(vault)[DAILY_URL]["destinations"]} == {"project"},
        60,
        proc.log,
    )
    assert "`→ admin` [[X → person]]" in _line(daily, DAILY_URL)
    assert daily.read_text("utf-8").endswith("\n## Log\n")
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()
