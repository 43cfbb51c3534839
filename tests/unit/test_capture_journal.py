"""The journal of captures (vaultbrain/capture/journal.py): every change to a capture record
goes through ``Journal.open`` or ``Journal.advance``, on a real store in a temp vault."""

from __future__ import annotations

import dataclasses
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
from vaultbrain.capture.journal import ALLOWED, LEADS_TO, LEASE_SECONDS, Journal, Refused, Step
from vaultbrain.capture.model import Capture, CaptureStatus, Correction, Filed, OpKind
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
    journal.dismissed(cid)
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


# -- the transitions, as a table ------------------------------------------------------------
S = CaptureStatus
FILED_NOTE = Filed("person", "Sarah", "People/Sarah.md", "sarah01", OpKind.CREATE)
NEW_NOTE = Filed("project", "Bees", "Projects/Bees.md", "bees01", OpKind.CREATE)


def _step(journal: Journal, cid: str, step: Step) -> Capture:
    """Each named transition with arguments that make a change from any state."""
    match step:
        case Step.CLASSIFY:
            return journal.classified(cid, {"destinations": []}, "base", None, 1.0, None)
        case Step.FAIL:
            return journal.failed(cid, "timeout: slow", 1.0, None, {"kind": "failed"})
        case Step.PLAN:
            return journal.planned(cid, [])
        case Step.SETTLE:
            return journal.settled(cid, S.FILED, [FILED_NOTE])
        case Step.FOLLOW_LINE:
            return journal.followed_line(cid, S.FILED, [FILED_NOTE], "→ filed", True)
        case Step.CONFIRM:
            return journal.confirmed(cid, [FILED_NOTE])
        case Step.RESOLVE:
            return journal.reclassified(cid, {"destinations": []}, "resolve")
        case Step.DISMISS:
            return journal.dismissed(cid)
        case Step.CORRECT:
            correction = Correction("2026-12-01T10:00:00", "person", "project", "cli")
            return journal.corrected(cid, "sarah01", ["People/Sarah.md"], NEW_NOTE, correction)
        case Step.MOVE:
            return journal.moved(cid, "sarah01", "People/Sarah.md", "People/Sarah Smith.md")
        case Step.SHOW_LINE:
            return journal.line_shown(cid, "→ something else", True)
        case Step.LINE_GONE:
            journal.lines_gone({cid}, set())
            return journal.require(cid)
        case Step.RELEASE:
            return journal.release(cid)
        case Step.ANNOTATE:
            return journal.annotate(cid, resolved_by="test")
    raise AssertionError(step)


def _in_state(brain: Brain, status: CaptureStatus) -> str:
    """A capture in ``status``, filed into Sarah's note, holding a lease."""
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "met sarah", "inbox", "Inbox.md", lease={"pid": 1, "until": 1e12})
    rec = brain.store.inbox.get(cid)
    rec["status"] = status.value
    rec["destinations"] = [FILED_NOTE.to_dict()]
    brain.store.inbox.put(rec)
    return cid


QUIET = {Step.CLASSIFY, Step.FAIL, Step.SETTLE, Step.FOLLOW_LINE, Step.CORRECT, Step.SHOW_LINE}


@pytest.mark.parametrize("step", list(Step))
@pytest.mark.parametrize("status", list(CaptureStatus))
def test_every_step_from_every_state(brain: Brain, step: Step, status: CaptureStatus) -> None:
    """A step the table allows changes the capture (to a state LEADS_TO allows); any other
    is refused with a clear error and nothing is written (pipeline steps another process
    overtook are refused quietly: the capture comes back as it is)."""
    cid = _in_state(brain, status)
    before = brain.store.inbox.get(cid)
    version = brain.store.inbox.version()
    journal = Journal(brain)
    if status in ALLOWED[step]:
        after = _step(journal, cid, step)
        assert after.to_record() == brain.store.inbox.get(cid)
        if step in LEADS_TO:
            assert after.status in LEADS_TO[step]
        else:
            assert after.status is status
        return
    if step in QUIET:
        assert _step(journal, cid, step).to_record() == before
    else:
        with pytest.raises(Refused, match=f"{cid} is {status.value}"):
            _step(journal, cid, step)
    assert brain.store.inbox.get(cid) == before
    assert brain.store.inbox.version() == version


