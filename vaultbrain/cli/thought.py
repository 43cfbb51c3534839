"""``vaultbrain capture``: the thought read (an argument, or stdin for ``-``), handed to the
daemon watching the vault or captured here, and what became of it printed. Without click.

A phone's shortcut over ssh, or a script, runs one process per thought; with the daemon
running, the process only hands the thought over (vaultbrain/daemon/door.py), and importing
click would be most of its time. So the everyday form of the command line,

    vaultbrain [--vault DIR] [--state-dir DIR] capture [--json] (TEXT | - | -- TEXT)

is read here (:func:`everyday_capture`) and run without click. Any other form (``-v``,
``--help``, ``--schema-pack``, an option given twice, a misspelt one) goes to the click
group, which runs the same :func:`take` (vaultbrain/cli/core.py's ``capture_cmd``): both
print the same lines and the same errors, with the same exit codes.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Iterator
from typing import Any

from vaultbrain.cli.context import Context, error_line, hint, set_up_logging
from vaultbrain.errors import UserError, VaultbrainError

_OPTIONS = ("--vault", "--state-dir")  # the group's options the everyday form may carry


class EverydayCapture:
    """An everyday capture command line, read. (A plain class: a NamedTuple's class is made
    at import, a millisecond of every capture handed to the daemon.)"""

    __slots__ = ("as_json", "state_dir", "text", "vault")

    def __init__(self, text: str, as_json: bool, vault: str | None, state_dir: str | None) -> None:
        self.text = text
        self.as_json = as_json
        self.vault = vault
        self.state_dir = state_dir  # given on the command line

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EverydayCapture):
            return NotImplemented
        return (self.text, self.as_json, self.vault, self.state_dir) == (
            other.text,
            other.as_json,
            other.vault,
            other.state_dir,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"EverydayCapture({self.text!r}, as_json={self.as_json}, vault={self.vault!r}, "
            f"state_dir={self.state_dir!r})"
        )

    def run(self) -> int:
        """Capture as the click command would (its logging, its error ladder, the brain let
        go as the command ends); the exit code."""
        given = self.state_dir is not None
        state_dir = self.state_dir if given else os.environ.get("VAULTBRAIN_STATE_DIR") or None
        obj = Context(self.vault, state_dir, None, 0)
        obj.state_dir_given = given
        set_up_logging(False, 0, False)
        _inspect_on_first_use()
        try:
            try:
                take(obj, self.text, self.as_json)
            finally:
                obj.close()
            sys.stdout.flush()  # a closed pipe shows here, inside the ladder, not at exit
        except (VaultbrainError, OSError, KeyboardInterrupt) as exc:
            message, code = error_line(exc, False, obj)
            if message is not None:
                sys.stderr.write(f"error: {message}\n")
                sys.stderr.flush()
            return code
        return 0


def _inspect_on_first_use() -> None:
    """Load :mod:`inspect` (with ast, dis and tokenize: some 8 ms) when something first reads
    from it, not when :mod:`dataclasses` imports it: dataclasses reads it only to write a
    docstring for a class that has none, and the capture's classes have theirs. (importlib's
    LazyLoader cannot do this: an import statement reads the module's ``__spec__``, and that
    loads it.)"""
    if "inspect" in sys.modules:
        return
    import importlib
    import types

    stand_in = types.ModuleType("inspect")

    def load(name: str) -> Any:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
        real = importlib.import_module("inspect")
        stand_in.__dict__.update(real.__dict__)  # (read from here from now on)
        return getattr(real, name)

    stand_in.__getattr__ = load  # type: ignore[method-assign]
    sys.modules["inspect"] = stand_in


def everyday_capture(args: list[str]) -> EverydayCapture | None:
    """``args`` read as the everyday capture form, or None for any other command line (the
    click group reads it then). Only what the group would read the same way is taken: each
    option once, with a value that is no option."""
    given: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i] != "capture":
        name, eq, value = args[i].partition("=")
        if name not in _OPTIONS or name in given:
            return None
        if not eq:
            if i + 1 >= len(args) or args[i + 1].startswith("-"):
                return None
            value = args[i + 1]
            i += 1
        given[name] = value
        i += 1
    if i >= len(args):
        return None
    text: str | None = None
    as_json = False
    rest = args[i + 1 :]
    for j, arg in enumerate(rest):
        if arg == "--":
            after = rest[j + 1 :]
            if text is not None or len(after) != 1:
                return None
            text = after[0]
            break
        if arg == "--json":
            as_json = True
        elif arg == "-" or not arg.startswith("-"):
            if text is not None:
                return None
            text = arg
        else:
            return None
    if text is None:
        return None
    return EverydayCapture(text, as_json, given.get("--vault"), given.get("--state-dir"))


def take(obj: Context, text: str, as_json: bool) -> None:
    """Capture ``text`` (``-``: stdin) and print what became of it: the capture's lines, or
    with ``as_json`` the capture as one JSON document."""
    with _no_cycle_collection():
        text = _utf8_thought(sys.stdin.buffer.read() if text == "-" else text)
        cid, said = _handed_over(obj, text)
        if said is None:
            from vaultbrain.capture.said import capture_said

            said = capture_said(obj.app(), text, cid)
    if as_json:  # (as every --json prints: vaultbrain/cli/render.py's echo_json)
        import json

        _say(json.dumps(said["summary"], ensure_ascii=False, indent=2, default=str))
        return
    for line in said["lines"]:
        _say(hint(line, obj))


def _say(line: str) -> None:
    sys.stdout.write(f"{line}\n")
    sys.stdout.flush()


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


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cycle collector paused for one capture: a cold one imports 200 modules and, on a
    vault of 10,000 notes, loads tens of thousands of small objects (records' summaries,
    names), which the collector walks again and again (a seventh of the capture's time) for
    cycles a capture hardly makes; what reference counting frees is freed as ever. Resumed
    after in a process that goes on (the tests)."""
    from vaultbrain.cli import context

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # Not when the process ends with the command (the `vaultbrain` script): resumed, the
        # collector would first walk everything the capture left, for nothing.
        if was and not context.ONE_COMMAND:
            gc.enable()
