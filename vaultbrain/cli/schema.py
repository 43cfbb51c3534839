"""schema: inspect, choose, author and lint schema packs.

Every verb records its own use in ``<state dir>/schema-events.jsonl`` (see ``schema usage``);
nothing leaves the machine. Verbs marked experimental may change or go.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from vaultbrain.cli.render import echo_json, echo_table
from vaultbrain.errors import UserError

EXPERIMENTAL = "(experimental) "


def _vault_app(obj: Any) -> Any | None:
    """The app when there is a vault to speak of; None for a verb run outside any vault."""
    try:
        return obj.app()
    except UserError:
        return None


def _record(obj: Any, verb: str, ok: bool) -> None:
    # Record only where a vault is meant: an explicit --vault / $VAULTBRAIN_VAULT /
    # --state-dir, or a folder that already has a state dir. `schema list` run in some
    # random folder must not leave a .vaultbrain/ behind.
    explicit = bool(obj.vault_arg or os.environ.get("VAULTBRAIN_VAULT") or obj.state_dir)
    app = _vault_app(obj)
    if app is None or not (explicit or app.state_dir.is_dir()):
        return
    from vaultbrain.packs.usage import record_event

    try:
        record_event(app.store, verb, app.now(), ok)
    except OSError:
        pass  # usage counting never fails a verb


def _tracked(verb: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(fn)
        def run(obj: Any, *args: Any, **kwargs: Any) -> None:
            ok = False
            try:
                fn(obj, *args, **kwargs)
                ok = True
            finally:
                _record(obj, verb, ok)

        return run

    return wrap


def _active(obj: Any, rel: str | None = None) -> Any:
    from vaultbrain.packs.loader import active_pack

    app = _vault_app(obj)
    if app is None:
        return active_pack(None, None, obj.schema_pack, rel=rel)
    app.settings.reload()
    return active_pack(app.vault.root, app.settings, app.schema_override, app.env, rel=rel)


def _pack(obj: Any, ref: str | None) -> Any:
    """PACK argument: a name or a manifest path; the active pack when omitted."""
    from vaultbrain.packs.loader import load_ref

    return load_ref(ref) if ref else _active(obj).pack


@click.group("schema")
def schema() -> None:
    """Schema packs: which folders, note types and fields the brain has.

    The active pack comes from the first of: --schema-pack, $VAULTBRAIN_SCHEMA_PACK, the
    per-folder setting schema_pack.source.<folder>, the setting schema_pack, vaultbrain.yml
    (schema: NAME), ~/.vaultbrain/config.json (what `schema use` writes), vaultbrain-base.
    """


# -- inspection ----------------------------------------------------------------------------


@schema.command("active")
@click.option("--path", "rel", metavar="NOTE", help="The pack and type for this note (tier 3).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@_tracked("active")
def active_cmd(obj: Any, rel: str | None, as_json: bool) -> None:
    """The pack in force, the tier that chose it, and what every tier says."""
    from vaultbrain.packs.loader import tier_report

    active = _active(obj, rel)
    app = _vault_app(obj)
    tiers = tier_report(
        app.vault.root if app else None,
        app.settings if app else None,
        obj.schema_pack,
        app.env if app else None,
    )
    ptype = active.pack.type_for_path(rel) if rel else None
    doc = {
        "identity": active.pack.identity,
        "tier": active.tier,
        "source": active.source,
        "folder": active.folder,
        "chain": active.pack.chain,
        "warnings": active.pack.warnings,
        "tiers": tiers,
    }
    if rel:
        doc["path"] = rel
        doc["type"] = ptype.name if ptype else None
    if as_json:
        echo_json(doc)
        return
    click.echo(active.pack.identity)
    click.echo(f"  tier {active.tier}: {active.source}")
    click.echo("  chain: " + " -> ".join(active.pack.chain))
    if rel:
        click.echo(f"  {rel}: {ptype.name if ptype else 'untyped'}")
    for w in active.pack.warnings:
        click.echo(f"  warning: {w}")
    for t in tiers:
        value = t["value"]
        if isinstance(value, dict):
            value = ", ".join(f"{k} -> {v}" for k, v in value.items())
        mark = "*" if t["tier"] == active.tier else " "
        click.echo(f"  {mark} {t['tier']}. {t['source']}: {value if value else '-'}")


@schema.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@_tracked("list")
def list_cmd(obj: Any, as_json: bool) -> None:
    """Bundled and installed packs (an installed pack shadows a bundled one)."""
    from vaultbrain.packs.loader import list_packs

    packs = list_packs()
    try:
        current = _active(obj).pack.name
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
@_tracked("show")
def show_cmd(obj: Any, pack_ref: str | None, as_json: bool, as_rules: bool) -> None:
    """The active pack (or PACK), merged with everything it inherits."""
    from vaultbrain.packs.describe import filing_rules, pack_document, type_row

    pack = _pack(obj, pack_ref)
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
@_tracked("validate")
def validate_cmd(obj: Any, pack_ref: str | None, as_json: bool) -> None:
    """Resolve PACK (a name or a manifest path; default: the active pack).

    Fails, naming what is wrong, on a bad manifest, a missing parent or borrow target, an
    extends or alias cycle, or a chain deeper than 8.
    """
    from vaultbrain.packs.model import PackError

    try:
        pack = _pack(obj, pack_ref)
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
@_tracked("lint")
def lint_cmd(obj: Any, pack_ref: str | None, as_json: bool) -> None:
    """Check the merged pack: duplicates, unreachable types, alias and prefix clashes,
    undeclared references, backtracking-prone link regexes. Errors exit 1."""
    from vaultbrain import __version__
    from vaultbrain.packs.lint import chain_layers, known_type_names, lint_pack

    pack = _pack(obj, pack_ref)
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


# -- choosing ------------------------------------------------------------------------------


def _switch_message(obj: Any, switch: Any, tier: int = 6) -> None:
    now = switch.to or "(unset: the default chain applies)"
    click.echo(f"using {now} ({switch.pack.identity}); was {switch.previous or '(unset)'}")
    click.echo(f"  wrote {switch.config}")
    try:
        active = _active(obj)
    except UserError:
        return
    if active.tier < tier:
        click.echo(
            f"  note: here {active.pack.name} still wins (tier {active.tier}: {active.source})"
        )


def _now(obj: Any) -> Any:
    import datetime as dt

    app = _vault_app(obj)
    return app.now() if app else dt.datetime.now().replace(microsecond=0)


def _switch_preview(app: Any, pack: Any) -> None:
    """What the vault's notes become under ``pack``: records, and nothing written in them."""
    from vaultbrain.filing.adopt import preview_switch

    for line in preview_switch(app, pack).lines():
        click.echo(line)


