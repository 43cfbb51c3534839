"""How far each of the two voters (the LLM and the embedded classifier) can be trusted, per
type, on this vault: measured from what became of the thoughts they read.

Every capture the pair read keeps both readings (``votes``: each voter's primary type and
confidence, see :mod:`vaultbrain.classify.arbiter`). Two kinds of evidence come of them:

- **outcomes** (the trust trail): a capture the person confirmed, resolved, corrected or
  dismissed, or that was filed alone and stood, says which type it was. For each voter and
  each type it named: how often, and how often rightly — its precision ("when the LLM says
  project, it is a project 9 times in 10"). A thought filed alone and never touched weighs
  :data:`STOOD` of one the person looked at.
- **the probe** (:mod:`vaultbrain.classify.probe`): the LLM's precision per type measured on
  labelled thoughts the first time vaultbrain met the model (``measured``). It is the LLM's
  prior, worth as many outcomes as the probe had thoughts of that type (at most
  :data:`MEASURED_WEIGHT`), so the person's own confirmations and corrections outweigh it
  within days. Before a model is measured, the prior is its stated confidence taken with
  salt (0.45–0.65).
- **agreement** (how often the two read a thought alike) is counted for ``trust --summary``
  only. It no longer scores the LLM: agreement with a voter that is itself wrong a fifth of
  the time scores a strong model down for being right where the other is confidently wrong.

Both are plain sums (additive, like the classifier's counts in ``learned.py``): a capture
that changes is taken out with the weight it was put in with, and put in again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vaultbrain.statuses import CaptureStatus

LLM = "llm"
EMBEDDED = "embedded"
NONE = "unknown"  # a voter that filed nothing names this "type"
DECIDED = "decided"  # votes' key for what the pair decided: {"type", "types", "band"}
STOOD = 0.25  # a thought filed alone that nobody corrected, against one the person decided
SURE_ENOUGH = 0.5  # the embedded confidence from which its reading measures the LLM's
PRIOR_WEIGHT = 3.0  # what the prior is worth, in outcomes
EMBEDDED_PRIOR_WEIGHT = 10.0  # the embedded classifier's calibration, in expected rights
TRACK_RECORD = 5.0  # outcomes of a voter and type before it may file alone, unconfirmed
EARN_AFTER = 5.0  # suggestions of a type confirmed unchanged before it may earn auto-filing
MEASURED_WEIGHT = 10.0  # the probe's figure for a type, in outcomes, at most
MEASURED_POOL = 2.0  # what the probe's all-types figure is worth against a type's own


@dataclass(frozen=True)
class Estimate:
    """A voter's precision for one type: the probability that it is right when it names it."""

    p: float
    evidence: float  # outcomes behind it (agreement observations count at their weight)

    def to_dict(self) -> dict[str, float]:
        return {"p": round(self.p, 3), "evidence": round(self.evidence, 2)}


