"""The arbiter: one decision from two voters, the LLM and the embedded classifier.

Each voter names a primary type with a confidence; :mod:`vaultbrain.classify.reliability`
says how far each can be trusted for that type on this vault. A pure function decides:

- **noise**: a thought the embedded classifier calls noise (keyboard mash, a line addressed to
  the model) is not filed, whatever the LLM said;
- **a reply that overreaches** (more destinations than the thought has words) is no vote;
- **agreement** raises the confidence by what the two voters' records justify: their
  precisions for the type (the LLM's measured on the probe, classify/probe.py, then on this
  vault; the embedded classifier's calibrated) combine as independent evidence, odds
  multiply: ``P = pL·pE / (pL·pE + (1-pL)(1-pE))``. Only the agreed type gets it: a
  destination only one voter gave keeps that voter's precision, and the decision is as
  sure as its least sure destination;
- **disagreement** goes by reliability: each voter's chance of being the right one given that
  they disagree; the more likely one is filed as a suggestion if it would have been filed on
  its own, and the thought goes to review only when neither is reliable;
- **one voter** (the other abstained, or cannot name that type): its own reliability decides,
  and without a track record on this vault it files no more than a suggestion;
- a confidence that is no probability ("high", 7, -1) is unknown, and one below
  ``min_confidence`` is the model's own doubt: the other voter judges.

The decision carries the band, so nothing downstream judges the result again, the ``votes``
the reliability learns from, and an audit entry (``trust`` shows it; ``trust --summary``
counts agreement from it). On a held-out set the pair is at least as accurate as the better
voter, as far as the reliabilities are right: on every disagreement it takes the answer of
the voter more likely to be right (``bench/bench_classifier.py`` measures it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from vaultbrain.classify.evidence import evidence_titles, in_text, people_titles, same_person
from vaultbrain.classify.reliability import (
    DECIDED,
    EMBEDDED,
    LLM,
    NONE,
    TRACK_RECORD,
    Estimate,
    Reliability,
)
from vaultbrain.classify.result import (
    UNKNOWN,
    Band,
    Classification,
    Destination,
    band_for,
    judge,
    merge_duplicates,
)
from vaultbrain.patterns import LazyPattern

AUDIT_KEY = "second_opinion"  # the audit entry's key: `trust --summary` counts agreement by it
MAX_CONFIDENCE = 0.99  # two voters agreeing are never certainty
SECONDARY = 0.6  # a voter's precision for a type from which its extra destinations are kept
_WORDS = LazyPattern(r"[^\W_]+")
_ORDER = [Band.REVIEW, Band.SUGGEST, Band.AUTO]


@dataclass(frozen=True)
class Decision:
    """What the pair decided: the classification to file (its ``band`` set), the band, the
    votes to keep on the capture, and the audit entry."""

    classification: Classification
    band: Band
    votes: dict[str, Any]
    audit: dict[str, Any] = field(default_factory=dict)


def words_in(text: str) -> int:
    return len(_WORDS.findall(text))


def primary(c: Classification | None) -> str | None:
    """The first destination's type (``unknown`` for none fileable); None: no reading."""
    if c is None or (c.error and not c.destinations):
        return None
    for d in c.destinations:
        return d.type if d.type != UNKNOWN else NONE
    return NONE


