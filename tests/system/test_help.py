"""`vaultbrain --help` reads like gh's, llm's and git's (issue 33): commands grouped in
sections, one-line summaries that fit 80 columns uncut, examples, --json described alike."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from vaultbrain.cli.group import COMMANDS, JSON_HELP, SECTIONS, cli

NARROW = {"COLUMNS": "80"}  # what an 80-column terminal tells click


def help_of(*path: str) -> str:
    result = CliRunner().invoke(cli, [*path, "--help"], env=NARROW, prog_name="vaultbrain")
    assert result.exit_code == 0, result.output
    return result.output


def every_command() -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command and group under `vaultbrain`, with the words that reach it."""
    found: list[tuple[tuple[str, ...], click.Command]] = []

    def walk(path: tuple[str, ...], cmd: click.Command) -> None:
        found.append((path, cmd))
        if isinstance(cmd, click.Group):
            ctx = click.Context(cmd)
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None, f"{' '.join(path)} {name} does not load"
                walk((*path, name), sub)

    walk((), cli)
    return found


def test_top_level_help_groups_the_commands_in_sections_with_whole_summaries() -> None:
    out = help_of()
    lines = out.splitlines()
    headings = [line[:-1] for line in lines if line.endswith(":") and not line.startswith(" ")]
    assert [h for h in headings if h in SECTIONS] == list(SECTIONS)
    assert headings.index(SECTIONS[-1]) < headings.index("Options") < headings.index("Examples")
    for name, entry in COMMANDS.items():
        row = next(line for line in lines if line.split()[:1] == [name])
        assert row.rstrip().endswith(entry.summary), row  # on one line, not wrapped or cut
    section = None
    for line in lines:
        if line.endswith(":") and not line.startswith(" "):
            section = line[:-1]
        elif section in SECTIONS and line.strip():
            assert COMMANDS[line.split()[0]].section == section
    assert all(len(line) <= 80 for line in lines), out


def test_no_help_is_cut_or_wider_than_80_columns() -> None:
    for path, cmd in every_command():
        out = help_of(*path)
        where = " ".join(path) or "vaultbrain"
        assert all(len(line) <= 80 for line in out.splitlines()), f"{where}:\n{out}"
        if isinstance(cmd, click.Group) and path:
            rows = out.split("Commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
            for row in rows:
                # a summary click had to shorten ends in "..."; a wrapped one leaves a
                # continuation line with no command name
                assert not row.rstrip().endswith(("...", "…")), f"{where}: {row}"
                assert row.split()[0] in cmd.list_commands(click.Context(cmd)), (where, row)


def test_json_is_described_the_same_everywhere() -> None:
    described = {
        " ".join(path): param.help
        for path, cmd in every_command()
        for param in cmd.params
        if isinstance(param, click.Option) and "--json" in param.opts
    }
    assert len(described) > 20  # the check saw the commands that have --json
    assert set(described.values()) == {JSON_HELP}, described


@pytest.mark.parametrize("command", ["init", "capture", "daemon", "settings", "service"])
def test_the_main_commands_show_examples(command: str) -> None:
    out = help_of(command)
    examples = out.split("Examples:\n", 1)[1].splitlines()
    assert examples and all(line.strip().startswith(("vaultbrain ", "echo ")) for line in examples)


def test_experimental_schema_verbs_stand_apart() -> None:
    common = help_of("schema")
    listed = common.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    assert "use" in listed.split() and "fork" not in listed.split()
    assert "`vaultbrain schema --help-all` also lists diff, edit, explain, fork" in common
    every = (
        CliRunner().invoke(cli, ["schema", "--help-all"], env=NARROW, prog_name="vaultbrain").output
    )
    trial = every.split("Experimental (may change or go):\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in trial.strip().splitlines()] == [
        "diff",
        "edit",
        "explain",
        "fork",
        "graph",
        "init",
    ]
    assert "(experimental)" not in trial


def test_every_command_has_examples() -> None:
    """Every command's --help ends with examples, each a vaultbrain command line."""
    without = []
    for path, _cmd in every_command():
        out = help_of(*path)
        m = re.search(r"^ *Examples:\n((?: +\S.*\n?)+)", out, re.M)
        if m is None:
            without.append(" ".join(path) or "vaultbrain")
            continue
        shown = m.group(1).splitlines()
        assert shown and all("vaultbrain" in line.lower() for line in shown), (path, shown)
    assert without == []
