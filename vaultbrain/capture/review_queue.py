"""The review note's keeper: ``Brain/Needs Review.md`` drawn again whenever the queue changes
(compare-and-swap, only when the note is quiet), after the person's gestures in it (and on
the inbox's lines) are carried out (vaultbrain/capture/inbox_pass.py ``apply_gestures``).
The CLI's review commands and the daemon's review hook use it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.review import (
    RENDERS_KEPT,
    STATE,
    notes_changed,
    queue,
    quiet,
    render,
    thought_of,
    unstamped,
)
from vaultbrain.capture.review_status import read_status, status_changed
from vaultbrain.errors import ConflictError
from vaultbrain.filing.inbox import REVIEW_NOTE
from vaultbrain.vault.note import parse_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


class ReviewQueue:
    def __init__(self, brain: Brain) -> None:
        self.app = brain
        self.note_rel = REVIEW_NOTE
        self._signature: str | None = None
        self._versions: Any = None
        self._nothing_at: Any = None  # the versions at which the queue had nothing to show

    def _state(self) -> dict[str, Any]:
        return self.app.store.read_json(STATE, {}) or {}

    def _signature_of(self, items: dict[str, list[dict[str, Any]]], notes: dict[str, str]) -> str:
        parts = [
            (k, r["id"], r.get("status"), r.get("updated") or r.get("at"), r.get("problem"))
            for k, v in items.items()
            for r in v
        ]
        status = read_status(self.app)  # the header's line: the filer and its LLM
        said = None if status is None else dataclasses.astuple(status)
        raw = json.dumps([parts, sorted(notes.items()), said], default=str)
        return hashlib.sha256(raw.encode()).hexdigest()

    def refresh(self, force: bool = False) -> bool:
        """Regenerate the note if the queue changed (and the note is quiet). True if written.
        ``force``: now, whatever the versions say (a command after a decision)."""
        versions = self._versions_now()
        if (
            not force
            and versions == self._versions
            and (self._nothing_at == versions or self.app.vault.try_read(self.note_rel) is not None)
        ):
            return False  # (nothing to show at these versions: no note, no look at the queue)
        if not force and not quiet(self.app, self.note_rel):
            return False
        self.apply_decisions(now=force)
        return self.write(force)

    def write(self, force: bool = False) -> bool:
        """Draw the note from the queue as it is (compare-and-swap). True if written. Under
        the store's lock: a command's drawing and the daemon's are one after the other."""
        with self.app.store.locked():
            return self._write(force)

    def _write(self, force: bool) -> bool:
        versions = self._versions_now()
        state = self._state()
        items = queue(self.app)
        live = {r["id"] for v in items.values() for r in v}
        notes = {k: v for k, v in dict(state.get("notes", {})).items() if k in live}
        signature = self._signature_of(items, notes)
        current = self.app.vault.try_read(self.note_rel)
        if (
            not force
            and current is not None
            and signature == state.get("signature")
            and current.hash == state.get("hash")
        ):
            self._versions = versions
            return False
        if current is None and not any(items.values()) and not force:
            self._versions = self._nothing_at = versions
            return False  # made by init; drawn again when it has something to show
        now = _stamp(self.app.now(), state.get("renders") or {})
        text = render(self.app, items, notes, now)
        rendered = [f"vbr-{r['id']}" for r in items["decide"] + items["suggest"]]
        rendered += [f"vbc-{c['id']}" for c in items["conflicts"]]
        rendered += [f"vbm-{m['id']}" for m in items.get("merges", ())]
        rendered += [f"vbg-{g['id']}" for g in items.get("grades", ())]
        thoughts = {r["id"]: thought_of(r["text"]) for r in items["decide"] + items["suggest"]}
        if current is not None and unstamped(current.text) == unstamped(text):
            # What it shows is what the note shows already: its stamp alone is no change
            # (a synced or git vault would see a write at every `daemon --once`).
            self._keep_as_drawn(state, current, signature, rendered, thoughts, notes)
            self._versions = versions
            return False
        try:
            if current is None:
                digest = self.app.vault.create(self.note_rel, text)
            else:
                digest = self.app.vault.replace(self.note_rel, text, current.hash)
        except (ConflictError, FileExistsError):
            return False  # the person is editing it: next time
        renders = dict(state.get("renders") or {})
        renders[now] = rendered
        renders = dict(sorted(renders.items())[-RENDERS_KEPT:])
        self.app.store.write_json(
            STATE,
            {
                "signature": signature,
                "hash": digest,
                "rendered": rendered,
                "renders": renders,
                "thoughts": thoughts,
                "notes": notes,
            },
        )
        self._versions = self._versions_now()
        return True

    def _keep_as_drawn(
        self,
        state: dict[str, Any],
        current: Any,
        signature: str,
        rendered: list[str],
        thoughts: dict[str, str],
        notes: dict[str, str],
    ) -> None:
        """The note already shows the queue: the state names it as vaultbrain's drawing (its
        hash, and the items its stamp stands for), written only when that is news."""
        stamp = str(parse_note(current.text).data.get("updated") or "")
        renders = dict(state.get("renders") or {})
        if (
            state.get("signature") == signature
            and state.get("hash") == current.hash
            and (not stamp or renders.get(stamp) == rendered)
        ):
            return
        if stamp:
            renders[stamp] = rendered
            renders = dict(sorted(renders.items())[-RENDERS_KEPT:])
        self.app.store.write_json(
            STATE,
            {
                "signature": signature,
                "hash": current.hash,
                "rendered": rendered,
                "renders": renders,
                "thoughts": thoughts,
                "notes": notes,
            },
        )

    def redraw_if_ours(self) -> bool:
        """Draw the note again if it is as vaultbrain last drew it (the person's edits are
        never drawn over unread: they wait for the next refresh). True if written."""
        with self.app.store.locked():
            current = self.app.vault.try_read(self.note_rel)
            if current is None or current.hash != self._state().get("hash"):
                return False
            return self._write(False)

    def changed(self) -> None:
        """The person changed the note: read it again at the next refresh."""
        self._versions = None

    def _versions_now(self) -> tuple[Any, ...]:
        store = self.app.store
        return (
            store.inbox.version(),
            store.collection("conflicts").version(),
            store.collection("unreadable").version(),
            store.collection("merges").version(),  # the nightly `tend`'s merge proposals
            store.collection("take_grades").version(),  # and its takes to grade
            self.app.pack_problem,  # a pack this machine cannot use: listed while it lasts
            notes_changed(self.app)[0],  # a gesture not done, said on its item
            status_changed(self.app)[0],  # the daemon started, stopped, its LLM came or went
        )

    def apply_decisions(self, now: bool = False) -> list[str]:
        """Read the person's gestures (here and on the inbox's lines) and carry them out;
        what was done, one line each. ``now``: as the notes are, quiet or not (a command)."""
        from vaultbrain.capture.inbox_pass import apply_gestures

        done = apply_gestures(self.app, now)
        if done:
            self._versions = None
        return done


def _stamp(now: dt.datetime, renders: dict[str, Any]) -> str:
    """The drawing's ``updated``: now, or a second after the latest drawing kept when that is
    not earlier. The person's edit is read against the drawing its stamp names (``renders``);
    two drawings in one second (a command's right after the daemon's) would share one, and
    a reader that met the second before its state was kept (another process reading between
    the two writes, or this one stopped there) would take the first's items, missing from
    the second, for lines the person deleted, and dismiss them."""
    latest = max(renders, default="")
    if latest and now.isoformat() <= latest:
        try:
            return (dt.datetime.fromisoformat(latest) + dt.timedelta(seconds=1)).isoformat()
        except ValueError:
            pass  # (a stamp not ours: now stands)
    return now.isoformat()
