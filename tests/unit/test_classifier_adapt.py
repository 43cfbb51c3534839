"""The embedded classifier learns the vault through the store: records, confirmed captures,
corrections; incrementally, and the same from scratch."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from vaultbrain.classify.adapt import (
    embedded_for,
    example_counts,
    rebuild,
    vault_learning,
)
from vaultbrain.classify.embedded import analyse
from vaultbrain.filing.corrections import record_correction
from vaultbrain.packs import load_pack
from vaultbrain.store import Store

TODAY = dt.date(2026, 12, 1)
PACK = load_pack("vaultbrain-base")
COLLECTION = {"person": "people", "project": "projects", "idea": "ideas", "admin": "admin"}


def put(store: Store, rid: str, type_name: str, title: str, **extra: Any) -> dict[str, Any]:
    rec = {
        "id": rid,
        "type": type_name,
        "title": title,
        "aliases": extra.pop("aliases", []),
        "path": f"{COLLECTION[type_name]}/{title}.md",
        "updated": extra.pop("updated", "2026-11-01T10:00:00"),
        "log": extra.pop("log", []),
        **extra,
    }
    store.collection(COLLECTION[type_name]).put(rec)
    return rec


def classify(store: Store, text: str):
    return analyse(text, TODAY, embedded_for(store, PACK), pack=PACK)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "state")
    put(s, "p1", "person", "Priya Shah", aliases=["PS"])
    put(s, "p2", "person", "Marco Rossi")
    put(s, "g1", "project", "Catan")
    put(s, "j1", "project", "Hive Health")
    return s


def test_records_teach_names_first_names_and_what_is_not_a_person(store: Store) -> None:
    a = classify(store, "play catan with priya on sat")
    assert [d.title for d in a.classification.destinations if d.type == "person"] == ["Priya Shah"]
    assert [(p.name, p.record) for p in a.people] == [("priya", "Priya Shah")]
    b = classify(store, "hive health: order the new frames")
    assert ("project", "Hive Health") in [(d.type, d.title) for d in b.classification.destinations]


def test_a_correction_counts_on_the_next_thought(store: Store) -> None:
    text = "the quarterly thing for the beekeepers association"
    before = classify(store, text).primaries
    # the type the corpus finds least likely (a person needs a name the thought lacks)
    target = min((t for t in before if t != "person"), key=before.get)
    record_correction(store, text, max(before, key=before.get), target, "2026-11-02T10:00:00")
    after = classify(store, text)
    assert after.classification.destinations[0].type == target
    assert after.primaries[target] > before[target]


def capture(store: Store, cid: str, text: str, status: str, *types: str, at: str = "1") -> None:
    dests = [{"type": t, "title": t.title(), "path": f"{t}/{cid}.md"} for t in types]
    store.inbox.put(
        {"id": cid, "text": text, "status": status, "destinations": dests, "updated": at}
    )


def test_captures_that_stand_teach_and_unconfirmed_suggestions_do_not(store: Store) -> None:
    text = "zorbing with the lads, sort the booking"
    capture(store, "c1", text, "suggested", "idea")
    assert vault_learning(store, PACK).captures["c1"][2] == ()
    capture(store, "c1", text, "filed", "idea", at="2")  # the person confirmed it
    learnt = vault_learning(store, PACK)
    assert learnt.captures["c1"][2] == ("idea", "1:idea")
    assert classify(store, text).primaries["idea"] > 0.5
    capture(store, "c1", text, "corrected", "admin", "person", at="3")
    assert vault_learning(store, PACK).captures["c1"][2] == ("admin", "person", "1:admin")


def test_incremental_learning_equals_learning_from_scratch(store: Store) -> None:
    vault_learning(store, PACK)  # cached now; what follows is learnt incrementally
    capture(store, "c2", "renew passport with marco", "filed", "admin", "person")
    put(store, "a1", "admin", "Renew passport")
    put(store, "p2", "person", "Marco Rossi", aliases=["Marco R"])
    store.collection("projects").tombstone("j1")
    capture(store, "c3", "hive stuff", "filed", "project")
    record_correction(store, "hive stuff", "project", "idea", "2026-11-03T11:00:00")
    store.inbox.tombstone("c3")
    incremental = vault_learning(store, PACK)
    scratch = rebuild(store, PACK, save=False)
    assert incremental.names.names == scratch.names.names
    assert incremental.counts.docs == pytest.approx(scratch.counts.docs)
    assert set(incremental.counts.table) == set(scratch.counts.table)
    for f, row in scratch.counts.table.items():
        assert incremental.counts.table[f] == pytest.approx(row), f
    assert incremental.captures["c2"][2] == scratch.captures["c2"][2]
    assert "hive health" not in incremental.names.names
    assert "c3" not in incremental.captures


def test_example_counts_for_doctor(store: Store) -> None:
    counts = example_counts(store, PACK)
    assert counts["source"] == "corpus+vault"
    assert counts["vault"] == {"person": 2, "project": 2, "idea": 0, "admin": 0}
    assert min(counts["corpus"].values()) > 100
    assert example_counts(None, PACK)["source"] == "corpus"


def test_a_pack_the_corpus_does_not_cover_learns_from_the_vault_alone(tmp_path: Path) -> None:
    from vaultbrain.packs.loader import load_pack_path

    path = tmp_path / "kitchen.yaml"
    path.write_text(
        "api_version: vaultbrain-schema-pack-v1\nname: kitchen\nversion: 0.1.0\nextends: null\n"
        "page_types:\n"
        "  - {name: recipe, path_prefixes: [Recipes/], fileable: true, collection: recipes}\n"
        "  - {name: shop, path_prefixes: [Shops/], fileable: true, collection: shops}\n",
        "utf-8",
    )
    pack = load_pack_path(path)
    store = Store(tmp_path / "state")
    assert example_counts(store, pack) == {
        "source": "none",
        "corpus": {"recipe": 0, "shop": 0},
        "vault": {"recipe": 0, "shop": 0},
    }
    assert analyse("lentil soup with cumin", TODAY, embedded_for(store, pack), pack=pack)
    rows = [
        ("recipe", "recipes", "Lentil soup", "lentil soup with cumin and lemon"),
        ("recipe", "recipes", "Banana bread", "banana bread, less sugar next time"),
        ("shop", "shops", "Corner deli", "the corner deli has good olives"),
        ("shop", "shops", "Fish market", "fish market opens at 7 on saturdays"),
    ]
    for n, (type_name, col, title, text) in enumerate(rows):
        store.collection(col).put(
            {"id": f"r{n}", "type": type_name, "title": title, "path": f"{col}/{title}.md"}
        )
        capture(store, f"c{n}", text, "filed", type_name)
    counts = example_counts(store, pack)
    assert counts["source"] == "vault"
    assert counts["vault"] == {"recipe": 4, "shop": 4}
    a = analyse("lentil soup again, more lemon", TODAY, embedded_for(store, pack), pack=pack)
    assert max(a.probabilities, key=a.probabilities.get) == "recipe"


def test_learning_follows_records_another_process_changed(store: Store, tmp_path: Path) -> None:
    """Each look after the first reads only the store's change feed; what another process
    (another Store on the same state dir) writes, tombstones or drops is learnt the same."""
    vault_learning(store, PACK)
    other = Store(tmp_path / "state")
    put(other, "p3", "person", "Ngozi Okafor", aliases=["Dr. Okafor"])
    put(other, "p1", "person", "Priya Shah-Patel", aliases=["PS"])
    other.collection("projects").tombstone("g1")
    other.collection("people").drop("p2")
    capture(store, "c4", "book the vet for the dog", "filed", "admin")
    incremental = vault_learning(store, PACK)
    scratch = rebuild(store, PACK, save=False)
    assert incremental.names.names == scratch.names.names
    assert set(incremental.records) == set(scratch.records)
    assert "people/p2" not in incremental.records and "projects/g1" not in incremental.records
    for f, row in scratch.counts.table.items():
        assert incremental.counts.table[f] == pytest.approx(row), f


def _forget_memory() -> None:
    """What a process keeps of the learning in memory, gone: as in a new process."""
    from vaultbrain.classify.adapt import forget_learning

    forget_learning()


def _new_process(tmp_path: Path) -> tuple[Store, list[str]]:
    """A store as a new process sees it (no learning in memory), and a list that says when
    it read every summary of a collection instead of the index log's tail."""
    _forget_memory()
    fresh = Store(tmp_path / "state")
    looked: list[str] = []
    original = fresh.collection("people").summaries
    fresh.collection("people").summaries = lambda **k: looked.append("all") or original(**k)  # type: ignore[method-assign]
    return fresh, looked


