"""doctor: check the set-up, one line per check."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.help import examples
from vaultbrain.cli.render import echo_json


@click.command(
    "doctor",
    epilog=examples("vaultbrain doctor", "vaultbrain --vault ~/Vault doctor --json"),
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def doctor_cmd(obj: Any, as_json: bool) -> None:
    """Check the vault, the state dir, the LLM server, the schema pack, yt-dlp and ffmpeg."""
    from vaultbrain.doctor import run_checks

    app = obj.app(must_exist=False)
    checks = run_checks(app)
    if as_json:
        echo_json(
            [
                {"check": c.name, "ok": c.ok, "detail": hint(c.detail), "level": c.level}
                for c in checks
            ]
        )
    else:
        for c in checks:
            mark = "ok  " if c.ok else ("warn" if c.level == "warn" else "FAIL")
            click.echo(hint(f"[{mark}] {c.name}: {c.detail}"))
    if any(not c.ok and c.level == "error" for c in checks):
        raise SystemExit(1)