_DEFAULT_HELP = "Set your per-user default (~/.vaultbrain/config.json), not this vault's pack."


@schema.command("use")
@click.argument("name")
@click.option("--default", "as_default", is_flag=True, help=_DEFAULT_HELP)
@click.pass_obj
@_tracked("use")
def use_cmd(obj: Any, name: str, as_default: bool) -> None:
    """Make NAME this vault's pack (`schema:` in its vaultbrain.yml; outside a vault or with
    --default: your per-user default). Says which notes would become records; writes
    nothing in notes."""
    from vaultbrain.packs.config import use_pack

    app = None if as_default else _vault_app(obj)
    vault = app.vault.root if app is not None else None
    switch = use_pack(name, at=_now(obj), vault=vault)
    _switch_message(obj, switch, 5 if vault is not None else 6)
    if app is not None:
        _switch_preview(app.refresh(), switch.pack)


@schema.command("downgrade")
@click.option("--to", "to", metavar="PACK", help="The pack to restore (default: the previous one).")
@click.option("--default", "as_default", is_flag=True, help=_DEFAULT_HELP)
@click.pass_obj
@_tracked("downgrade")
def downgrade_cmd(obj: Any, to: str | None, as_default: bool) -> None:
    """Restore a pack: --to PACK, or the one before the last change in the history (this
    vault's pack inside a vault; with --default or outside one, your per-user default)."""
    from vaultbrain.packs.config import downgrade_pack

    app = None if as_default else _vault_app(obj)
    vault = app.vault.root if app is not None else None
    switch = downgrade_pack(to, at=_now(obj), vault=vault)
    _switch_message(obj, switch, 5 if vault is not None else 6)
    if app is not None:
        _switch_preview(app.refresh(), switch.pack)


@schema.command("install")
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace an installed pack of the same name.")
@click.pass_obj
@_tracked("install")
def install_cmd(obj: Any, source: Path, force: bool) -> None:
    """Install a .vaultbrain-schema tarball or a pack folder into ~/.vaultbrain/schema-packs/."""
    from vaultbrain.packs.install import install_pack

    done = install_pack(source, force=force)
    verb = "replaced" if done.replaced else "installed"
    click.echo(f"{verb} {done.pack.identity} at {done.path}")
    if done.shadows_bundled:
        click.echo(f"  note: it shadows the bundled pack {done.name}")
    click.echo(f"  use it with `vaultbrain schema use {done.name}`")


# -- discovery -----------------------------------------------------------------------------


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
    click.echo("proposals (accept with `vaultbrain schema review-candidates --apply FOLDER/`):")
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
@_tracked("detect")
def detect_cmd(obj: Any, min_notes: int, as_json: bool) -> None:
    """Propose types for the vault's untyped folders (heuristic; nothing is changed)."""
    from vaultbrain.packs.detect import detect

    _render_detection(detect(obj.app(), min_notes), as_json)


