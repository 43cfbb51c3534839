"""An in-memory twin of the part of :class:`vaultbrain.vault.Vault` that capture uses
(vdirsyncer's ``MemoryStorage`` idea): ``read``, ``try_read``, ``exists``, ``create``,
``replace`` (compare-and-swap) and ``edit``, with the same results and errors.

tests/contract/test_vault_contract.py runs the same tests against both, so a test that uses
the twin tests what the real vault does. ``write_as_person`` stands for an editor saving a
note behind vaultbrain's back.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import PurePosixPath

from vaultbrain.errors import ConflictError, UnsafePathError, UserError
from vaultbrain.vault import Edit, NoteFile, content_hash
from vaultbrain.vault.files import EDIT_ATTEMPTS


class MemoryVault:
    def __init__(self) -> None:
        self.notes: dict[str, str] = {}
        self._clock = itertools.count(1)
        self._mtimes: dict[str, int] = {}
        self.writes = 0  # writes that went through (creates and swaps)

    @staticmethod
    def check(rel: str) -> str:
        """The path as the real vault accepts it, or its UnsafePathError."""
        if not rel or "\x00" in rel:
            raise UnsafePathError(f"not a usable vault path: {rel!r}")
        if rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
            raise UnsafePathError(f"absolute paths are not allowed in the vault: {rel}")
        if any(part == ".." for part in PurePosixPath(rel).parts):
            raise UnsafePathError(f"'..' is not allowed in a vault path: {rel}")
        return rel

    # -- reading -------------------------------------------------------------------------
    def read(self, rel: str) -> NoteFile:
        text = self.notes.get(self.check(rel))
        if text is None:
            raise FileNotFoundError(rel)
        data = text.encode("utf-8")
        if b"\x00" in data:
            raise UserError(f"{rel} holds binary data, not Markdown text; left as it is")
        return NoteFile(rel, text, content_hash(data), self._mtimes[rel], len(data))

    def try_read(self, rel: str) -> NoteFile | None:
        try:
            return self.read(rel)
        except FileNotFoundError:
            return None

    def exists(self, rel: str) -> bool:
        return self.check(rel) in self.notes

    # -- writing -------------------------------------------------------------------------
    def _put(self, rel: str, text: str) -> str:
        self.notes[rel] = text
        self._mtimes[rel] = next(self._clock)
        self.writes += 1
        return content_hash(text.encode("utf-8"))

    def create(self, rel: str, text: str) -> str:
        if self.check(rel) in self.notes:
            raise FileExistsError(rel)
        return self._put(rel, text)

    def replace(self, rel: str, text: str, expected_hash: str | None) -> str:
        if expected_hash is None:
            try:
                return self.create(rel, text)
            except FileExistsError as exc:
                raise ConflictError(f"{rel} appeared while it was being written") from exc
        current = self.notes.get(self.check(rel))
        if current is None:
            raise ConflictError(f"{rel} was removed since it was read")
        if content_hash(current.encode("utf-8")) != expected_hash:
            raise ConflictError(f"{rel} changed since it was read")
        digest = content_hash(text.encode("utf-8"))
        if digest == expected_hash:
            return digest
        return self._put(rel, text)

    def edit(self, rel: str, build: Callable[[NoteFile | None], str | None]) -> Edit:
        for _ in range(EDIT_ATTEMPTS):
            note = self.try_read(rel)
            text = build(note)
            if text is None or (note is not None and text == note.text):
                return Edit(note, note.text if note else None, note.hash if note else None, False)
            try:
                digest = self.replace(rel, text, note.hash if note is not None else None)
            except ConflictError:
                continue
            return Edit(note, text, digest, True)
        raise UserError(f"{rel} keeps changing; it will be written on a later pass")

    # -- the person --------------------------------------------------------------------
    def write_as_person(self, rel: str, text: str) -> None:
        self._put(self.check(rel), text)

    def remove_as_person(self, rel: str) -> None:
        del self.notes[rel]
