"""digest run|latest, weekly run|latest, schedule."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

import click

from vaultbrain.cli.render import echo_json, echo_table

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


class _Date(click.ParamType):
    name = "YYYY-MM-DD"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, dt.date):
            return value
        from vaultbrain.bounds import day

        try:
            dt.date.fromisoformat(str(value))
        except ValueError:
            self.fail(f"{value!r} is not a date (YYYY-MM-DD)", param, ctx)
        # (within the calendar, with room either side; else one line, exit 1)
        return day(str(value), "--date")


DATE = _Date()


def _echo_run(entry: dict[str, Any], as_json: bool) -> None:
    if as_json:
        echo_json(entry)
        return
    verb = "replaced" if entry.get("replaced") else "wrote"
    click.echo(f"{verb} {entry['path']}")
    counts = entry.get("counts") or {}
    click.echo("  " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()))
    llm = entry.get("llm") or {}
    if llm.get("status") == "ok":
        click.echo(f"  summary by {llm.get('model')}")
    else:
        click.echo(f"  summary unavailable: {llm.get('reason')}")
    if entry.get("daily_note"):
        click.echo(f"  linked from {entry['daily_note']}")


def _echo_latest(entry: dict[str, Any], as_json: bool) -> None:
    if as_json:
        echo_json(entry)
        return
    if entry.get("text") is None:
        click.echo(f"{entry['path']} (generated {entry['generated']}) is no longer in the vault")
        return
    click.echo(entry["text"], nl=False)


@click.group("digest")
def digest() -> None:
    """The daily digest (Brain/Digests/YYYY-MM-DD.md)."""


@digest.command("run")
@click.option("--date", "day", type=DATE, help="The day to digest (default today).")
@click.option("--json", "as_json", is_flag=True, help="Print the run's history entry as JSON.")
@click.pass_obj
def digest_run(obj: Any, day: dt.date | None, as_json: bool) -> None:
    """Write today's digest now.

    Running it again the same day replaces that note.
    """
    from vaultbrain.digest import run_digest

    _echo_run(run_digest(obj.app(), day, trigger="cli"), as_json)


@digest.command("latest")
@click.option("--json", "as_json", is_flag=True, help="The history entry and the note's text.")
@click.pass_obj
def digest_latest(obj: Any, as_json: bool) -> None:
    """Print the latest daily digest."""
    from vaultbrain.digest import latest_digest

    _echo_latest(latest_digest(obj.app()), as_json)


@click.group("weekly")
def weekly() -> None:
    """The weekly review (Brain/Reviews/YYYY-Www.md, ISO week)."""


@weekly.command("run")
@click.option(
    "--date", "day", type=DATE, help="The last day of the week to review (default today)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the run's history entry as JSON.")
@click.pass_obj
def weekly_run(obj: Any, day: dt.date | None, as_json: bool) -> None:
    """Write the review of the last seven days now.

    Running it again the same week replaces that note.
    """
    from vaultbrain.digest import run_review

    _echo_run(run_review(obj.app(), day, trigger="cli"), as_json)


@weekly.command("latest")
@click.option("--json", "as_json", is_flag=True, help="The history entry and the note's text.")
@click.pass_obj
def weekly_latest(obj: Any, as_json: bool) -> None:
    """Print the latest weekly review."""
    from vaultbrain.digest import latest_review

    _echo_latest(latest_review(obj.app()), as_json)


@click.command("schedule")
@click.option("--json", "as_json", is_flag=True, help="A list of {name, cron, last_run, next_run}.")
@click.pass_obj
def schedule_cmd(obj: Any, as_json: bool) -> None:
    """The digest and review schedules: last and next run (local time)."""
    from vaultbrain.digest.scheduler import Scheduler

    app = obj.app()
    jobs = _with_manual_runs(app, Scheduler(app).jobs())
    if as_json:
        echo_json(jobs)
        return
    rows = []
    for j in jobs:
        status = j["last_status"] or ""
        if j["due"]:
            status = (status + ", " if status else "") + "due now"
        if j["last_error"]:
            status = (status + ": " if status else "") + j["last_error"]
        rows.append(
            [
                j["name"],
                j["cron"],
                j["description"] or "",
                _short(j["last_run"]),
                _short(j["next_run"]),
                status,
            ]
        )
    echo_table(rows, ["job", "cron", "when", "last run", "next run", "status"])


def _with_manual_runs(brain: Brain, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``last_run`` is the latest run of any kind: the scheduler's own state knows only the
    runs it started, the history (``digests.jsonl``, ``reviews.jsonl``) has every run."""
    from vaultbrain.digest.runs import DIGEST_HISTORY, REVIEW_HISTORY

    history = {"digest": DIGEST_HISTORY, "review": REVIEW_HISTORY}
    out = []
    for job in jobs:
        job = dict(job)
        latest = None
        if job["name"] in history:
            for entry in brain.store.read_jsonl(history[job["name"]]):
                latest = entry
        if latest is not None and latest.get("generated"):
            # History stamps are local wall-clock time, as the notes show them.
            ran = dt.datetime.fromisoformat(latest["generated"]).astimezone()
            known = dt.datetime.fromisoformat(job["last_run"]) if job["last_run"] else None
            if known is None or ran > known:
                job["last_run"] = ran.isoformat()
                job["last_trigger"] = latest.get("trigger")
        out.append(job)
    return out


def _short(iso: str | None) -> str:
    if not iso:
        return "never" if iso is None else ""
    return dt.datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M")
