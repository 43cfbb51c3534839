from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.swaps import opened_before_the_swap

from vaultbrain.errors import ConflictError, UnsafePathError
from vaultbrain.vault import Vault, content_hash, is_ignored


def test_resolve_refuses_escapes(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / "link-out")
    vault = Vault(root)
    for bad in [
        "../x.md",
        "a/../../x.md",
        "/etc/passwd",
        "C:\\x.md",
        "link-out/x.md",
        "",
        "a\x00b",
    ]:
        with pytest.raises(UnsafePathError):
            vault.resolve(bad)
    assert vault.resolve("People/Sarah.md") == root / "People" / "Sarah.md"


def test_create_never_clobbers(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    vault.create("A/n.md", "one")
    with pytest.raises(FileExistsError):
        vault.create("A/n.md", "two")
    assert (tmp_path / "A" / "n.md").read_text() == "one"
    assert not [p for p in (tmp_path / "A").iterdir() if p.name.startswith(".vb-tmp-")]


def test_replace_is_compare_and_swap(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    digest = vault.create("n.md", "one")
    assert vault.read("n.md").hash == digest == content_hash("one")
    (tmp_path / "n.md").write_text("the person's edit")
    with pytest.raises(ConflictError):
        vault.replace("n.md", "ours", digest)
    assert (tmp_path / "n.md").read_text() == "the person's edit"
    fresh = vault.read("n.md")
    vault.replace("n.md", "ours", fresh.hash)
    assert (tmp_path / "n.md").read_text() == "ours"
    assert vault.is_own_write("n.md", content_hash("ours"))


def test_replace_keeps_file_mode(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    digest = vault.create("n.md", "one")
    os.chmod(tmp_path / "n.md", 0o600)
    vault.replace("n.md", "two", digest)
    assert (os.stat(tmp_path / "n.md").st_mode & 0o777) == 0o600


@pytest.mark.parametrize(
    ("rel", "ignored"),
    [
        (".obsidian/workspace.md", True),
        (".trash/x.md", True),
        (".git/x.md", True),
        ("People/.hidden.md", True),
        ("People/Sarah.md", False),
        ("People/Sarah.sync-conflict-20261201-123456-ABC.md", True),
        ("People/Sarah (conflicted copy).md", True),
        ("People/.Sarah.md.icloud", True),
        ("People/Sarah.md.icloud", True),
        (".vaultbrain/inbox/index.json", True),
        ("Ideas/.vb-tmp-abc", True),
    ],
)
def test_ignore_rules(rel: str, ignored: bool) -> None:
    assert is_ignored(rel) is ignored


def test_iter_notes_skips_ignored_and_symlink_loops(tmp_path: Path) -> None:
    (tmp_path / "People").mkdir()
    (tmp_path / "People" / "A.md").write_text("a")
    (tmp_path / "People" / "A.sync-conflict-1.md").write_text("a")
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "x.md").write_text("x")
    os.symlink(tmp_path, tmp_path / "People" / "loop")
    vault = Vault(tmp_path)
    assert sorted(rel for rel, _ in vault.iter_notes()) == ["People/A.md"]


def test_read_refuses_binary_and_non_utf8(tmp_path: Path) -> None:
    from vaultbrain.errors import UserError

    (tmp_path / "bin.md").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    vault = Vault(tmp_path)
    with pytest.raises(UserError, match="binary"):
        vault.read("bin.md")
    with pytest.raises(UserError, match="not UTF-8"):
        vault.read("latin.md")


def test_an_editor_saving_into_the_swapped_out_file_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor opens (truncates) the note just before our swap and writes after it: its save
    lands in the old file, which is waited for and put back; our write becomes a conflict."""
    import threading
    import time

    from vaultbrain.vault import files

    note = tmp_path / "People" / "Sarah.md"
    note.parent.mkdir()
    note.write_text("---\nname: Sarah\n---\n")
    vault = Vault(tmp_path)
    before = vault.read("People/Sarah.md")
    person = "---\nname: Sarah Jones\n---\n- the person's own line\n"  # not an append
    real_swap = files.swap_in
    writers = []

    def swap_while_an_editor_saves(tmp: Path, path: Path, fd: int, seen: bytes, data) -> None:
        editor = open(path, "w", encoding="utf-8")  # truncated, before the swap

        def finish() -> None:
            time.sleep(0.1)  # well after the swap's own checks
            editor.write(person)
            editor.close()

        writers.append(threading.Thread(target=finish))
        writers[-1].start()
        real_swap(tmp, path, fd, seen, data)

    monkeypatch.setattr(files, "swap_in", swap_while_an_editor_saves)
    with pytest.raises(ConflictError):
        vault.replace("People/Sarah.md", before.text + "- ours\n", before.hash)
    writers[0].join()
    assert note.read_text() == person


def test_an_editor_saving_a_stale_buffer_over_our_write_gets_our_change_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor read the note just before our swap and saves its buffer (in place) just
    after it: our change is gone from the note, so ``edit`` makes it again on the editor's
    text, and both survive."""
    from vaultbrain.vault import files

    note = tmp_path / "People" / "Sarah.md"
    note.parent.mkdir()
    note.write_text("---\nname: Sarah\n---\n")
    vault = Vault(tmp_path)
    real_swap = files.swap_in
    saves = []

    def swap_then_the_editor_saves(tmp: Path, path: Path, fd: int, seen: bytes, data) -> None:
        real_swap(tmp, path, fd, seen, data)
        if not saves:
            with open(path, "w", encoding="utf-8") as editor:
                editor.write(seen.decode() + "- the person's line\n")
            saves.append(path)

    monkeypatch.setattr(files, "swap_in", swap_then_the_editor_saves)
    done = vault.edit("People/Sarah.md", lambda n: n.text + "- ours\n")
    assert done.written and saves
    text = note.read_text()
    assert "- the person's line\n" in text and text.count("- ours\n") == 1, text


def test_an_in_place_save_between_the_check_and_the_swap_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note's bytes change after they were checked but before the exchange: the swap is
    undone (the person's file goes back where it was) and the write is a conflict."""
    from vaultbrain.vault import atomic

    note = tmp_path / "Sarah.md"
    note.write_text("one\n")
    vault = Vault(tmp_path)
    before = vault.read("Sarah.md")
    real_exchange = atomic._exchange
    calls = []

    def exchange_after_a_save(a: Path, b: Path) -> bool:
        if not calls:
            with open(note, "a", encoding="utf-8") as fh:
                fh.write("two\n")
        calls.append((a, b))
        return real_exchange(a, b)

    monkeypatch.setattr(atomic, "_exchange", exchange_after_a_save)
    with pytest.raises(ConflictError):
        vault.replace("Sarah.md", "one\nours\n", before.hash)
    assert note.read_text() == "one\ntwo\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".vb-tmp-")]


def test_lines_appended_around_an_undone_swap_are_all_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line is appended just before the swap (so the swap is undone) and another just after
    it, into our file while it stands at the note's path: both end in the note, and the edit,
    made again, goes on top of them."""
    from vaultbrain.vault import atomic

    note = tmp_path / "Inbox.md"
    note.write_text("- one\n")
    vault = Vault(tmp_path)
    real_exchange = atomic._exchange
    calls = []

    def exchange_between_two_appends(a: Path, b: Path) -> bool:
        first = not calls
        calls.append((a, b))
        if first:
            with open(note, "a", encoding="utf-8") as fh:
                fh.write("- two\n")
        done = real_exchange(a, b)
        if first:
            with open(note, "a", encoding="utf-8") as fh:  # our file is at the path now
                fh.write("- three\n")
        return done

    monkeypatch.setattr(atomic, "_exchange", exchange_between_two_appends)
    vault.edit("Inbox.md", lambda n: n.text.replace("- one", "- [x] one"))
    assert note.read_text() == "- [x] one\n- two\n- three\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".vb-tmp-")]


def _ours_over_an_open_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """``Sarah.md`` ("- one") replaced by ours ("- one", "- ours") while an editor holds it
    open to rewrite in place: (the note's path, the vault, [the editor's handle])."""
    note = tmp_path / "Sarah.md"
    note.write_text("- one\n")
    vault = Vault(tmp_path)
    held = opened_before_the_swap(monkeypatch, "r+")
    before = vault.read("Sarah.md")
    vault.replace("Sarah.md", "- one\n- ours\n", before.hash)
    return note, vault, held


def test_a_line_appended_long_after_the_swap_is_carried_into_the_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An appender that opened the inbox just before our swap writes its line 300 ms later
    (a busy machine, a script between its open and its write): it lands in the displaced
    file, and the next look puts it into the note, after what the note holds by then."""
    import time

    note = tmp_path / "Inbox.md"
    note.write_text("- one\n")
    vault = Vault(tmp_path)
    held = opened_before_the_swap(monkeypatch, "a")
    vault.edit("Inbox.md", lambda n: n.text.replace("- one", "- [x] one"))
    assert vault.late, "the displaced file is watched"
    assert vault.catch_late_writes() == []  # nothing written into it yet
    time.sleep(0.3)
    held[0].write("- two, typed as we wrote\n")
    held[0].close()
    vault.edit("Inbox.md", lambda n: n.text + "- three\n")  # the note moves on meanwhile
    # A change is taken once it has held still from one look to the next.
    assert vault.catch_late_writes() == []
    assert vault.catch_late_writes() == ["Inbox.md"]
    assert note.read_text() == "- [x] one\n- three\n- two, typed as we wrote\n"
    digest = vault.current_hash("Inbox.md")
    assert not vault.is_own_write("Inbox.md", digest), "the person's line: the watcher reads it"
    assert vault.catch_late_writes() == []  # carried once


def test_an_in_place_rewrite_into_the_displaced_file_wins_while_the_note_is_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor that read the note before our swap saves its whole text into the displaced
    file later: while the note is still what we wrote, the editor's save wins (as it would
    have a moment earlier); our change is the caller's to make again."""
    note, vault, held = _ours_over_an_open_editor(tmp_path, monkeypatch)
    held[0].seek(0)
    held[0].write("- uno\n- the person's\n")
    held[0].truncate()
    held[0].close()
    assert vault.catch_late_writes(final=True) == ["Sarah.md"]
    assert note.read_text() == "- uno\n- the person's\n"


def test_a_rewrite_landing_after_the_note_moved_on_adds_only_its_new_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note, vault, held = _ours_over_an_open_editor(tmp_path, monkeypatch)
    vault.edit("Sarah.md", lambda n: n.text + "- ours again\n")
    held[0].seek(0)
    held[0].write("- one\n- the person's\n")
    held[0].close()
    assert vault.catch_late_writes(final=True) == ["Sarah.md"]
    assert note.read_text() == "- one\n- ours\n- ours again\n- the person's\n"


def test_a_command_looks_at_the_files_it_displaced_as_it_ends(tmp_path: Path) -> None:
    """A process that replaced a note and ends at once still carries a late append (the
    look at exit waits a moment after its newest swap)."""
    import subprocess
    import sys
    import textwrap

    note = tmp_path / "Inbox.md"
    note.write_text("- one\n")
    script = textwrap.dedent(
        f"""
        import threading, time
        from vaultbrain.vault import files
        from vaultbrain.vault.files import Vault

        real_swap, writers = files.swap_in, []

        def swap(tmp, path, fd, seen, data):
            if not writers:  # (the carry's own swap has no writer)
                fh = open(path, "a", encoding="utf-8")
                def late():
                    time.sleep(0.005)  # after the swap's own look, before the process ends
                    fh.write("- two\\n")
                    fh.close()
                writers.append(threading.Thread(target=late))
                writers[-1].start()
            real_swap(tmp, path, fd, seen, data)

        files.swap_in = swap
        vault = Vault({str(tmp_path)!r})
        vault.edit("Inbox.md", lambda n: n.text.replace("- one", "- [x] one"))
        writers[0].join()
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert note.read_text() == "- [x] one\n- two\n"


def test_displaced_files_watched_at_once_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each watched file is an open descriptor: past the bound the oldest is looked at one
    last time and closed (a late line in it is still carried)."""
    from vaultbrain.vault import late

    monkeypatch.setattr(late, "KEEP", 3)
    (tmp_path / "A.md").write_text("- a\n")
    vault = Vault(tmp_path)
    held = opened_before_the_swap(monkeypatch, "a")
    vault.edit("A.md", lambda n: n.text + "- ours\n")
    held[0].write("- late into A\n")
    held[0].close()
    for i in range(4):
        (tmp_path / f"N{i}.md").write_text("x\n")
        vault.edit(f"N{i}.md", lambda n: n.text + "y\n")
    assert len(vault.late._kept) == 3
    assert (tmp_path / "A.md").read_text() == "- a\n- ours\n- late into A\n"


def test_a_displaced_file_caught_emptied_mid_save_is_not_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor truncates the displaced file and writes its save a moment later: the empty
    file is never taken for its save (the note is not emptied); the save is, once it comes."""
    note, vault, held = _ours_over_an_open_editor(tmp_path, monkeypatch)
    held[0].truncate(0)
    held[0].flush()
    assert vault.catch_late_writes() == [] and vault.catch_late_writes() == []
    assert note.read_text() == "- one\n- ours\n"
    held[0].seek(0)
    held[0].write("- one\n- the person's\n")
    held[0].close()
    assert vault.catch_late_writes(final=True) == ["Sarah.md"]
    # (a save that only added to what it read is an addition: ours stays too)
    assert note.read_text() == "- one\n- ours\n- the person's\n"


def test_an_append_landing_between_the_look_and_the_watch_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line written into the displaced file right after ``replace`` read it, before the
    watch began: the watch does not take the file as it is then for what was read."""
    from vaultbrain.vault import files

    note = tmp_path / "Inbox.md"
    note.write_text("- one\n")
    vault = Vault(tmp_path)
    real_look = files.Vault._late_writes

    def look_then_a_write(fd: int, seen: bytes) -> bytes | None:
        found = real_look(fd, seen)
        with open(f"/proc/self/fd/{fd}", "a", encoding="utf-8") as late:  # the displaced file
            late.write("- two\n")
        return found

    monkeypatch.setattr(files.Vault, "_late_writes", staticmethod(look_then_a_write))
    vault.edit("Inbox.md", lambda n: n.text.replace("- one", "- [x] one"))
    monkeypatch.undo()
    assert vault.catch_late_writes(final=True) == ["Inbox.md"]
    assert note.read_text() == "- [x] one\n- two\n"


def test_a_note_that_keeps_its_bytes_is_rewritten_with_them_exactly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The inbox is read even when a line is not UTF-8: the stray bytes come back exactly at
    every rewrite. Any other such note stays unreadable, never written."""
    from vaultbrain.errors import UserError as _UserError
    from vaultbrain.vault import Vault as _Vault

    vault = _Vault(tmp_path / "V", tmp_path / "state")
    (tmp_path / "V").mkdir()
    data = b"- one\n- caf\xe9 \x81\xff\n"
    (tmp_path / "V" / "Inbox.md").write_bytes(data)
    (tmp_path / "V" / "Other.md").write_bytes(data)
    with pytest.raises(_UserError, match="not UTF-8"):
        vault.read("Other.md")
    vault.keeps_bytes.add("Inbox.md")
    vault.edit("Inbox.md", lambda note: note.text + "- two\n" if note else None)
    assert (tmp_path / "V" / "Inbox.md").read_bytes() == data + b"- two\n"
    assert vault.read("Inbox.md").hash == vault.current_hash("Inbox.md")


@pytest.mark.parametrize("mode", ["a", "r+"], ids=["appended", "rewritten after moving on"])
def test_the_displaced_file_of_an_inbox_over_a_megabyte_is_watched_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """A heavy user's inbox after a year (here 3 MB): a writer that opened it just before our
    swap and writes a moment later still gets its line into the note (compared by size, a
    hash of the tail and a hash per line, not by keeping megabytes per swap)."""
    note = tmp_path / "Inbox.md"
    history = "".join(
        f"- [x] thought number {i} of a long year ^vb-{i:06d}\n" for i in range(60_000)
    )
    assert len(history) > 3 * 2**20
    note.write_text(history + "- one\n")
    vault = Vault(tmp_path)
    held = opened_before_the_swap(monkeypatch, mode)
    vault.edit("Inbox.md", lambda n: n.text.replace("- one\n", "- [x] one ^vb-aaaaaa\n"))
    assert vault.late, "the displaced file is watched"
    if mode == "a":
        held[0].write("- two, typed as we wrote\n")
    else:
        vault.edit("Inbox.md", lambda n: n.text + "- three\n")  # the note moves on
        held[0].seek(0)
        held[0].write(history + "- one\n- two, typed as we wrote\n")
    held[0].close()
    assert vault.catch_late_writes(final=True) == ["Inbox.md"]
    tail = "- [x] one ^vb-aaaaaa\n" + ("" if mode == "a" else "- three\n")
    assert note.read_text() == history + tail + "- two, typed as we wrote\n"
