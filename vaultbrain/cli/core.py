"""init, capture, inbox, reindex."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from vaultbrain.cli.render import echo_json, echo_table
from vaultbrain.errors import StorageError, UserError, VaultbrainError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

STATUSES = ["pending", "filed", "suggested", "needs_review", "corrected", "dismissed"]


@click.command("init")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option(
    "--file-existing",
    is_flag=True,
    help="File the thoughts already in the inbox note (they are held back otherwise).",
)
@click.pass_obj
def init_cmd(obj: Any, directory: str | None, file_existing: bool) -> None:
    """Make a vault skeleton (pack folders, Inbox.md). Never overwrites anything."""
    from vaultbrain.filing.setup import init_vault

    if directory:
        obj.vault_arg = directory
    app = obj.app(must_exist=False)
    made, held = init_vault(app, file_existing=file_existing)
    for rel in made:
        click.echo(f"created {rel}")
    click.echo(f"vault ready at {app.vault.root}" + ("" if made else " (nothing to create)"))
    if held:
        click.echo(
            f"{app.inbox_rel} already has {held} line(s); they are left as they are and not "
            "filed. To file them: `vaultbrain init --file-existing` (or edit a line)."
        )


def capture_summary(record: dict[str, Any]) -> dict[str, Any]:
    cls = record.get("classification") or {}
    return {
        "id": record["id"],
        "text": record["text"],
        "status": record["status"],
        "confidence": cls.get("confidence"),
        "classified_by": cls.get("classified_by"),
        "reasoning": cls.get("reasoning"),
        "destinations": [
            # a linked note (not written) and a suggestion's held update say so
            {"type": d["type"], "title": d["title"], "path": d["path"]}
            | {k: d[k] for k in ("op", "held") if d.get(k) in ("link", True)}
            for d in record.get("destinations", [])
        ],
        "created": record.get("created"),
        "error": record.get("review_reason") or record.get("last_error") or cls.get("error"),
        "warnings": record.get("warnings", []),
        "fallback": cls.get("fallback"),
    }


@click.command("capture")
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print the capture record as JSON.")
@click.pass_obj
def capture_cmd(obj: Any, text: str, as_json: bool) -> None:
    """Capture one thought now (TEXT, or - to read it from stdin) and file it."""
    from vaultbrain.capture.pipeline import capture

    if text == "-":
        text = sys.stdin.read()
    app = obj.app()
    try:
        record = capture(app, text).to_record()
    except (StorageError, OSError) as exc:
        raise _capture_failure(app, text, exc) from exc
    summary = capture_summary(record)
    if as_json:
        echo_json(summary)
        return
    status = summary["status"]
    conf = summary["confidence"]
    head = f"{status}" + (f" ({conf:.2f}, {summary['classified_by']})" if conf is not None else "")
    from vaultbrain.classify.result import fallback_note

    said = fallback_note(summary["fallback"])  # the LLM failed and the embedded one decided
    click.echo(f"{record['id']}: {head}" + (f" ({said})" if said else ""))
    for d in summary["destinations"]:
        said = {"link": " (linked: your note, not written)"}.get(d.get("op", ""), "")
        click.echo(
            f"  {d['type']:<8} {d['path']}{said}" + (" (held: confirm)" if d.get("held") else "")
        )
    if status == "needs_review":
        click.echo("  waiting for you in Brain/Needs Review.md (or `vaultbrain review list`)")
    if status == "pending":
        click.echo(f"  pending: {summary['error']}; the daemon will retry")


def _capture_failure(brain: Brain, text: str, exc: Exception) -> Exception:
    """What a failed capture did and did not do, exactly. A disk that refused the state
    dir after the inbox line was written leaves the thought safe in the inbox (anchored: the
    daemon files it once it can write), so "nothing was changed, try again" would make the
    person capture it twice."""
    from vaultbrain.capture.lines import check_thought
    from vaultbrain.filing.inbox import unjournaled_line

    rel = brain.inbox_rel
    try:
        thought = check_thought(text)
        store = brain.store.inbox
        line = unjournaled_line(
            brain.vault,
            rel,
            thought,
            lambda cid: store.summary(cid, include_deleted=True) is not None,
        )
    except (VaultbrainError, OSError):
        line = None
    if line is None:
        return exc
    reason = (
        str(exc).split("; nothing was changed")[0]
        if isinstance(exc, StorageError)
        else (
            f"{getattr(exc, 'strerror', None) or exc}"
            + (f" ({exc.filename})" if getattr(exc, "filename", None) else "")
        )
    )
    return UserError(
        f"the thought is in {rel} (line {line.number + 1}, ^vb-{line.block_id}) but was not "
        f"filed: {reason}; the daemon files it once the state dir can be written, so do not "
        "capture it again"
    )


@click.command("inbox")
@click.option("--status", type=click.Choice(STATUSES), help="Only captures with this status.")
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


@click.command("reindex")
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
    from vaultbrain.filing.sync import reindex

    app = obj.app()
    if dry_run:
        from vaultbrain.filing.adopt import dry_run as preview

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
        report = reindex(app, progress=bar, graph_progress=index_progress)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        done = f"{bar.done:,} of {bar.total:,} notes read; " if bar else ""
        click.echo(f"stopped: {done}run `vaultbrain reindex` again to go on", err=True)
        raise SystemExit(130) from None
    finally:
        if indexing is not None:
            indexing.close()
    if bar is not None:
        bar.close()
    from vaultbrain.capture.lines import rebuild_captures  # issue 15: lines are the truth

    rebuilt = rebuild_captures(app)
    if as_json:
        echo_json({**report.to_dict(), "captures_rebuilt": rebuilt})
        return
    click.echo(report.summary())
    if rebuilt:
        click.echo(f"{rebuilt} capture(s) rebuilt from their inbox lines")
    for problem in report.problems[:50]:
        click.echo(f"  {problem}", err=True)
    if report.warning:
        click.echo(report.warning, err=True)


class _Progress:
    """``reindex``'s progress on a terminal: counts, share and rate on one redrawn line."""

    def __init__(self) -> None:
        import time

        self._clock = time.monotonic
        self.started = self._clock()
        self.done = self.total = 0
        self._shown = 0.0

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        now = self._clock()
        if done < total and now - self._shown < 0.1:
            return  # redrawn ten times a second at most
        self._shown = now
        rate = done / max(now - self.started, 1e-6)
        width = 30
        filled = int(width * done / total) if total else width
        line = (
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} notes "
            f"{100 * done // max(total, 1)}%  {rate:,.0f} notes/s"
        )
        click.echo(line, nl=False)

    def close(self) -> None:
        if self._shown:
            click.echo()
