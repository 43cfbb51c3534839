"""The journal of captures (vaultbrain/capture/journal.py): every change to a capture record
goes through ``Journal.open`` or ``Journal.advance``, on a real store in a temp vault."""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.capture.journal import LEASE_SECONDS, Journal
from vaultbrain.capture.model import Capture, CaptureStatus
from vaultbrain.errors import UserError


@pytest.fixture
def brain(vault: Path) -> Brain:
    return new_brain(vault)


def _audit(brain: Brain) -> list[dict]:
    return list(brain.store.read_jsonl("audit.jsonl"))


def test_open_creates_a_pending_capture_once(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    first = journal.open(cid, "call Ann about the budget", "inbox", "Inbox.md")
    assert first.status is CaptureStatus.PENDING
    assert first.text == "call Ann about the budget"
    assert first.text_hash and first.created == first.updated
    # A second open (another pass saw the same anchored line) returns the first, unchanged.
    again = journal.open(cid, "different words", "cli", None, attempts=3)
    assert again.to_record() == first.to_record()
    assert brain.store.inbox.get(cid)["text"] == "call Ann about the budget"


def test_open_passes_initial_values_through(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    cap = journal.open(cid, "a thought", "cli", "Inbox.md", line_suffix="⏳", attempts=2)
    stored = journal.require(cid)
    assert (cap.line_suffix, stored.line_suffix, stored.attempts) == ("⏳", "⏳", 2)


def test_open_returns_a_dismissed_capture_as_it_is(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    journal.advance(cid, lambda c: setattr(c, "status", CaptureStatus.DISMISSED))
    brain.store.inbox.tombstone(cid)
    assert journal.get(cid) is None  # deleted: not a live capture
    reopened = journal.open(cid, "a thought", "inbox", "Inbox.md")
    assert reopened.status is CaptureStatus.DISMISSED  # not brought back as pending


def test_new_ids_are_unused_even_by_deleted_captures(brain: Brain) -> None:
    journal = Journal(brain)
    ids = set()
    for _ in range(30):
        cid = journal.new_id()
        assert cid not in ids and brain.store.inbox.summary(cid, include_deleted=True) is None
        journal.open(cid, f"thought {cid}", "inbox", "Inbox.md")
        ids.add(cid)


def test_advance_applies_the_change_to_the_stored_capture(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    # Another writer changed the record after our copy was read: advance starts from disk.
    rec = brain.store.inbox.get(cid)
    rec["attempts"] = 5
    brain.store.inbox.put(rec)

    def bump(c: Capture) -> None:
        c.attempts += 1

    done = journal.advance(cid, bump)
    assert done.attempts == 6
    assert brain.store.inbox.get(cid)["attempts"] == 6


def test_advance_holds_the_store_lock_while_changing(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    seen: list[bool] = []

    def probe(c: Capture) -> None:
        # A second open file description: flock conflicts with it even within this process.
        fd = os.open(brain.store.root / "store.lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append(False)
            fcntl.flock(fd, fcntl.LOCK_UN)
        except BlockingIOError:
            seen.append(True)
        finally:
            os.close(fd)
        c.attempts = 1

    journal.advance(cid, probe)
    assert seen == [True]
    fd = os.open(brain.store.root / "store.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released once advance returned
    finally:
        os.close(fd)


def test_a_change_returning_false_writes_nothing(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    before = brain.store.inbox.get(cid)
    version = brain.store.inbox.version()
    audited = []

    def nothing_to_do(c: Capture) -> bool:
        c.attempts = 99  # changed in memory only: False says "do not record"
        return False

    out = journal.advance(cid, nothing_to_do, audit=lambda c: audited.append(c) or {"k": 1})
    assert out.attempts == 99
    assert brain.store.inbox.get(cid) == before
    assert brain.store.inbox.version() == version
    assert audited == [] and _audit(brain) == []


def test_advance_stamps_updated_unless_told_not_to(vault: Path) -> None:
    clock = iter(range(10_000))

    def tick() -> dt.datetime:
        return dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=next(clock))

    new_brain(vault)
    brain = Brain(vault, clock=tick)
    journal = Journal(brain)
    cid = journal.new_id()
    opened = journal.open(cid, "a thought", "inbox", "Inbox.md")
    untouched = journal.advance(cid, lambda c: setattr(c, "attempts", 1), touch=False)
    assert untouched.updated == opened.updated
    touched = journal.advance(cid, lambda c: setattr(c, "attempts", 2))
    assert touched.updated > opened.updated
    assert brain.store.inbox.get(cid)["updated"] == touched.updated


def test_the_audit_line_names_the_capture_and_the_change(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")

    def file_it(c: Capture) -> None:
        c.status = CaptureStatus.FILED

    journal.advance(cid, file_it, audit=lambda c: {"kind": "filed", "status": str(c.status)})
    journal.advance(cid, lambda c: None, audit=lambda c: None)  # no entry: no line
    entries = _audit(brain)
    assert len(entries) == 1
    entry = entries[0]
    assert (entry["capture"], entry["kind"], entry["status"]) == (cid, "filed", "filed")
    assert entry["at"]


def test_advance_of_an_unknown_capture_is_a_user_error(brain: Brain) -> None:
    journal = Journal(brain)
    with pytest.raises(UserError, match="no capture 'zzzzzz'"):
        journal.advance("zzzzzz", lambda c: None)
    with pytest.raises(UserError, match="no capture"):
        journal.require("zzzzzz")
    assert journal.get("zzzzzz") is None


def test_keys_the_journal_does_not_name_survive_a_change(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    rec = brain.store.inbox.get(cid)
    rec["corrections"] = [{"from": "idea", "to": "person"}]
    brain.store.inbox.put(rec)
    journal.advance(cid, lambda c: setattr(c, "attempts", 1))
    assert brain.store.inbox.get(cid)["corrections"] == [{"from": "idea", "to": "person"}]


# -- leases ------------------------------------------------------------------------------


def _with_lease(lease: dict | None) -> Capture:
    return Capture(id="abc123", text="t", lease=lease)


def test_a_fresh_lease_is_ours_for_its_term() -> None:
    before = time.time()
    lease = Journal.lease()
    assert lease["pid"] == os.getpid()
    assert before + LEASE_SECONDS <= lease["until"] <= time.time() + LEASE_SECONDS
    assert not Journal.leased_elsewhere(_with_lease(lease))  # our own lease never blocks us


def test_a_live_process_lease_blocks_until_it_runs_out() -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live = {"pid": other.pid, "until": time.time() + 60}
        assert Journal.leased_elsewhere(_with_lease(live))
        expired = {"pid": other.pid, "until": time.time() - 1}
        assert not Journal.leased_elsewhere(_with_lease(expired))
    finally:
        other.kill()
        other.wait()


def test_a_dead_process_lease_blocks_nothing() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert not Journal.leased_elsewhere(_with_lease({"pid": gone.pid, "until": time.time() + 60}))


def test_no_lease_or_a_garbled_one_blocks_nothing() -> None:
    assert not Journal.leased_elsewhere(_with_lease(None))
    assert not Journal.leased_elsewhere(_with_lease({"pid": "not a pid", "until": time.time() + 9}))
