"""Running the CLI in-process on a temp vault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from vaultbrain.cli.group import cli


def run(vault: Path, *args: str, input: str | None = None, ok: bool = True) -> Result:
    result = CliRunner().invoke(
        cli, ["--vault", str(vault), *args], input=input, catch_exceptions=False
    )
    if ok:
        assert result.exit_code == 0, result.output
    return result


def run_json(vault: Path, *args: str) -> Any:
    return json.loads(run(vault, *args, "--json").stdout)


def frontmatter(path: Path) -> dict[str, Any]:
    from vaultbrain.vault.note import parse_note

    note = parse_note(path.read_text("utf-8"))
    assert note.error is None, note.error
    return note.data
