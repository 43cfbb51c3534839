"""``vaultbrain mcp`` as a subprocess, through the official SDK's stdio client: the session
helpers the MCP contract tests share."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters


def params(vault: Path, *extra: str) -> StdioServerParameters:
    """The server's command line, with only the environment a person's shell would pass."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k.startswith(("VAULTBRAIN_", "XDG_")) or k in ("PATH", "HOME", "PYTHONPATH")
    }
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultbrain", "--vault", str(vault), "mcp", *extra],
        env=env,
    )


def session(
    vault: Path, body: Callable[[Client], Awaitable[Any]], *extra: str, timeout: float = 60
) -> Any:
    """Start the server, run ``body`` with a connected client, and stop it."""

    async def main() -> Any:
        async with Client(params(vault, *extra), read_timeout_seconds=timeout) as client:
            return await body(client)

    return anyio.run(main)


def doc(result: Any, *, same_text: bool = True) -> dict[str, Any]:
    """A tool's structured answer (which its text content repeats as JSON)."""
    assert not result.is_error, [c.text for c in result.content]
    assert result.structured_content is not None
    if same_text:
        text = json.loads(result.content[0].text)
        assert text == result.structured_content, "the text and the structured content agree"
    return result.structured_content


def error(result: Any) -> str:
    """A tool's error, as the one line an agent reads."""
    assert result.is_error, result.structured_content
    return " ".join(c.text for c in result.content)
