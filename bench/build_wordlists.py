"""Build the word lists the person finder reads (``vaultbrain/classify/namewords.py``), shipped
under ``corpus/``. Run by hand when the sources change; nothing is downloaded at run time.

- ``corpus/given-names.txt``: given names of 80-odd locales (Faker's person providers, MIT
  licence), romanised where the locale has a romanised list, lowercased; words only.
- ``corpus/surnames.txt``: surnames from the same providers.
- ``corpus/everyday-words-en.txt`` (Zipf >= 4), ``corpus/common-words-en.txt`` (Zipf >= 3),
  ``corpus/rare-words-en.txt`` (2.5 <= Zipf < 3: "cellist", but also "suki", "seb": a word
  only where nothing says a person is meant) and ``corpus/common-words.txt`` (the other
  languages, less
  the English words): the words people write most in the languages thoughts come in
  (wordfreq's lists: its code is Apache-2.0, its data CC-BY-SA 4.0, so this file is shared
  under CC-BY-SA 4.0 with that attribution, as its header says). A given name that is also a
  frequent word ("will", "mark", "grace") is kept here *and* in the given names: a name only
  with context.

    pip install faker wordfreq && python bench/build_wordlists.py
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
# the corpus's and the dev sets' languages, and their neighbours
LANGUAGES = ("en", "de", "fr", "es", "pt", "it", "nl", "pl", "sv", "da", "nb", "tr", "cs", "ro")
ZIPF = 3.0  # once per million words or more often
PER_LANGUAGE = 12_000
# English, the language most thoughts are in, deeper: words down to one in three million
# ("cellist", "leasehold"), less the given names
ENGLISH_ZIPF = 2.5
ENGLISH_WORDS = 60_000
# the everyday tier: a given name among these is a word first ("will", "love", "john")
EVERYDAY_ZIPF = 4.0
_WORD = re.compile(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*$")


def _latin(word: str) -> bool:
    return bool(_WORD.match(word)) and all(
        c in "'’-" or c.isascii() or "\u00c0" <= c <= "\u024f" or "\u1e00" <= c <= "\u1eff"
        for c in word
    )


def faker_names() -> tuple[set[str], set[str]]:
    import faker.providers.person as person

    given: set[str] = set()
    surnames: set[str] = set()
    for mod in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{mod.name}").Provider
        for attr, into in (
            ("first_names", given),
            ("first_names_male", given),
            ("first_names_female", given),
            ("first_romanized_names", given),
            ("first_names_male_romanized", given),
            ("first_names_female_romanized", given),
            ("last_names", surnames),
            ("last_romanized_names", surnames),
            ("last_names_romanized", surnames),
        ):
            values = getattr(provider, attr, ())
            if isinstance(values, dict):  # weighted: {name: weight}
                values = values.keys()
            if not isinstance(values, (list, tuple, set, frozenset, type({}.keys()))):
                continue  # a computed property, not a list
            for v in values:
                low = str(v).strip().lower()
                if _latin(low) and len(low) > 1:  # one word: "Maria del Carmen" gives no "del"
                    into.add(low)
    return given, surnames


def frequent_words(
    languages: tuple[str, ...], n: int = PER_LANGUAGE, zipf: float = ZIPF
) -> set[str]:
    from wordfreq import top_n_list, zipf_frequency

    out: set[str] = set()
    for lang in languages:
        for w in top_n_list(lang, n):
            if _latin(w) and zipf_frequency(w, lang) >= zipf:
                out.add(w)
    return out


def write(path: Path, header: str, words: set[str]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for line in header.strip().splitlines():
            fh.write(f"# {line}\n")
        fh.write("\n".join(sorted(words)) + "\n")
    print(f"{path.name}: {len(words):,} words, {path.stat().st_size / 1024:.0f} KiB")


def main() -> None:
    given, surnames = faker_names()
    english = frequent_words(("en",), ENGLISH_WORDS, ZIPF)
    rare = frequent_words(("en",), ENGLISH_WORDS, ENGLISH_ZIPF) - english
    everyday = frequent_words(("en",), ENGLISH_WORDS, EVERYDAY_ZIPF)
    words = frequent_words(LANGUAGES[1:]) - english
    fv = importlib.metadata.version("faker")
    wv = importlib.metadata.version("wordfreq")
    made = "Made by bench/build_wordlists.py; one lowercase word a line."
    write(
        CORPUS / "given-names.txt",
        f"Given names, from Faker {fv}'s person providers (all locales), MIT licence,\n"
        f"(c) joke2k and the Faker contributors. {made}",
        given,
    )
    write(
        CORPUS / "surnames.txt",
        f"Surnames, from Faker {fv}'s person providers (all locales), MIT licence,\n"
        f"(c) joke2k and the Faker contributors. {made}",
        surnames,
    )
    for name, langs, found, zipf, n in (
        ("everyday-words-en", ("en",), everyday, EVERYDAY_ZIPF, ENGLISH_WORDS),
        ("common-words-en", ("en",), english, ZIPF, ENGLISH_WORDS),
        ("rare-words-en", ("en",), rare, ENGLISH_ZIPF, ENGLISH_WORDS),
        ("common-words", LANGUAGES[1:], words, ZIPF, PER_LANGUAGE),
    ):
        write(
            CORPUS / f"{name}.txt",
            f"Words written at least {10 ** (zipf - 3):.2g} times per million (Zipf >= {zipf}) among"
            f"\nthe {n:,} most frequent of each of: {', '.join(langs)}"
            + (f" (less those at Zipf >= {ZIPF})" if name == "rare-words-en" else "")
            + (" (less the English ones)" if name == "common-words" else "")
            + f".\nFrom wordfreq {wv} (Robyn Speer, https://github.com/rspeer/wordfreq),"
            " whose data\nis licensed CC-BY-SA 4.0: this file is shared under CC-BY-SA 4.0"
            " too.\n" + made,
            found,
        )


if __name__ == "__main__":
    main()
