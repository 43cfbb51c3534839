"""``schema detect/suggest/review-candidates/review-orphans``: types proposed for the vault's
untyped folders (``vaultbrain/packs/detect.py``, ``suggest.py``, ``delta.py``, ``survey.py``).
"""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.render import echo_json
from vaultbrain.cli.schema.common import (
    schema,
    tracked,
)


def _render_detection(detection: Any, as_json: bool) -> None:
    if as_json:
        echo_json(detection.as_dict())
        return
    if detection.note:
        click.echo(f"note: {detection.note}")
    click.echo(
        f"{detection.pack}: {detection.untyped} of {detection.total} notes in folders have no type"
    )
    if not detection.candidates:
        click.echo("no folder needs a new type")
        return
    click.echo(
        hint("proposals (accept with `vaultbrain schema review-candidates --apply FOLDER/`):")
    )
    for c in detection.candidates:
        what = (
            f"add to type {c.extends_type}"
            if c.action == "extend"
            else f"new type {c.name} ({c.primitive})"
        )
        status = "" if c.status == "proposed" else f" [{c.status}]"
        click.echo(f"  {c.prefix:<24} {c.notes:>4} notes  {what}{status}  [{c.source}]")
        fields = ", ".join(
            k + (f"({'|'.join(v['values'])})" if v.get("values") else f":{v['type']}")
            for k, v in c.fields.items()
        )
        click.echo(f"      fields: {fields}")
        if c.reason:
            click.echo(f"      why: {c.reason}")


@schema.command("detect")
@click.option("--min-notes", default=5, show_default=True, help="Notes a folder needs.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("detect")
def detect_cmd(obj: Any, min_notes: int, as_json: bool) -> None:
    """Propose types for the vault's untyped folders.

    A heuristic; nothing is changed.
    """
    from vaultbrain.packs.detect import detect

    _render_detection(detect(obj.app(), min_notes), as_json)


@schema.command("suggest")
@click.option("--min-notes", default=5, show_default=True, help="Notes a folder needs.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("suggest")
def suggest_cmd(obj: Any, min_notes: int, as_json: bool) -> None:
    """Like `detect`, refined by the configured LLM.

    The heuristic proposals when the LLM is offline.
    """
    from vaultbrain.packs.suggest import suggest

    _render_detection(suggest(obj.app(), min_notes), as_json)


def _pairs(values: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for v in values:
        if "=" not in v:
            raise click.BadParameter(f"{v!r} is not FOLDER=NAME", param_hint="--rename")
        folder, name = v.split("=", 1)
        out.append((folder, name))
    return out


@schema.command("review-candidates")
@click.option(
    "--apply",
    "apply",
    multiple=True,
    metavar="FOLDER",
    help="Accept this folder's proposal into a pack delta file (repeatable).",
)
@click.option("--rename", multiple=True, metavar="FOLDER=NAME", help="Rename a proposed type.")
@click.option("--ignore", multiple=True, metavar="FOLDER", help="Stop proposing this folder.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("review-candidates")
def review_candidates_cmd(
    obj: Any,
    apply: tuple[str, ...],
    rename: tuple[str, ...],
    ignore: tuple[str, ...],
    as_json: bool,
) -> None:
    """The proposals of detect and suggest, to accept.

    --apply writes a pack delta; no pack is edited.
    """
    from vaultbrain.filing.preview import preview_folders
    from vaultbrain.packs.delta import review_candidates

    brain = obj.app()
    review = review_candidates(brain, apply=apply, rename=_pairs(rename), ignore=ignore)
    # What accepting does to the notes: which become records once the delta is in use, and
    # that nothing is written in any of them.
    preview = preview_folders(brain, review.accepted) if review.accepted else None
    if as_json:
        doc = review.as_dict()
        if preview is not None:
            doc["would_become_records"] = [
                {"folder": f, "type": t, "notes": n} for (f, t), n in preview.folders.items()
            ]
            doc["notes_written"] = 0
        echo_json(doc)
        return
    for line in review.changed:
        click.echo(line)
    _render_detection(review.detection, False)
    if preview is not None:
        click.echo("\nonce that pack is in use:")
        for line in preview.lines():
            click.echo(line)
    if review.delta:
        d = review.delta
        click.echo(f"\nwrote pack delta {d.path}")
        click.echo(
            f"  {d.name} extends {d.extends}; adds {', '.join(d.added) or '-'}"
            + (f"; extends {', '.join(d.extended)}" if d.extended else "")
        )
        for issue in d.lint.issues:
            click.echo(f"  lint {issue.severity}: {issue.message}")
        click.echo(f"  next: {d.install_hint}")


@schema.command("review-orphans")
@click.option("--samples", default=5, show_default=True, help="Paths shown per folder.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("review-orphans")
def review_orphans_cmd(obj: Any, samples: int, as_json: bool) -> None:
    """Notes no type of the pack reaches, by folder."""
    from vaultbrain.packs.survey import review_orphans

    orphans = review_orphans(obj.app(), samples)
    if as_json:
        echo_json(orphans.as_dict())
        return
    click.echo(f"{orphans.pack}: {orphans.untyped} of {orphans.total} notes have no type")
    for f in orphans.folders:
        click.echo(
            f"  {f.folder}/  {f.count} note(s)"
            if f.folder != "(vault root)"
            else f"  {f.folder}  {f.count} note(s)"
        )
        for s in f.samples:
            click.echo(f"      {s}")
    if orphans.undeclared_types:
        click.echo(
            "frontmatter types the pack does not declare: "
            + ", ".join(f"{k} ({v})" for k, v in sorted(orphans.undeclared_types.items()))
        )
    from vaultbrain.packs.survey import MIN_NOTES

    if any(f.count >= MIN_NOTES and f.folder != "(vault root)" for f in orphans.folders):
        click.echo(hint("propose types for them with `vaultbrain schema detect`"))
