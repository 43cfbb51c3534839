"""Rendering helpers shared by commands: JSON documents, plain tables, values as people read them.

Every table goes through ``echo_table``, so headers read the same in every command (lower
case, as ``inbox``, ``db`` and ``settings`` have always printed them) and cells are cut only
to fit a terminal: piped output (``… | grep``) is never cut, a wide terminal shows whole
descriptions, a narrow one shortens the widest column with ``…``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import click

_MIN_COLUMN = 12


def echo_json(doc: Any) -> None:
    """``doc`` as valid JSON: a number that is not finite (``priority: .nan`` in a note's
    frontmatter, ``1e999``) is ``null``, never ``NaN`` or ``Infinity``."""
    click.echo(json.dumps(_finite(doc), ensure_ascii=False, indent=2, default=str))


def _finite(doc: Any) -> Any:
    if isinstance(doc, float):
        return doc if math.isfinite(doc) else None
    if isinstance(doc, Mapping):
        return {k: _finite(v) for k, v in doc.items()}
    if isinstance(doc, list | tuple):
        return [_finite(v) for v in doc]
    return doc


def human(value: Any) -> str:
    """One value on one line as a person reads it: no Python brackets or quotes."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {human(v)}" for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(human(v) for v in value)
    return " ".join(str(value).splitlines())


def field_lines(key: str, value: Any, indent: str = "  ") -> list[str]:
    """A field as Obsidian's Properties show it: lists as one item a line."""
    if isinstance(value, list | tuple) and value:
        return [f"{indent}{key}:"] + [f"{indent}  - {human(v)}" for v in value]
    if isinstance(value, Mapping) and value:
        lines = [f"{indent}{key}:"]
        for k, v in value.items():
            lines += field_lines(str(k), v, indent + "  ")
        return lines
    text = human(value)
    return [f"{indent}{key}:" + (f" {text}" if text else "")]


def terminal_width() -> int | None:
    """The width to fit, or None when the output is not a terminal (then nothing is cut)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    isatty = getattr(sys.stdout, "isatty", None)
    if isatty is not None and isatty():
        import shutil

        return shutil.get_terminal_size().columns
    return None


def _fit(widths: list[int], total: int) -> list[int]:
    """Shrink the widest columns until the row (with two-space gaps) fits ``total``."""
    widths = list(widths)
    while sum(widths) + 2 * (len(widths) - 1) > total:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= _MIN_COLUMN:
            break  # cannot fit without making columns unreadable: let the terminal wrap
        widths[widest] -= 1
    return widths


def _cut(cell: str, width: int) -> str:
    return cell if len(cell) <= width else cell[: width - 1] + "…"


def table_width(rows: Iterable[Sequence[Any]], headers: Sequence[str]) -> int:
    """How wide ``echo_table`` would print these rows with nothing cut."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(list(row)[: len(widths)]):
            widths[i] = max(widths[i], len(human(cell)))
    return sum(widths) + 2 * (len(widths) - 1)


def echo_table(rows: Iterable[Sequence[Any]], headers: Sequence[str]) -> None:
    cells = [[human(c) for c in row] for row in rows]
    heads = [h.lower() for h in headers]
    widths = [len(h) for h in heads]
    for row in cells:
        for i, cell in enumerate(row[: len(widths)]):
            widths[i] = max(widths[i], len(cell))
    total = terminal_width()
    if total is not None:
        widths = _fit(widths, total)
    for row in [heads, *cells]:
        row = (row + [""] * len(widths))[: len(widths)]  # as many cells as headers
        padded = [_cut(c, w).ljust(w) for c, w in zip(row, widths, strict=True)]
        click.echo("  ".join(padded).rstrip())


def clock_time(seconds: float) -> str:
    """A duration as a clock shows it: 1:15, 1:01:15."""
    minutes, secs = divmod(int(max(0.0, seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def time_left(spent: float, share: float) -> str:
    """A progress bar's estimate, "~0:42 left", from the time spent on the ``share`` (0–1)
    done so far, at the same pace; nothing before there is a pace to go by."""
    if not 0.02 <= share < 1.0 or spent < 1.0:
        return ""
    return f"~{clock_time(spent * (1.0 - share) / share)} left"


def parse_sets(pairs: Sequence[str]) -> dict[str, str]:
    """``--set k=v`` options as a dict; a pair without ``=`` is a usage error."""
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--set")
        k, v = pair.split("=", 1)
        out[k.strip()] = v
    return out