def decide(
    text: str,
    llm: Classification | None,
    embedded: Classification,
    reliability: Reliability,
    auto: float,
    minimum: float,
    embedded_types: frozenset[str] | None = None,
    names: frozenset[str] | None = None,
    titles: Mapping[str, str] | None = None,
) -> Decision:
    """The pair's decision on one thought. ``embedded``: the embedded classifier's reading,
    its confidence its calibrated probability (not capped), ``noise`` set when it calls the
    thought noise. ``embedded_types``: the types it has learnt to name (None: all).
    ``names``: the names the embedded classifier found in the thought, on any evidence,
    lowercased: an LLM's person named nowhere in them is dropped (a small model makes people
    of words: "Milk"), until the LLM has a track record for people here (None: no check).
    Whatever its record, an LLM's person no word of which is in the thought is not a person.
    ``titles``: the embedded classifier's people, each name it found (lowercased) to the
    title it files them under (the vault's record, or the name as written): a person the pair
    keeps is filed under that title, not under the LLM's guess of it ("Priya Sharma" for the
    vault's Priya Shah)."""
    notes: list[str] = []
    emb_type = primary(embedded)
    llm_dests = merge_duplicates(list(llm.destinations)) if llm is not None else []
    if names is not None:
        trusted = _names_people(reliability)
        invented = [
            d
            for d in llm_dests
            if d.type == "person"
            and (not in_text(d.title, text) or (not trusted and not _named(d.title, names)))
        ]
        if invented:
            notes.append(
                "the LLM's people not named in the thought: " + ", ".join(d.title for d in invented)
            )
            llm_dests = [d for d in llm_dests if d not in invented]
            if llm is not None and not llm_dests and llm.destinations:
                llm_dests = [Destination(UNKNOWN, "", {})]
    llm_type = primary(llm) if llm is None else _first(llm, llm_dests)
    stated = llm.confidence if llm is not None and llm.confidence_known else None
    fileable = [d for d in llm_dests if d.type != UNKNOWN]
    if llm_type is not None and len(fileable) > words_in(text):
        notes.append(f"the LLM named {len(fileable)} destinations for {words_in(text)} words")
        llm_type = None  # no vote: it overreached
    votes = {
        LLM: {"type": llm_type, "confidence": stated},
        EMBEDDED: {"type": emb_type, "confidence": round(embedded.confidence, 4)},
    }
    alone = judge(llm, auto, minimum) if llm is not None else Band.REVIEW
    ctx = _Context(text, llm, llm_dests, embedded, reliability, auto, minimum, stated)

    if embedded.noise:
        notes.append(f"the embedded classifier calls it noise ({embedded.noise})")
        out = ctx.review("noise")
    elif llm_type is None and emb_type in (None, NONE):
        out = ctx.review("no reading")
    elif llm_type is None:
        out = ctx.embedded_alone()
    elif emb_type in (None, NONE) or (
        embedded_types is not None and llm_type not in embedded_types and llm_type != NONE
    ):
        out = ctx.llm_alone(llm_type)  # the embedded classifier has no say on this type
    elif llm_type == emb_type:
        out = ctx.agreement(llm_type)
    else:
        out = ctx.disagreement(llm_type, emb_type)
    result, band, how, est = out
    # the confidence shown with the result says what the band says: a suggestion is never
    # "0.99", however sure the one voter that decided it was (that is in the audit, as p)
    p = result.confidence
    shown = p if band is Band.AUTO else min(p, auto - 0.01)
    if band is not Band.REVIEW:
        shown = max(shown, minimum)
    band, bar = person_bar(reliability, result, band, auto)
    if bar == "earned":
        shown = max(shown, auto)
        notes.append(f"the person's bar: {primary(result)} suggestions confirmed, it files alone")
    elif bar == "lost":
        shown = min(shown, auto - 0.01)
        notes.append(f"the person's bar: {primary(result)} keeps being corrected, a suggestion")
    if titles:
        result = replace(result, destinations=evidence_titles(result.destinations, titles))
    result = replace(result, band=band.value, confidence=round(shown, 3))
    votes[DECIDED] = decided_vote(result, band)
    if llm_type not in (None, NONE) and emb_type not in (None, NONE) and llm_type != emb_type:
        winner = {LLM: "the LLM's", EMBEDDED: "the embedded classifier's"}.get(how, "neither")
        notes.append(
            f"the embedded classifier read it as {emb_type}, the LLM as {llm_type}: "
            f"{winner} reading, {band.value}"
        )
    agree = None if llm_type in (None, NONE) or emb_type in (None, NONE) else llm_type == emb_type
    audit: dict[str, Any] = {
        "agree": agree,
        "llm_type": llm_type,
        "embedded_type": emb_type,
        "llm_confidence": stated,
        "embedded_confidence": round(embedded.confidence, 3),
        "decided_by": how,
        "llm_measured": reliability.measured is not None,
        "p": p,  # the decided reading's chance of being right, as the pair reckons it
        "band": alone.value,  # what the LLM alone would have done
        "final_band": band.value,
        "lowered_to": band.value if _ORDER.index(band) < _ORDER.index(alone) else None,
        "raised_to": band.value if _ORDER.index(band) > _ORDER.index(alone) else None,
        **{k: v.to_dict() for k, v in est.items()},
    }
    if notes:
        audit["note"] = "; ".join(notes)
    return Decision(result, band, votes, audit)


