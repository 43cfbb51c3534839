"""init, inbox, reindex."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from vaultbrain.capture.model import STATUS_NAMES
from vaultbrain.capture.model import capture_doc as capture_summary
from vaultbrain.cli.context import hint
from vaultbrain.cli.help import examples
from vaultbrain.cli.render import echo_json, echo_table, time_left

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


@click.command(
    "init",
    epilog=examples(
        "vaultbrain --vault ~/Vault init",
        "vaultbrain --vault ~/Notes init   # your own vault: notes stay as they are",
        "vaultbrain init --file-existing   # also file the lines in Inbox.md",
        "vaultbrain init --daily-capture '## Inbox'   # and daily notes",
    ),
)
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option(
    "--file-existing",
    is_flag=True,
    help="File the thoughts already in the inbox note (they are held back otherwise).",
)
@click.option(
    "--daily-capture",
    "daily_heading",
    metavar="HEADING",
    help="Also take the lines under this heading of your daily notes (e.g. '## Inbox').",
)
@click.pass_obj
def init_cmd(
    obj: Any, directory: str | None, file_existing: bool, daily_heading: str | None = None
) -> None:
    """Make a vault skeleton (pack folders, Inbox.md). Never overwrites anything.

    In a vault that already has notes, nothing in them is written: it says how many there
    are and what to run next to bring them in.
    """
    from vaultbrain.filing.setup import existing_notes, init_vault

    if directory:
        obj.vault_arg = directory
    app = obj.app(must_exist=False)
    made, held = init_vault(app, file_existing=file_existing)
    made += _review_note(app)
    for rel in made:
        click.echo(f"created {rel}")
    if daily_heading:
        from vaultbrain.capture.daily import daily_status

        app.settings.set("daily_capture_heading", daily_heading)  # (a bad one: one line)
        click.echo(f"daily notes: {daily_status(app)}")
    click.echo(f"vault ready at {app.vault.root}" + ("" if made else " (nothing to create)"))
    if held:
        click.echo(
            hint(
                f"{app.inbox_rel} already has {held} line(s); they are left as they are and not "
                "filed. To file them: `vaultbrain init --file-existing` (or edit a line)."
            )
        )
    found = existing_notes(app)
    if found.notes and not found.scanned:
        click.echo(
            f"this vault already has {found.notes:,} note(s), {found.in_pack_folders:,} of them "
            "in the pack's folders; none was changed. Next:"
        )
        for line in (
            "see what would become records (nothing is written): `vaultbrain reindex --dry-run`",
            "read them in, for db, search and the daemon: `vaultbrain reindex`",
            "see which notes would get an id: line, if you ask: `vaultbrain adopt --dry-run`",
        ):
            click.echo("  " + hint(line))
    elif not held:
        click.echo(hint(f"next: write thoughts in {app.inbox_rel} and run `vaultbrain daemon`"))


def _review_note(app: Brain) -> list[str]:
    """``Brain/Needs Review.md`` from the start: the inbox and every waiting line link to it."""
    from vaultbrain.capture.review_queue import ReviewQueue
    from vaultbrain.filing.inbox import REVIEW_NOTE

    if app.vault.try_read(REVIEW_NOTE) is not None:
        return []
    return [REVIEW_NOTE] if ReviewQueue(app).write(force=True) else []


@click.command("inbox")
@click.option("--status", type=click.Choice(STATUS_NAMES), help="Only captures with this status.")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def inbox_cmd(obj: Any, status: str | None, limit: int, as_json: bool) -> None:
    """The inbox log: recent captures, newest first."""
    app = obj.app()
    rows = [r for r in app.store.inbox.all() if not status or r.get("status") == status]
    rows.sort(key=lambda r: r.get("created", ""), reverse=True)
    rows = [capture_summary(r) for r in rows[:limit]]
    if as_json:
        echo_json(rows)
        return
    echo_table(
        [(r["id"], r["created"], r["status"], r["confidence"], r["text"]) for r in rows],
        ["id", "created", "status", "conf", "thought"],
    )


@click.command(
    "reindex",
    epilog=examples(
        "vaultbrain reindex --dry-run   # what would become records; nothing changes",
        "vaultbrain reindex",
    ),
)
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--dry-run",
    "dry_run",
    is_flag=True,
    help="List what would become records and what would be written; change nothing.",
)
@click.pass_obj
def reindex_cmd(obj: Any, as_json: bool, dry_run: bool) -> None:
    """Rescan the vault into the store (notes are the truth). A terminal shows a progress
    bar; Ctrl-C stops cleanly and the next reindex goes on from there."""
    from vaultbrain.capture.reindex import reindex

    app = obj.app()
    if dry_run:
        from vaultbrain.filing.preview import dry_run as preview

        found = preview(app)
        if as_json:
            echo_json(found.__dict__)
            return
        for line in found.lines():
            click.echo(line)
        return
    bar = _Progress() if not as_json and sys.stdout.isatty() else None
    from vaultbrain.cli.progress import Progress

    indexing = Progress.on_terminal("notes indexed for search", quiet=as_json)

    def index_progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is not None:  # the scan is over: its line stays, the index's comes below
            bar.close()
            bar = None
        if indexing is not None:
            indexing(done, total)

    try:
        report, rebuilt = reindex(app, progress=bar, graph_progress=index_progress)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        done = f"{bar.done:,} of {bar.total:,} notes read; " if bar else ""
        click.echo(hint(f"stopped: {done}run `vaultbrain reindex` again to go on"), err=True)
        raise SystemExit(130) from None
    finally:
        if indexing is not None:
            indexing.close()
    if bar is not None:
        bar.close()
    if as_json:
        echo_json({**report.to_dict(), "captures_rebuilt": rebuilt})
        return
    click.echo(report.summary())
    if rebuilt:
        click.echo(f"{rebuilt} capture(s) rebuilt from their inbox lines")
    for problem in report.problems[:50]:
        click.echo(hint(f"  {problem}"), err=True)
    if report.warning:
        click.echo(hint(report.warning), err=True)


class _Progress:
    """``reindex``'s progress on a terminal: counts, share, rate and time left on one
    redrawn line."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        import time

        self._clock = clock or time.monotonic
        self.started = self._clock()
        self.done = self.total = 0
        self._shown = 0.0
        self._drawn = 0

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        now = self._clock()
        if done < total and now - self._shown < 0.1:
            return  # redrawn ten times a second at most
        self._shown = now
        line = self.line(now)
        # padded to the last line drawn, so a shorter one leaves nothing of it behind
        click.echo("\r" + line.ljust(self._drawn), nl=False)
        self._drawn = len(line)

    def line(self, now: float) -> str:
        done, total = self.done, self.total
        spent = now - self.started
        rate = done / max(spent, 1e-6)
        width = 30
        filled = int(width * done / total) if total else width
        left = time_left(spent, done / total) if total else ""
        return (
            f"[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} notes "
            f"{100 * done // max(total, 1)}%  {rate:,.0f} notes/s" + (f"  {left}" if left else "")
        )

    def close(self) -> None:
        if self._shown:
            click.echo()
