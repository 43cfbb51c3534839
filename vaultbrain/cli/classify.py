"""``vaultbrain classify TEXT``: what each classifier would do with a thought, without
capturing it (see vaultbrain/classify/explain.py)."""

from __future__ import annotations

import sys
from typing import Any

import click

from vaultbrain.cli.render import echo_json


@click.command("classify")
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON document.")
@click.option("--no-llm", is_flag=True, help="Leave the LLM out: the embedded classifier only.")
@click.pass_obj
def classify_cmd(obj: Any, text: str, as_json: bool, no_llm: bool) -> None:
    """What the classifiers would do with TEXT (or - for stdin), without capturing it."""
    from vaultbrain.classify.classifier import LLMClassifier
    from vaultbrain.classify.explain import explain
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.filing.corrections import similar_corrections
    from vaultbrain.filing.index import RecordIndex

    if text == "-":
        text = sys.stdin.read()
    app = obj.app()
    s = app.settings
    index = RecordIndex(app.store, app.pack)
    known = [
        {"type": k["type"], "title": k["title"], "aliases": k.get("aliases", [])}
        for k in index.mentioned(text)
    ]
    llm = None
    client = None
    if not no_llm and s.get("provider") != "heuristic":
        client = LLMClient(
            s.get("endpoint"), s.get("model"), timeout=float(s.get("llm_timeout_seconds"))
        )
        llm = LLMClassifier(client)
    try:
        report = explain(
            text,
            app.store,
            app.pack,
            app.today(),
            known,
            float(s.get("auto_confidence")),
            float(s.get("min_confidence")),
            llm,
            similar_corrections(app.store, text, int(s.get("correction_examples"))),
        )
    finally:
        if client is not None:
            client.close()
    if as_json:
        echo_json(report)
        return
    render(report)


def _dests(c: dict[str, Any]) -> None:
    for d in c.get("destinations", []):
        fields = ", ".join(f"{k}={v}" for k, v in d.get("fields", {}).items())
        click.echo(f"    {d['type']:<8} {d['title']}" + (f"  ({fields})" if fields else ""))


def render(report: dict[str, Any]) -> None:
    emb = report["embedded"]
    click.echo(f"embedded ({emb['learned_from']}): {emb['band']} at {emb['confidence']:.2f}")
    probs = emb.get("probabilities") or {}
    firsts = emb.get("primary") or {}
    if probs:
        click.echo(
            "  types:   "
            + "  ".join(
                f"{t} {p:.2f}" + (f" (primary {firsts[t]:.2f})" if t in firsts else "")
                for t, p in sorted(probs.items(), key=lambda x: -x[1])
            )
        )
    if emb.get("people"):
        people = ", ".join(
            p["name"] + (f" → {p['record']}" if p.get("record") else "") for p in emb["people"]
        )
        click.echo(f"  people:  {people}")
    if emb.get("due"):
        click.echo(f"  due:     {emb['due']} ({emb['due_words']})")
    _dests(emb)
    rules = report["rules"]
    click.echo(f"rules (the old pattern classifier): {rules['confidence']:.2f}")
    _dests(rules)
    llm = report.get("llm")
    if llm is None:
        click.echo("llm: not asked")
    elif "error" in llm:
        click.echo(f"llm: {llm['error']}")
    else:
        click.echo(f"llm ({llm.get('classified_by')}): {llm['band']} at {llm['confidence']:.2f}")
        _dests(llm)
        op = report.get("second_opinion") or {}
        if op.get("agree") is False:
            click.echo(f"second opinion: disagree, filed as {op['final_band']}")
        elif op.get("agree"):
            click.echo("second opinion: agree")
