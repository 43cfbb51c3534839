"""Record ids (vaultbrain/filing/records.py): drawn from os.urandom as ``secrets.choice`` would
draw them, a lower-case letter then lower-case letters and digits, each character uniform."""

from __future__ import annotations

import re
import string
from collections import Counter

from vaultbrain.ids import _choices, new_id


def test_ids_have_the_length_asked_and_start_with_a_letter() -> None:
    for n in (1, 6, 10, 40):
        ids = {new_id(n) for _ in range(200)}
        assert all(re.fullmatch(rf"[a-z][a-z0-9]{{{n - 1}}}", i) for i in ids)
    assert len({new_id() for _ in range(1000)}) == 1000
    assert _choices(string.digits, 0) == ""


def test_every_character_is_as_likely_as_any_other() -> None:
    # 36 does not divide 256: without the redraw, the first 4 characters would come up 8/7 as
    # often as the rest (4500 times against 3940 here; one standard deviation is about 63).
    alphabet = string.ascii_lowercase + string.digits
    counts = Counter(_choices(alphabet, 144_000))
    assert set(counts) == set(alphabet)
    assert all(3700 < counts[c] < 4300 for c in alphabet)
    first = Counter(new_id(1) for _ in range(5200))
    assert set(first) == set(string.ascii_lowercase)