def test_a_new_process_catches_a_saved_state_up_from_the_index_log(
    store: Store, tmp_path: Path
) -> None:
    """A cold `vaultbrain capture` finds the state a little behind the store: it reads what
    changed since from the collections' index logs, not every summary, and learns the same."""

    rebuild(store, PACK)  # saved in the state dir
    put(store, "p4", "person", "Jean-Luc Picard")
    put(store, "p1", "person", "Priya Shah", aliases=["PS", "Pri"])
    store.collection("projects").tombstone("g1")
    capture(store, "c5", "ask jean-luc about the away team", "filed", "person")
    fresh, looked = _new_process(tmp_path)
    caught_up = vault_learning(fresh, PACK)
    assert looked == []  # the log's tail, not 10,000 summaries
    scratch = rebuild(fresh, PACK, save=False)
    assert caught_up.names.names == scratch.names.names
    assert set(caught_up.records) == set(scratch.records)
    assert caught_up.captures["c5"][2] == scratch.captures["c5"][2]
    for f, row in scratch.counts.table.items():
        assert caught_up.counts.table[f] == pytest.approx(row), f


def test_a_process_that_does_not_save_as_it_learns_keeps_its_learning_when_asked(
    store: Store, tmp_path: Path
) -> None:
    """The daemon learns without writing (no capture waits for the pickle) and writes what
    it learnt at its periodic save; a new process then starts from that state."""
    import vaultbrain.classify.adapt as adapt
    from vaultbrain.classify.adapt import keep_learning

    rebuild(store, PACK)
    before = store.read_blob("classifier/vault-vaultbrain-base")
    assert before is not None
    for i in range(adapt.SAVE_EVERY + 5):
        put(store, f"q{i}", "person", f"Person Number {i}")
        vault_learning(store, PACK, save=False)
    assert store.read_blob("classifier/vault-vaultbrain-base") == before  # learnt, not written
    assert keep_learning(store, PACK) is True
    assert keep_learning(store, PACK) is False  # nothing new since
    fresh, looked = _new_process(tmp_path)
    learnt = vault_learning(fresh, PACK, save=False)
    assert "people/q29" in learnt.records and looked == []  # from the state kept