@schema.command("suggest")
@click.option("--min-notes", default=5, show_default=True, help="Notes a folder needs.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@_tracked("suggest")
def suggest_cmd(obj: Any, min_notes: int, as_json: bool) -> None:
    """`detect`, refined by the configured LLM (the heuristic proposals when it is offline)."""
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
@_tracked("review-candidates")
def review_candidates_cmd(
    obj: Any,
    apply: tuple[str, ...],
    rename: tuple[str, ...],
    ignore: tuple[str, ...],
    as_json: bool,
) -> None:
    """The proposals of detect/suggest. --apply writes a pack delta; no pack is edited."""
    from vaultbrain.filing.adopt import preview_folders
    from vaultbrain.packs.delta import review_candidates

    app = obj.app()
    review = review_candidates(app, apply=apply, rename=_pairs(rename), ignore=ignore)
    # What accepting does to the notes: which become records once the delta is in use, and
    # that nothing is written in any of them.
    asked = {f.replace("\\", "/").strip().strip("/").lower() for f in apply}
    proposals = {
        c.folder: c.name
        for c in review.detection.candidates
        if c.status == "applied" and c.folder.lower() in asked
    }
    preview = preview_folders(app, proposals) if proposals and review.delta else None
    if as_json:
        doc = review.detection.as_dict() | {"changed": review.changed}
        if preview is not None:
            doc["would_become_records"] = [
                {"folder": f, "type": t, "notes": n} for (f, t), n in preview.folders.items()
            ]
            doc["notes_written"] = 0
        if review.delta:
            d = review.delta
            doc["delta"] = {
                "path": str(d.path),
                "name": d.name,
                "extends": d.extends,
                "added": d.added,
                "extended": d.extended,
                "lint": d.lint.as_dict(),
                "next": d.install_hint,
            }
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
@_tracked("review-orphans")
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
    if orphans.untyped:
        click.echo("propose types for them with `vaultbrain schema detect`")


# -- authoring (experimental) --------------------------------------------------------------


@schema.command("init", short_help=EXPERIMENTAL + "Scaffold a pack.")
@click.argument("name")
@click.option("--extends", "extends", default="vaultbrain-base", show_default=True)
@click.pass_obj
@_tracked("init")
def init_cmd(obj: Any, name: str, extends: str) -> None:
    """(experimental) Scaffold ~/.vaultbrain/schema-packs/NAME/pack.yaml; never overwrites."""
    from vaultbrain.packs.install import init_pack

    path = init_pack(name, extends=extends)
    click.echo(f"wrote {path}")
    click.echo(
        f"  edit it, then `vaultbrain schema validate {name}` and `vaultbrain schema use {name}`"
    )


@schema.command("fork", short_help=EXPERIMENTAL + "Copy a pack under a new name.")
@click.argument("source")
@click.argument("dest")
@click.pass_obj
@_tracked("fork")
def fork_cmd(obj: Any, source: str, dest: str) -> None:
    """(experimental) Copy pack SOURCE to ~/.vaultbrain/schema-packs/DEST/, renamed DEST."""
    from vaultbrain.packs.install import fork_pack

    click.echo(f"wrote {fork_pack(source, dest)}")


@schema.command("edit", short_help=EXPERIMENTAL + "Show where a pack's file is.")
@click.argument("name")
@click.pass_obj
@_tracked("edit")
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
@_tracked("diff")
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
@_tracked("graph")
def graph_cmd(obj: Any, pack_ref: str | None) -> None:
    """(experimental) The types of the active pack (or PACK), their folders and link verbs."""
    from vaultbrain.packs.describe import graph_lines

    pack = _pack(obj, pack_ref)
    for line in graph_lines(pack):
        click.echo(line)
    if obj.vault_dir.is_dir() and pack.identity == _active(obj).pack.identity:
        # The vault's typed links under the active pack, counted per link type.
        from vaultbrain.graph.links import counts

        brain = obj.app()
        graph = brain.graph()
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
@_tracked("explain")
def explain_cmd(obj: Any, type_name: str, pack_ref: str | None) -> None:
    """(experimental) What TYPE is, where its notes live, its fields and who declared it."""
    from vaultbrain.packs.describe import explain_type

    click.echo(explain_type(_pack(obj, pack_ref), type_name))


@schema.command("usage")
@click.option("--since", default="30d", show_default=True, help="Window: 30d, 12h, 2w, 90m.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@_tracked("usage")
def usage_cmd(obj: Any, since: str, as_json: bool) -> None:
    """How often each schema verb ran in this vault (counted locally, never sent)."""
    from vaultbrain.packs.usage import parse_since, usage_since

    window = parse_since(since)
    app = obj.app()
    rows = usage_since(app.store, window, app.now())
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
