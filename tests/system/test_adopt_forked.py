"""`adopt --apply` with its batches written by writer processes (vaultbrain/filing/writers.py;
a big vault's adoption uses the machine's other cores): the notes, records and notes cache
come out as the one-process adoption leaves them, a writer that dies hands its notes back to
be written here (exactly once), and Ctrl-C stops the parent cleanly with the writers'
finished batches followed."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.forking import one_thread  # noqa: F401 (the fixture)
from support.state import text as state_text

import vaultbrain.filing.writers as writers

pytestmark = pytest.mark.usefixtures("one_thread")

FOLDERS = {"People": 14, "Projects": 11, "Ideas": 9}
ODD = {
    "People/Listed.md": '---\ntype: ["[[Authors]]"]\nname: Ann\n---\nWrites.\n',  # a conflict
    "Ideas/Broken.md": "---\ntitle: [unclosed\n---\nA body.\n",  # unreadable frontmatter
}


def _vault(root: Path) -> Path:
    run(root, "init")
    for folder, n in FOLDERS.items():
        for i in range(n):
            (root / folder / f"Note {i:02d}.md").write_text(
                f"---\nname: {folder} {i}\ntags: [mine]\n---\nWritten by hand, {i}.\n"
            )
    for rel, text in ODD.items():
        (root / rel).write_text(text)
    run(root, "reindex")
    return root


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    return _vault(tmp_path / "Vault")


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many writer processes each adoption forked (the real crew, counted)."""
    made: list[int] = []
    real = writers.start

    def counted(*args, **kwargs):
        team = real(*args, **kwargs)
        made.append(0 if team is None else len(team))
        return team

    monkeypatch.setattr(writers, "start", counted)
    return made


def _plain() -> list[str]:
    return [f"{f}/Note {i:02d}.md" for f, n in FOLDERS.items() for i in range(n)]


def _check_adopted(root: Path) -> None:
    """Every plain note has one id, its record's; the odd ones are as they were; a rescan
    reads nothing and makes no record."""
    records = {
        r["path"]: r for t in ("person", "project", "idea") for r in run_json(root, "db", "list", t)
    }
    for rel in _plain():
        text = (root / rel).read_text()
        assert len(re.findall(r"^id: ", text, re.M)) == 1, text
        fm = frontmatter(root / rel)
        assert fm["tags"] == ["mine"] and fm["type"], fm
        assert records[rel]["id"] == fm["id"], (rel, records[rel])
        assert records[rel].get("origin") != "vault"
    for rel, text in ODD.items():
        assert (root / rel).read_text() == text
    again = run_json(root, "reindex", "--json")
    assert again["read"] == 0 and again["created"] == 0, again


def test_writer_processes_adopt_as_one_process_does(vault: Path, forks: list[int]) -> None:
    from vaultbrain.brain import Brain
    from vaultbrain.filing.adopt import apply

    done = apply(Brain(vault), batch=4, processes=2)
    assert forks == [2]
    assert not done.stopped and len(done.done) == len(_plain())
    assert sorted(a.path for a in done.done) == sorted(_plain())
    assert len(done.problems) == 1 and done.problems[0].startswith("People/Listed.md"), (
        done.problems
    )
    assert "conflict" in done.problems[0]
    _check_adopted(vault)
    audit = state_text(Path(Brain(vault).state_dir))
    assert audit.count('"kind":"adopt"') == len(_plain())
    # a second run finds nothing more to write
    rest = apply(Brain(vault), batch=4, processes=2)
    assert rest.done == [] and len(rest.problems) == 1


