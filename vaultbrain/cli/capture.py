"""``vaultbrain capture``: the thought read (an argument, or stdin for ``-``), handed to the
daemon watching the vault or captured here, and what became of it printed.

A phone's shortcut over ssh, or a script, runs one process per thought; with the daemon
running, the process only hands the thought over (vaultbrain/daemon/door.py), and the
daemon, with everything loaded, files it in a few milliseconds.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from vaultbrain.cli.context import Context, hint
from vaultbrain.cli.help import examples
from vaultbrain.cli.render import echo_json
from vaultbrain.errors import UserError


@click.command(
    "capture",
    epilog=examples(
        'vaultbrain capture "Met with Sarah about the new project"',
        'echo "Idea: a podcast about bees" | vaultbrain capture -',
        'vaultbrain capture --json "Renew the domain by Friday"',
    ),
)
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print the capture record as JSON.")
@click.pass_obj
def capture_cmd(obj: Any, text: str, as_json: bool) -> None:
    """Capture one thought now (TEXT, or - to read it from stdin) and file it."""
    take(obj, text, as_json)


def take(obj: Context, text: str, as_json: bool) -> None:
    """Capture ``text`` (``-``: stdin) and print what became of it: the capture's lines, or
    with ``as_json`` the capture as one JSON document."""
    text = _utf8_thought(sys.stdin.buffer.read() if text == "-" else text)
    cid, said = _handed_over(obj, text)
    if said is None:
        from vaultbrain.capture.said import capture_said

        said = capture_said(obj.app(), text, cid)
    if as_json:
        echo_json(said["summary"])
        return
    for line in said["lines"]:
        click.echo(hint(line, obj))


def _handed_over(obj: Context, text: str) -> tuple[str | None, dict[str, Any] | None]:
    """(the id chosen for the thought, what the daemon watching the vault said of it): a
    process that has everything loaded files it in a few milliseconds. None said when no
    daemon took it: the thought is captured here, under that id, once (see
    vaultbrain/daemon/door.py). Not with -v (the person asked to see this process's log) nor
    with another pack for this command."""
    if obj.verbose > 0 or obj.schema_pack:
        return None, None
    from vaultbrain.daemon.door import hand_over, new_capture_id

    cid = new_capture_id()
    return cid, hand_over(obj.vault_dir, obj.state_dir, text, cid)


def _utf8_thought(given: str | bytes) -> str:
    """The thought as text; one line when its bytes are not UTF-8 (a Windows-1252 é from an
    old script): nothing is captured, since the text could not be shown as it was typed."""
    if isinstance(given, str):
        try:
            given.encode("utf-8")  # (bytes that are not UTF-8 reach argv as surrogates)
            return given
        except UnicodeEncodeError as exc:
            byte = ord(given[exc.start]) - 0xDC00
            at = len(given[: exc.start].encode("utf-8", "surrogateescape"))
    else:
        try:
            return given.decode("utf-8")
        except UnicodeDecodeError as exc:
            byte, at = given[exc.start], exc.start
    shown = f"byte 0x{byte:02x} at {at}" if 0 <= byte < 256 else f"at {at}"
    raise UserError(
        f"the thought is not UTF-8 text ({shown}); nothing was captured: "
        "convert it to UTF-8 (e.g. `iconv -f windows-1252 -t utf-8`) and capture it again"
    )
