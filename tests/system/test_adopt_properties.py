"""`adopt` never overwrites a property the person gave a value: a list, links, `[]` or
another word in `type:` is a conflict in the dry run and left alone by --apply; an empty
`type:` is filled and the dry run says "replace", a missing one says "add"."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json

NOTES = {
    "People/Authors list.md": '---\ntype: ["[[Authors]]"]\nname: Ann\n---\nWrites.\n',
    "People/Empty list.md": "---\ntype: []\nname: Bea\n---\n",
    "People/Another word.md": "---\ntype: author\nname: Cy\n---\n",
    "People/Link.md": '---\ntype: "[[Person]]"\n---\n',
    "People/Blank.md": "---\ntype:\nname: Dee\n---\nBody stays.\n",
    "People/Missing.md": "---\nname: Eve\n---\n",
    "People/Alias.md": "---\ntype: Contact\n---\n",
}
CONFLICTS = {"Authors list", "Empty list", "Another word", "Link"}


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    for rel, text in NOTES.items():
        (root / rel).write_text(text)
    run(root, "reindex")
    return root


def test_the_dry_run_says_add_replace_or_conflict(vault: Path) -> None:
    out = run(vault, "adopt", "--dry-run").output
    lines = {line.split(":", 1)[0]: line for line in out.splitlines() if line.startswith("People/")}
    for stem in CONFLICTS:
        assert "conflict" in lines[f"People/{stem}.md"], lines[f"People/{stem}.md"]
    assert "holds ['[[Authors]]'], not person" in lines["People/Authors list.md"]
    assert "holds [], not person" in lines["People/Empty list.md"]
    assert "type: person (replace)" in lines["People/Blank.md"]
    assert "type: person (add)" in lines["People/Missing.md"]
    assert "id: " in lines["People/Alias.md"] and "type:" not in lines["People/Alias.md"]
    assert "3 hand-made note(s) would get an id written, 4 left as they are" in out
    planned = {a["path"]: a for a in run_json(vault, "adopt", "--dry-run")}
    assert planned["People/Blank.md"]["actions"] == {"id": "add", "type": "replace"}
    assert planned["People/Empty list.md"]["conflict"] is True


def test_apply_leaves_every_conflict_byte_identical(vault: Path) -> None:
    before = {rel: (vault / rel).read_bytes() for rel in NOTES}
    result = run(vault, "adopt", "--apply")
    assert "3 note(s) adopted, 4 left as they were" in result.output
    for stem in CONFLICTS:
        rel = f"People/{stem}.md"
        assert (vault / rel).read_bytes() == before[rel], rel
    blank = (vault / "People/Blank.md").read_text()
    assert blank.startswith("---\ntype: person\nname: Dee\nid: ") and blank.endswith(
        "Body stays.\n"
    )
    assert frontmatter(vault / "People/Missing.md")["type"] == "person"
    alias = frontmatter(vault / "People/Alias.md")
    assert alias["type"] == "Contact" and alias["id"]
    # a rerun finds nothing more to write, and the conflicts are still named
    again = run(vault, "adopt", "--dry-run").output
    assert "0 hand-made note(s) would get an id written, 4 left as they are" in again


def test_stopped_part_way_it_goes_on_where_it_stopped(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C between two batches (here from the progress callback, where a terminal's
    Ctrl-C lands as often as anywhere): the batch being written still finishes and its
    records follow it, what was adopted stays, the notes cache knows it, and a rerun adopts
    the rest; a rescan then reads nothing and makes no second record."""
    from vaultbrain.brain import Brain
    from vaultbrain.filing.adopt import apply
    from vaultbrain.filing.sync import reindex

    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    for i in range(10):
        (root / f"People/Person {i}.md").write_text(f"---\nname: Person {i}\n---\nNotes {i}.\n")
    run(root, "reindex")
    calls = []

    def interrupt(done: int, total: int) -> None:
        calls.append((done, total))
        if len(calls) == 2:
            raise KeyboardInterrupt

    first = apply(Brain(root), progress=interrupt, batch=3)
    # batches of 3: the first two followed, the third was being written: it is followed too
    assert first.stopped and calls == [(3, 10), (6, 10)] and len(first.done) == 9
    with_id = [p for p in (root / "People").glob("*.md") if "\nid: " in p.read_text()]
    assert len(with_id) == 9
    rest = apply(Brain(root))
    assert not rest.stopped and len(rest.done) == 1 and not rest.problems
    report = reindex(Brain(root))
    assert report.read == 0 and report.created == 0, report
    assert len(run_json(root, "db", "list", "person")) == 10
