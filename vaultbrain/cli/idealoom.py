"""``vaultbrain idealoom``: machine-local idea lists and their exchange with the vault."""

from __future__ import annotations

import sys
from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.render import echo_json, echo_table
from vaultbrain.idealoom import (
    ExchangeResult,
    IdeaList,
    ListBook,
    add_idea,
    create_list,
    delete_list,
    edit_list,
    move_idea,
    remove_idea,
    run_export,
    run_import,
)
from vaultbrain.idealoom.autosync import last_auto_export
from vaultbrain.idealoom.config import change_settings, describe_settings

_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


def _list_doc(lst: IdeaList) -> dict[str, Any]:
    return {**lst.content(), "note": lst.sync.path, "sync": lst.sync.to_dict()}


def _sync_text(lst: IdeaList) -> str:
    if lst.sync.outcome:
        return f"{lst.sync.outcome} ({lst.sync.reason})"
    return "exported" if lst.sync.path else "not exported"


def _show(lst: IdeaList) -> None:
    click.echo(f"{lst.title}  ({lst.id})")
    rows = [
        ("prompt", lst.prompt),
        ("category", lst.category),
        ("status", lst.status),
        ("created", lst.created),
        ("modified", lst.modified),
        ("note", lst.sync.path or "not exported yet"),
    ]
    if lst.sync.outcome:
        rows.append(("last exchange", f"{lst.sync.outcome} ({lst.sync.reason}) {lst.sync.at}"))
    for name, value in rows:
        click.echo(f"{name + ':':<15}{value}")
    if lst.help:
        click.echo("help:")
        for line in lst.help.split("\n"):
            click.echo(f"  {line}".rstrip())
    click.echo("ideas:" if lst.ideas else "ideas:         none yet")
    for n, idea in enumerate(lst.ideas, start=1):
        click.echo(f"  {n}. {idea}")


def _emit(lst: IdeaList, as_json: bool, done: str) -> None:
    if as_json:
        echo_json(_list_doc(lst))
    else:
        click.echo(f"{done} {lst.id[:8]} {lst.title}")
        _show(lst)


def _read_help(value: str | None) -> str | None:
    return sys.stdin.read() if value == "-" else value


def _emit_result(result: ExchangeResult, as_json: bool) -> None:
    if as_json:
        echo_json(result.to_dict())
        return
    if result.items:
        rows = []
        for item in result.items:
            where = item.path or ""
            if where and item.line:
                where = f"{where}:{item.line}"
            rows.append([item.outcome, item.reason, (item.list_id or "")[:8], where, item.message])
        echo_table(rows, ["OUTCOME", "REASON", "LIST", "NOTE", "DETAIL"])
    else:
        click.echo("nothing to exchange")
    click.echo(result.summary())


@click.group()
def idealoom() -> None:
    """IdeaLoom lists: a prompt and its ordered ideas, kept on this machine.

    Lists are exchanged with the vault's `Idea Loom/` notes only when you ask
    (`import`, `export`), or, with both `idealoom.enabled` and `idealoom.auto_export`
    on, by the daemon a few seconds after an edit.
    """


@idealoom.command("list")
@_json
@click.pass_obj
def list_cmd(obj: Any, as_json: bool) -> None:
    """Every list, oldest first."""
    lists = ListBook(obj.app()).all()
    if as_json:
        echo_json([_list_doc(lst) for lst in lists])
        return
    if not lists:
        click.echo(hint("no lists yet; `vaultbrain idealoom create PROMPT` makes one"))
        return
    rows = [
        [lst.id[:8], lst.title, lst.status, lst.category, len(lst.ideas), lst.modified,
         _sync_text(lst)]
        for lst in lists
    ]  # fmt: skip
    echo_table(rows, ["ID", "TITLE", "STATUS", "CATEGORY", "IDEAS", "MODIFIED", "SYNC"])


@idealoom.command("show")
@click.argument("list_id")
@_json
@click.pass_obj
def show_cmd(obj: Any, list_id: str, as_json: bool) -> None:
    """One list (by id or a unique prefix of at least 4 characters)."""
    lst = ListBook(obj.app()).find(list_id)
    if as_json:
        echo_json(_list_doc(lst))
    else:
        _show(lst)


@idealoom.command("create")
@click.argument("prompt")
@click.option("--title", help="A short name (default: the prompt).")
@click.option("--category", default="general", show_default=True)
@click.option(
    "--status", type=click.Choice(["draft", "completed"]), default="draft", show_default=True
)
@click.option("--help-text", metavar="TEXT", help="Guidance shown with the prompt; - reads stdin.")
@click.option("--idea", "ideas", multiple=True, help="An idea (repeat for several, in order).")
@_json
@click.pass_obj
def create_cmd(
    obj: Any,
    prompt: str,
    title: str | None,
    category: str,
    status: str,
    help_text: str | None,
    ideas: tuple[str, ...],
    as_json: bool,
) -> None:
    """Make a new list for PROMPT."""
    lst = create_list(
        obj.app(),
        prompt=prompt,
        title=title,
        category=category,
        status=status,
        help_text=_read_help(help_text) or "",
        ideas=ideas,
    )
    _emit(lst, as_json, "created")