def test_a_saved_state_s_stamp_says_whether_it_is_current_without_unpickling_it(
    store: Store,
) -> None:
    """A warm `reindex` asks whether the saved learning is current: its stamp answers, and any
    record, capture or correction since makes it stale."""
    from vaultbrain.classify.adapt import saved_learning_current

    assert saved_learning_current(store, PACK) is False  # nothing saved yet
    rebuild(store, PACK)
    assert saved_learning_current(store, PACK) is True
    put(store, "p9", "person", "Grace Hopper")
    assert saved_learning_current(store, PACK) is False
    rebuild(store, PACK)
    capture(store, "c9", "ask grace about compilers", "filed", "person")
    assert saved_learning_current(store, PACK) is False
    rebuild(store, PACK)
    record_correction(store, "ask grace about compilers", "idea", "person", "2026-12-01")
    assert saved_learning_current(store, PACK) is False
    rebuild(store, PACK)
    assert saved_learning_current(store, PACK) is True
    assert saved_learning_current(store, load_pack("vaultbrain-recommended")) is False


def test_a_warm_reindex_does_not_unpickle_a_current_learning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first warm reindex finds the saved state current by loading it and stamps it; from
    then on a reindex with nothing new reads the stamp, not the state."""
    from support.brains import new_brain

    import vaultbrain.classify.adapt as adapt
    from vaultbrain.capture.reindex import reindex

    root = tmp_path / "Vault"
    (root / "People").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / "People/Ada.md").write_text("---\ntype: person\nname: Ada\n---\nbees\n")
    reindex(new_brain(root))  # learnt afresh and saved
    new_brain(root).store.remove_json("classifier/vault-vaultbrain-base.stamp")  # (no stamp)
    loads: list[str] = []
    real = adapt._load
    monkeypatch.setattr(adapt, "_load", lambda store, name: loads.append(name) or real(store, name))
    _forget_memory()  # a new process, as each `vaultbrain reindex` is
    reindex(new_brain(root))
    assert "classifier/vault-vaultbrain-base" in loads
    loads.clear()
    _forget_memory()
    reindex(new_brain(root))
    assert "classifier/vault-vaultbrain-base" not in loads


def test_a_correction_to_two_types_is_one_thought_of_both(tmp_path: Path) -> None:
    """`→ person, admin` writes one correction line per type; the classifier learns one
    thought whose first type is person and whose second is admin, not two thoughts each
    primarily of one."""
    store = Store(tmp_path / "state")
    at = "2026-11-02T10:00:00"
    record_correction(store, "sort the carpool with phoebe", "idea", "person", at)
    record_correction(store, "sort the carpool with phoebe", "idea", "admin", at)
    learning = vault_learning(store, PACK, save=False)
    labels = learning.counts.labels
    docs = dict(zip(labels, learning.counts.docs[1:], strict=True))
    assert docs["1:person"] > 0 and docs["1:admin"] == 0
    assert docs["person"] == docs["admin"] == docs["1:person"]
    assert learning.corrections == {"person": 1, "admin": 1}


def test_a_state_dir_lost_under_a_long_running_process_is_learnt_afresh(tmp_path: Path) -> None:
    """A daemon's state dir deleted and made again at the same path is another database:
    what the process learnt from the old one (its corrections) is not carried into it."""
    import shutil

    store = Store(tmp_path / "state")
    put(store, "p1", "person", "Priya Shah")
    record_correction(store, "sort the carpool with phoebe", "idea", "person", "2026-11-01T10:00")
    assert vault_learning(store, PACK).corrections == {"person": 1}
    shutil.rmtree(tmp_path / "state")
    put(store, "g1", "project", "Garden shed")
    for i, text in enumerate(("pitch deck for the bakery", "a zine about moss")):
        record_correction(store, text, "admin", "idea", f"2026-11-0{i + 2}T10:00")
    learnt = vault_learning(store, PACK)
    assert learnt.corrections == {"idea": 2}
    assert set(learnt.records) == {"projects/g1"}
