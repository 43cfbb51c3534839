"""``vaultbrain.yml`` at the vault root: the vault's shared settings, and the one writer of it.

The file is synced with the notes and read by people, so it is edited a line at a time: a
key's line (and the indented lines of a block value under it) is replaced, added at the end
(with a ``# comment`` above it the first time, saying what the key does), or removed; every
other byte the person or another machine wrote (comments, order, blank lines, keys this
version does not know) stays as it was. Each edit goes through ``Vault.edit``, so it is a
compare-and-swap: an edit made meanwhile (by the person, by a sync tool) is read again and
kept, never overwritten.

Writers: :mod:`vaultbrain.settings` (vault keys), :mod:`vaultbrain.machine` (``filer:`` and
``vault_id:``), :mod:`vaultbrain.packs.config` (``schema:``). Readers parse it with
:func:`read`, which flattens nested mappings (``youtube: {folder: X}`` is ``youtube.folder``).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    from vaultbrain.vault.files import NoteFile, Vault

VAULT_YML = "vaultbrain.yml"


def _loader() -> type:
    """libyaml's loader where PyYAML has it: the same safe loading, read at every command's
    start (PyYAML itself imported only where there is a vaultbrain.yml to read)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# A trailing comment with no quote in it: kept when the value before it changes.
_TRAILING = LazyPattern(r"\s+#[^'\"\n]*$")


class YmlError(UserError):
    """vaultbrain.yml cannot be parsed; the message is one line naming the file."""


# A line of a flat file that PyYAML reads as ``{key: value}`` with both strings or the value a
# decimal integer, and nothing else: a name or word starting with a letter or ``_`` (neither a
# YAML 1.1 boolean nor null), or a run of lowercase letters and digits holding a letter (a
# vault id, a machine id: no number, date or float without ``.``, ``:`` or ``-``; not 0b/0x).
_PLAIN_LINE = LazyPattern(
    r"(?P<key>[A-Za-z_][A-Za-z0-9_.-]*):[ ]+"
    r"(?:(?P<word>[A-Za-z_][A-Za-z0-9_./-]*)|(?P<id>(?!0[bx])[0-9a-z]*[a-z][0-9a-z]*)"
    r"|(?P<int>0|[1-9][0-9]*))"
    r"(?:[ ]+#[^\n]*)?[ ]*"
)
_YAML_WORDS = frozenset(
    "yes no true false on off null y n".split()
)  # (read as booleans or null, whatever the case; y and n as PyYAML does not, to be safe)


def plain_mapping(text: str) -> dict[str, Any] | None:
    """What PyYAML reads from ``text`` when it is only ``key: value`` lines of plain words and
    comments (most vaultbrain.yml files): read without importing PyYAML, which costs a cold
    command a noticeable part of its start. None for anything else (PyYAML reads it)."""
    doc: dict[str, Any] = {}
    for line in text.split("\n"):
        if not line or line.isspace() or line.startswith("#"):
            if "\t" in line or "\r" in line:
                return None
            continue
        m = _PLAIN_LINE.fullmatch(line)
        if m is None or m["key"].lower() in _YAML_WORDS:
            return None
        value = m["word"] or m["id"]
        if value is not None and value.lower() in _YAML_WORDS:
            return None
        doc[m["key"]] = int(m["int"]) if m["int"] is not None else value
    return doc


def parse(text: str, where: str = VAULT_YML) -> dict[str, Any]:
    """The file's top-level mapping (empty for an empty file); YmlError in one line."""
    plain = plain_mapping(text)
    if plain is not None:
        return plain
    import yaml  # only where there is a vaultbrain.yml to read, beyond plain lines

    try:
        doc = yaml.load(text, Loader=_loader()) if text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YmlError(f"{where} is not valid YAML ({at}{problem})") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise YmlError(f"{where} must be a mapping of `key: value` lines")
    return doc


def parse_lenient(text: str, where: str = VAULT_YML) -> tuple[dict[str, Any], dict[str, str]]:
    """The file's mapping even when part of it does not parse: each top-level key's block is
    read on its own, so a typo on one line loses that key only (the vault id, the filer and
    the pack on other lines still read). Also the broken keys, each with a one-line why
    (key "" when the broken line names none)."""
    try:
        return parse(text, where), {}
    except YmlError as whole:
        if "must be a mapping" in str(whole):
            return {}, {"": str(whole)}
    doc: dict[str, Any] = {}
    broken: dict[str, str] = {}
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        end = _block_end(lines, i)
        name = line.split(":", 1)[0].strip().strip("'\"") if ":" in line else ""
        try:
            part = parse("".join(lines[i:end]), where)
        except YmlError:
            part = None
        if isinstance(part, dict) and part:
            doc.update(part)
        else:
            shown = line.strip()[:60]
            broken[name] = f"{where} line {i + 1} is not valid YAML ({shown!r}); it is ignored"
        i = end
    return doc, broken


def flatten(doc: dict[str, Any], keep: tuple[str, ...] = ("schema",)) -> dict[str, Any]:
    """``{"youtube": {"folder": "X"}}`` -> ``{"youtube.folder": "X"}``; the keys in ``keep``
    stay whole (``schema: {pack: name}`` is one value)."""
    out: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and prefix not in keep and value:
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        else:
            out[prefix] = value

    for k, v in doc.items():
        walk(str(k), v)
    return out


