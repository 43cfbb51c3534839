"""mcp: the brain for agents (Claude Desktop, an IDE, a local agent), over stdio."""

from __future__ import annotations

from typing import Any

import click


@click.command("mcp")
@click.option(
    "--allow-writes",
    is_flag=True,
    help="Also offer capture and review_resolve (they write to the vault as the CLI does).",
)
@click.pass_obj
def mcp_cmd(obj: Any, allow_writes: bool) -> None:
    """Serve the vault to an agent: an MCP server on stdin/stdout (read-only by default).

    Tools: search, whoknows, links, takes, read_note, related, review_list, digest_latest;
    with --allow-writes also capture and review_resolve. Resources: the pack's types.
    """
    from vaultbrain.agents.server import serve
    from vaultbrain.errors import UserError

    brain = obj.app()
    try:
        serve(brain, allow_writes)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "mcp":
            raise UserError(f"the MCP server needs the mcp package: {mcp_install_hint()}") from exc
        raise


def mcp_install_hint() -> str:
    """The command that adds the ``mcp`` extra to the environment running vaultbrain: from
    the checkout it runs from (an editable install), or from the package index."""
    import shlex
    import sys
    from pathlib import Path

    import vaultbrain

    root = Path(vaultbrain.__file__).resolve().parent.parent
    pip = f"{shlex.quote(sys.executable)} -m pip install"
    if (root / "pyproject.toml").is_file():
        return f"{pip} -e {shlex.quote(f'{root}[mcp]')}"
    return f"{pip} 'vaultbrain[mcp]'"
