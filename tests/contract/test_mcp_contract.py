"""The MCP contract: the official SDK's own client (``mcp.Client``) talks to ``vaultbrain mcp``
as a real subprocess over stdio, on a temp vault with a real embedding server on 127.0.0.1.

It lists the tools (and their JSON schemas), calls each one, is refused a write without
``--allow-writes`` (and nothing reaches the vault), makes the writes with it (the inbox
line, the record, the trust trail), reads the pack's types as resources, and throws hostile
arguments at every tool: paths with ``..``, absolute paths, a symlink out of the vault, a
dot-folder, the state dir, huge limits and strings, FTS5 syntax. Nothing outside the vault
ever comes back, and the server survives all of it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import run
from support.embedserver import HashEmbedServer
from support.state import text as state_text

mcp = pytest.importorskip(
    "mcp", reason="the MCP SDK is not installed: pip install 'vaultbrain[mcp]'"
)
from mcp import Client  # noqa: E402
from support.mcp_client import doc, error, session  # noqa: E402

pytestmark = [pytest.mark.contract, pytest.mark.timeout(300)]

READ_TOOLS = {
    "search",
    "whoknows",
    "links",
    "takes",
    "read_note",
    "related",
    "review_list",
    "digest_latest",
}
SECRET = "TOP-SECRET-OUTSIDE-THE-VAULT"


@pytest.fixture
def embedder() -> Iterator[HashEmbedServer]:
    server = HashEmbedServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def brain_vault(tmp_path: Path, embedder: HashEmbedServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", embedder.url)
    vault = tmp_path / "Vault"
    run(vault, "init")
    # The endpoint embeds but does not chat: captures fall back to the embedded classifier.
    run(vault, "settings", "set", "embedding_model", "hash-embed")
    # its captures wait as suggestions (the embedded classifier files a clear thought
    # outright at the default bar since issue 42)
    run(vault, "settings", "set", "auto_confidence", "0.95")
    notes = {
        "People/Sarah Okafor.md": "---\ntype: person\nname: Sarah Okafor\naliases:\n"
        "  - Sarah\ntopics:\n  - beekeeping\n---\nKeeps four hives; knows swarm season.\n",
        "People/Tom Berg.md": "---\ntype: person\nname: Tom Berg\n---\nPlays bass.\n",
        "Projects/Garden.md": "---\ntype: project\nname: Garden\nstatus: active\npeople:\n"
        '  - "[[People/Sarah Okafor|Sarah Okafor]]"\n---\n# Garden\n\n'
        "Planting a bee-friendly border with [[Sarah Okafor]].\n",
        "Ideas/Honey.md": "# Honey\n\nSell honey from the hives at the market.\n",
        ".obsidian/secret.md": f"{SECRET} in a dot-folder\n",
        "Brain/Archive/Old hives.md": "---\narchived: true\n---\nBeekeeping, dismissed.\n",
    }
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, "utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text(f"{SECRET}\n", "utf-8")
    os.symlink(outside, vault / "People/Evil.md")
    os.symlink(tmp_path, vault / "Linked")  # a folder link out of the vault
    run(vault, "capture", "meet Tom about the bass lessons next week")  # a suggestion to review
    run(vault, "digest", "run")
    run(vault, "embed")
    return vault


def test_tools_are_listed_with_schemas_and_each_answers(brain_vault: Path) -> None:
    async def body(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        out: dict[str, Any] = {"tools": {t.name: t for t in listed.tools}}
        out["search"] = doc(await client.call_tool("search", {"query": "beekeeper"}))
        out["keyword"] = doc(
            await client.call_tool("search", {"query": "hives", "mode": "keyword"})
        )
        out["whoknows"] = doc(await client.call_tool("whoknows", {"topic": "beekeeping"}))
        out["links"] = doc(await client.call_tool("links", {"note": "Garden"}))
        out["takes"] = doc(await client.call_tool("takes", {}))
        out["read"] = doc(await client.call_tool("read_note", {"note": "Sarah"}))
        out["read_path"] = doc(
            await client.call_tool("read_note", {"note": "Ideas/Honey.md", "max_chars": 10})
        )
        out["related"] = doc(await client.call_tool("related", {"note": "Ideas/Honey.md"}))
        out["review"] = doc(await client.call_tool("review_list", {}))
        out["digest"] = doc(await client.call_tool("digest_latest", {}))
        resources = await client.list_resources()
        out["resources"] = sorted(str(r.uri) for r in resources.resources)
        person = await client.read_resource("vaultbrain://types/person")
        out["person"] = json.loads(person.contents[0].text)
        return out

    got = session(brain_vault, body)
    tools = got["tools"]
    assert set(tools) == READ_TOOLS, "read-only: no write tool is offered"
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.description
        assert tool.annotations.read_only_hint is True
    limit = tools["search"].input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 50)
    mode = tools["search"].input_schema["properties"]["mode"]
    assert {"keyword", "semantic", "hybrid"} <= set(json.dumps(mode).replace('"', " ").split())

    assert got["search"]["mode"] == "hybrid"
    found = [r["path"] for r in got["search"]["results"]]
    assert "People/Sarah Okafor.md" in found, "by meaning: no note has the word beekeeper"
    assert got["keyword"]["mode"] == "keyword"
    paths = [r["path"] for r in got["keyword"]["results"]]
    assert "People/Sarah Okafor.md" in paths and not [p for p in paths if "Archive" in p]
    assert got["whoknows"]["results"][0]["title"] == "Sarah Okafor"
    assert got["links"]["note"] == "Projects/Garden.md"
    assert got["takes"]["takes"] == [] or isinstance(got["takes"]["takes"], list)
    assert got["read"]["path"] == "People/Sarah Okafor.md"
    assert "Keeps four hives" in got["read"]["untrusted_content"]
    assert got["read"]["source"] == "vault", "marked as the vault's text, not the server's"
    assert got["read_path"]["truncated"] is True
    assert len(got["read_path"]["untrusted_content"]) == 10
    assert got["related"]["note"] == "Ideas/Honey.md" and got["related"]["results"]
    assert got["review"]["suggestions"] or got["review"]["needs_decision"]
    assert got["digest"]["path"].startswith("Brain/Digests/") and got["digest"]["text"]
    assert "vaultbrain://types" in got["resources"]
    assert "vaultbrain://types/person" in got["resources"]
    assert got["person"]["name"] == "person" and "topics" in got["person"]["fields"]


def test_a_write_is_refused_without_the_flag_and_made_with_it(brain_vault: Path) -> None:
    inbox = brain_vault / "Inbox.md"
    before = inbox.read_bytes()

    async def refused(client: Client) -> list[str]:
        return [
            error(await client.call_tool("capture", {"text": "Idea: a bee hotel"})),
            error(await client.call_tool("review_resolve", {"capture_id": "x", "type": "idea"})),
        ]

    for message in session(brain_vault, refused):
        assert "--allow-writes" in message and "read-only" in message
    assert inbox.read_bytes() == before, "nothing reached the vault"

    review = json.loads(run(brain_vault, "review", "list", "--json").output)
    waiting = (review["suggestions"] or review["needs_decision"])[0]["id"]

    async def allowed(client: Client) -> dict[str, Any]:
        names = {t.name for t in (await client.list_tools()).tools}
        captured = doc(await client.call_tool("capture", {"text": "Idea: a bee hotel"}))
        resolved = doc(
            await client.call_tool(
                "review_resolve",
                {"capture_id": waiting, "type": "admin", "fields": {"priority": "high"}},
            )
        )
        missing = error(
            await client.call_tool("review_resolve", {"capture_id": "nope", "type": "idea"})
        )
        return {"names": names, "captured": captured, "resolved": resolved, "missing": missing}

    got = session(brain_vault, allowed, "--allow-writes")
    assert got["names"] == READ_TOOLS | {"capture", "review_resolve"}
    captured = got["captured"]
    assert captured["status"] in ("filed", "suggested", "needs_review")
    text = inbox.read_text("utf-8")
    assert "a bee hotel" in text and f"^vb-{captured['id']}" in text, "the inbox line"
    assert got["resolved"]["id"] == waiting and got["resolved"]["status"] in ("filed", "corrected")
    assert got["resolved"]["destinations"][0]["type"] == "admin"
    assert "nope" in got["missing"]
    audit = state_text(brain_vault / ".vaultbrain")
    assert waiting in audit and captured["id"] in audit, "the trust trail has both"


HOSTILE_NOTES = [
    "../../etc/passwd",
    "/etc/passwd",
    "People/../../outside.md",
    "People/Evil.md",
    "People/Evil",
    "Linked/outside.md",
    ".obsidian/secret.md",
    ".vaultbrain/settings.json",
    "Brain/../../outside",
    "~/outside.md",
    "C:\\Windows\\win.ini",
    "x\u0000y",
]
HOSTILE_QUERIES = ['"', "NEAR(", "*", 'bees" OR "x', '"unbalanced', "title:bees", "((", "-", "^"]


def test_hostile_arguments_are_refused_and_nothing_outside_the_vault_comes_back(
    brain_vault: Path,
) -> None:
    async def body(client: Client) -> list[tuple[str, Any, Any]]:
        calls: list[tuple[str, dict[str, Any]]] = []
        for note in HOSTILE_NOTES:
            calls += [("read_note", {"note": note}), ("links", {"note": note})]
            calls += [("related", {"note": note})]
        for q in HOSTILE_QUERIES:
            for mode in ("keyword", "semantic", "hybrid"):
                calls.append(("search", {"query": q, "mode": mode}))
            calls.append(("whoknows", {"topic": q}))
        calls += [
            ("search", {"query": "bees", "limit": 10**9}),
            ("search", {"query": "bees", "limit": 0}),
            ("search", {"query": "x" * 100_000}),
            ("search", {"query": "bees", "mode": "bogus"}),
            ("search", {"query": ""}),
            ("read_note", {"note": "Ideas/Honey.md", "max_chars": 10**12}),
            ("read_note", {"note": "x" * 5000}),
            ("takes", {"since": "forever"}),
            ("takes", {"kind": "nonsense"}),
            ("whoknows", {"topic": "bees", "limit": -1}),
            ("no_such_tool", {}),
        ]
        out = []
        for name, args in calls:
            out.append((name, args, await client.call_tool(name, args)))
        # still serving after all of it
        out.append(("search", {}, await client.call_tool("search", {"query": "honey"})))
        return out

    results = session(brain_vault, body)
    for name, args, result in results:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert SECRET not in text and "root:x:0" not in text, (name, args)
        assert "Traceback" not in text, (name, args, text)
        if name in ("read_note", "links", "related") and args.get("note") in HOSTILE_NOTES:
            assert result.is_error, (name, args, text)
        if name == "search" and args.get("query") in HOSTILE_QUERIES:
            if result.is_error:
                assert "no words" in text, (args, text)
            else:
                assert result.structured_content["mode"] == args["mode"], (args, text)
    by_args = {(n, json.dumps(a, sort_keys=True)): r for n, a, r in results}
    huge = by_args[("search", json.dumps({"query": "bees", "limit": 10**9}, sort_keys=True))]
    assert huge.is_error and "less than or equal to 50" in huge.content[0].text
    last = results[-1][2]
    assert not last.is_error and last.structured_content["results"]


def test_the_state_dir_inside_the_vault_is_never_read(tmp_path: Path) -> None:
    vault = tmp_path / "Vault"
    state = vault / "vbstate"
    run(vault, "--state-dir", str(state), "init")
    (state / "secret.md").write_text(f"{SECRET}\n", "utf-8")
    (vault / "Ideas").mkdir(exist_ok=True)
    (vault / "Ideas/Honey.md").write_text("# Honey\n\nFrom the hives.\n", "utf-8")

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("read_note", {"note": "vbstate/secret.md"}),
            await client.call_tool("read_note", {"note": "secret"}),
            await client.call_tool("read_note", {"note": "Honey"}),
        ]

    params_env = {"VAULTBRAIN_STATE_DIR": str(state)}
    os.environ.update(params_env)
    try:
        by_path, by_name, fine = session(vault, body)
    finally:
        os.environ.pop("VAULTBRAIN_STATE_DIR", None)
    for result in (by_path, by_name):
        assert result.is_error and SECRET not in result.content[0].text
    assert "From the hives" in doc(fine)["untrusted_content"]
