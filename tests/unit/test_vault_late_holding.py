"""LateWrites.holding (vaultbrain/vault/late.py): while a batch of notes is written, the files
its swaps displaced stay open past the usual bound, and are let go together as it ends; a
late line written into one of them is still carried into its note."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest
from support.swaps import opened_before_the_swap

from vaultbrain.vault import Vault


def _open_fds(folder: Path) -> int:
    """Descriptors this process holds on files in ``folder`` (a displaced file is named
    "… (deleted)"): not the sockets and files earlier tests' threads may close meanwhile."""
    gc.collect()
    held = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # (closed since it was listed)
        held += target.startswith(f"{folder}{os.sep}")
    return held


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")
def test_displaced_files_are_held_then_let_go_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultbrain.vault import late

    monkeypatch.setattr(late, "KEEP", 2)
    (tmp_path / "A.md").write_text("- a\n")
    vault = Vault(tmp_path)
    held = opened_before_the_swap(monkeypatch, "a")
    before = _open_fds(tmp_path)
    with vault.late.holding():
        vault.edit("A.md", lambda n: n.text + "- ours\n")
        held[0].write("- late into A\n")
        held[0].close()
        for i in range(12):
            (tmp_path / f"N{i}.md").write_text("x\n")
            vault.edit(f"N{i}.md", lambda n: n.text + "y\n")
        assert len(vault.late._kept) == 13  # none let go while holding
    assert len(vault.late._kept) == 2  # the newest stay watched as ever
    assert _open_fds(tmp_path) - before == 2
    # (A's late line was found as it was let go, and is carried by the next look)
    assert "A.md" in vault.catch_late_writes()
    assert (tmp_path / "A.md").read_text() == "- a\n- ours\n- late into A\n"
    assert all((tmp_path / f"N{i}.md").read_text() == "x\ny\n" for i in range(12))


def test_holding_is_bounded_by_the_descriptors_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the bound the oldest are let go (all but the newest KEEP) while holding."""
    from vaultbrain.vault import late

    monkeypatch.setattr(late, "KEEP", 2)
    monkeypatch.setattr(late, "HOLD_MAX", 5)
    vault = Vault(tmp_path)
    with vault.late.holding():
        for i in range(6):
            (tmp_path / f"N{i}.md").write_text("x\n")
            vault.edit(f"N{i}.md", lambda n: n.text + "y\n")
            assert len(vault.late._kept) <= 5
    assert len(vault.late._kept) == 2
