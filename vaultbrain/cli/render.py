"""Rendering helpers shared by commands: JSON documents and plain tables."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import click


def echo_json(doc: Any) -> None:
    click.echo(json.dumps(doc, ensure_ascii=False, indent=2, default=str))


def echo_table(rows: Iterable[Sequence[Any]], headers: Sequence[str]) -> None:
    rows = [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], min(len(cell), 60))
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    click.echo(fmt.format(*headers).rstrip())
    for row in rows:
        click.echo(fmt.format(*[c if len(c) <= 60 else c[:57] + "..." for c in row]).rstrip())


def parse_sets(pairs: Sequence[str]) -> dict[str, str]:
    """``--set k=v`` options as a dict; a pair without ``=`` is a usage error."""
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--set")
        k, v = pair.split("=", 1)
        out[k.strip()] = v
    return out
