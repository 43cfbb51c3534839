"""A hypothesis state machine over the exchange: random edits on both sides, deletions,
imports and exports, with the invariants the conflict table exists for."""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from vaultbrain.brain import Brain
from vaultbrain.idealoom import (
    ListBook,
    LoomNote,
    add_idea,
    create_list,
    edit_list,
    move_idea,
    parse_loom_note,
    run_export,
    run_import,
)
from vaultbrain.idealoom.note import update_loom_note
from vaultbrain.vault import content_hash

_words = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=8).filter(lambda s: s.strip())


class Exchange(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="vb-loom-"))
        vault = self.root / "Vault"
        vault.mkdir()
        self.tick = dt.datetime(2026, 1, 2, 9, 0)
        self.app = Brain(vault, clock=self._now)
        self.app.settings.set("idealoom.enabled", "true")
        self.list_id = create_list(self.app, prompt="Prompt?", category="c", ideas=["one"]).id
        self.exported_once = False
        self.deleted_by_person = False

    def _now(self) -> dt.datetime:
        self.tick += dt.timedelta(seconds=1)
        return self.tick

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # -- helpers -------------------------------------------------------------------------
    def lst(self):  # type: ignore[no-untyped-def]
        found = ListBook(self.app).get(self.list_id)
        assert found is not None  # the exchange never loses the local list
        return found

    def note_file(self) -> Path | None:
        path = self.lst().sync.path
        return None if path is None else self.app.vault.root / path

    def note_bytes(self) -> bytes | None:
        path = self.note_file()
        return path.read_bytes() if path is not None and path.exists() else None

    # -- the person, locally -------------------------------------------------------------
    @rule(text=_words)
    def add_local_idea(self, text: str) -> None:
        add_idea(self.app, self.list_id, text)

    @rule(data=st.data())
    def move_local_idea(self, data: st.DataObject) -> None:
        n = len(self.lst().ideas)
        if n:
            a = data.draw(st.integers(1, n))
            b = data.draw(st.integers(1, n))
            move_idea(self.app, self.list_id, a, b)

    @rule(title=_words)
    def retitle_locally(self, title: str) -> None:
        edit_list(self.app, self.list_id, title=title)

    # -- the person, in Obsidian ---------------------------------------------------------
    @precondition(lambda self: self.note_bytes() is not None)
    @rule(text=_words)
    def edit_note(self, text: str) -> None:
        path = self.note_file()
        assert path is not None
        note = parse_loom_note(path.read_text())
        assert isinstance(note, LoomNote)
        path.write_text(update_loom_note(note, replace(note.list, ideas=(*note.list.ideas, text))))

    @precondition(lambda self: self.note_bytes() is not None)
    @rule()
    def delete_note(self) -> None:
        path = self.note_file()
        assert path is not None
        path.unlink()
        self.deleted_by_person = True

    # -- exchanges -----------------------------------------------------------------------
    @rule()
    def import_(self) -> None:
        before = self.lst()
        local_changed = before.fingerprint() != before.sync.list_hash
        result = run_import(self.app)
        assert result.counts()["failed"] == 0
        after = self.lst()
        if local_changed:  # a local edit is never replaced by the note
            # (when both sides say the same, the note's modified time is taken: they agree
            # exactly, and nothing of the person's is lost)
            assert after.same_content(before), (before.content(), after.content())

    @rule(recreate=st.booleans())
    def export(self, recreate: bool) -> None:
        lst = self.lst()
        note = self.note_bytes()
        person_edited = note is not None and content_hash(note) != lst.sync.base_hash
        result = run_export(self.app, recreate_missing=recreate)
        assert result.counts()["failed"] == 0
        after = self.note_bytes()
        if person_edited:  # an edit nobody has seen is never overwritten
            assert after == note
        if note is None and (self.exported_once or lst.sync.path) and not recreate:
            assert after is None  # a deleted note does not come back on its own
        if after is not None:
            self.exported_once = True
            if recreate:
                self.deleted_by_person = False

    @rule()
    def settle(self) -> None:
        """With nothing in conflict, an import then an export leave both sides agreeing."""
        imported = run_import(self.app)
        exported = run_export(self.app)
        blocked = {"conflicted", "missing"}
        if any(i.outcome in blocked for i in imported.items + exported.items):
            return
        note = self.note_bytes()
        assert note is not None
        parsed = parse_loom_note(note.decode())
        assert isinstance(parsed, LoomNote)
        assert parsed.list.content() == self.lst().content()
        assert self.lst().sync.base_hash == content_hash(note)

    @invariant()
    def the_list_is_never_lost(self) -> None:
        self.lst()


Exchange.TestCase.settings = settings(max_examples=40, stateful_step_count=15, deadline=None)
TestExchange = Exchange.TestCase
