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
)
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


@schema.command("graph", short_help=EXPERIMENTAL + "ASCII listing of a pack's types.")
@click.argument("pack_ref", metavar="[PACK]", required=False)
@click.pass_obj
@tracked("graph")
def graph_cmd(obj: Any, pack_ref: str | None) -> None:
    """(experimental) The types of the active pack (or PACK), their folders and link verbs."""
    from vaultbrain.packs.describe import graph_lines

    pack = pack_of(obj, pack_ref)
    for line in graph_lines(pack):
        click.echo(line)
    if obj.vault_dir.is_dir() and pack.identity == active_of(obj).pack.identity:
        # The vault's typed links under the active pack, counted per link type.
        from vaultbrain.graph.links import counts

        brain = obj.app()
        graph = graph_of(brain)
        graph.catch_up(brain.vault)
        found = counts(graph)
        declared = [lt.name for lt in pack.manifest.link_types]
        click.echo("  links in this vault:")
        for name in [*declared, *(n for n in found if n not in declared)]:
            click.echo(f"    {name}: {found.get(name, 0)}")


@schema.command("explain", short_help=EXPERIMENTAL + "Describe a type in plain English.")
@click.argument("type_name", metavar="TYPE")
@click.option("--pack", "pack_ref", metavar="PACK", help="Another pack than the active one.")
@click.pass_obj
@tracked("explain")
def explain_cmd(obj: Any, type_name: str, pack_ref: str | None) -> None:
    """(experimental) What TYPE is, where its notes live, its fields and who declared it."""
    from vaultbrain.packs.describe import explain_type

    click.echo(explain_type(pack_of(obj, pack_ref), type_name))
