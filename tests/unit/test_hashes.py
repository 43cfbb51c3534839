"""vaultbrain/hashes.py: the interpreter's own SHA-256, SHA-1 and BLAKE2b give the digests
hashlib gives (the store's content hashes, kept since before, must not change)."""

from __future__ import annotations

import hashlib

from vaultbrain import hashes

TEXTS = [b"", b"abc", "Met Sarah about the kiln → café".encode(), bytes(range(256)) * 300]


def test_the_same_digests_as_hashlib() -> None:
    for data in TEXTS:
        assert hashes.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        assert hashes.sha256(memoryview(data)).digest() == hashlib.sha256(data).digest()
        assert hashes.sha1(data).digest() == hashlib.sha1(data).digest()
        small, big = hashes.blake2b(data, digest_size=16), hashlib.blake2b(data, digest_size=16)
        assert small.hexdigest() == big.hexdigest()


def test_fed_in_parts_as_hashlib_is() -> None:
    ours, theirs = hashes.sha256(), hashlib.sha256()
    mixed, ref = hashes.blake2b(digest_size=16), hashlib.blake2b(digest_size=16)
    for data in TEXTS:
        ours.update(data)
        theirs.update(data)
        mixed.update(data)
        ref.update(data)
    assert ours.hexdigest() == theirs.hexdigest()
    assert mixed.hexdigest() == ref.hexdigest()
    assert ours.copy().hexdigest() == theirs.hexdigest()