def test_a_writer_that_dies_hands_its_notes_back(
    vault: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """One writer dies on its second batch, after writing some of it (a kill -9, an OOM):
    the notes it was given are written by the parent, each once."""
    from vaultbrain.brain import Brain
    from vaultbrain.filing import adopt

    real = adopt._Writing.__call__
    seen: list[int] = []

    def dying(self, span):
        if self.forked:
            seen.append(span[0])
            if len(seen) == 2 and span[0] % 8 == 4:  # the second writer's second batch
                real(self, (span[0], span[0] + 2))  # half of it written, then gone
                os._exit(9)
        return real(self, span)

    monkeypatch.setattr(adopt._Writing, "__call__", dying)
    done = adopt.apply(Brain(vault), batch=4, processes=2)
    assert forks == [2]
    assert not done.stopped and len(done.problems) == 1, done.problems
    lost = [r.getMessage() for r in caplog.records if "lost notes" in r.getMessage()]
    assert lost and lost[0].startswith("a writer process lost notes 12-16"), lost
    # The notes it wrote before it died have their id already: the parent finds them so,
    # writes nothing in them and makes their records follow.
    adopted = {a.path for a in done.done}
    assert adopted <= set(_plain()) and len(adopted) >= len(_plain()) - 2
    _check_adopted(vault)


def test_ctrl_c_with_writer_processes_goes_on_where_it_stopped(
    vault: Path, forks: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    from vaultbrain.brain import Brain
    from vaultbrain.filing.adopt import apply

    calls: list[tuple[int, int]] = []

    def interrupt(done: int, total: int) -> None:
        calls.append((done, total))
        if len(calls) == 2:
            raise KeyboardInterrupt

    first = apply(Brain(vault), progress=interrupt, batch=4, processes=2)
    assert forks == [2] and first.stopped
    # two batches followed before the Ctrl-C, and the four the writers had been given
    assert len(first.done) + len(first.problems) >= 8
    assert len(first.done) + len(first.problems) < len(_plain()) + len(ODD)
    with_id = [rel for rel in _plain() if "\nid: " in (vault / rel).read_text()]
    assert sorted(a.path for a in first.done) == sorted(with_id)
    assert not [r for r in caplog.records if "lost notes" in r.getMessage()]  # (all read back)
    rest = apply(Brain(vault), batch=4, processes=2)
    assert not rest.stopped and len(first.done) + len(rest.done) == len(_plain())
    _check_adopted(vault)
    assert len(run_json(vault, "db", "list", "person")) == FOLDERS["People"] + 1


def test_no_fork_when_another_thread_runs(vault: Path, forks: list[int]) -> None:
    """A process with threads (the daemon's) is never forked: the adoption is done on its
    own threads, to the same end."""
    import threading

    from vaultbrain.brain import Brain
    from vaultbrain.filing.adopt import apply

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        done = apply(Brain(vault), batch=4, processes=2)
    finally:
        stop.set()
        other.join()
    assert forks == [0] and len(done.done) == len(_plain())
    _check_adopted(vault)


def _big_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, more: int) -> list[Path]:
    """A vault of FORK_FROM + ``more`` hand-made notes, imported (skipped on one core)."""
    from vaultbrain.filing.adopt import FORK_FROM

    if writers.cores() < 2:
        pytest.skip("one core: nothing is forked")
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    n = FORK_FROM + more
    notes = [root / ("People", "Projects", "Ideas")[i % 3] / f"Hand {i:04d}.md" for i in range(n)]
    for i, path in enumerate(notes):
        path.write_text(f"---\nname: Hand {i}\n---\nMine.\n")
    run(root, "reindex")
    return notes


def test_the_command_forks_its_writers_on_a_big_vault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`vaultbrain adopt --apply` as a person runs it (a subprocess, with `-v` to read its
    log): on 2,100 notes it writes with two forked processes, and every note is adopted."""
    import subprocess
    import sys

    notes = _big_vault(tmp_path, monkeypatch, 100)
    root, n = tmp_path / "Vault", len(notes)
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(root), "-v", "adopt", "--apply"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"adopting {n} notes: written by 2 processes forked for it" in done.stderr
    assert f"{n} note(s) adopted, 0 left as they were" in done.stdout
    assert "lost notes" not in done.stderr
    without = [p for p in root.glob("*/Hand *.md") if "\nid: " not in p.read_text()]
    assert without == []
    again = run_json(root, "reindex", "--json")
    assert again["read"] == 0 and again["created"] == 0, again


def test_a_late_write_into_a_note_a_writer_displaced_is_kept(vault: Path, forks: list[int]) -> None:
    """An appender that opened a note before a writer process swapped it writes after the
    swap, into the displaced file: the writer carries the line into the note as it ends."""
    from vaultbrain.brain import Brain
    from vaultbrain.filing.adopt import apply

    rel = "Ideas/Note 00.md"  # (in the first batch)
    fd = os.open(vault / rel, os.O_WRONLY | os.O_APPEND)
    try:

        def late(done: int, total: int) -> None:
            if done and not late.wrote:  # type: ignore[attr-defined]
                assert "\nid: " in (vault / rel).read_text()  # swapped: our fd is the old file
                os.write(fd, b"A line written late.\n")
                late.wrote = True  # type: ignore[attr-defined]

        late.wrote = False  # type: ignore[attr-defined]
        done = apply(Brain(vault), progress=late, batch=4, processes=2)
    finally:
        os.close(fd)
    assert forks == [2] and late.wrote and len(done.done) == len(_plain())  # type: ignore[attr-defined]
    text = (vault / rel).read_text()
    assert text.count("\nid: ") == 1 and text.endswith(
        "Written by hand, 0.\nA line written late.\n"
    ), text


def test_a_record_changed_meanwhile_is_read_again(
    vault: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process changes a record after the plan read it (its status, its log): the
    record a writer made from the plan's copy is not used; the parent reads the record and
    the note again, and keeps what the other process wrote."""
    from vaultbrain.brain import Brain
    from vaultbrain.filing import adopt

    rel = "Projects/Note 10.md"
    reread: list[str] = []
    real_as_it_is, real_plan = adopt._as_it_is, adopt._hand_made

    def spied(brain, a):
        reread.append(a.path)
        return real_as_it_is(brain, a)

    def then_changed(brain, folder):
        planned = real_plan(brain, folder)
        col = Brain(vault).store.collection("projects")  # (as another process would)
        record = next(r for r in col.all() if r.get("path") == rel)
        col.put({**record, "status": "active", "log": ["touched meanwhile"]})
        time.sleep(0.25)  # (the record index looks for other processes' writes every 0.2 s)
        return planned

    monkeypatch.setattr(adopt, "_as_it_is", spied)
    monkeypatch.setattr(adopt, "_hand_made", then_changed)
    done = adopt.apply(Brain(vault), batch=4, processes=2)
    assert forks == [2] and len(done.done) == len(_plain())
    assert reread == [rel]
    record = next(r for r in run_json(vault, "db", "list", "project") if r["path"] == rel)
    full = Brain(vault).store.collection("projects").get(record["id"])
    assert full["status"] == "active" and full["log"] == ["touched meanwhile"], full
    assert full["note_id"] == record["id"] == frontmatter(vault / rel)["id"]
    _check_adopted(vault)


def _running_on(root: Path) -> list[int]:
    """Processes whose command line names ``root`` (the command, and its forked writers)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if str(root).encode() in cmdline and state != "Z":
                found.append(int(proc.name))
    return found


def test_the_command_killed_mid_adoption_its_writers_end_and_a_rerun_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kill -9` of `vaultbrain adopt --apply` while its writers write: they see their
    parent gone and end (nothing is left running), and a rerun adopts the rest, each note
    once, every record following its note."""
    import signal
    import subprocess
    import sys

    notes = _big_vault(tmp_path, monkeypatch, 500)
    root, n = tmp_path / "Vault", len(notes)
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultbrain", "--vault", str(root), "adopt", "--apply"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if sum("\nid: " in p.read_text() for p in notes[::25]) >= 4:  # (some written)
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the adoption ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 60
    while _running_on(root) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running_on(root) == []  # (the writers ended: their parent's pipe closed)
    assert any("\nid: " not in p.read_text() for p in notes)  # (stopped part-way)
    rest = run(root, "adopt", "--apply").output
    assert "0 left as they were" in rest, rest[-500:]
    for path in notes:
        text = path.read_text()
        assert text.count("\nid: ") == 1, (path, text)
    records = {
        r["path"]: r for t in ("person", "project", "idea") for r in run_json(root, "db", "list", t)
    }
    assert len(records) == n
    for path in notes[::50]:
        rel = path.relative_to(root).as_posix()
        assert records[rel]["id"] == frontmatter(path)["id"]
    again = run_json(root, "reindex", "--json")
    assert again["created"] == 0, again
