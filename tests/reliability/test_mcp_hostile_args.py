"""An agent's arguments of the wrong type or size (issue 47, item 3 and 5), through the
official MCP SDK's stdio client against ``vaultbrain mcp --allow-writes`` as a subprocess:
each call is refused with one line (a tool error, never a traceback), nothing is captured
by a refused call, and the same session goes on answering the next call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from support.cli import run

mcp = pytest.importorskip(
    "mcp", reason="the MCP SDK is not installed: pip install 'vaultbrain[mcp]'"
)
from mcp import Client  # noqa: E402
from support.mcp_client import params  # noqa: E402

pytestmark = [pytest.mark.timeout(300)]

# (tool, arguments): each wrong in type, size or value
HOSTILE = [
    ("capture", {"text": 42}),
    ("capture", {"text": ["a", "list"]}),
    ("capture", {"text": ""}),
    ("capture", {"text": "x" * 2_000_000}),
    ("capture", {"text": "a thought", "idempotency_key": {"k": 1}}),
    ("capture", {"text": "a thought", "idempotency_key": "k" * 10_000}),
    ("capture", {}),
    ("search", {"query": "honey", "limit": "many"}),
    ("search", {"query": "honey", "limit": -1}),
    ("search", {"query": "honey", "limit": 10**30}),
    ("search", {"query": "w " * 600_000}),
    ("search", {"query": None}),
    ("read_note", {"note": 7}),
    ("read_note", {"note": "Ideas/Honey.md\x00.txt"}),
    ("read_note", {"note": "../" * 5000 + "etc/passwd"}),
    ("read_note", {"note": "Ideas/Honey.md", "max_chars": 10**12}),
    ("takes", {"since": "99999999999999d"}),
    ("takes", {"since": "1000000y"}),
    ("review_resolve", {"capture_id": "zzz", "type": "idea", "fields": "not a map"}),
    ("review_resolve", {"capture_id": "x" * 100, "type": "idea"}),
    ("whoknows", {"topic": "bees", "limit": 0.5}),
]


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_hostile_arguments_are_refused_one_line_each_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    run(vault, "settings", "set", "provider", "heuristic")
    (vault / "Ideas").mkdir(exist_ok=True)
    (vault / "Ideas/Honey.md").write_text("# Honey\n\nSell honey at the market.\n", "utf-8")
    inbox_before = (vault / "Inbox.md").read_text("utf-8")

    async def body(client: Client) -> list[tuple[str, Any, Any]]:
        out = []
        for tool, args in HOSTILE:
            result = await client.call_tool(tool, args)
            after = await client.call_tool("search", {"query": "honey"})
            out.append((tool, result, after))
        return out

    async def main() -> list[tuple[str, Any, Any]]:
        async with Client(params(vault, "--allow-writes"), read_timeout_seconds=120) as client:
            return await body(client)

    for (tool, args), (_, result, after) in zip(HOSTILE, anyio.run(main), strict=True):
        said = _text(result)
        shown = f"{tool} {str(args)[:80]}"
        assert "Traceback" not in said and 'File "' not in said, shown
        assert result.is_error, (shown, said[:300])
        # one line that names what was wrong, not the SDK's several with the input and a URL
        assert said.strip() and "\n" not in said.strip() and len(said) < 600, (shown, said)
        assert "pydantic.dev" not in said, (shown, said)
        # the session answers the next call
        assert not after.is_error, (shown, _text(after)[:300])
        assert "Ideas/Honey.md" in _text(after), shown
    # a refused capture wrote nothing
    assert (vault / "Inbox.md").read_text("utf-8") == inbox_before