def read(root: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """The vault's ``vaultbrain.yml``, flattened, and its broken keys (:func:`parse_lenient`);
    ({}, {}) when there is none; YmlError when it cannot be read at all."""
    path = Path(root) / VAULT_YML
    try:
        text = path.read_text("utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return {}, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise YmlError(f"{path} cannot be read ({exc})") from None
    doc, broken = parse_lenient(text, str(path))
    return flatten(doc), broken


def key_line(key: str, value: Any) -> str:
    """``key: value`` as YAML writes it (quoted where needed), without a newline."""
    import yaml

    dumped = yaml.safe_dump({key: value}, default_flow_style=True, allow_unicode=True, width=10**6)
    # safe_dump in flow style gives "{key: value}\n"; the braces go.
    return dumped.strip()[1:-1].strip()


def _key_re(key: str) -> re.Pattern[str]:
    quoted = "|".join(re.escape(q) for q in (key, f"'{key}'", f'"{key}"'))
    return re.compile(rf"^(?:{quoted})[ \t]*:(?:[ \t]|$)")


def _block_end(lines: list[str], start: int) -> int:
    """The index after the block that starts at ``lines[start]``: the key's line and the
    indented (or ``- item``) lines of a block value under it."""
    end = start + 1
    while end < len(lines) and lines[end].strip() and lines[end][0] in " \t-":
        end += 1
    return end


def _find(lines: list[str], key: str) -> tuple[int, int, str] | None:
    """(start, end, indent) of the line that holds ``key``: a top-level ``key:`` line, or a
    ``child:`` line inside a nested block of the key's parent (``youtube:`` / ``  folder:``)."""
    pattern = _key_re(key)
    for i, line in enumerate(lines):
        if pattern.match(line):
            return i, _block_end(lines, i), ""
    if "." in key:
        parent, child = key.split(".", 1)
        found = _find(lines, parent)
        if found is not None and not found[2]:
            start, end, _ = found
            inner = lines[start + 1 : end]
            indent = min((len(s) - len(s.lstrip(" ")) for s in inner if s.strip()), default=0)
            child_re = _key_re(child)
            for j, s in enumerate(inner):
                one_line = (
                    j + 1 == len(inner)
                    or len(inner[j + 1]) - len(inner[j + 1].lstrip(" ")) <= indent
                )
                if indent and s[:indent].isspace() and child_re.match(s[indent:]) and one_line:
                    return start + 1 + j, start + 2 + j, " " * indent
    return None


def _comment_lines(comment: str) -> list[str]:
    return [f"# {part}\n" for part in textwrap.wrap(comment, 86)] if comment.strip() else []


def with_key(
    text: str, key: str, value: Any, *, comment: str = "", trailing: str | None = None
) -> str:
    """``text`` with ``key`` set to ``value``: its line replaced in place (a trailing
    ``# comment`` on it kept unless ``trailing`` gives a new one), or added at the end after
    ``comment``. Every other byte stays."""
    parse(text)  # never edit a file that does not parse: the person's edit comes first
    lines = text.splitlines(keepends=True)
    found = _find(lines, key)
    new = key_line(key if found is None or not found[2] else key.split(".", 1)[1], value)
    if found is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        tail = f"  # {trailing}" if trailing else ""
        lines += [*_comment_lines(comment), new + tail + "\n"]
    else:
        start, end, indent = found
        old = lines[start]
        ending = old[len(old.rstrip("\r\n")) :] or ""
        if trailing is not None:
            tail = f"  # {trailing}" if trailing else ""
        else:
            m = _TRAILING.search(old.rstrip("\r\n")) if end - start == 1 else None
            tail = m.group(0) if m else ""
        if not ending and end < len(lines):
            ending = "\n"
        lines[start:end] = [indent + new + tail + ending]
    out = "".join(lines)
    parse(out)  # what is written reads back
    return out


def without_key(text: str, key: str) -> str:
    """``text`` without ``key``'s line (and its block), and without the ``# comment`` lines
    written right above it; ``text`` itself when the key is not there."""
    parse(text)
    lines = text.splitlines(keepends=True)
    found = _find(lines, key)
    if found is None:
        return text
    start, end, _ = found
    while start > 0 and lines[start - 1].startswith("# ") and not found[2]:
        start -= 1  # the comment that explained it goes with it
    del lines[start:end]
    return "".join(lines)


def edit(vault: Vault, change: Callable[[str], str | None]) -> bool:
    """Compare-and-swap edit of the vault's ``vaultbrain.yml``: ``change`` gets the current
    text ("" when there is none) and returns the new text (None: leave it). It may be called
    again when the file changed meanwhile, so it must compute from its argument alone.
    True when something was written."""

    def build(note: NoteFile | None) -> str | None:
        return change(note.text if note is not None else "")

    return vault.edit(VAULT_YML, build).written


def set_key(
    vault: Vault, key: str, value: Any, *, comment: str = "", trailing: str | None = None
) -> bool:
    """Set one key of the vault's ``vaultbrain.yml`` (see :func:`with_key`)."""
    return edit(vault, lambda text: with_key(text, key, value, comment=comment, trailing=trailing))


def remove_key(vault: Vault, key: str) -> bool:
    """Remove one key of the vault's ``vaultbrain.yml``; False when it was not there."""
    return edit(vault, lambda text: without_key(text, key) if text else None)
