"""review, fix, trust: the Needs Review queue, corrections and the audit trail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from vaultbrain.cli.render import echo_json, echo_table, parse_sets

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def _after(brain: Brain) -> None:
    """Bring Brain/Needs Review.md and Brain/Trust.md up to date after a decision."""
    from vaultbrain.capture.review_queue import ReviewQueue
    from vaultbrain.capture.trust import write_trust_note

    ReviewQueue(brain).refresh(force=True)
    write_trust_note(brain)


def _elsewhere(brain: Brain) -> str | None:
    """Why this machine does not file (its review commands act through the vault), or None."""
    from vaultbrain.machine import filed_elsewhere

    return filed_elsewhere(brain.vault, brain.state_dir)


def _gesture(brain: Brain, capture_id: str, gesture: str, types: str = "") -> None:
    """On an observer: the person's gesture written into the vault, for the filer."""
    from vaultbrain.capture.observer import write_gesture

    rel = write_gesture(brain, capture_id, gesture, types)
    click.echo(
        f"{capture_id}: written into {rel} ({gesture}); this machine does not file, "
        "the filer carries it out when the note reaches it"
    )


@click.group("review")
def review() -> None:
    """The Needs Review queue (also in Brain/Needs Review.md, where you can resolve it)."""


@review.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.pass_obj
def review_list(obj: Any, as_json: bool) -> None:
    """Thoughts to decide, suggestions to confirm, conflicts."""
    app = obj.app()
    if _elsewhere(app):
        _list_shown(app, as_json)
        return
    from vaultbrain.capture.review import queue
    from vaultbrain.capture.review_queue import ReviewQueue
    from vaultbrain.cli.core import capture_summary

    ReviewQueue(app).apply_decisions(now=True)  # what the person decided in the notes counts
    items = queue(app)
    doc = {
        "needs_decision": [capture_summary(r) for r in items["decide"]],
        "suggestions": [capture_summary(r) for r in items["suggest"]],
        "conflicts": items["conflicts"],
    }
    if as_json:
        echo_json(doc)
        return
    rows = [(r["id"], "decide", r["confidence"], r["text"]) for r in doc["needs_decision"]]
    rows += [
        (
            r["id"],
            "confirm",
            r["confidence"],
            r["text"] + "  → " + ", ".join(f"{d['type']}:{d['title']}" for d in r["destinations"]),
        )
        for r in doc["suggestions"]
    ]
    rows += [(c["id"], "conflict", "", f"{c['path']}: {c['kind']}") for c in doc["conflicts"]]
    if not rows:
        click.echo("nothing to review")
        return
    echo_table(rows, ["id", "needs", "conf", "thought"])


def _list_shown(app: Brain, as_json: bool) -> None:
    """An observer's queue: what the vault's Needs Review and inbox lines show."""
    from vaultbrain.capture.observer import shown_items

    shown = shown_items(app)
    if as_json:
        echo_json({"observer": True, "items": [s.to_dict() for s in shown]})
        return
    if not shown:
        click.echo("nothing to review")
        return
    echo_table([(s.id, s.needs, s.text, s.where) for s in shown], ["id", "needs", "thought", "in"])
    click.echo(
        "(this machine does not file: its decisions are written into the vault for the filer)"
    )


