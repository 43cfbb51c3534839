"""Review in bulk, the suggestion mark and honest reasons, on a real vault with the daemon as a
subprocess: suggestions come from a loopback LLM server (or the embedded classifier alone),
the person confirms many at once from a terminal or with one tick in Needs Review, and every
thought that waits says why."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply

REVIEW = "Brain/Needs Review.md"
THOUGHTS = {
    "Kite festival stall idea": {"type": "idea", "title": "Kite festival stall", "fields": {}},
    "Glaze recipe notebook idea": {"type": "idea", "title": "Glaze recipe notebook", "fields": {}},
    "Renew the pottery studio lease": {"type": "admin", "title": "Renew lease", "fields": {}},
}
NOTES = {
    "Kite festival stall idea": "Ideas/Kite festival stall.md",
    "Glaze recipe notebook idea": "Ideas/Glaze recipe notebook.md",
    "Renew the pottery studio lease": "Admin/Renew lease.md",
}


class Vault:
    def __init__(self, root: Path, daemon: DaemonProcess) -> None:
        self.root = root
        self.daemon = daemon
        self.inbox = root / "Inbox.md"

    def captures(self) -> dict[str, dict]:
        return {r["id"]: r for r in run_json(self.root, "inbox", "--limit", "1000")}

    def write(self, *texts: str) -> None:
        with self.inbox.open("a", encoding="utf-8") as fh:
            fh.writelines(f"- {t}\n" for t in texts)

    def id_of(self, text: str) -> str:
        for line in self.inbox.read_text("utf-8").splitlines():
            m = re.search(r"\^vb-([a-z0-9]+)", line)
            if m and text in line:
                return m.group(1)
        return ""

    def line(self, cid: str) -> str:
        text = self.inbox.read_text("utf-8")
        return next(x for x in text.splitlines() if f"^vb-{cid}" in x)

    def review(self) -> str:
        path = self.root / REVIEW
        return path.read_text("utf-8") if path.exists() else ""

    def waiting(self, *texts: str) -> list[str]:
        """The ids of ``texts`` once each waits for the person and Needs Review lists it."""
        for text in texts:
            wait_for(lambda t=text: self.id_of(t) and "⏳" not in self.line(self.id_of(t)), 30)
        ids = [self.id_of(t) for t in texts]
        wait_for(lambda: all(f"^vbr-{i}" in self.review() for i in ids), 30, self.daemon.log)
        return ids

    def status(self, cid: str) -> str:
        return self.captures()[cid]["status"]

    def edit_review(self, change: Callable[[str], str]) -> None:
        path = self.root / REVIEW
        path.write_text(change(path.read_text("utf-8")), "utf-8")


@pytest.fixture
def started(vault: Path, daemon: Callable[..., DaemonProcess]) -> Iterator[Callable[[], Vault]]:
    procs: list[DaemonProcess] = []

    def start() -> Vault:
        proc = daemon()
        proc.start()
        proc.wait_ready()
        procs.append(proc)
        return Vault(vault, proc)

    yield start
    for proc in procs:
        assert proc.stop() == 0
        assert "Traceback" not in proc.output()


@pytest.fixture
def suggesting(
    vault: Path, lmstudio: FakeLMStudio, started: Callable[[], Vault]
) -> tuple[Vault, list[str]]:
    """Three thoughts filed as suggestions (minimal notes, the default style)."""
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")

    def answer(body: dict) -> str:
        said = json.dumps(body["messages"][-1])
        for text, dest in THOUGHTS.items():
            if text in said:
                return reply([dest], 0.6, "a guess")
        return reply([{"type": "idea", "title": "Other", "fields": {}}], 0.95, "an idea")

    lmstudio.responder = answer
    v = started()
    v.write(*THOUGHTS)
    return v, v.waiting(*THOUGHTS)


def test_a_suggestions_notes_say_so_until_confirmed(suggesting: tuple[Vault, list[str]]) -> None:
    v, ids = suggesting
    for rel in NOTES.values():
        assert frontmatter(v.root / rel)["suggested"] is True
    rows = run_json(v.root, "review", "confirm", ids[0], ids[2])
    assert [r["status"] for r in rows["done"]] == ["filed", "filed"]
    assert "suggested" not in frontmatter(v.root / NOTES["Kite festival stall idea"])
    assert "suggested" not in frontmatter(v.root / NOTES["Renew the pottery studio lease"])
    assert frontmatter(v.root / NOTES["Glaze recipe notebook idea"])["suggested"] is True
    # the mark was vaultbrain's one line: the rest of the note is as it was written
    text = (v.root / NOTES["Kite festival stall idea"]).read_text("utf-8")
    assert text.startswith("---\ntype: idea\n") and "suggested" not in text


def test_review_confirm_all_of_a_type_one_decision_each_each_undoable(
    suggesting: tuple[Vault, list[str]],
) -> None:
    v, ids = suggesting
    result = run(v.root, "review", "confirm", "--all", "--type", "idea")
    assert result.output.count(": filed") == 2
    states = v.captures()
    assert [states[i]["status"] for i in ids] == ["filed", "filed", "suggested"]
    trail = run_json(v.root, "trust", "--limit", "1000")
    confirms = [
        e for e in trail if e.get("kind") == "resolution" and e.get("decision") == "confirm"
    ]
    assert sorted(e["capture"] for e in confirms) == sorted(ids[:2])  # one each
    # one of them undone with fix, the other stands
    record = run_json(v.root, "db", "show", "idea", "Kite festival stall")
    run(v.root, "fix", record["id"], "admin")
    assert (v.root / "Admin/Kite festival stall.md").exists()
    assert (v.root / NOTES["Glaze recipe notebook idea"]).exists()
    # nothing left of that type to confirm; a confidence floor above every suggestion: none
    assert (
        "no suggestion to confirm"
        in run(v.root, "review", "confirm", "--all", "--type", "idea").output
    )
    out = run(v.root, "review", "confirm", "--all", "--min-confidence", "0.9").output
    assert "no suggestion to confirm" in out


def test_confirm_and_dismiss_many_say_what_they_could_not_do(
    suggesting: tuple[Vault, list[str]],
) -> None:
    v, ids = suggesting
    result = run(v.root, "review", "dismiss", ids[1], "nosuch", ok=False)
    assert result.exit_code == 1
    assert f"{ids[1]}: dismissed" in result.output and "nosuch: not done" in result.output
    assert not (v.root / NOTES["Glaze recipe notebook idea"]).exists()
    again = run(v.root, "review", "confirm", ids[0], ids[1], ok=False)
    assert again.exit_code == 1 and f"{ids[0]}: filed" in again.output
    assert run(v.root, "review", "confirm", ok=False).exit_code == 2  # no ids, no --all


def test_one_tick_in_needs_review_confirms_a_whole_section(
    suggesting: tuple[Vault, list[str]],
) -> None:
    v, ids = suggesting
    wait_for(lambda: "confirm all 3 below ^vbs-suggest" in v.review(), 30, v.daemon.log)

    def tick_all_strike_one(text: str) -> str:
        text = text.replace("- [ ] confirm all 3 below", "- [x] confirm all 3 below")
        lines = [
            f"- [ ] ~~{x[6 : x.index(' ^vbr-')]}~~{x[x.index(' ^vbr-') :]}"
            if f"^vbr-{ids[1]}" in x
            else x
            for x in text.splitlines()
        ]
        return "\n".join(lines) + "\n"

    v.edit_review(tick_all_strike_one)
    wait_for(lambda: v.status(ids[0]) == "filed" and v.status(ids[2]) == "filed", 30, v.daemon.log)
    wait_for(lambda: v.status(ids[1]) == "dismissed", 30, v.daemon.log)  # its own gesture won
    assert "suggested" not in frontmatter(v.root / NOTES["Kite festival stall idea"])
    assert f"capture {ids[0]}: confirmed" in v.daemon.output()
    assert "confirm all" in v.daemon.output()
    wait_for(lambda: "^vbs-" not in v.review(), 30, v.daemon.log)  # nothing left to confirm


def test_the_reason_a_thought_waits_with_no_llm(vault: Path, started: Callable[[], Vault]) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "provider", "heuristic")
    v = started()
    # (a vague thought with no one in it: "call him back…" reads as a person with no name)
    mash, vague = "asdfgh jkl qwerty uiop", "the fence thing again"
    v.write(mash, vague)
    ids = v.waiting(mash, vague)
    assert "needs review: noise: keyboard mash" in v.line(ids[0])
    assert "needs review: no LLM configured, embedded classifier unsure (" in v.line(ids[1])
    assert "unreachable" not in v.inbox.read_text("utf-8")
    assert "(noise: keyboard mash)" in v.review()
    assert not any((vault / "People").glob("*.md"))

    # → person with no name in the thought: asked for the name, no person invented
    v.inbox.write_text(
        v.inbox.read_text("utf-8").replace(f"^vb-{ids[1]}", f"^vb-{ids[1]} → person"), "utf-8"
    )
    wait_for(lambda: "which person?" in v.review(), 30, v.daemon.log)
    assert v.status(ids[1]) == "needs_review" and not any((vault / "People").glob("*.md"))
    # → person Tom: the name the person gave
    v.inbox.write_text(
        v.inbox.read_text("utf-8").replace(f"^vb-{ids[1]}", f"^vb-{ids[1]} → person Tom"), "utf-8"
    )
    wait_for(lambda: v.status(ids[1]) == "filed", 30, v.daemon.log)
    assert frontmatter(vault / "People/Tom.md")["name"] == "Tom"
    assert [p.name for p in (vault / "People").glob("*.md")] == ["Tom.md"]


def test_an_llm_set_up_and_down_is_said_to_be_unreachable(
    vault: Path, started: Callable[[], Vault]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "endpoint", "http://127.0.0.1:9/v1")  # nothing listens
    v = started()
    vague = "the fence thing again"
    v.write(vague)
    (cid,) = v.waiting(vague)
    assert "needs review: model unreachable" in v.line(cid)
    assert "no LLM configured" not in v.review()
