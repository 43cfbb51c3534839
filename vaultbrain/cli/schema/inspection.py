"""``schema active/list/show/validate/lint/usage``: what the packs are and say; nothing is written."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.render import echo_json, echo_table
from vaultbrain.cli.schema.common import (
    active_of,
    pack_of,
    schema,
    tracked,
    vault_brain,
)
from vaultbrain.errors import UserError


@schema.command("active")
@click.option("--path", "rel", metavar="NOTE", help="The pack and type for this note (tier 3).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("active")
def active_cmd(obj: Any, rel: str | None, as_json: bool) -> None:
    """The pack in force and the tier that chose it.

    Also what every tier of the resolution chain says.
    """
    from vaultbrain.packs.choice import tier_report
    from vaultbrain.packs.describe import active_document

    active = active_of(obj, rel)
    brain = vault_brain(obj)
    tiers = tier_report(
        brain.vault.root if brain else None,
        brain.settings if brain else None,
        obj.schema_pack,
        brain.env if brain else None,
    )
    doc = active_document(active, tiers, rel, _frontmatter(brain, rel))
    if as_json:
        echo_json(doc)
        return
    click.echo(active.pack.identity)
    click.echo(f"  tier {active.tier}: {active.source}")
    click.echo("  chain: " + " -> ".join(active.pack.chain))
    if rel:
        sub = f" (subtype {doc['subtype']})" if doc.get("subtype") else ""
        click.echo(f"  {rel}: {doc['type'] or 'untyped'}{sub}")
    for w in active.pack.warnings:
        click.echo(f"  warning: {w}")
    for t in tiers:
        value = t["value"]
        if isinstance(value, dict):
            value = ", ".join(f"{k} -> {v}" for k, v in value.items())
        mark = "*" if t["tier"] == active.tier else " "
        click.echo(f"  {mark} {t['tier']}. {t['source']}: {value if value else '-'}")


def _frontmatter(brain: Any, rel: str | None) -> dict[str, Any] | None:
    """The note's own properties, when ``rel`` is a note of the vault that parses."""
    if brain is None or not rel:
        return None
    from vaultbrain.vault.note import parse_note

    try:
        note = brain.vault.try_read(rel)
    except UserError:
        return None
    if note is None:
        return None
    parsed = parse_note(note.text)
    return parsed.data if not parsed.error else None


@schema.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("list")
def list_cmd(obj: Any, as_json: bool) -> None:
    """Bundled and installed packs.

    An installed pack shadows a bundled one of the same name.
    """
    from vaultbrain.packs.loader import list_packs

    packs = list_packs()
    try:
        current = active_of(obj).pack.name
    except UserError:
        current = None
    if as_json:
        echo_json([p.__dict__ | {"active": p.name == current} for p in packs])
        return
    echo_table(
        [
            (
                ("* " if p.name == current else "  ") + p.name,
                p.version or "-",
                p.where + (" (shadows bundled)" if p.shadows_bundled else ""),
                p.extends or "-",
                p.error or p.description,
            )
            for p in packs
        ],
        ["  name", "version", "where", "extends", "description"],
    )


