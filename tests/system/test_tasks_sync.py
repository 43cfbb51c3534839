"""An admin note's Obsidian Tasks line and its frontmatter agree in both directions, with the
daemon running: a tick, an untick and a Tasks recurrence in the note reach the frontmatter and
the store; ``db update``, ``fix`` and ``review dismiss`` rewrite the line. Every other byte of
the note stays as it was."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio, reply

from vaultbrain.vault.note import parse_note
from vaultbrain.vault.tasks import find_task_lines


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "provider", "heuristic")
    return root


def today() -> str:
    return dt.date.today().isoformat()


def task_lines(path: Path) -> list[str]:
    lines = path.read_text("utf-8").splitlines()
    return [lines[f.index] for f in find_task_lines(lines)]


def diff(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b), (before, after)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def stored(vault: Path, rid: str) -> dict:
    return run_json(vault, "db", "show", "admin", rid)["fields"]


def edit(path: Path, old: str, new: str) -> str:
    text = path.read_text("utf-8")
    assert old in text
    text = text.replace(old, new)
    path.write_text(text, "utf-8")
    return text


def test_tick_untick_and_recur_in_the_note_then_db_update(vault: Path, daemon) -> None:
    rec = run_json(
        vault,
        "db",
        "add",
        "admin",
        "--set",
        "title=Renew the domain ⏫",
        "--set",
        "due=2026-12-31",
        "--set",
        "priority=high",
    )
    note = vault / rec["path"]
    original = note.read_text("utf-8")
    line = "- [ ] Renew the domain ⏫ 📅 2026-12-31"
    assert task_lines(note) == [line]  # the title's ⏫ is not in the description
    assert frontmatter(note)["title"] == "Renew the domain ⏫"

    d = daemon().start()
    d.wait_ready()

    # A tick (as Tasks writes it) reaches the frontmatter and the store.
    ticked = line.replace("- [ ]", "- [x]") + " ✅ 2026-12-02"
    written = edit(note, line, ticked)
    wait_for(lambda: frontmatter(note).get("status") == "done", 20, d.log)
    wait_for(lambda: stored(vault, rec["id"]).get("status") == "done", 20, d.log)
    after = note.read_text("utf-8")
    assert frontmatter(note)["completed"] == "2026-12-02"
    assert stored(vault, rec["id"])["completed"] == "2026-12-02"
    assert after.replace("completed: 2026-12-02\n", "") == written.replace(
        "status: open", "status: done"
    )

    # An untick (as Obsidian writes it) reopens; the note is byte for byte the original.
    edit(note, ticked, line)
    wait_for(lambda: frontmatter(note).get("status") == "open", 20, d.log)
    wait_for(lambda: note.read_text("utf-8") == original, 20, d.log)
    wait_for(lambda: "completed" not in stored(vault, rec["id"]), 20, d.log)

    # The person makes it recur; Tasks completes it, writing the next occurrence above.
    recurring = "- [ ] Renew the domain ⏫ 🔁 every week 📅 2026-12-31"
    edit(note, line, recurring)
    done = "- [x] Renew the domain ⏫ 🔁 every week 📅 2026-12-31 ✅ 2026-12-02"
    nxt = "- [ ] Renew the domain ⏫ 🔁 every week 📅 2027-01-07"
    edit(note, recurring, f"{nxt}\n{done}")
    wait_for(lambda: frontmatter(note).get("due") == "2027-01-07", 20, d.log)
    wait_for(lambda: stored(vault, rec["id"]).get("due") == "2027-01-07", 20, d.log)
    assert frontmatter(note)["status"] == "open" and stored(vault, rec["id"])["status"] == "open"
    assert task_lines(note) == [nxt]
    log = parse_note(note.read_text("utf-8")).body.split("## Log", 1)[1]
    assert "- 2026-12-02 done, due 2026-12-31: Renew the domain" in log
    d.stop()

    # db update rewrites only the Tasks line (and the changed properties).
    before = note.read_text("utf-8")
    run(
        vault,
        "db",
        "update",
        "admin",
        rec["id"],
        "--set",
        "due=2030-01-15",
        "--set",
        "priority=low",
    )
    changes = dict(diff(before, note.read_text("utf-8")))
    assert changes.pop(nxt) == "- [ ] Renew the domain 🔽 🔁 every week 📅 2030-01-15"
    assert changes.pop("due: 2027-01-07") == "due: 2030-01-15"
    assert changes.pop("priority: high") == "priority: low"
    assert not changes  # a minimal note has no `updated` to bump: the store keeps it
    fields = stored(vault, rec["id"])
    assert fields["due"] == "2030-01-15" and fields["priority"] == "low"

    run(vault, "db", "update", "admin", rec["id"], "--set", "status=done")
    fm = frontmatter(note)
    assert fm["status"] == "done" and fm["completed"] == today()
    assert task_lines(note) == [
        f"- [x] Renew the domain 🔽 🔁 every week 📅 2030-01-15 ✅ {today()}"
    ]
    assert stored(vault, rec["id"])["completed"] == today()


def test_a_note_refiled_as_admin_gets_its_line_and_the_archived_one_is_closed(
    vault: Path,
) -> None:
    idea = run_json(vault, "db", "add", "idea", "--set", "title=Call the bank")
    new = run_json(vault, "fix", idea["id"], "admin")
    admin = vault / new["path"]
    assert new["path"].startswith("Admin/")
    assert task_lines(admin) == ["- [ ] Call the bank"]  # no priority nobody gave
    assert frontmatter(admin)["status"] == "open"

    back = run_json(vault, "fix", new["id"], "idea")
    archived = sorted((vault / "Brain/Archive").glob("Call the bank*.md"))
    closed = [p for p in archived if frontmatter(p).get("type") == "admin"]
    assert len(closed) == 1
    assert task_lines(closed[0]) == [f"- [-] Call the bank ❌ {today()}"]
    assert frontmatter(closed[0])["status"] == "cancelled"
    assert task_lines(vault / back["path"]) == []  # an idea has no Tasks line


def test_a_dismissed_capture_closes_its_task(vault: Path, lmstudio: FakeLMStudio) -> None:
    run(vault, "settings", "set", "provider", "lmstudio")
    lmstudio.responder = lambda body: reply(
        [{"type": "admin", "title": "Pay the 2026 tax", "fields": {"due": "2026-12-20"}}], 0.9
    )
    cap = run_json(vault, "capture", "Pay the 2026 tax by the 20th")
    path = next(d["path"] for d in cap["destinations"] if d["type"] == "admin")
    assert task_lines(vault / path) == ["- [ ] Pay the 2026 tax 📅 2026-12-20"]
    run(vault, "review", "dismiss", cap["id"])
    archived = vault / "Brain/Archive" / path.rsplit("/", 1)[1]
    text = archived.read_text("utf-8")
    assert task_lines(archived) == [f"- [-] Pay the 2026 tax 📅 2026-12-20 ❌ {today()}"]
    fm = frontmatter(archived)
    assert fm["status"] == "cancelled" and fm["completed"] == today() and fm["archived"] is True
    assert text.count("- [") == 1


def test_a_capture_into_an_existing_admin_note_updates_its_line(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    rec = run_json(vault, "db", "add", "admin", "--set", "title=Renew the domain")
    note = vault / rec["path"]
    before = note.read_text("utf-8")
    assert task_lines(note) == ["- [ ] Renew the domain"]
    run(vault, "settings", "set", "provider", "lmstudio")
    lmstudio.responder = lambda body: reply(
        [{"type": "admin", "title": "Renew the domain", "fields": {"due": "2026-12-20"}}], 0.9
    )
    cap = run_json(vault, "capture", "Renew the domain by the 20th")
    assert [d["path"] for d in cap["destinations"]] == [rec["path"]]
    assert task_lines(note) == ["- [ ] Renew the domain 📅 2026-12-20"]
    assert frontmatter(note)["due"] == "2026-12-20"
    after = note.read_text("utf-8").splitlines()
    changed = [x for x in before.splitlines() if x not in after]
    assert changed == ["- [ ] Renew the domain"]
    assert len(after) == len(before.splitlines()) + 2  # due:, and the capture's log line


def test_a_note_moved_into_admin_gets_its_line(vault: Path) -> None:
    idea = run_json(vault, "db", "add", "idea", "--set", "title=Book the venue")
    src = vault / idea["path"]
    before = src.read_text("utf-8")
    dest = vault / "Admin" / src.name
    src.rename(dest)
    run(vault, "reindex")
    assert frontmatter(dest)["type"] == "admin"
    assert task_lines(dest) == ["- [ ] Book the venue"]
    expected = before.replace("type: idea", "type: admin", 1)
    expected = expected.replace("\n## Log", "\n- [ ] Book the venue\n\n## Log", 1)
    assert dest.read_text("utf-8") == expected
    rec = run_json(vault, "db", "show", "admin", idea["id"])
    assert rec["path"] == f"Admin/{src.name}"