@idealoom.command("edit")
@click.argument("list_id")
@click.option("--title")
@click.option("--prompt")
@click.option("--category")
@click.option("--status", type=click.Choice(["draft", "completed"]))
@click.option("--help-text", metavar="TEXT", help="New help text; '' removes it; - reads stdin.")
@_json
@click.pass_obj
def edit_cmd(
    obj: Any,
    list_id: str,
    title: str | None,
    prompt: str | None,
    category: str | None,
    status: str | None,
    help_text: str | None,
    as_json: bool,
) -> None:
    """Change a list's title, prompt, category, status or help text."""
    lst = edit_list(
        obj.app(),
        list_id,
        title=title,
        prompt=prompt,
        category=category,
        status=status,
        help_text=_read_help(help_text),
    )
    _emit(lst, as_json, "edited")


@idealoom.command("add-idea")
@click.argument("list_id")
@click.argument("text")
@click.option("--at", "position", type=int, metavar="N", help="Insert as idea number N.")
@_json
@click.pass_obj
def add_idea_cmd(obj: Any, list_id: str, text: str, position: int | None, as_json: bool) -> None:
    """Add an idea (at the end, or as number N)."""
    _emit(add_idea(obj.app(), list_id, text, position), as_json, "added to")


@idealoom.command("move-idea")
@click.argument("list_id")
@click.argument("from_pos", metavar="FROM", type=int)
@click.argument("to_pos", metavar="TO", type=int)
@_json
@click.pass_obj
def move_idea_cmd(obj: Any, list_id: str, from_pos: int, to_pos: int, as_json: bool) -> None:
    """Move idea number FROM so it becomes number TO."""
    _emit(move_idea(obj.app(), list_id, from_pos, to_pos), as_json, "reordered")


@idealoom.command("remove-idea")
@click.argument("list_id")
@click.argument("number", type=int)
@_json
@click.pass_obj
def remove_idea_cmd(obj: Any, list_id: str, number: int, as_json: bool) -> None:
    """Remove idea NUMBER (the ideas after it move up)."""
    _emit(remove_idea(obj.app(), list_id, number), as_json, "removed from")


@idealoom.command("delete")
@click.argument("list_id")
@_json
@click.pass_obj
def delete_cmd(obj: Any, list_id: str, as_json: bool) -> None:
    """Forget a list on this machine. Its vault note stays; delete that in Obsidian."""
    lst = delete_list(obj.app(), list_id)
    if as_json:
        echo_json({"deleted": lst.id, "note": lst.sync.path})
        return
    click.echo(f"deleted {lst.id[:8]} {lst.title}")
    if lst.sync.path:
        click.echo(
            f"its note {lst.sync.path} is still in the vault; delete it in Obsidian, "
            "or the next import brings the list back"
        )


@idealoom.command("import")
@_json
@click.pass_obj
def import_cmd(obj: Any, as_json: bool) -> None:
    """Read the vault's IdeaLoom notes into the lists."""
    _emit_result(run_import(obj.app()), as_json)


@idealoom.command("export")
@click.argument("list_ids", nargs=-1)
@click.option(
    "--recreate-missing", is_flag=True, help="Write again the notes that were deleted in the vault."
)
@_json
@click.pass_obj
def export_cmd(obj: Any, list_ids: tuple[str, ...], recreate_missing: bool, as_json: bool) -> None:
    """Write lists to their notes in the vault.

    All lists, or the LIST_IDS given.
    """
    app = obj.app()
    ids = [ListBook(app).find(ref).id for ref in list_ids] or None
    _emit_result(run_export(app, ids, recreate_missing=recreate_missing), as_json)


@idealoom.command("settings")
@click.option("--enabled", metavar="BOOL", help="Exchange lists with the vault (true/false).")
@click.option("--auto-export", metavar="BOOL", help="Export automatically after an edit.")
@click.option("--folder", metavar="PATH", help="The vault folder of IdeaLoom notes.")
@_json
@click.pass_obj
def settings_cmd(
    obj: Any, enabled: str | None, auto_export: str | None, folder: str | None, as_json: bool
) -> None:
    """Show the IdeaLoom settings, or set them."""
    app = obj.app()
    change_settings(app, enabled=enabled, auto_export=auto_export, folder=folder)
    rows = describe_settings(app)
    last = last_auto_export(app)
    if as_json:
        echo_json({"settings": {r["key"]: r["value"] for r in rows}, "last_auto_export": last})
        return
    echo_table(
        [[r["key"], _value(r["value"]), r["source"]] for r in rows], ["KEY", "VALUE", "SOURCE"]
    )
    if last:
        counts = ", ".join(f"{n} {o}" for o, n in last["counts"].items() if n)
        click.echo(f"last automatic export: {last['at']}: {counts or 'nothing to do'}")


def _value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
