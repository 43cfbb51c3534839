"""The second opinion: disagreement on the primary type lowers auto to suggest, and is counted."""

from __future__ import annotations

import pytest

from vaultbrain.classify.result import Band, Classification, Destination
from vaultbrain.classify.second_opinion import AUDIT_KEY, agreement, second_opinion


def c(*types: str, conf: float = 0.7) -> Classification:
    return Classification([Destination(t, t.title(), {}) for t in types], conf, "", "x")


@pytest.mark.parametrize(
    ("llm", "emb", "band", "agree", "final"),
    [
        (c("person", "admin"), c("person"), Band.AUTO, True, Band.AUTO),
        (c("project"), c("idea", "project"), Band.AUTO, False, Band.SUGGEST),
        (c("project"), c("idea"), Band.SUGGEST, False, Band.SUGGEST),
        (c("project"), c("idea", conf=0.5), Band.AUTO, False, Band.AUTO),  # unsure: no veto
        (c("project"), c("idea"), Band.REVIEW, False, Band.REVIEW),
        (c("project"), c("unknown", conf=0.2), Band.AUTO, None, Band.AUTO),
        (c("unknown"), c("idea"), Band.REVIEW, None, Band.REVIEW),
        (c(), c("idea"), Band.REVIEW, None, Band.REVIEW),
    ],
)
def test_the_band_is_lowered_one_step_only_on_disagreement(
    llm: Classification, emb: Classification, band: Band, agree: bool | None, final: Band
) -> None:
    op = second_opinion(llm, emb, band)
    assert (op.agree, op.band) == (agree, final)
    assert op.audit["agree"] is agree
    assert op.audit["lowered_to"] == ("suggest" if final is not band else None)
    assert ("note" in op.audit) is (final is not band)


def test_the_agreement_rate_counts_only_compared_classifications() -> None:
    entries = [
        {
            "kind": "classification",
            AUDIT_KEY: second_opinion(c("idea"), c("idea"), Band.AUTO).audit,
        },
        {
            "kind": "classification",
            AUDIT_KEY: second_opinion(c("idea"), c("admin"), Band.AUTO).audit,
        },
        {
            "kind": "classification",
            AUDIT_KEY: second_opinion(c("idea"), c("admin"), Band.SUGGEST).audit,
        },
        {
            "kind": "classification",
            AUDIT_KEY: second_opinion(c("idea"), c("unknown"), Band.AUTO).audit,
        },
        {"kind": "classification"},
    ]
    assert agreement(entries) == {
        "compared": 3,
        "agreed": 1,
        "lowered": 1,
        "agreement_rate": 0.333,
    }
    assert agreement([])["agreement_rate"] is None
