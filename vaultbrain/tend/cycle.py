"""One tending cycle: the phases in order, each idempotent and each reported, then the morning
report ``Brain/Tending/YYYY-MM-DD.md``.

A phase writes freely only into ``Brain/`` (the report, Needs Review); anything it would
change in a note of the person's is a proposal (a merge in Needs Review) or a line in the
report. A phase that fails is reported with its error and the others still run. Its callers
(the scheduler, ``daemon --once``, the command) hold the digest's run lock, so two cycles (or
a cycle and a digest) never run at once; notes are written through ``Vault.edit``
(compare-and-swap), so a capture filed meanwhile is never lost.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.graph.extract import base_key, note_key
from vaultbrain.procs import collector_paused
from vaultbrain.tend import consolidate as cons
from vaultbrain.tend.cards import Card, Survey, survey
from vaultbrain.tend.report import render_report, report_path

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.tend")

PHASES = ("consolidate", "drift", "backlinks", "takes", "enrich", "embed", "orphans", "schema")
HISTORY = "tend.jsonl"
FOLDERS_SEEN = "tend-folders.json"  # notes per folder outside the pack's, as last surveyed
KEPT = "tend-kept.json"  # the last results of the phases that are functions of the notes
DRIFT_KEPT = "tend-drift.json"  # what drift read of each card, and the survey it was read at
DRIFT_VERSION = "1"
ORPHANS_KEPT = "tend-links.json"  # the cards that link nowhere, how many notes link each key
ORPHANS_VERSION = "2"
DEFAULT_WAIT = 180.0
Progress = Callable[[int, int], None]


class Cycle:
    def __init__(self, brain: Brain, day: dt.date, dry_run: bool) -> None:
        self.brain = brain
        self.day = day
        self.dry_run = dry_run
        self._survey: Survey | None = None
        self._folder_counts: dict[str, int] = {}
        self._made: Callable[[str], bool] | None = None

    @property
    def survey(self) -> Survey:
        """One walk of the vault for every phase (notes read only where they changed)."""
        if self._survey is None:
            self._survey = survey(self.brain)
        return self._survey

    @property
    def cards(self) -> list[Card]:
        return self.survey.cards

    # -- phases ---------------------------------------------------------------------------
    def consolidate(self) -> dict[str, Any]:
        pairs = cons.find_pairs_kept(self.brain, self.survey)
        new = cons.propose(self.brain, pairs, dry_run=self.dry_run)
        still = [
            p
            for p in cons.proposals(self.brain)
            if p["id"] not in {n["id"] for n in new} and not p.get("kind")  # (a merge's)
        ]
        return {
            "found": len(pairs),
            "proposed": [_merge_row(p) for p in new],
            "waiting": [_merge_row(p) for p in still],
        }

    def drift_phase(self) -> dict[str, Any]:
        stale_days = int(self.brain.settings.get("stale_days") or 30)
        more = [self.day.isoformat(), stale_days, DRIFT_VERSION]
        return self._kept("drift", more, lambda: self._drift(stale_days))

    def _drift(self, stale_days: int) -> dict[str, Any]:
        from vaultbrain.tend.drift import judge

        d = judge(self._drift_facts(), self.day, stale_days)
        return {
            "stale_days": stale_days,
            "overdue": [{"note": r, "title": t, "due": due.isoformat()} for r, t, due in d.overdue],
            "stale": [
                {"note": r, "title": t, "last": last.isoformat() if last else None}
                for r, t, last in d.stale
            ],
            "follow_ups": [{"note": r, "title": t, "text": x} for r, t, x in d.follow_ups],
        }

    def _drift_facts(self) -> dict[str, Any]:
        """What drift reads of each card (vaultbrain/tend/drift.py), kept between cycles:
        read again of the cards that changed since the cycle that kept them."""
        from vaultbrain.tend.drift import fact, facts

        s = self.survey
        key = [s.cards_key, s.others_key, DRIFT_VERSION]
        kept = self.brain.store.read_json(DRIFT_KEPT, None)
        kept = kept if isinstance(kept, dict) else {}
        found: dict[str, Any]
        if kept.get("key") == key:
            return dict(kept.get("facts") or {})
        changes = s.changes
        if (
            changes is not None
            and changes.since(kept.get("key"))
            and kept["key"][2:] == [DRIFT_VERSION]
        ):
            found = dict(kept.get("facts") or {})
            for rel, card in changes.now.items():
                found.pop(rel, None)
                f = fact(card) if card is not None else None
                if f is not None:
                    found[rel] = f
        else:
            found = facts(self.cards)
        self.brain.store.write_json(DRIFT_KEPT, {"key": key, "facts": found}, durable=False)
        return found

    def _kept(
        self, phase: str, more: list[Any], find: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """A phase's result that is a function of the notes (and ``more``): the last cycle's
        when no note changed since (the survey's keys), else found (from what the phase
        keeps of the notes, brought up to date) and kept, a small file a quiet cycle reads."""
        key = [self.survey.cards_key, self.survey.others_key, *more]
        kept = self.brain.store.read_json(KEPT, None)
        kept = kept if isinstance(kept, dict) else {}
        mine = kept.get(phase)
        if isinstance(mine, dict) and mine.get("key") == key:
            return dict(mine["result"])
        result = find()
        kept[phase] = {"key": key, "result": result}
        self.brain.store.write_json(KEPT, kept, durable=False)
        return dict(result)

    def backlinks(self) -> dict[str, Any]:
        """The inverse of each typed link the pack declares, where the target lacks it:
        written into the notes vaultbrain made, proposed in Needs Review for the person's
        (vaultbrain/tend/backlinks.py)."""
        from vaultbrain.tend import backlinks as bl

        declared = sum(1 for lt in self.brain.pack.manifest.link_types if lt.inverse)
        if not declared:
            return {"declared": 0, "written": [], "proposed": [], "waiting": 0}
        done = bl.tend(self.brain, self.cards, self.dry_run, self._ours)
        return {
            "declared": declared,
            "written": [b.row() for b in done.written[:200]],
            "written_count": len(done.written),
            "proposed": [
                {"id": r["id"], "note": r["keep"], "field": r["field"], "link": r["other"]}
                for r in done.proposed[:200]
            ],
            "proposed_count": len(done.proposed),
            "left": [b.row() for b in done.left[:50]],
            "waiting": len(bl.proposals(self.brain)),
        }

    def _ours(self, rel: str) -> bool:
        """Whether a note is a record vaultbrain made (the records' index built once)."""
        made = self._made
        if made is None:
            from vaultbrain.filing.index import made_by_vaultbrain

            made = self._made = made_by_vaultbrain(self.brain)
        return made(rel)

    def takes(self) -> dict[str, Any]:
        """New takes from the notes (offline), and those whose date has come asked to be
        graded in Needs Review (capture/grades.py keeps the grades and the scorecards)."""
        from vaultbrain.capture.grades import ask
        from vaultbrain.graph.open import graph_of
        from vaultbrain.graph.takes import extract, list_takes

        graph = graph_of(self.brain)
        found = 0
        if not self.dry_run:
            found = int(extract(self.brain, graph, use_llm=False).get("takes") or 0)
        rows = list_takes(graph, self.brain.pack.identity)
        stale_days = int(self.brain.settings.get("stale_days") or 30)
        due = [r for r in rows if _take_due(r, self.day, stale_days)]
        new = ask(self.brain, due, dry_run=self.dry_run)
        return {
            "takes": len(rows),
            "found": found,
            "due": [{k: r.get(k) for k in ("id", "holder", "text", "date", "source")} for r in new][
                :50
            ],
            "due_count": len(new),
        }

    def enrich(self) -> dict[str, Any]:
        from vaultbrain.graph.enrich import enrich
        from vaultbrain.graph.open import graph_of

        rows = enrich(
            self.brain,
            graph_of(self.brain),
            dry_run=self.dry_run,
            use_llm=False,
            ours=self._ours,  # (the records' index built only when a note is filled)
            since_last=True,
        )
        filled = [r for r in rows if r.get("written") or (self.dry_run and r.get("fields"))]
        if filled and not self.dry_run:
            from vaultbrain.filing.sync import notes_sync

            for r in filled:
                notes_sync(self.brain).sync_path(r["path"])
        return {
            "notes": [r["path"] for r in filled],
            "fields": sum(len(r["fields"]) for r in filled),
        }

    def embed(self) -> dict[str, Any]:
        """The notes whose text changed since they were embedded (when a server embeds)."""
        from vaultbrain.classify.embeddings import EmbeddingClient
        from vaultbrain.errors import LLMError
        from vaultbrain.graph.embed import embed_all
        from vaultbrain.graph.open import graph_of

        client = EmbeddingClient.from_settings(self.brain.settings, self.brain.state_dir)
        if client is None:
            return {"skipped": "search by meaning is off"}
        if self.dry_run:
            return {"skipped": "a dry run asks no server"}
        try:
            report = embed_all(graph_of(self.brain), client)
        except LLMError as exc:
            return {"skipped": f"the embedding server did not answer: {exc}"}
        return {"notes": report.notes, "calls": report.calls, "pending": report.pending}

    def orphans(self) -> dict[str, Any]:
        """Record notes no other note links to and that link to nothing."""
        return self._kept("orphans", [ORPHANS_VERSION], self._orphans)

    def _orphans(self) -> dict[str, Any]:
        lonely, linked = self._links_kept()
        found = sorted(
            rel for rel, (_, nk, bk) in lonely.items() if nk not in linked and bk not in linked
        )
        return {
            "orphans": [{"note": rel, "title": lonely[rel][0]} for rel in found[:100]],
            "count": len(found),
        }

    def _links_kept(self) -> tuple[dict[str, list[str]], dict[str, int]]:
        """The cards that link to nothing (path → title, the keys a link reaches it by), and how many notes link by each
        link key (the cards, and the other notes outside ``Brain/``): kept between cycles,
        brought up to date with the notes that changed since the cycle that kept them."""
        s = self.survey
        key = [s.cards_key, s.others_key, ORPHANS_VERSION]
        kept = self.brain.store.read_json(ORPHANS_KEPT, None)
        kept = kept if isinstance(kept, dict) else {}
        if kept.get("key") == key:
            return dict(kept.get("lonely") or {}), dict(kept.get("linked") or {})
        changes = s.changes
        lonely: dict[str, list[str]]
        linked: dict[str, int]
        if (
            changes is not None
            and changes.since(kept.get("key"))
            and kept["key"][2:] == [ORPHANS_VERSION]
        ):
            lonely, linked = dict(kept.get("lonely") or {}), dict(kept.get("linked") or {})
            for rel, card in changes.now.items():
                for k in changes.links_then[rel]:
                    n = linked.get(k, 0) - 1
                    if n > 0:
                        linked[k] = n
                    else:
                        linked.pop(k, None)
                for k in changes.links_now[rel]:
                    linked[k] = linked.get(k, 0) + 1
                lonely.pop(rel, None)
                if card is not None and not card.links:
                    lonely[rel] = [card.title, note_key(rel), base_key(rel)]
        else:
            lonely = {
                c.rel: [c.title, note_key(c.rel), base_key(c.rel)]
                for c in self.cards
                if not c.links
            }
            linked = {}
            for links in (
                *(c.links for c in self.cards),
                *s.other_links.values(),
            ):
                for k in links:
                    linked[k] = linked.get(k, 0) + 1
        self.brain.store.write_json(
            ORPHANS_KEPT, {"key": key, "lonely": lonely, "linked": linked}, durable=False
        )
        return lonely, linked

    def schema(self) -> dict[str, Any]:
        from vaultbrain.packs.detect import detect

        grown = self._folders_grown()
        if not grown:
            return {"candidates": [], "skipped": "no folder outside the pack's grew"}
        found = detect(self.brain, save=not self.dry_run)  # type: ignore[arg-type]
        if not self.dry_run:
            self.brain.store.write_json(FOLDERS_SEEN, self._folder_counts)
        return {
            "candidates": [
                {"folder": c.folder, "name": c.name, "notes": c.notes, "action": c.action}
                for c in found.candidates
                if c.status == "proposed"
            ]
        }

    def _folders_grown(self) -> list[str]:
        """The folders outside the pack's whose notes grew in number since the last cycle
        that looked (``schema detect`` surveys the whole vault: only when one did)."""
        typed = self.survey.card_rels
        counts: dict[str, int] = {}
        for rel in self.survey.rels:
            if rel in typed or rel.startswith("Brain/") or "/" not in rel:
                continue
            folder = rel.rsplit("/", 1)[0]
            counts[folder] = counts.get(folder, 0) + 1
        self._folder_counts = counts
        seen = self.brain.store.read_json(FOLDERS_SEEN, {}) or {}
        return sorted(f for f, n in counts.items() if n > int(seen.get(f, 0)))

    def run(self, phase: str) -> dict[str, Any]:
        fn = {
            "consolidate": self.consolidate,
            "drift": self.drift_phase,
            "backlinks": self.backlinks,
            "takes": self.takes,
            "enrich": self.enrich,
            "embed": self.embed,
            "orphans": self.orphans,
            "schema": self.schema,
        }[phase]
        started = time.perf_counter()
        try:
            out = fn()
            out["status"] = "ok"
        except Exception as exc:  # one phase failing never stops the others
            log.warning("tend: %s failed: %s", phase, exc, exc_info=not isinstance(exc, UserError))
            out = {"status": "failed", "error": str(exc) or type(exc).__name__}
        out["seconds"] = round(time.perf_counter() - started, 3)
        return out


def _take_due(take: dict[str, Any], day: dt.date, stale_days: int) -> bool:
    """A bet, hunch or take whose date has come: the day it names has passed, or it names
    none and is older than ``stale_days``."""
    from vaultbrain.tend.card import DATE

    if take.get("kind") not in ("bet", "hunch", "take"):
        return False
    named = [m.group(0) for m in DATE.finditer(str(take.get("text") or ""))]
    if named:
        return max(named) <= day.isoformat()
    said = str(take.get("date") or "")
    if not said:
        return False
    try:
        return (day - dt.date.fromisoformat(said[:10])).days >= stale_days
    except ValueError:
        return False


def _merge_row(p: dict[str, Any]) -> dict[str, Any]:
    return {k: p.get(k) for k in ("id", "type", "keep", "other", "why", "status")}


def run_tend(
    brain: Brain,
    day: dt.date | None = None,
    *,
    now: dt.datetime | None = None,
    trigger: str = "manual",
    dry_run: bool = False,
    phases: tuple[str, ...] = PHASES,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """One tending cycle; returns what each phase found and did (and the report's path).
    The scheduler's job signature (vaultbrain/digest/scheduler.py)."""
    for p in phases:
        if p not in PHASES:
            raise UserError(f"no phase {p!r}; the phases are {', '.join(PHASES)}")
    stamp = now or brain.now()
    day = day or stamp.date()
    results: dict[str, dict[str, Any]] = {}
    # (the caller holds the digest's run lock: the scheduler, the command)
    cycle = Cycle(brain, day, dry_run)
    # (a first cycle makes 10,000 cards and what the phases find of them, none garbage:
    # the cyclic collector would walk them again and again as they come, as in a reindex)
    with collector_paused():
        for i, phase in enumerate(phases):
            if progress is not None:
                progress(phase, i, len(phases))
            results[phase] = cycle.run(phase)
    if progress is not None:
        progress("report", len(phases), len(phases))
    rel = report_path(day)
    entry: dict[str, Any] = {
        "kind": "tend",
        "date": day.isoformat(),
        "generated": stamp.strftime("%Y-%m-%dT%H:%M:%S"),
        "trigger": trigger,
        "dry_run": dry_run,
        "path": None if dry_run else rel,
        "phases": results,
    }
    if not dry_run:
        written = brain.vault.edit(rel, lambda note: render_report(day, results, note))
        entry["written"] = written.written
        brain.store.append_jsonl(HISTORY, entry)
        if {"consolidate", "takes", "backlinks"} & set(results):
            _redraw_review(brain)
    return entry


def _redraw_review(brain: Brain) -> None:
    """Needs Review shows the new merge proposals (when nobody is editing it)."""
    from vaultbrain.capture.review_queue import ReviewQueue

    try:
        ReviewQueue(brain).write()
    except UserError as exc:
        log.info("Needs Review not redrawn now: %s", exc)


def latest_tend(brain: Brain) -> dict[str, Any] | None:
    last = None
    for entry in brain.store.read_jsonl(HISTORY):
        last = entry
    return last
