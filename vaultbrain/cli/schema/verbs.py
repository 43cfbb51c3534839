"""``schema add-type/add-field/add-link-type/add-alias/rename-field/retire-type`` and
``schema log``: change the vault's pack one recorded step at a time
(``vaultbrain/schema/verbs.py``)."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.render import echo_json
from vaultbrain.cli.schema.common import schema, tracked

_DRY = click.option(
    "--dry-run", "dry_run", is_flag=True, help="List what would change; write nothing."
)
_JSON = click.option("--json", "as_json", is_flag=True)


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def _go(
    obj: Any, verb: str, args: dict[str, Any], change: Any, dry_run: bool, as_json: bool
) -> None:
    from vaultbrain.schema import verbs

    brain = obj.app()
    result = verbs.run(brain, verb, args, change, dry_run)
    p = result if dry_run else result.plan
    if as_json:
        doc = p.as_dict() | {"dry_run": dry_run}
        if not dry_run:
            doc["written"] = result.written
            doc["skipped"] = [{"path": n.path, "reason": n.change} for n in result.skipped]
            doc["audit"] = result.entry
        echo_json(doc)
        return
    t = p.target
    click.echo(f"{verb} on {t.name} {p.version[0]} -> {p.version[1]}")
    if not t.exists:
        how = (
            f"forked from the bundled {t.source_name} and made this vault's pack"
            if t.source == "bundled"
            else "copied into the vault from ~/.vaultbrain"
        )
        click.echo(f"  the vault's copy: {t.path} ({how})")
    else:
        click.echo(f"  the vault's copy: {t.path}")
    click.echo(f"  before {p.before}\n  after  {p.after}")
    for warning in p.warnings:
        click.echo(f"  note: {warning}")
    for issue in p.lint:
        click.echo(f"  lint {issue['severity']}: {issue['message']}")
    writes = [n for n in p.notes if n.after is not None]
    if writes:
        click.echo(f"  notes {'to write' if dry_run else 'written'} ({len(writes)}):")
    elif p.notes:
        click.echo(f"  notes concerned ({len(p.notes)}), nothing written in them:")
    else:
        click.echo("  no note is concerned")
    for n in p.notes:
        click.echo(f"    {n.path}: {n.change}")
    skipped = p.skipped if dry_run else result.skipped
    for n in skipped:
        click.echo(f"    left as it is: {n.path} ({n.change})")
    if dry_run:
        click.echo("dry run: nothing written")
    else:
        click.echo("recorded (`vaultbrain schema log`)")
        click.echo(
            "  the store follows at the daemon's next scan (or `vaultbrain reindex`); "
            "`vaultbrain schema stats` counts the notes now"
        )


@schema.command("add-type")
@click.argument("name")
@click.option("--folder", required=True, help="The folder its notes live in, e.g. Recipes.")
@click.option(
    "--fields",
    "fields",
    multiple=True,
    metavar="F:KIND,…",
    help="Fields: name:kind, comma-separated (kinds: text list number checkbox date "
    "datetime link links enum:a|b).",
)
@click.option("--extends", "extends", metavar="TYPE", help="Start from TYPE's fields.")
@click.option("--primitive", help="entity, media, temporal, annotation or concept.")
@click.option("--alias", "aliases", multiple=True, help="Another name for it (repeatable).")
@click.option("--fileable", is_flag=True, help="Let the classifier file thoughts to it.")
@click.option("--description", help="What it is (the classifier is told, when fileable).")
@_DRY
@_JSON
@click.pass_obj
@tracked("add-type")
def add_type_cmd(
    obj: Any,
    name: str,
    folder: str,
    fields: tuple[str, ...],
    extends: str | None,
    primitive: str | None,
    aliases: tuple[str, ...],
    fileable: bool,
    description: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Add type NAME whose notes live in --folder."""
    from vaultbrain.schema import verbs

    parsed = verbs.parse_fields(",".join(fields))
    args = {
        "name": name,
        "folder": folder,
        "fields": [f"{k}:{v}" for k, v in parsed],
        "extends": extends,
        "primitive": primitive,
        "aliases": _split(aliases),
        "fileable": fileable,
    }
    change = verbs.add_type(
        name, folder, parsed, extends, primitive, _split(aliases), fileable, description
    )
    _go(obj, "add-type", args, change, dry_run, as_json)


