from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from vaultbrain.errors import UserError
from vaultbrain.store import Store, validate_id


@pytest.mark.parametrize(
    "bad", ["..", "../x", "a/b", "__proto__", "constructor", "", "a b", "x" * 200, ".hidden"]
)
def test_bad_ids_are_refused(bad: str) -> None:
    with pytest.raises(UserError):
        validate_id(bad)


def test_the_state_dir_holds_one_database(tmp_path: Path) -> None:
    state = tmp_path / "state"
    store = Store(state)
    store.collection("people").put({"id": "p1", "type": "person", "title": "Sarah"})
    store.audit({"kind": "classification"})
    store.append_jsonl("digests.jsonl", {"n": 1})
    store.write_json("meta.json", {"a": 1})
    assert sorted(os.listdir(state)) == ["state.db", "state.db-shm", "state.db-wal"]
    store.close()
    again = Store(state)
    assert again.collection("people").get("p1")["title"] == "Sarah"
    assert again.read_json("meta.json") == {"a": 1}


def test_the_state_dir_is_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    Store(state).inbox.put({"id": "c1"})
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    for name in os.listdir(state):
        assert stat.S_IMODE(os.stat(state / name).st_mode) == 0o600, name


def test_an_open_state_dir_made_readable_by_others_is_made_private(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from vaultbrain.store import perms

    state = tmp_path / "state"
    Store(state).inbox.put({"id": "c0"})
    (state / "graph").mkdir(parents=True)
    (state / "graph" / "x.sqlite").write_text("x")
    os.chmod(state / "state.db", 0o644)  # (made readable by hand, or by a copy)
    os.chmod(state, 0o755)
    os.chmod(state / "graph", 0o755)
    os.chmod(state / "graph" / "x.sqlite", 0o644)
    perms._checked.discard(str(state))
    with caplog.at_level("WARNING", logger="vaultbrain.store"):
        Store(state).inbox.put({"id": "c1"})
    assert "made private" in caplog.text
    for path in (state, state / "graph"):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
    for path in (state / "graph" / "x.sqlite", state / "state.db"):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_state_dir_removed_under_a_running_store_is_made_again(tmp_path: Path) -> None:
    """A lost state dir (removed by hand): the next write makes a new database in its place,
    and the store no longer answers from the one removed."""
    state = tmp_path / "state"
    store = Store(state)
    col = store.collection("people")
    col.put({"id": "p1"})
    version = col.version()
    shutil.rmtree(state)
    assert col.get("p1") is None
    col.put({"id": "p2"})
    assert Store(state).collection("people").ids() == ["p2"]
    assert col.ids() == ["p2"]
    assert col.ids_changed_since(version) is None  # another database: look at everything


def test_a_second_store_sees_what_the_first_wrote_after_reopening(tmp_path: Path) -> None:
    a = Store(tmp_path)
    col = a.collection("ideas")
    for i in range(5):
        col.put({"id": f"i{i}"})
    a.close()
    assert sorted(Store(tmp_path).collection("ideas").ids()) == [f"i{i}" for i in range(5)]


def test_the_connections_of_threads_that_ended_are_closed(tmp_path: Path) -> None:
    """One connection per thread: a daemon running a thread per task does not keep one
    (three files: the database, its log, its shared memory) for each thread that ended."""
    import gc
    import threading

    store = Store(tmp_path)
    store.inbox.put({"id": "c1"})

    def read() -> None:
        assert store.inbox.get("c1") == {"id": "c1"}

    def open_files() -> int:
        gc.collect()
        return len(os.listdir("/proc/self/fd"))

    before = open_files()
    for _ in range(200):
        t = threading.Thread(target=read)
        t.start()
        t.join()
    # (SQLite keeps a few descriptors of closed connections for reuse while another
    # connection of the process holds a lock on the file: far fewer than 3 per thread)
    assert open_files() - before < 100


def test_the_blobs_migration_drops_the_cache_folders_of_before(tmp_path: Path) -> None:
    """A state dir with the classifier's and the packs' pickles as files of their own: the
    migration drops those folders (caches, made again in the database on first use)."""
    state = tmp_path / "state"
    for name in ("classifier/vault-vaultbrain-base.pickle", "packs-cache/0ff50fa3cfb74c5b.pickle"):
        (state / name).parent.mkdir(parents=True, exist_ok=True)
        (state / name).write_bytes(b"\x80\x05N.")
    store = Store(state)
    store.write_blob("classifier/x", b"\x00bytes\xff")
    assert store.read_blob("classifier/x") == b"\x00bytes\xff"
    assert store.read_blob("classifier/none") is None
    assert not (state / "classifier").exists() and not (state / "packs-cache").exists()
    applied = [r[0] for r in store.conn().execute("SELECT name FROM _migrations")]
    assert "m003_blobs" in applied
