"""The parts of vaultbrain handed a state dir rather than a store (the LLM's forms, the
machine's id, its settings, the classification cache) use the store the process has open
(``Store.of``), and every Store object of one state dir shares its write mutex; the files
they kept beside ``state.db`` before are taken in (vaultbrain/store/legacy.py)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from vaultbrain.classify.forms import FORMS_FILE, FormMemory, KnownForm
from vaultbrain.machine import this_machine
from vaultbrain.store import Store


def test_store_of_is_the_store_the_process_has_open(tmp_path: Path) -> None:
    mine = Store(tmp_path)
    assert Store.of(tmp_path) is mine
    assert Store.of(str(tmp_path / "." / "")) is mine


def test_a_write_through_another_store_object_inside_the_lock_does_not_wait_for_itself(
    tmp_path: Path,
) -> None:
    a, b = Store(tmp_path), Store(tmp_path)
    done: list[object] = []

    def work() -> None:
        with a.locked():
            b.write_json("x", {"n": 1})  # (one process: one mutex, re-entered)
            done.append(a.read_json("x"))

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), "a second Store object of the state dir waited for the first"
    assert done == [{"n": 1}]


def test_a_damaged_forms_file_is_only_a_cache_lost(tmp_path: Path) -> None:
    (tmp_path / FORMS_FILE).write_text("{broken")
    memory = FormMemory(tmp_path)
    assert memory.get("http://127.0.0.1:1/v1", "m") is None
    assert not (tmp_path / FORMS_FILE).exists()
    memory.remember("http://127.0.0.1:1/v1", "m", KnownForm("json_schema", "lmstudio"))
    again = FormMemory(tmp_path).get("http://127.0.0.1:1/v1", "m")
    assert again is not None and again.form == "json_schema"


def test_a_machine_id_is_made_once_and_kept_in_the_database(tmp_path: Path) -> None:
    first = this_machine(tmp_path)
    assert this_machine(tmp_path) == first
    assert Store(tmp_path).read_json("machine.json") == {"id": first.id, "host": first.host}
    assert not (tmp_path / "machine.json").exists()
    # A machine.json beside the database (an earlier version's) never changes the id it has.
    (tmp_path / "machine.json").write_text(json.dumps({"id": "0therid00000", "host": "x"}))
    fresh = Store(tmp_path)  # (a new process's store: it takes the file in when it opens)
    fresh.conn()
    assert not (tmp_path / "machine.json").exists()
    assert this_machine(tmp_path).id == first.id
