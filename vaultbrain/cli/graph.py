"""links | whoknows | search | related | embed | takes | enrich: the graph the pack declares.

Each command first brings the graph index in step with the vault (a stat of every note;
the first run builds it), then asks :mod:`vaultbrain.graph` one question and renders it.
"""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.render import echo_json, echo_table
from vaultbrain.graph import graph_of


def _graph(obj: Any, quiet: bool = False) -> tuple[Any, Any]:
    """The brain and its graph index, in step with the vault. A first use builds the index
    (seconds on a large vault; `reindex` and the daemon build it beforehand): said on
    stderr, with a progress line on a terminal, never a silent wait."""
    from vaultbrain.cli.progress import Progress

    brain = obj.app()
    brain.refresh()
    graph = graph_of(brain)
    bar = Progress.on_terminal("notes indexed", quiet=quiet)
    if not graph.built and not quiet:
        click.echo(
            "building the search index (first use; `vaultbrain reindex` or the daemon "
            "build it beforehand)…",
            err=True,
        )
    try:
        graph.catch_up(brain.vault, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    return brain, graph


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--type", "type_name", metavar="T", help="Only notes of this type.")
@click.option(
    "--mode",
    type=click.Choice(["keyword", "semantic", "hybrid"]),
    help="keyword (bm25), semantic (by meaning) or hybrid (both, fused); default: hybrid "
    "once notes have vectors, else keyword.",
)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def search_cmd(
    obj: Any,
    query: tuple[str, ...],
    type_name: str | None,
    mode: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Notes about QUERY, best first, with a snippet: every word (bm25), by meaning, or both."""
    from vaultbrain.classify.embeddings import EmbeddingClient
    from vaultbrain.graph.search import find

    brain, graph = _graph(obj, as_json)
    if type_name:
        t = brain.pack.get_type(type_name)
        type_name = t.name if t else type_name
    doc = find(
        graph,
        EmbeddingClient.from_settings(brain.settings, brain.state_dir),
        " ".join(query),
        mode,
        type_name,
        limit,
    )
    if as_json:
        _echo_finite(doc)
        return
    if doc["note"] and mode is not None:
        click.echo(doc["note"], err=True)  # asked for meaning, got keywords: say so
    rows = doc["results"]
    if not rows:
        click.echo("no note matches")
        return
    for r in rows:
        click.echo(f"{r['path']}  ({r['type'] or 'untyped'}, {r['score']:.3g})")
        if r["snippet"]:
            click.echo(f"    {r['snippet']}")


def _echo_finite(doc: Any) -> None:
    """JSON that any reader takes: a number no vector should give (NaN, infinity) is null."""
    import json

    from vaultbrain.graph.search import finite

    text = json.dumps(finite(doc), ensure_ascii=False, indent=2, default=str, allow_nan=False)
    click.echo(text)


@click.command("related")
@click.argument("note")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 200))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def related_cmd(obj: Any, note: str, limit: int, as_json: bool) -> None:
    """The notes nearest NOTE in meaning (NOTE: its path, name or alias)."""
    from vaultbrain.graph.embed import related

    _, graph = _graph(obj, as_json)
    doc = related(graph, note, limit)
    if as_json:
        _echo_finite(doc)
        return
    if not doc["results"]:
        click.echo("no other note is embedded yet")
        return
    for r in doc["results"]:
        where = f" › {r['heading']}" if r["heading"] else ""
        click.echo(f"{r['similarity']:.3f}  {r['path']}{where}")


@click.command("embed")
@click.option("--status", "only_status", is_flag=True, help="Say how far it is; embed nothing.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def embed_cmd(obj: Any, only_status: bool, as_json: bool) -> None:
    """Embed every note not embedded yet (the daemon does it in the background)."""
    import sys

    from vaultbrain.classify.embeddings import EmbeddingClient
    from vaultbrain.errors import UserError
    from vaultbrain.graph.embed import embed_all, status

    brain, graph = _graph(obj, as_json)
    client = EmbeddingClient.from_settings(brain.settings, brain.state_dir)
    report = None
    if not only_status:
        if client is None:
            raise UserError(
                'search by meaning is off (`vaultbrain settings set embedding_model ""` '
                "turns it on; it needs provider lmstudio)"
            )
        from vaultbrain.errors import LLMError

        shown = sys.stderr.isatty() and not as_json

        def progress(r: Any) -> None:
            if shown:
                click.echo(f"\r{r.notes} notes embedded, {r.pending} to go ", nl=False, err=True)

        try:
            report = embed_all(graph, client, progress)
        except LLMError as exc:
            raise UserError(f"{exc}; search stays by keywords") from exc
        if shown:
            click.echo("", err=True)
        if not as_json:
            click.echo(
                f"{report.notes} notes embedded ({report.embedded} chunks sent in "
                f"{report.calls} calls, {report.reused} kept), {report.dropped} dropped, "
                f"{report.pending} left, in {report.seconds:.1f}s "
                f"({report.server_seconds:.1f}s in the server)"
            )
            if report.model_changed:
                click.echo(
                    f"the server now embeds with {report.model_changed}: every note was "
                    "embedded again",
                    err=True,
                )
            if report.failed:
                click.echo(
                    f"{len(report.failed)} note(s) the server refused wait for a later try "
                    "(`vaultbrain embed --status` says why)",
                    err=True,
                )
    doc = status(graph, client)
    if as_json:
        _echo_finite(doc if report is None else {**report.as_dict(), "status": doc})
    elif only_status:
        click.echo(
            f"model {doc['model'] or '-'}: {doc['notes']} notes ({doc['chunks']} chunks) "
            f"embedded, {doc['pending']} waiting; server: {doc['server'] or 'not asked yet'}"
        )
        if doc["model_changed"]:
            click.echo(doc["model_changed"])
        if doc["refused"]:
            click.echo(f"{doc['refused']} refused by the server, tried again later:")
            for w in doc["waiting"]:
                click.echo(f"  {w['path']}: {w['why']} (tries {w['tries']}, next {w['next_try']})")
            if doc["refused"] > len(doc["waiting"]):
                click.echo(f"  … and {doc['refused'] - len(doc['waiting'])} more (--json)")


@click.command("whoknows")
@click.argument("topic", nargs=-1, required=True)
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 200))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def whoknows_cmd(obj: Any, topic: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Who (people, companies: the pack's expert_routing types) the vault ties to TOPIC."""
    from vaultbrain.graph.whoknows import whoknows

    brain, graph = _graph(obj, as_json)
    experts = {t.name for t in brain.all_types() if t.expert_routing}
    rows = whoknows(graph, " ".join(topic), experts, brain.today(), limit)
    if as_json:
        echo_json({"topic": " ".join(topic), "expert_types": sorted(experts), "results": rows})
        return
    if not experts:
        click.echo("the active pack declares no expert_routing type")
        return
    if not rows:
        click.echo("nobody: no note ties an expert to that topic")
        return
    for i, r in enumerate(rows, 1):
        click.echo(f"{i}. {r['title']}  ({r['type']}, {r['path']}, score {r['score']:.3g})")
        for w in r["why"]:
            click.echo(f"     {w['how']}: {w['note']}")
            for line in w["lines"]:
                click.echo(f"        {line}")


@click.command("links")
@click.argument("note")
@click.option("--type", "link_type", metavar="T", help="Only this link type (or its inverse).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def links_cmd(obj: Any, note: str, link_type: str | None, as_json: bool) -> None:
    """NOTE's typed links both ways (NOTE: its path, name or alias)."""
    from vaultbrain.graph.links import links_of

    brain, graph = _graph(obj, as_json)
    doc = links_of(graph, note, brain.pack, link_type)
    if as_json:
        echo_json(doc)
        return
    click.echo(f"{doc['note']}  ({doc['type'] or 'untyped'})")
    rows = [
        (r["type"], "->", r["to"] or f"{r['name']} (unresolved)", r["origin"]) for r in doc["out"]
    ]
    rows += [(r["type"], "<-", r["from"], r["origin"]) for r in doc["in"]]
    if not rows:
        click.echo("  no typed links")
        return
    echo_table(rows, ["link", "", "note", "from"])


@click.command("takes")
@click.option("--kind", metavar="K", help="Only this kind (fact, take, bet, hunch, …).")
@click.option("--holder", metavar="NAME", help="Only takes held by NAME (name or note).")
@click.option("--since", metavar="AGE", help="Only takes dated within AGE: 30d, 2w, 12h, 1y.")
@click.option("--offline", is_flag=True, help="Extract with the offline fallback only.")
@click.option("--no-extract", is_flag=True, help="List what was found before; extract nothing.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def takes_cmd(
    obj: Any,
    kind: str | None,
    holder: str | None,
    since: str | None,
    offline: bool,
    no_extract: bool,
    as_json: bool,
) -> None:
    """Claims (facts, takes, bets, hunches) in notes of extractable types and in captures.

    New notes and captures are extracted first (by the LLM, else offline); a text already
    extracted is never extracted again.
    """
    from vaultbrain.bounds import span
    from vaultbrain.graph.takes import extract, list_takes

    back = span(since) if since else None  # (a value out of range said before any work)
    brain, graph = _graph(obj, as_json)
    if kind and kind not in brain.pack.manifest.takes_kinds:
        from vaultbrain.errors import UserError

        kinds = ", ".join(brain.pack.manifest.takes_kinds)
        raise UserError(f"--kind {kind!r}: the pack's takes kinds are {kinds}")
    window = brain.today() - back if back is not None else None
    report = None if no_extract else extract(brain, graph, use_llm=not offline)
    rows = list_takes(graph, brain.pack.identity, kind, holder, window)
    if as_json:
        echo_json({"extracted": report, "takes": rows})
        return
    if report and report["takes"]:
        click.echo(f"found {report['takes']} new takes in {report['sources']} sources")
    if not rows:
        click.echo("no takes")
        return
    for r in rows:
        who = f"{r['holder']}: " if r["holder"] else ""
        click.echo(f"{r['date'] or '':10}  {r['kind']:5}  {who}{r['text']}  ({r['source']})")


@click.command("enrich")
@click.argument("type_name", metavar="[TYPE]", required=False)
@click.argument("name", metavar="[NAME]", required=False)
@click.option("--dry-run", is_flag=True, help="Say what would be filled; write nothing.")
@click.option("--llm", "use_llm", is_flag=True, help="Also summarise an empty context (LLM).")
@click.option(
    "--apply-to-mine",
    is_flag=True,
    help="Also write into notes you made (by default only vaultbrain's own and adopted ones).",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def enrich_cmd(
    obj: Any,
    type_name: str | None,
    name: str | None,
    dry_run: bool,
    use_llm: bool,
    apply_to_mine: bool,
    as_json: bool,
) -> None:
    """Fill empty fields of the pack's enrichable records from what the vault says.

    Contact from e-mail addresses or phone numbers written about the record, the last
    interaction from the latest date a note linking to it states, topics its linking notes
    share, links from its typed links. A value someone wrote is never replaced; notes you
    made are written only with --apply-to-mine; each value added is in the audit trail with
    where it came from.
    """
    from vaultbrain.graph.enrich import enrich

    brain, graph = _graph(obj, as_json)
    from vaultbrain.filing.index import made_by_vaultbrain

    ours = made_by_vaultbrain(brain)
    rows = enrich(brain, graph, type_name, name, dry_run, use_llm, apply_to_mine, ours)
    if not dry_run:
        from vaultbrain.filing.sync import notes_sync

        for r in rows:
            if r.get("written"):
                notes_sync(brain).sync_path(r["path"])  # the record follows its note
    if as_json:
        echo_json({"dry_run": dry_run, "changes": rows})
        return
    if not rows:
        click.echo("nothing to fill")
        return
    held = 0
    for r in rows:
        if dry_run:
            verb = "would fill" + (
                " (your note: only with --apply-to-mine)" if r["mine"] and not apply_to_mine else ""
            )
        elif r["written"]:
            verb = "filled"
        else:
            verb = (
                "not written (your note: --apply-to-mine writes it)"
                if r["mine"]
                else ("not written (it changed meanwhile)")
            )
            held += r["mine"]
        click.echo(f"{r['path']}: {verb}")
        for field, p in r["fields"].items():
            click.echo(f"    {field}: {p['value']}  (from {'; '.join(p['from'])})")
    if held:
        click.echo(f"{held} note(s) of yours left as they are (--apply-to-mine writes them)")
