"""The shipped word lists are searched in their bytes (namewords.SortedWords): every word of a
list is found, and nothing else is, whatever the list."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vaultbrain.classify.namewords import SortedWords
from vaultbrain.resources import data_dir

WORD = st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=8)


def _listed(words: set[str], header: str = "") -> SortedWords:
    lines = sorted(w.encode("utf-8") for w in words)
    return SortedWords(header.encode() + b"".join(line + b"\n" for line in lines))


@given(st.sets(WORD.filter(lambda w: w and not w.startswith("#")), max_size=40), WORD)
def test_a_word_is_found_exactly_when_it_is_listed(words: set[str], probe: str) -> None:
    found = _listed(words, "# a header\n# another\n")
    assert len(found) == len(words)
    assert all(w in found for w in words)
    assert (probe in found) == (probe in words)


def test_every_word_of_a_shipped_list_is_found_and_its_neighbours_are_not() -> None:
    data = (data_dir("corpus") / "given-names.txt").read_bytes()
    listed = [ln.decode() for ln in data.split(b"\n") if ln and not ln.startswith(b"#")]
    names, known = SortedWords(data), set(listed)
    assert len(names) == len(listed)
    assert all(word in names for word in listed)
    near = {w + "q" for w in listed[::50]} | {w[:-1] for w in listed[::50]} | {"a" + listed[0]}
    assert all((w in names) == (w in known) for w in near)
    assert "" not in names and "x\ny" not in names and None not in names


def test_an_empty_list_holds_nothing() -> None:
    assert len(SortedWords(b"")) == 0 and "a" not in SortedWords(b"")
    assert len(SortedWords(b"# only a header\n")) == 0