@schema.command("add-field")
@click.argument("type_name", metavar="TYPE")
@click.argument("field_name", metavar="FIELD")
@click.option(
    "--kind",
    default="text",
    show_default=True,
    help="text list number checkbox date datetime link links enum",
)
@click.option("--values", "values", multiple=True, help="An enum's values, comma-separated.")
@_DRY
@_JSON
@click.pass_obj
@tracked("add-field")
def add_field_cmd(
    obj: Any,
    type_name: str,
    field_name: str,
    kind: str,
    values: tuple[str, ...],
    dry_run: bool,
    as_json: bool,
) -> None:
    """Add FIELD (a property) to TYPE."""
    from vaultbrain.schema import verbs

    vals = _split(values) or None
    args = {"type": type_name, "field": field_name, "kind": kind, "values": vals}
    _go(
        obj, "add-field", args, verbs.add_field(type_name, field_name, kind, vals), dry_run, as_json
    )


@schema.command("add-link-type")
@click.argument("name")
@click.option("--from", "src", required=True, metavar="TYPE", help="The type links go from.")
@click.option("--to", "dst", required=True, metavar="TYPE", help="The type links go to.")
@click.option("--inverse", metavar="NAME", help="The link type read the other way.")
@click.option(
    "--field", "via", metavar="PROPERTY", help="A links property of --from that holds them."
)
@click.option("--description")
@_DRY
@_JSON
@click.pass_obj
@tracked("add-link-type")
def add_link_type_cmd(
    obj: Any,
    name: str,
    src: str,
    dst: str,
    inverse: str | None,
    via: str | None,
    description: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Add link type NAME, from one type's notes to another's."""
    from vaultbrain.schema import verbs

    args = {"name": name, "from": src, "to": dst, "inverse": inverse, "field": via}
    change = verbs.add_link_type(name, src, dst, inverse, via, description)
    _go(obj, "add-link-type", args, change, dry_run, as_json)


@schema.command("add-alias")
@click.argument("type_name", metavar="TYPE")
@click.argument("alias")
@_DRY
@_JSON
@click.pass_obj
@tracked("add-alias")
def add_alias_cmd(obj: Any, type_name: str, alias: str, dry_run: bool, as_json: bool) -> None:
    """Let ALIAS name TYPE.

    A note whose `type:` is ALIAS becomes a TYPE record; nothing is written in it.
    """
    from vaultbrain.schema import verbs

    args = {"type": type_name, "alias": alias}
    _go(obj, "add-alias", args, verbs.add_alias(type_name, alias), dry_run, as_json)


@schema.command("rename-field")
@click.argument("type_name", metavar="TYPE")
@click.argument("old")
@click.argument("new")
@_DRY
@_JSON
@click.pass_obj
@tracked("rename-field")
def rename_field_cmd(
    obj: Any, type_name: str, old: str, new: str, dry_run: bool, as_json: bool
) -> None:
    """Rename TYPE's field OLD to NEW everywhere.

    In the pack, and in every note of TYPE that has the property OLD.

    Only the property's name changes in each note; its value and every other line stay as
    they are. Interrupted, it is finished by running it again.
    """
    from vaultbrain.schema import verbs

    args = {"type": type_name, "old": old, "new": new}
    _go(obj, "rename-field", args, verbs.rename_field(type_name, old, new), dry_run, as_json)


@schema.command("retire-type")
@click.argument("type_name", metavar="TYPE")
@_DRY
@_JSON
@click.pass_obj
@tracked("retire-type")
def retire_type_cmd(obj: Any, type_name: str, dry_run: bool, as_json: bool) -> None:
    """Stop filing thoughts to TYPE.

    Its notes stay records of it, unchanged.
    """
    from vaultbrain.schema import verbs

    args = {"type": type_name}
    _go(obj, "retire-type", args, verbs.retire_type(type_name), dry_run, as_json)


@schema.command("log")
@click.option("--limit", default=50, show_default=True, help="The last N changes.")
@_JSON
@click.pass_obj
@tracked("log")
def log_cmd(obj: Any, limit: int, as_json: bool) -> None:
    """The changes schema verbs made to this vault's pack.

    Who, on which machine, when, what, and the pack before and after.
    """
    from vaultbrain.schema.audit import log_entries
    from vaultbrain.schema.rename import pending_job

    brain = obj.app()
    entries = log_entries(brain)[-limit:] if limit > 0 else []
    job = pending_job(brain)
    if as_json:
        echo_json(
            {"changes": entries, "unfinished": job and {k: job[k] for k in ("verb", "args", "at")}}
        )
        return
    if not entries:
        click.echo("no schema change recorded in this vault")
    for e in entries:
        args = " ".join(
            f"{k}={v}" for k, v in (e.get("args") or {}).items() if v not in (None, [], False)
        )
        click.echo(f"{e.get('at')}  {e.get('who')}@{e.get('machine')}  {e.get('verb')} {args}")
        if e.get("ok") is False:
            click.echo(f"    refused, nothing changed: {e.get('reason')}")
            continue
        click.echo(f"    {e.get('before')} -> {e.get('after')}")
        if e.get("forked_from"):
            click.echo(f"    forked from {e['forked_from']} into {e.get('manifest')}")
        if e.get("notes_written") or e.get("notes_skipped"):
            click.echo(
                f"    notes written: {e.get('notes_written', 0)}, "
                f"left as they were: {e.get('notes_skipped', 0)}"
            )
    if job:
        a = job.get("args", {})
        click.echo(
            f"unfinished: {job.get('verb')} {a.get('type')} {a.get('old')} {a.get('new')} "
            f"(started {job.get('at')}); run it again to finish it"
        )


@schema.command("stats")
@_JSON
@click.pass_obj
@tracked("stats")
def stats_cmd(obj: Any, as_json: bool) -> None:
    """Notes per type, fields filled and links per link type.

    Counted on this vault's notes, under the active pack.
    """
    from vaultbrain.cli.schema.authoring import _link_counts
    from vaultbrain.schema.stats import vault_stats

    brain = obj.app()
    stats = vault_stats(brain, _link_counts(obj, brain.pack))
    if as_json:
        echo_json(stats.as_dict())
        return
    click.echo(stats.pack)
    click.echo(
        f"  {stats.total} notes, {stats.typed} of them typed ({100 * stats.coverage:.0f}%), "
        f"{stats.total - stats.typed} untyped"
    )
    click.echo("  by type:")
    for t in stats.types:
        own = f" ({t.by_frontmatter} by their type:)" if t.by_frontmatter else ""
        click.echo(f"    {t.name:<16} {t.notes:>5}{own}")
        if t.notes:
            filled = ", ".join(f"{k} {n}" for k, n in t.fields.items())
            click.echo(f"        fields filled: {filled or '-'}")
    click.echo("  links by link type:")
    for name, n in stats.links.items():
        click.echo(f"    {name:<16} {n:>5}")
    if stats.undeclared:
        click.echo(
            "  type: values the pack does not declare: "
            + ", ".join(f"{k} ({v})" for k, v in stats.undeclared.items())
        )
    if stats.dead_prefixes:
        click.echo(
            "  declared folders with no note: "
            + ", ".join(f"{f} ({t})" for t, f in stats.dead_prefixes)
        )
