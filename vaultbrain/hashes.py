"""SHA-256, SHA-1 and BLAKE2b, as :mod:`hashlib` gives them, without loading OpenSSL.

``import hashlib`` loads ``_hashlib``, OpenSSL's binding: some 2.5 ms of a cold `vaultbrain
capture`, which hashes a few notes' text. CPython builds these three into the interpreter
(``_sha2``, or ``_sha256`` before 3.12; ``_sha1``; ``_blake2``, which hashlib's own blake2b
is): the same digests, from modules that load in microseconds. A Python built without them
takes hashlib's. A leaf module: it imports nothing of vaultbrain's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["blake2b", "sha1", "sha256"]

sha256: Callable[..., Any]
sha1: Callable[..., Any]
blake2b: Callable[..., Any]

try:
    from _sha2 import sha256  # type: ignore[import-not-found,no-redef]  # (3.12 and later)
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,no-redef]  # (3.11)
    except ImportError:
        from hashlib import sha256  # type: ignore[no-redef]
try:
    from _sha1 import sha1  # type: ignore[import-not-found,no-redef]
except ImportError:
    from hashlib import sha1  # type: ignore[no-redef]
try:
    from _blake2 import blake2b  # type: ignore[import-not-found,no-redef]
except ImportError:
    from hashlib import blake2b  # type: ignore[no-redef]