Outcome = tuple[Classification, Band, str, dict[str, Estimate]]


@dataclass
class _Context:
    text: str
    llm: Classification | None
    llm_dests: list[Destination]
    embedded: Classification
    reliability: Reliability
    auto: float
    minimum: float
    stated: float | None

    # -- the cases -------------------------------------------------------------------------
    def review(self, how: str) -> Outcome:
        dests = [d for d in self.embedded.destinations if d.type == UNKNOWN][:1] or [
            Destination(UNKNOWN, "", {})
        ]
        why = {"noise": "not a thought to file", "no reading": "neither classifier filed it"}
        return self._result(dests, 0.0, f"Review: {why.get(how, how)}", None), Band.REVIEW, how, {}

    def embedded_alone(self) -> Outcome:
        t = primary(self.embedded) or NONE
        est = self.reliability.embedded(t, self.embedded.confidence)
        if est.p < self.minimum:
            return self._review_with(self.embedded, est.p, "embedded", {"embedded_estimate": est})
        dests = self.embedded.fileable
        result = self._result(dests, est.p, self.embedded.reasoning, self.embedded)
        return result, Band.SUGGEST, "embedded", {"embedded_estimate": est}

    def llm_alone(self, t: str) -> Outcome:
        assert self.llm is not None
        est = self.reliability.llm(t, self.stated)
        if t == NONE or est.p < self.minimum or not self._sure_enough(est):
            return self._review_with(self.llm, est.p, "llm", {"llm_estimate": est})
        band = band_for(est.p, self.auto, self.minimum)
        if est.evidence < TRACK_RECORD:
            band = min(band, Band.SUGGEST, key=_ORDER.index)
        dests = self._keep(self._llm_fileable(), LLM)
        result = self._result(dests, est.p, self.llm.reasoning, self.llm)
        return result, band, "llm", {"llm_estimate": est}

    def agreement(self, t: str) -> Outcome:
        assert self.llm is not None
        el, ee = (
            self.reliability.llm(t, self.stated),
            self.reliability.embedded(t, self.embedded.confidence),
        )
        if t == NONE:
            return self._review_with(self.embedded, 0.0, "agreement", _est(el, ee))
        if self.stated is None:
            pl = el.p if el.evidence >= 1 else 0.5  # unknown: the embedded reading judges
        else:
            pl = el.p
        base, other = (LLM, EMBEDDED) if pl >= 0.5 else (EMBEDDED, LLM)
        dests = self._merge(base, other)
        p = min([combine(pl, ee.p)] + [self._extra(d.type) for d in dests if d.type != t])
        band = band_for(p, self.auto, self.minimum)
        if band is Band.REVIEW and max(ee.p, pl) >= self.minimum:
            band = Band.SUGGEST  # agreement never files less than either would alone
        # the LLM's titles and fields (a model writes them better than word patterns) unless
        # it is measured unreliable for this type; the other's extra types where it is
        # reliable for them
        source = self.llm if base == LLM else self.embedded
        why = f"Both read it as {t}. " + (source.reasoning or "")
        return self._result(dests, p, why.strip(), source), band, "agreement", _est(el, ee)

    def disagreement(self, lt: str, et: str) -> Outcome:
        assert self.llm is not None
        el = self.reliability.llm(lt, self.stated)
        ee = self.reliability.embedded(et, self.embedded.confidence)
        est = _est(el, ee)
        if not self._sure_enough(el):
            # a confidence that is no probability, or one below min_confidence (the model
            # says it is unsure itself): the embedded classifier judges
            if et == NONE or ee.p < self.minimum:
                return self._review_with(self.embedded, ee.p, "review", est)
            dests = self._keep(self.embedded.fileable, EMBEDDED)
            return (
                self._result(dests, ee.p, self.embedded.reasoning, self.embedded),
                Band.SUGGEST,
                "embedded",
                est,
            )
        k = max(self.reliability.types, 1)
        pl, pe = el.p, ee.p
        w_llm = pl * (1 - pe)
        w_emb = pe * (1 - pl)
        w_none = (1 - pl) * (1 - pe) * max(k - 1, 0) / k
        total = w_llm + w_emb + w_none or 1.0
        llm_wins = w_llm > w_emb or (w_llm == w_emb and el.evidence > ee.evidence)
        winner, t, own = (LLM, lt, pl) if llm_wins else (EMBEDDED, et, pe)
        p = (w_llm if llm_wins else w_emb) / total
        source = self.llm if winner == LLM else self.embedded
        if t == NONE or own < self.minimum:
            return self._review_with(source, p, "review", est)
        band = Band.SUGGEST
        if winner == LLM and p >= self.auto and el.evidence >= TRACK_RECORD:
            band = Band.AUTO  # a track record on this vault that outweighs the embedded
        dests = self._merge(winner, EMBEDDED if winner == LLM else LLM, people_only=True)
        why = f"The {'LLM' if winner == LLM else 'embedded classifier'} is more reliable for "
        why += f"{t} here than the {'embedded classifier' if winner == LLM else 'LLM'} for "
        why += f"{et if winner == LLM else lt}. " + (source.reasoning or "")
        return self._result(dests, p, why.strip(), source), band, winner, est

    # -- helpers ---------------------------------------------------------------------------
    def _extra(self, t: str) -> float:
        """How sure the pair is of a destination of type ``t`` beside the agreed one: both
        voters' precisions combined where both gave it, the one voter's where only one did."""
        by_llm = any(d.type == t for d in self._llm_fileable())
        by_emb = any(d.type == t for d in self.embedded.fileable)
        if by_llm and by_emb:
            return combine(self._precision(LLM, t), self._precision(EMBEDDED, t))
        return self._precision(LLM if by_llm else EMBEDDED, t)

    def _sure_enough(self, est: Estimate) -> bool:
        """The LLM may decide against (or without) the embedded classifier: it stated a
        confidence of at least ``min_confidence``, or stated none it could mean but has a
        track record here."""
        if self.stated is None:
            return est.evidence >= TRACK_RECORD
        return self.stated >= self.minimum

    def _llm_fileable(self) -> list[Destination]:
        return [d for d in self.llm_dests if d.type != UNKNOWN]

    def _dests(self, voter: str) -> list[Destination]:
        return self._llm_fileable() if voter == LLM else self.embedded.fileable

    def _precision(self, voter: str, t: str) -> float:
        if voter == LLM:
            return self.reliability.llm(t, self.stated).p
        return self.reliability.embedded(t, self.embedded.confidence).p

    def _proven(self, voter: str, t: str) -> bool:
        """The voter has been right about ``t`` on this vault often enough that a type it
        adds to the other's reading is worth a note."""
        if voter == LLM:
            est = self.reliability.llm(t, self.stated)
        else:
            est = self.reliability.embedded(t, self.embedded.confidence)
        return est.p >= SECONDARY and est.evidence >= TRACK_RECORD

    def _keep(self, dests: list[Destination], voter: str) -> list[Destination]:
        """The primary type's destinations, and the others the voter is reliable for."""
        if not dests:
            return []
        first = dests[0].type
        if voter == EMBEDDED:
            # its other types passed its own threshold already; only a record of being wrong
            # about a type on this vault drops one
            return [d for d in dests if d.type == first or not self._unreliable(d.type)]
        return [d for d in dests if d.type == first or self._precision(voter, d.type) >= 0.5]

    def _unreliable(self, t: str) -> bool:
        said, right = self.reliability.outcome(EMBEDDED, t)
        return said >= TRACK_RECORD and right / said < 0.5

    def _merge(self, base: str, other: str, people_only: bool = False) -> list[Destination]:
        """``base``'s destinations (the primary and those it is reliable for), then the other
        voter's of types ``base`` lacks where that voter has proven reliable on this vault,
        and the people it found that ``base`` did not (each person once, by name)."""
        out = self._keep(self._dests(base), base)
        types = {d.type for d in out}
        primary_type = out[0].type if out else None
        for d in self._dests(other):
            if d.type == primary_type and d.type != "person":
                continue
            if d.type == "person":
                same = same_person(d, out)
                if same is not None:
                    if other == EMBEDDED and d.title != same.title:
                        # the name as the thought gives it (or as the vault's record has it),
                        # not the LLM's "maya loves dinosaurs"; the LLM's fields stay
                        out[out.index(same)] = Destination("person", d.title, dict(same.fields))
                    continue
                # the embedded classifier's people are names the thought gives; the LLM's
                # were checked against those (``names``) and join where it is reliable
                if other == LLM and self._precision(LLM, "person") < SECONDARY:
                    continue
            elif d.type in types or people_only or not self._proven(other, d.type):
                continue
            out.append(d)
            types.add(d.type)
        return merge_duplicates(out)

    def _review_with(
        self, source: Classification, p: float, how: str, est: dict[str, Estimate]
    ) -> Outcome:
        """Nothing filed; the reading is kept as the review queue's guess: the LLM's as the
        arbiter kept it (its people with no evidence in the thought dropped)."""
        given = self.llm_dests if source is self.llm else source.destinations
        dests = list(given) or [Destination(UNKNOWN, "", {})]
        result = self._result(dests, min(p, self.minimum - 0.01), source.reasoning, source)
        return result, Band.REVIEW, how if how != "agreement" else "review", est

    def _result(
        self,
        dests: list[Destination],
        p: float,
        reasoning: str,
        source: Classification | None,
    ) -> Classification:
        llm = self.llm
        base = source or self.embedded
        dropped = list(llm.dropped) if llm is not None else []
        return Classification(
            dests or [Destination(UNKNOWN, "", {})],
            round(max(0.0, min(p, MAX_CONFIDENCE)), 3),
            reasoning[:2000],
            base.classified_by,
            model=llm.model if llm is not None else None,
            dropped=dropped,
            raw=llm.raw if llm is not None else None,
            usage=dict(llm.usage) if llm is not None else {},
            elapsed_ms=llm.elapsed_ms if llm is not None else 0.0,
            # why the thought is noise, and the types read but not named: the front ends say
            # so (capture/reasons.py)
            noise=self.embedded.noise,
            unnamed=list(self.embedded.unnamed),
        )