@review.command("resolve")
@click.argument("capture_id", metavar="ID")
@click.argument("type_name", metavar="TYPE")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="A field (repeatable).")
@click.option("--title", help="The record's title (default: the suggestion's, or the thought).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.pass_obj
def review_resolve(
    obj: Any,
    capture_id: str,
    type_name: str,
    sets: tuple[str, ...],
    title: str | None,
    as_json: bool,
) -> None:
    """File thought ID as TYPE (several: person,admin). A conflict ID: keep the note's version."""
    app = obj.app()
    if _elsewhere(app):
        if sets or title:
            raise click.UsageError(
                "--set and --title work on the filer; here the type alone is written into the "
                "vault (the filer files it), then edit the note"
            )
        _gesture(app, capture_id, "resolve", type_name)
        return
    from vaultbrain.capture.resolution import resolve
    from vaultbrain.capture.review import resolve_conflict

    if app.store.collection("conflicts").get(capture_id) is not None:
        resolve_conflict(app, capture_id)
        _after(app)
        click.echo(f"conflict {capture_id} resolved: the note's version is kept")
        return
    cap = resolve(app, capture_id, type_name, parse_sets(sets), title=title)
    _after(app)
    _show(cap.to_record(), as_json)


@review.command("confirm")
@click.argument("capture_ids", metavar="ID...", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every suggestion waiting (with the filters).")
@click.option("--type", "type_name", metavar="T", help="With --all: suggestions naming type T.")
@click.option(
    "--min-confidence",
    type=click.FloatRange(0.0, 1.0),
    metavar="X",
    help="With --all: suggestions of at least this confidence.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.pass_obj
def review_confirm(
    obj: Any,
    capture_ids: tuple[str, ...],
    every: bool,
    type_name: str | None,
    min_confidence: float | None,
    as_json: bool,
) -> None:
    """Accept the suggestion for each thought ID (or --all of them).

    Each is its own decision, undone with `fix`; one that cannot be confirmed is said and
    the others are confirmed.
    """
    if every and capture_ids:
        raise click.UsageError("give IDs or --all, not both")
    if not every and (type_name or min_confidence is not None):
        raise click.UsageError("--type and --min-confidence choose among --all")
    if not every and not capture_ids:
        raise click.UsageError("give the IDs to confirm, or --all (see `vaultbrain review list`)")
    app = obj.app()
    if _elsewhere(app):
        if every:
            raise click.UsageError(
                "--all works on the filer; here confirm by ID (`vaultbrain review list`)"
            )
        for cid in capture_ids:
            _gesture(app, cid, "confirm")
        return
    from vaultbrain.capture.review_bulk import confirm_many, suggestions

    if every:
        app_ids = suggestions(app, type_name, min_confidence)
        if not app_ids:
            _bulk_done(app, [], [], as_json, "no suggestion to confirm")
            return
        capture_ids = tuple(app_ids)
    bulk = confirm_many(app, capture_ids)
    _bulk_done(app, bulk.done, bulk.refused, as_json)


@review.command("dismiss")
@click.argument("capture_ids", metavar="ID...", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.pass_obj
def review_dismiss(obj: Any, capture_ids: tuple[str, ...], as_json: bool) -> None:
    """Dismiss each ID: it was not a thought.

    Notes it created move to Brain/Archive/.
    """
    app = obj.app()
    if _elsewhere(app):
        for cid in capture_ids:
            _gesture(app, cid, "dismiss")
        return
    from vaultbrain.capture.review_bulk import dismiss_many

    bulk = dismiss_many(app, capture_ids)
    _bulk_done(app, bulk.done, bulk.refused, as_json)


def _bulk_done(
    app: Brain,
    done: list[Any],
    refused: list[tuple[str, str]],
    as_json: bool,
    empty: str = "",
) -> None:
    """Bring the notes up to date once, print what each decision did; exit 1 when one was
    refused (the others stand)."""
    from vaultbrain.cli.core import capture_summary

    if done:
        _after(app)
    if as_json:
        docs = [capture_summary(c.to_record()) for c in done]
        echo_json(
            docs[0]
            if len(done) == 1 and not refused
            else {"done": docs, "refused": [{"id": i, "error": e} for i, e in refused]}
        )
    else:
        if empty:
            click.echo(empty)
        for cap in done:
            _show(cap.to_record(), False)
        for cid, why in refused:
            click.echo(f"{cid}: not done: {why}", err=True)
    if refused:
        raise SystemExit(1)


def _show(rec: dict[str, Any], as_json: bool) -> None:
    from vaultbrain.cli.core import capture_summary

    doc = capture_summary(rec)
    if as_json:
        echo_json(doc)
        return
    click.echo(f"{doc['id']}: {doc['status']}")
    for d in doc["destinations"]:
        click.echo(f"  {d['type']:<8} {d['path']}")


@click.command("fix")
@click.argument("ref", metavar="ID")
@click.argument("type_name", metavar="TYPE")
@click.option("--note", help="Why: kept in the new note and the audit trail.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def fix_cmd(obj: Any, ref: str, type_name: str, note: str | None, as_json: bool) -> None:
    """Re-file a record (or a capture's only record) as TYPE.

    The old note moves to Brain/Archive/ with archived: true; fields whose names match are
    kept, the rest go into the new note's body; links to it are rewritten.
    """
    from vaultbrain.capture.resolution import fix_thought

    app = obj.app()
    rec = fix_thought(app, ref, type_name, note)
    _after(app)
    if as_json:
        echo_json(rec)
    else:
        click.echo(f"re-filed as {rec['type']}: {rec['path']}")


@click.command("trust")
@click.option("--status", help="Only events of captures with this status.")
@click.option("--type", "type_name", help="Only events about this type.")
@click.option("--since", help="A date (2026-11-01) or a span (7d, 4w).")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--summary", "show_summary", is_flag=True, help="The numbers of Brain/Trust.md.")
@click.option(
    "--write-note",
    is_flag=True,
    help="Bring Brain/Trust.md up to date now (the daemon keeps it so).",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def trust_cmd(
    obj: Any,
    status: str | None,
    type_name: str | None,
    since: str | None,
    limit: int,
    show_summary: bool,
    write_note: bool,
    as_json: bool,
) -> None:
    """The audit trail: every classification, resolution, correction and sync decision."""
    from vaultbrain.capture.trust import TRUST_NOTE, parse_since, summary, trail, write_trust_note

    brain = obj.app()
    if write_note:
        written = write_trust_note(brain)
        if as_json:
            echo_json({"note": TRUST_NOTE, "written": written})
        else:
            click.echo(f"{'wrote' if written else 'up to date:'} {TRUST_NOTE}")
        return
    if show_summary:
        # A read: the numbers are printed, nothing is written (Brain/Trust.md is the daemon's,
        # or `trust --write-note`).
        s = summary(brain)
        if as_json:
            echo_json(s)
        else:
            click.echo(f"{s['captures']} captures; filing rate {s['filing_rate']}")
            causes = ", ".join(f"{f['kind']} {f['count']}" for f in s["fallbacks_by_cause"])
            click.echo(
                f"  by the model: {s['classified_by_model']}; by the embedded classifier "
                f"because the LLM failed: {s['fallbacks']}" + (f" ({causes})" if causes else "")
            )
            for b in s["calibration"]:
                click.echo(f"  {b['band']}: {b['filed']} filed, {b['corrected']} corrected")
            for t, b in ((s.get("reliability") or {}).get("person_bar") or {}).items():
                state = {"earned": "files alone", "lost": "always a suggestion"}.get(
                    str(b["auto_filing"]), "as its confidence says"
                )
                click.echo(
                    f"  {t}: you confirmed {b['confirmed']} unchanged, corrected "
                    f"{b['corrected']}: {state}"
                )
            for m in s.get("llm_measured") or []:
                per = ", ".join(f"{t} {v['p']:.2f}" for t, v in m["precision"].items())
                acc = "–" if m["accuracy"] is None else f"{m['accuracy']:.0%}"
                click.echo(
                    f"  LLM measured: {m['model']} right on {acc} of {m['asked']} probe "
                    f"thoughts; precision per type: {per}"
                )
        return
    events = trail(brain, status, type_name, parse_since(since, brain.today()), limit)
    if as_json:
        echo_json(events)
        return
    rows = []
    for e in events:
        what = e.get("decision") or ""
        if e["kind"] == "classification":
            parsed = e.get("parsed") or {}
            what = ", ".join(f"{d['type']}:{d['title']}" for d in parsed.get("destinations", []))
            what += f" ({e.get('confidence')}, {e.get('classified_by')})"
        elif e["kind"] == "correction":
            what = f"{e.get('from')} → {e.get('to')} ({e.get('by')})"
        rows.append(
            (str(e.get("at", ""))[:19], e["kind"], e.get("capture") or e.get("record") or "", what)
        )
    echo_table(rows, ["at", "kind", "id", "what"])
