from __future__ import annotations

import pytest

from vaultbrain.vault.names import sanitize_filename, unique_name


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Sarah", "Sarah"),
        ("New project", "New project"),
        ("Q4: plan / budget", "Q4- plan - budget"),
        ('a\\b/c:d*e?f"g<h>i|j#k^l[m]n%o', "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o"),
        ("../../etc/passwd", "etc-passwd"),
        ("...hidden", "hidden"),
        ("  spaced   out  ", "spaced out"),
        ("trailing dot.", "trailing dot"),
        ("tab\there\x00nul\x1fctl", "tab here-nul-ctl"),
        ("CON", "CON_"),
        ("nul", "nul_"),
        ("com1", "com1_"),
        ("", "Untitled"),
        ("///", "Untitled"),
        ("Café ☕ 🎉", "Café ☕ 🎉"),
        ("\u202eevil\u202c name", "evil name"),
        ("שלום עולם", "שלום עולם"),
    ],
)
def test_sanitize_table(title: str, expected: str) -> None:
    assert sanitize_filename(title) == expected


def test_long_names_are_cut_to_120_chars_and_240_bytes() -> None:
    assert len(sanitize_filename("x" * 500)) == 120
    emoji = sanitize_filename("🎉" * 200)
    assert len(emoji.encode()) <= 240
    assert set(emoji) == {"🎉"}
    assert len((emoji + " (99).md").encode()) <= 255


def test_unique_name_counts_up() -> None:
    taken = {"Sarah.md", "Sarah (2).md"}
    assert unique_name("Sarah", taken.__contains__) == "Sarah (3).md"
    assert unique_name("Bob", taken.__contains__) == "Bob.md"