def decided_vote(result: Classification, band: Band) -> dict[str, Any]:
    """What the pair (or a voter alone) decided, kept with the votes: the person's bar
    counts how the person took it (classify/reliability.py)."""
    types = [d.type for d in result.destinations if d.type != UNKNOWN]
    return {"type": types[0] if types else NONE, "types": types, "band": band.value}


def person_bar(
    reliability: Reliability, result: Classification, band: Band, auto: float
) -> tuple[Band, str | None]:
    """The band after the person's bar for the decided type (:meth:`Reliability.bar`): a
    suggestion of a type the person keeps confirming unchanged is filed; an auto-filing of a
    type they keep correcting is a suggestion. Noise and review are left as they are."""
    t = primary(result)
    if t in (None, NONE) or band is Band.REVIEW:
        return band, None
    bar = reliability.bar(t, auto)
    if bar == "earned" and band is Band.SUGGEST:
        return Band.AUTO, bar
    if bar == "lost" and band is Band.AUTO:
        return Band.SUGGEST, bar
    return band, None


def combine(p: float, q: float) -> float:
    """Two independent readings of the same type, right with probabilities ``p`` and ``q``:
    the chance both are right, odds multiplied (0.9 and 0.8 make 0.97; 0.6 and 0.5, 0.6)."""
    if p >= 1.0 or q >= 1.0:
        return 1.0
    odds = (p / (1 - p)) * (q / (1 - q))
    return odds / (1 + odds)


