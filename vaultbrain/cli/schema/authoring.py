"""``schema init/fork/edit/diff/graph/explain`` (experimental): author packs and look at them."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.render import echo_json
from vaultbrain.cli.schema.common import (
    EXPERIMENTAL,
    active_of,
    pack_of,
    schema,
    tracked,
    vault_brain,
)
from vaultbrain.errors import UserError
from vaultbrain.graph import graph_of


@schema.command("init", short_help=EXPERIMENTAL + "Scaffold a pack.")
@click.argument("name")
@click.option("--extends", "extends", default="vaultbrain-base", show_default=True)
@click.pass_obj
@tracked("init")
def init_cmd(obj: Any, name: str, extends: str) -> None:
    """(experimental) Scaffold ~/.vaultbrain/schema-packs/NAME/pack.yaml; never overwrites."""
    from vaultbrain.packs.install import init_pack

    path = init_pack(name, extends=extends)
    click.echo(f"wrote {path}")
    click.echo(
        hint(
            f"  edit it, then `vaultbrain schema validate {name}` and `vaultbrain schema use {name}`"
        )
    )


@schema.command("fork", short_help=EXPERIMENTAL + "Copy a pack under a new name.")
@click.argument("source")
@click.argument("dest")
@click.pass_obj
@tracked("fork")
def fork_cmd(obj: Any, source: str, dest: str) -> None:
    """(experimental) Copy pack SOURCE to ~/.vaultbrain/schema-packs/DEST/, renamed DEST."""
    from vaultbrain.packs.install import fork_pack

    click.echo(f"wrote {fork_pack(source, dest)}")


@schema.command("edit", short_help=EXPERIMENTAL + "Show where a pack's file is.")
@click.argument("name")
@click.pass_obj
@tracked("edit")
def edit_cmd(obj: Any, name: str) -> None:
    """(experimental) Print the path of pack NAME's manifest, to open in your editor."""
    from vaultbrain.packs.install import locate_for_edit

    loc = locate_for_edit(name)
    click.echo(str(loc.path))
    click.echo(f"  {loc.hint}")
    if loc.error:
        click.echo(f"  currently broken: {loc.error}")


@schema.command("diff", short_help=EXPERIMENTAL + "Set-diff two packs.")
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@tracked("diff")
def diff_cmd(obj: Any, a: str, b: str, as_json: bool) -> None:
    """(experimental) What differs between packs A and B, merged: types, fields, links, kinds."""
    from vaultbrain.packs.describe import diff_packs
    from vaultbrain.packs.loader import load_ref

    d = diff_packs(load_ref(a), load_ref(b))
    if as_json:
        echo_json(d)
        return
    click.echo(f"a: {d['a']}\nb: {d['b']}")
    if d["same"]:
        click.echo("the merged packs are identical")
        return
    for key, label in (
        ("types_only_in_a", "types only in a"),
        ("types_only_in_b", "types only in b"),
        ("link_types_only_in_a", "link types only in a"),
        ("link_types_only_in_b", "link types only in b"),
        ("takes_kinds_only_in_a", "takes kinds only in a"),
        ("takes_kinds_only_in_b", "takes kinds only in b"),
    ):
        if d[key]:
            click.echo(f"{label}: {', '.join(d[key])}")
    for name, change in d["types_changed"].items():
        click.echo(f"type {name} changed:")
        for k, v in change.items():
            if isinstance(v, dict) and set(v) == {"a", "b"}:
                click.echo(f"  {k}: {v['a']!r} -> {v['b']!r}")
            else:
                click.echo(f"  {k}: {v}")
    if d["type_order_differs"]:
        click.echo("the order of shared types differs (prefix priority)")


@schema.command("graph", short_help=EXPERIMENTAL + "The types and the link types between them.")
@click.argument("pack_ref", metavar="[PACK]", required=False)
@click.option(
    "--mermaid",
    "as_mermaid",
    is_flag=True,
    help="A Mermaid block (paste it in a note: Obsidian draws it).",
)
@click.pass_obj
@tracked("graph")
def graph_cmd(obj: Any, pack_ref: str | None, as_mermaid: bool) -> None:
    """(experimental) The types of the active pack (or PACK), their folders and link verbs."""
    from vaultbrain.packs.describe import graph_lines

    pack = pack_of(obj, pack_ref)
    if as_mermaid:
        from vaultbrain.schema.stats import mermaid

        click.echo(mermaid(pack))
        return
    for line in graph_lines(pack):
        click.echo(line)
    if obj.vault_dir.is_dir() and pack.identity == active_of(obj).pack.identity:
        # The vault's typed links under the active pack, counted per link type.
        click.echo("  links in this vault:")
        for name, n in _link_counts(obj, pack).items():
            click.echo(f"    {name}: {n}")


def _link_counts(obj: Any, pack: Any) -> dict[str, int]:
    """Typed links per link type in this vault (the declared ones first, zeros included)."""
    from vaultbrain.graph.links import counts

    brain = obj.app()
    graph = graph_of(brain)
    graph.catch_up(brain.vault)
    found = counts(graph)
    declared = [lt.name for lt in pack.manifest.link_types]
    return {
        name: found.get(name, 0) for name in [*declared, *(n for n in found if n not in declared)]
    }


@schema.command("explain", short_help=EXPERIMENTAL + "Describe a type, or why a note has its type.")
@click.argument("type_name", metavar="TYPE|NOTE")
@click.option("--pack", "pack_ref", metavar="PACK", help="Another pack than the active one.")
@click.option("--json", "as_json", is_flag=True, help="A note's explanation as JSON.")
@click.pass_obj
@tracked("explain")
def explain_cmd(obj: Any, type_name: str, pack_ref: str | None, as_json: bool) -> None:
    """(experimental) What TYPE is, where its notes live, its fields and who declared it.

    Given a note's path instead (Projects/Shed.md), why that note is of the type it is.
    """
    from vaultbrain.packs.describe import explain_type

    pack = pack_of(obj, pack_ref)
    if not pack_ref and _is_note(obj, pack, type_name):
        from vaultbrain.schema.stats import explain_note

        doc = explain_note(obj.app(), _note_rel(type_name))
        if as_json:
            echo_json(doc)
            return
        sub = f" (subtype {doc['subtype']})" if doc.get("subtype") else ""
        click.echo(f"{doc['path']}: {doc['type'] or 'no type'}{sub}  [{doc['pack']}]")
        for reason in doc["reasons"]:
            click.echo(f"  because {reason}")
        if doc["type"]:
            click.echo("  fields filled: " + (", ".join(doc["fields_filled"]) or "-"))
            click.echo("  fields empty: " + (", ".join(doc["fields_missing"]) or "-"))
            if doc["other_properties"]:
                click.echo("  other properties: " + ", ".join(doc["other_properties"]))
        return
    click.echo(explain_type(pack, type_name))


def _note_rel(arg: str) -> str:
    rel = arg.replace("\\", "/").strip().lstrip("./")
    return rel if rel.lower().endswith(".md") else rel + ".md"


def _is_note(obj: Any, pack: Any, arg: str) -> bool:
    """A note path rather than a type: it names a note of the vault (a type the pack
    declares wins over a note at the vault root of the same name)."""
    if pack.get_type(arg) is not None and "/" not in arg and not arg.lower().endswith(".md"):
        return False
    brain = vault_brain(obj)
    if brain is None:
        return False
    try:
        return brain.vault.try_read(_note_rel(arg)) is not None
    except UserError:
        return False
