"""New ids, drawn from the OS's random source: records' and captures'. A leaf, so that
`vaultbrain capture` can choose its capture's id before it asks the daemon
(vaultbrain/daemon/door.py) without loading the filing code."""

from __future__ import annotations

import os
import string

LETTERS = string.ascii_lowercase
ALPHABET = string.ascii_lowercase + string.digits


def new_id(n: int = 10) -> str:
    """A letter, then ``n - 1`` letters or digits."""
    return _choices(LETTERS, 1) + _choices(ALPHABET, n - 1)


def _choices(alphabet: str, n: int) -> str:
    """``n`` characters drawn from ``alphabet`` as ``secrets.choice`` draws them: each
    uniform, independent, from the OS's random source. (Importing ``secrets`` costs a cold
    capture base64, hmac and random.) A byte at or above the largest multiple of the
    alphabet's size is drawn again, so that ``byte % size`` favours no character."""
    size = len(alphabet)
    limit = 256 - 256 % size
    drawn: list[str] = []
    while len(drawn) < n:
        drawn += [alphabet[b % size] for b in os.urandom(n - len(drawn) + 2) if b < limit]
    return "".join(drawn[:n])
