"""tend: one maintenance cycle now, and the merge proposals it made (list, accept, reject, undo)."""

from __future__ import annotations

import sys
from typing import Any

import click

from vaultbrain.cli.help import examples
from vaultbrain.cli.render import echo_json

PHASE_NAMES = ("consolidate", "drift", "backlinks", "takes", "enrich", "embed", "orphans", "schema")


@click.group(
    "tend",
    invoke_without_command=True,
    epilog=examples(
        "vaultbrain tend                      # the whole cycle now",
        "vaultbrain tend --dry-run --phase consolidate",
        "vaultbrain tend list                 # merge proposals waiting",
        "vaultbrain tend accept 3f2a9c01b4",
    ),
)
@click.option("--dry-run", is_flag=True, help="Say what each phase finds; write nothing.")
@click.option(
    "--phase",
    "phases",
    multiple=True,
    type=click.Choice(PHASE_NAMES),
    help="Run only this phase (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.pass_context
def tend(ctx: click.Context, dry_run: bool, phases: tuple[str, ...], as_json: bool) -> None:
    """The nightly maintenance cycle, now: possible duplicates proposed as merges in Needs
    Review, overdue and quiet records, backlinks, takes to grade, thin notes filled, stale
    embeddings, orphans and new kinds of notes; the morning report in Brain/Tending/."""
    if ctx.invoked_subcommand is not None:
        return
    from vaultbrain.tend.cycle import DEFAULT_WAIT, PHASES, run_tend

    brain = ctx.obj.app()
    shown = sys.stderr.isatty() and not as_json

    def progress(phase: str, done: int, total: int) -> None:
        if shown:
            click.echo(f"\rtend [{done}/{total}] {phase:<12}", nl=False, err=True)

    from vaultbrain.digest.lock import run_lock

    with run_lock(brain.state_dir, DEFAULT_WAIT):  # never beside a scheduled run or a digest
        entry = run_tend(
            brain, trigger="cli", dry_run=dry_run, phases=phases or PHASES, progress=progress
        )
    if shown:
        click.echo("", err=True)
    if as_json:
        echo_json(entry)
        return
    for name, result in entry["phases"].items():
        click.echo(f"{name}: {_summary(name, result, dry_run)}")
        if name == "backlinks" and dry_run and result.get("status") == "ok":
            for verb, key in (("would write", "written"), ("would propose", "proposed")):
                for m in result.get(key) or ():
                    click.echo(f"  {verb}: {m['note']} {m['field']}: [[{m['link'][:-3]}]]")
    if entry.get("path"):
        click.echo(f"report: {entry['path']}")
    elif dry_run:
        click.echo("dry run: nothing written")


def _summary(name: str, r: dict[str, Any], dry_run: bool = False) -> str:
    if r.get("status") == "failed":
        return f"failed: {r.get('error')}"
    if name == "consolidate":
        return f"{len(r['proposed'])} new merge proposals, {len(r['waiting'])} waiting"
    if name == "drift":
        return (
            f"{len(r['overdue'])} overdue, {len(r['stale'])} quiet projects, "
            f"{len(r['follow_ups'])} follow-ups due"
        )
    if name == "backlinks":
        verb = "to write" if dry_run else "written"
        return (
            f"{r.get('written_count', 0)} inverse links {verb} into vaultbrain's notes, "
            f"{r.get('proposed_count', 0)} proposed for yours, {r.get('waiting', 0)} waiting"
        )
    if name == "takes":
        return f"{r.get('due_count', 0)} takes to grade of {r.get('takes', 0)}"
    if name == "enrich":
        return f"{len(r.get('notes', []))} notes filled in ({r.get('fields', 0)} fields)"
    if name == "embed":
        return str(r.get("skipped") or f"{r.get('notes', 0)} notes embedded")
    if name == "orphans":
        return f"{r.get('count', 0)} notes nothing links to"
    if name == "schema":
        return f"{len(r.get('candidates', []))} new kinds of notes"
    return "done"


@tend.command("list", epilog=examples("vaultbrain tend list", "vaultbrain tend list --all --json"))
@click.option("--all", "show_all", is_flag=True, help="Decided proposals too.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.pass_obj
def list_cmd(obj: Any, show_all: bool, as_json: bool) -> None:
    """The merge proposals waiting (also in Needs Review)."""
    from vaultbrain.capture.merge import proposals
    from vaultbrain.capture.review_queue import ReviewQueue

    brain = obj.app()
    ReviewQueue(brain).refresh(force=True)  # a tick or strike in Needs Review counts first
    rows = proposals(brain, None if show_all else "open")
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no merge proposals waiting")
    for p in rows:
        click.echo(f"{p['id']}  {p['status']:<8} {p['other']} → {p['keep']}  ({p['why']})")


def _decide(obj: Any, verb: str, ids: tuple[str, ...], as_json: bool) -> None:
    from vaultbrain.capture import merge
    from vaultbrain.capture.review_queue import ReviewQueue

    brain = obj.app()
    done = [getattr(merge, verb)(brain, i) for i in ids]
    ReviewQueue(brain).write(force=True)
    if as_json:
        echo_json(done)
        return
    for rec in done:
        click.echo(f"{rec['id']}: {rec['status']} ({rec['other']} → {rec['keep']})")


@tend.command("accept", epilog=examples("vaultbrain tend accept 3f2a9c01b4"))
@click.argument("ids", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.pass_obj
def accept_cmd(obj: Any, ids: tuple[str, ...], as_json: bool) -> None:
    """Merge two notes into the kept one.

    The other note's properties, text and links go into the kept one; the other moves to
    Brain/Archive/."""
    _decide(obj, "accept", ids, as_json)


@tend.command("reject", epilog=examples("vaultbrain tend reject 3f2a9c01b4"))
@click.argument("ids", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.pass_obj
def reject_cmd(obj: Any, ids: tuple[str, ...], as_json: bool) -> None:
    """Keep both notes apart for good.

    The pair is never proposed again."""
    _decide(obj, "reject", ids, as_json)


@tend.command("undo", epilog=examples("vaultbrain tend undo 3f2a9c01b4"))
@click.argument("ids", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.pass_obj
def undo_cmd(obj: Any, ids: tuple[str, ...], as_json: bool) -> None:
    """Put a merged note back from Brain/Archive/.

    The kept note gets its text from before the merge too, if unchanged since."""
    _decide(obj, "undo", ids, as_json)
