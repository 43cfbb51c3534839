"""How many examples the embedded classifier needs to learn a person's own way of writing,
for ``bench_classifier.py``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

# A person's own ways of writing that the corpus reads as another type: what they file as a
# project looks like a task, their tasks look like ideas, their ideas like plans, and their
# notes on people are telegraphic. The first five of each are taught, the last five tested.
FAMILIES = {
    "project": [
        "wip: paint the fence",
        "wip: sort the loft",
        "wip: fix the bike gears",
        "wip: clear the garage",
        "wip: tile the splashback",
        "wip: build the bird box",
        "wip: plant the hedge",
        "wip: frame the prints",
        "wip: reupholster the chair",
        "wip: make the kids a den",
    ],
    "admin": [
        "maybe book the dentist",
        "maybe renew the passport",
        "maybe pay the window cleaner",
        "maybe cancel the magazine",
        "maybe call the bank",
        "maybe order more printer ink",
        "maybe return the library books",
        "maybe book the vet",
        "maybe top up the electric",
        "maybe post the birthday card",
    ],
    "idea": [
        "someday: learn welsh",
        "someday: walk the camino",
        "someday: build a boat",
        "someday: open a tiny bookshop",
        "someday: run a supper club",
        "someday: keep chickens",
        "someday: write a cookbook",
        "someday: cycle to rome",
        "someday: a pottery wheel in the shed",
        "someday: teach the kids to sail",
    ],
    "person": [
        "tomasz vegetarian now",
        "ines porto move in spring",
        "rufus new number ends 221",
        "nkem nut allergy",
        "bo bakery job from monday",
        "hal hates surprises",
        "wren scholarship yes",
        "dev back from lisbon",
        "cass twins due may",
        "otto retiring june",
    ],
}


def learning_curve(
    work: Path, pack: Any, emb: Any, today: dt.date, minimum: float
) -> dict[str, list[float]]:
    """Per family: the share of its five test thoughts filed as its type after 0, 1, 2, 3
    and 5 of its other thoughts were corrected to it (as the person's corrected captures)."""
    from vaultbrain.classify import adapt
    from vaultbrain.classify.embedded import classify_embedded
    from vaultbrain.filing.corrections import record_correction
    from vaultbrain.store import Store

    curve: dict[str, list[float]] = {t: [] for t in FAMILIES}
    for k in (0, 1, 2, 3, 5):
        store = Store(work / f"voices-{k}")
        n = 0
        for t, family in FAMILIES.items():
            for text in family[:k]:
                got = classify_embedded(text, today, None, 0.79, emb, pack).destinations[0].type
                at = f"2026-11-02T10:{n:02d}:00"
                n += 1
                dest = {"type": t, "title": t, "path": f"x/{n}.md"}
                store.inbox.put(
                    {
                        "id": f"c{n}",
                        "text": text,
                        "status": "corrected",
                        "updated": at,
                        "destinations": [dest],
                    }
                )
                if got != t:
                    record_correction(store, text, got, t, at)
        learning = adapt.vault_learning(store, pack, save=False)
        taught = emb.with_vault(learning.counts, learning.names)
        for t, family in FAMILIES.items():
            right = 0
            for text in family[5:]:
                c = classify_embedded(text, today, None, 0.79, taught, pack)
                right += c.confidence >= minimum and c.destinations[0].type == t
            curve[t].append(right / 5)
    return curve