def _est(el: Estimate, ee: Estimate) -> dict[str, Estimate]:
    return {"llm_estimate": el, "embedded_estimate": ee}


def _first(llm: Classification, dests: list[Destination]) -> str | None:
    """The LLM's primary type from its destinations as the arbiter keeps them."""
    if llm.error and not llm.destinations:
        return None
    for d in dests:
        return d.type if d.type != UNKNOWN else NONE
    return NONE


# the LLM's people are taken as named when its record for people, measured on the probe
# (the primary type of thoughts that name someone), is at least this good
NAMES_PEOPLE = 0.9


def _names_people(reliability: Reliability) -> bool:
    """The LLM's people stand without a name the embedded classifier found ("bex", "ed"): it
    has a track record for people on this vault, or the probe measured it naming people
    rightly (``NAMES_PEOPLE``, on at least ``TRACK_RECORD`` thoughts). A small model that
    makes people of words ("Milk") has neither."""
    if reliability.outcome(LLM, "person")[0] >= TRACK_RECORD:
        return True
    row = (reliability.measured or {}).get("person")
    return row is not None and row[0] >= TRACK_RECORD and row[1] / row[0] >= NAMES_PEOPLE


def _named(title: str, names: frozenset[str]) -> bool:
    """A word of ``title`` is a word of a name the thought gives."""
    words = set(title.casefold().split())
    return any(words & set(n.split()) for n in names)