@dataclass
class Reliability:
    """The sums; :meth:`llm` and :meth:`embedded` turn them into estimates."""

    # voter -> type it named -> [weight named, weight right, weight × its confidence]
    outcomes: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    # type the LLM named -> [observations, agreements, sum of the embedded's confidence]
    agreement: dict[str, list[float]] = field(default_factory=dict)
    types: int = 4  # fileable types: the chance that two wrong readings coincide
    # the probe's record of the LLM now in use: type it named -> [named, right] (None: the
    # model is not measured yet)
    measured: dict[str, list[float]] | None = None
    # the person's bar: type the pair suggested -> [confirmed unchanged, corrected or
    # dismissed] (None: nothing yet; kept None-able for learning pickled before it)
    person: dict[str, list[float]] | None = None

    def with_measured(self, measured: dict[str, list[float]] | None) -> Reliability:
        """These sums with the probe's record of the model in use (a new object: the sums are
        shared by every thought of a unit of work)."""
        return Reliability(self.outcomes, self.agreement, self.types, measured, self.person)

    # -- the person's bar --------------------------------------------------------------------
    def bar(self, type_name: str, auto: float) -> str | None:
        """``earned``: the person confirmed this type's suggestions unchanged at least
        :data:`EARN_AFTER` times and the measured precision (confirmed / (all + 1), a
        pessimistic count) reaches ``auto``: it files alone in this vault. ``lost``: they
        corrected it at least twice and the precision is below ``auto``: it never files
        alone, whatever a voter says. None: neither."""
        row = (self.person or {}).get(type_name)
        if not row:
            return None
        confirmed, corrected = max(row[0], 0.0), max(row[1], 0.0)
        p = confirmed / (confirmed + corrected + 1.0)
        if confirmed >= EARN_AFTER and p >= auto:
            return "earned"
        if corrected >= 2 and p < auto:
            return "lost"
        return None

    def person_summary(self, auto: float) -> dict[str, Any]:
        """Per type the pair suggested: confirmed, corrected, and the bar it has."""
        return {
            t: {
                "confirmed": int(r[0]),
                "corrected": int(r[1]),
                "auto_filing": self.bar(t, auto),
            }
            for t, r in sorted((self.person or {}).items())
            if r[0] > 0 or r[1] > 0
        }

    # -- learning ------------------------------------------------------------------------
    def add(self, votes: Any, truth: tuple[str, ...] | None, weight: float, sign: int = 1) -> None:
        """Count one capture's votes (``sign`` -1 takes them out again). ``truth``: the types
        it was filed to, primary first (empty: dismissed, no type), or ``None`` if unknown."""
        if not isinstance(votes, dict):
            return
        said = {v: _said(votes.get(v)) for v in (LLM, EMBEDDED)}
        conf = {v: c for v, (_, c) in said.items()}
        if truth is not None and weight > 0:
            right = truth[0] if truth else NONE
            for voter, (type_name, _) in said.items():
                if type_name is None:
                    continue
                rows = self.outcomes.setdefault(voter, {})
                row = rows.setdefault(type_name, [0.0, 0.0, 0.0])
                row[0] += sign * weight
                row[1] += sign * weight * (type_name == right)
                row[2] += sign * weight * conf[voter]
                if row[0] <= 1e-9:
                    del rows[type_name]
                if not rows:
                    del self.outcomes[voter]
        decided = votes.get(DECIDED)
        if truth is not None and weight >= 1 and isinstance(decided, dict):
            self._count_bar(decided, truth, sign)
        (llm_type, _), (emb_type, emb_conf) = said[LLM], said[EMBEDDED]
        if truth is not None and weight >= 1:
            return  # the person said which type it was: agreement would only guess at it
        if llm_type is not None and emb_type is not None and emb_conf >= SURE_ENOUGH:
            row = self.agreement.setdefault(llm_type, [0.0, 0.0, 0.0])
            row[0] += sign
            row[1] += sign * (llm_type == emb_type)
            row[2] += sign * emb_conf
            if row[0] <= 1e-9:
                del self.agreement[llm_type]

    def _count_bar(self, decided: dict[str, Any], truth: tuple[str, ...], sign: int) -> None:
        """A decision the person took up (confirmed, resolved, corrected, dismissed): confirmed
        unchanged when its types are the ones filed, corrected otherwise."""
        t = decided.get("type")
        if not t or t == NONE:
            return  # (a filing the person corrects counts too: that undoes an earned bar)
        if self.person is None:
            self.person = {}
        row = self.person.setdefault(str(t), [0.0, 0.0])
        types = set(decided.get("types") or (t,))
        unchanged = bool(truth) and truth[0] == t and set(truth) == types
        row[0 if unchanged else 1] += sign
        if row[0] <= 1e-9 and row[1] <= 1e-9:
            del self.person[str(t)]

    # -- estimates -----------------------------------------------------------------------
    def llm(self, type_name: str, stated: float | None) -> Estimate:
        """The LLM's precision for ``type_name``: the probe's measure of the model as the prior
        (:meth:`prior`), then what the person confirmed and corrected on this vault. Before
        the model is measured, what it says of itself is taken with salt (a small model says
        1.0 of keyboard mash): its stated confidence moves the prior only between 0.45 and
        0.65, so a confident embedded reading wins a disagreement until the LLM has shown it
        is right more often."""
        prior, weight = self.prior(type_name, stated)
        num, den = weight * prior, weight
        said, right = self.outcome(LLM, type_name)
        num, den = num + right, den + said
        evidence = den - (PRIOR_WEIGHT if self.measured is None else 0.0)
        return Estimate(num / den, evidence)

    def prior(self, type_name: str, stated: float | None) -> tuple[float, float]:
        """(the LLM's prior precision for ``type_name``, what it is worth in outcomes)."""
        if self.measured:
            named = sum(r[0] for r in self.measured.values())
            right = sum(r[1] for r in self.measured.values())
            overall = (right + 1.0) / (named + 2.0)
            row = self.measured.get(type_name) or [0.0, 0.0]
            p = (row[1] + MEASURED_POOL * overall) / (row[0] + MEASURED_POOL)
            return p, min(row[0] + MEASURED_POOL, MEASURED_WEIGHT)
        return (0.55 if stated is None else 0.45 + 0.2 * stated), PRIOR_WEIGHT

    def embedded(self, type_name: str, calibrated: float) -> Estimate:
        """The embedded classifier's chance of being right on this thought: its calibrated
        probability, scaled by how its readings of ``type_name`` fared on this vault against
        what it expected of them (right 18 times where its confidences summed to 15: ×1.2).
        A per-type precision alone would lift its unsure readings with its sure ones."""
        said, right = self.outcome(EMBEDDED, type_name)
        expected = self._expected(EMBEDDED, type_name)
        scale = (right + EMBEDDED_PRIOR_WEIGHT) / (expected + EMBEDDED_PRIOR_WEIGHT)
        return Estimate(min(calibrated * scale, 0.99), said)

    def _expected(self, voter: str, type_name: str) -> float:
        row = self.outcomes.get(voter, {}).get(type_name)
        return max(row[2], 0.0) if row and len(row) > 2 else 0.0

    def outcome(self, voter: str, type_name: str) -> tuple[float, float]:
        """(weight of the thoughts ``voter`` named ``type_name``, weight of those it was right)."""
        row = self.outcomes.get(voter, {}).get(type_name)
        return (max(row[0], 0.0), max(row[1], 0.0)) if row else (0.0, 0.0)

    # -- the state dir ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "outcomes": self.outcomes,
            "agreement": self.agreement,
            "types": self.types,
            "person": dict(self.person or {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Reliability:
        outcomes = {
            voter: {t: [*row, 0.0][:3] if len(row) < 3 else list(row) for t, row in rows.items()}
            for voter, rows in (d.get("outcomes") or {}).items()
        }
        person = {str(t): list(r) for t, r in (d.get("person") or {}).items()} or None
        return cls(outcomes, dict(d.get("agreement") or {}), d.get("types", 4), None, person)

    def summary(self) -> dict[str, Any]:
        """The figures per voter and type, for ``trust --summary`` and ``doctor``."""
        out: dict[str, Any] = {}
        for voter, rows in sorted(self.outcomes.items()):
            out[voter] = {
                t: {"named": round(r[0], 2), "right": round(r[1], 2)}
                for t, r in sorted(rows.items())
                if r[0] > 0
            }
        n = sum(r[0] for r in self.agreement.values())
        agreed = sum(r[1] for r in self.agreement.values())
        out["agreement"] = {
            "observed": int(n),
            "rate": round(agreed / n, 3) if n else None,
            "llm_precision_from_agreement": round(
                _solve([n, agreed, sum(r[2] for r in self.agreement.values())], self.types), 3
            )
            if n >= 5
            else None,
        }
        return out


def _said(vote: Any) -> tuple[str | None, float]:
    """(type, confidence) of one voter's vote as stored; type None: it did not vote."""
    if not isinstance(vote, dict) or not vote.get("type"):
        return None, 0.0
    conf = vote.get("confidence")
    return str(vote["type"]), float(conf) if isinstance(conf, int | float) else 0.0


def _solve(row: list[float], types: int) -> float:
    """The LLM's precision ``r`` from agreement ``a`` with a voter of mean precision ``q``:
    ``a = r·q + (1-r)(1-q)/(K-1)``, K the types plus "none"."""
    n, agreed, q_sum = row
    if n <= 0:
        return 0.5
    a, q = agreed / n, min(max(q_sum / n, 0.5), 0.99)
    chance = (1 - q) / max(types, 1)
    r = (a - chance) / max(q - chance, 1e-6)
    return min(max(r, 0.02), 0.98)


def vote_evidence(record: dict[str, Any]) -> tuple[Any, tuple[str, ...] | None, float] | None:
    """What a capture's votes say, as :meth:`Reliability.add` takes it: (votes, the types it
    was filed to or None while undecided, the weight of that). A suggestion or a review says
    only whether the two agreed; what the person confirmed, resolved, corrected or dismissed
    says which type it was; a thought filed alone that stood says so more quietly."""
    votes = record.get("votes")
    if not isinstance(votes, dict):
        return None
    status = CaptureStatus.of(record.get("status"))
    types = tuple(
        str(d["type"])
        for d in record.get("destinations") or []
        if isinstance(d, dict) and d.get("type")
    )
    if status is CaptureStatus.DISMISSED:
        return votes, (), 1.0
    if status is CaptureStatus.CORRECTED and types:
        return votes, types, 1.0
    if status is CaptureStatus.FILED and types:
        by_person = record.get("confirmed_at") or record.get("resolved_by")
        return votes, types, 1.0 if by_person else STOOD
    return votes, None, 0.0