def test_the_table_names_every_step_and_refuses_something() -> None:
    assert set(ALLOWED) == set(Step)
    refusing = {step for step, states in ALLOWED.items() if states != frozenset(CaptureStatus)}
    assert {Step.CONFIRM, Step.DISMISS, Step.CORRECT, Step.SETTLE} <= refusing


def test_a_step_starts_from_the_stored_capture(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    # Another writer changed the record after our copy was read: the step starts from disk.
    rec = brain.store.inbox.get(cid)
    rec["attempts"] = 5
    brain.store.inbox.put(rec)
    done = journal.failed(cid, "timeout: slow", 1.0, None, {"kind": "classification_failed"})
    assert done.attempts == 6
    assert brain.store.inbox.get(cid)["attempts"] == 6


def test_a_step_holds_the_store_lock_while_it_writes(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    seen: list[bool] = []
    put = brain.store.inbox.put

    def probe(record: dict, **kw: object) -> None:
        # A second open file description of the state dir (the store's mutex is a flock of
        # it): flock conflicts with it even within this process.
        fd = os.open(brain.store.root, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append(False)
            fcntl.flock(fd, fcntl.LOCK_UN)
        except BlockingIOError:
            seen.append(True)
        finally:
            os.close(fd)
        put(record, **kw)

    brain.store.inbox.put = probe  # type: ignore[method-assign]
    try:
        journal.dismissed(cid)
    finally:
        del brain.store.inbox.put
    assert seen == [True]
    fd = os.open(brain.store.root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released once the step returned
    finally:
        os.close(fd)


def test_a_step_whose_effect_is_there_writes_nothing(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    journal.classified(cid, {"destinations": []}, "base", None, 1.0, {"kind": "classification"})
    before = brain.store.inbox.get(cid)
    version = brain.store.inbox.version()
    entries = len(_audit(brain))
    # Another worker's answer comes second: never kept, never audited.
    again = journal.classified(cid, {"destinations": [1]}, "base", None, 2.0, {"kind": "x"})
    assert again.classification == {"destinations": []}
    assert brain.store.inbox.get(cid) == before and brain.store.inbox.version() == version
    assert len(_audit(brain)) == entries


def test_steps_stamp_updated_unless_they_only_say_what_a_line_shows(vault: Path) -> None:
    clock = iter(range(10_000))

    def tick() -> dt.datetime:
        return dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=next(clock))

    new_brain(vault)
    brain = Brain(vault, clock=tick)
    journal = Journal(brain)
    cid = journal.new_id()
    opened = journal.open(cid, "a thought", "inbox", "Inbox.md")
    untouched = journal.line_shown(cid, "⏳ waiting", False)
    assert untouched.updated == opened.updated
    touched = journal.dismissed(cid)
    assert touched.updated > opened.updated
    assert brain.store.inbox.get(cid)["updated"] == touched.updated


def test_the_audit_line_names_the_capture_and_the_step(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    journal.failed(cid, "timeout: slow", 1.0, None, {"kind": "classification_failed"})
    journal.release(cid)  # no entry: no line
    entries = _audit(brain)
    assert len(entries) == 1
    entry = entries[0]
    assert (entry["capture"], entry["kind"], entry["attempts"]) == (cid, "classification_failed", 1)
    assert entry["at"]


def test_a_step_on_an_unknown_capture_is_a_user_error(brain: Brain) -> None:
    journal = Journal(brain)
    with pytest.raises(UserError, match="no capture 'zzzzzz'"):
        journal.dismissed("zzzzzz")
    with pytest.raises(UserError, match="no capture"):
        journal.require("zzzzzz")
    assert journal.get("zzzzzz") is None


def test_keys_the_journal_does_not_name_survive_a_step(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "a thought", "inbox", "Inbox.md")
    rec = brain.store.inbox.get(cid)
    rec["from_a_later_version"] = {"kept": [1, 2]}
    brain.store.inbox.put(rec)
    journal.failed(cid, "timeout: slow", 1.0, None, {"kind": "classification_failed"})
    assert brain.store.inbox.get(cid)["from_a_later_version"] == {"kept": [1, 2]}


def test_captures_are_frozen() -> None:
    cap = Capture(id="abc123", text="t", destinations=[FILED_NOTE.to_dict()])
    assert cap.destinations == (FILED_NOTE,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cap.status = CaptureStatus.FILED  # type: ignore[misc]
    with pytest.raises(TypeError):
        cap.timings["x"] = 1  # type: ignore[index]


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