@schema.command("show")
@click.argument("pack_ref", metavar="[PACK]", required=False)
@click.option("--json", "as_json", is_flag=True, help="The merged manifest as JSON.")
@click.option(
    "--as-filing-rules",
    "as_rules",
    is_flag=True,
    help="Where each type's notes are filed, and what the classifier is told.",
)
@click.pass_obj
@tracked("show")
def show_cmd(obj: Any, pack_ref: str | None, as_json: bool, as_rules: bool) -> None:
    """The active pack (or PACK), merged with its parents."""
    from vaultbrain.packs.describe import filing_rules, pack_document, type_row

    pack = pack_of(obj, pack_ref)
    if as_rules:
        rules = filing_rules(pack)
        if as_json:
            echo_json({"identity": pack.identity, "filing_rules": rules})
            return
        echo_table(
            [
                (r["kind"], r["directory"], "yes" if r["fileable"] else "no", r["description"])
                for r in rules
            ],
            ["kind", "directory", "fileable", "description"],
        )
        return
    if as_json:
        echo_json(pack_document(pack))
        return
    m = pack.manifest
    click.echo(f"{pack.identity}  (chain: {' -> '.join(pack.chain)})")
    if m.description:
        for line in m.description.strip().splitlines():
            click.echo(f"  {line}")
    click.echo("")
    rows = [type_row(t) for t in pack.types]
    echo_table(
        [
            (
                r["name"],
                r["primitive"],
                ", ".join(r["folders"]) or "-",
                "yes" if r["fileable"] else "no",
                ", ".join(r["fields"]) or "-",
            )
            for r in rows
        ],
        ["type", "primitive", "folders", "fileable", "fields"],
    )
    if m.link_types:
        click.echo(
            "\nlink types: "
            + ", ".join(
                lt.name
                + (
                    f" ({lt.inference.page_type} -> {lt.inference.target_type})"
                    if lt.inference and lt.inference.page_type
                    else ""
                )
                for lt in m.link_types
            )
        )
    if m.frontmatter_links:
        click.echo(
            "frontmatter links: "
            + ", ".join(
                f"{fl.page_type}.{'/'.join(fl.fields)} -> {fl.link_type}"
                for fl in m.frontmatter_links
            )
        )
    click.echo("takes kinds: " + ", ".join(m.takes_kinds))
    if m.enrichable_types:
        click.echo("enrichable: " + ", ".join(e.type for e in m.enrichable_types))
    for w in pack.warnings:
        click.echo(f"warning: {w}")


@schema.command("validate")
@click.argument("pack_ref", metavar="[PACK]", required=False)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("validate")
def validate_cmd(obj: Any, pack_ref: str | None, as_json: bool) -> None:
    """Resolve PACK and say what is wrong with it.

    PACK is a name or a manifest path (default: the active pack).

    Fails, naming what is wrong, on a bad manifest, a missing parent or borrow target, an
    extends or alias cycle, or a chain deeper than 8.
    """
    from vaultbrain.packs.model import PackError

    try:
        pack = pack_of(obj, pack_ref)
    except PackError as exc:
        if as_json:
            echo_json({"ok": False, "code": exc.code, "field": exc.field, "error": exc.detail})
        raise
    if as_json:
        echo_json(
            {"ok": True, "identity": pack.identity, "chain": pack.chain, "warnings": pack.warnings}
        )
        return
    click.echo(f"ok: {pack.identity} (chain: {' -> '.join(pack.chain)})")
    for w in pack.warnings:
        click.echo(f"warning: {w}")


@schema.command("lint")
@click.argument("pack_ref", metavar="[PACK]", required=False)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("lint")
def lint_cmd(obj: Any, pack_ref: str | None, as_json: bool) -> None:
    """Check the merged pack for mistakes; errors exit 1.

    Duplicates, unreachable types, alias and prefix clashes, undeclared references,
    backtracking-prone link regexes.
    """
    from vaultbrain import __version__
    from vaultbrain.packs.lint import chain_layers, known_type_names, lint_pack

    pack = pack_of(obj, pack_ref)
    report = lint_pack(pack, chain_layers(pack), known_type_names(), __version__)
    if as_json:
        echo_json(report.as_dict())
    else:
        for issue in report.issues:
            click.echo(f"{issue.severity:<7} {issue.rule}: {issue.message}")
            if issue.hint:
                click.echo(f"        hint: {issue.hint}")
        click.echo(
            f"{pack.identity}: {len(report.errors)} error(s), {len(report.warnings)} warning(s)"
        )
    if report.errors:
        raise UserError(f"{len(report.errors)} lint error(s) in {pack.identity}")


@schema.command("usage")
@click.option("--since", default="30d", show_default=True, help="Window: 30d, 12h, 2w, 90m.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("usage")
def usage_cmd(obj: Any, since: str, as_json: bool) -> None:
    """How often each schema verb ran in this vault.

    Counted locally, never sent anywhere.
    """
    from vaultbrain.packs.usage import parse_since, usage_since

    window = parse_since(since)
    brain = obj.app()
    rows = usage_since(brain.store, window, brain.now())
    if as_json:
        echo_json({"since": since, "verbs": [r.__dict__ for r in rows]})
        return
    echo_table(
        [
            (
                r.verb + (" *" if r.experimental else ""),
                r.count,
                r.failed,
                f"{100 * r.share:.0f}%",
                r.last or "-",
            )
            for r in rows
        ],
        ["verb", "runs", "failed", "share", "last"],
    )
    click.echo("* experimental")