def agreement(entries: Any) -> dict[str, Any]:
    """How the pair decided, from classification audit entries carrying :data:`AUDIT_KEY`:
    how often the two agreed on the primary type, how often the LLM's band was lowered or
    raised, and who decided."""
    compared = agreed = lowered = raised = 0
    decided: dict[str, int] = {}
    for e in entries:
        op = e.get(AUDIT_KEY) if isinstance(e, dict) else None
        if not isinstance(op, dict):
            continue
        if op.get("decided_by"):
            decided[str(op["decided_by"])] = decided.get(str(op["decided_by"]), 0) + 1
        if op.get("agree") is None:
            continue
        compared += 1
        agreed += bool(op["agree"])
        lowered += bool(op.get("lowered_to"))
        raised += bool(op.get("raised_to"))
    return {
        "compared": compared,
        "agreed": agreed,
        "lowered": lowered,
        "raised": raised,
        "agreement_rate": round(agreed / compared, 3) if compared else None,
        "decided_by": dict(sorted(decided.items())),
    }


def arbitrate(
    text: str,
    llm: Classification | None,
    embedded: Any,
    pack: Any,
    today: Any,
    known: list[dict[str, Any]],
    auto: float,
    minimum: float,
    measured: dict[str, list[float]] | None = None,
) -> Decision:
    """Run the embedded classifier (``embedded``: an :class:`~vaultbrain.classify.embedded.
    Embedded`, with the vault's reliability) beside the LLM's reading, and decide.
    ``measured``: the probe's record of the model that answered (classify/probe.py), its
    prior; None while it is not measured."""
    from vaultbrain.classify.embedded import analyse

    analysis = analyse(text, today, embedded, known, 1.0, pack)
    reliability = embedded.reliability or Reliability(types=len(embedded.labels))
    reliability = reliability.with_measured(measured)
    return decide(
        text,
        llm,
        analysis.classification,
        reliability,
        auto,
        minimum,
        embedded.known_types(),
        names_found(analysis),
        people_titles(analysis),
    )


def names_found(analysis: Any) -> frozenset[str]:
    """Every name the embedded classifier found in a thought (its ``Analysis``), lowercased:
    as written, as the record it links to, and its people destinations."""
    out = set()
    for p in analysis.people:
        out.add(p.name.casefold())
        if p.record:
            out.add(p.record.casefold())
    for d in analysis.classification.destinations:
        if d.type == "person":
            out.add(d.title.casefold())
    return frozenset(out)
