"""The shipped corpus: big enough, labelled with the default pack's types, a stable dev split."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vaultbrain.classify.corpus import (
    LETTERS,
    corpus_path,
    is_dev,
    load_corpus,
    parse_line,
    split,
)
from vaultbrain.packs import load_pack


def test_the_corpus_has_enough_labelled_thoughts_for_the_default_types() -> None:
    examples = load_corpus("vaultbrain-base")
    assert len(examples) >= 1500
    types = {t.name for t in load_pack("vaultbrain-base").fileable_types()}
    assert set(LETTERS.values()) <= types
    for ex in examples:
        assert set(ex.labels) <= types, ex
        assert len(set(ex.labels)) == len(ex.labels), ex
    assert len({ex.text for ex in examples}) == len(examples), "no thought twice"
    # every type is a primary type often, and several languages are there
    firsts = [ex.labels[0] for ex in examples if ex.labels]
    assert all(firsts.count(t) >= 200 for t in LETTERS.values())
    text = " ".join(ex.text for ex in examples)
    for word in ("anrufen", "rendez-vous", "mañana", "tmrw", "re:"):
        assert word in text


def test_the_dev_split_is_a_fifth_and_depends_on_the_text_alone() -> None:
    examples = load_corpus("vaultbrain-base")
    train, dev = split(examples)
    assert len(train) + len(dev) == len(examples)
    assert 0.15 < len(dev) / len(examples) < 0.25
    assert all(is_dev(ex.text) for ex in dev) and not any(is_dev(ex.text) for ex in train)
    assert split(list(reversed(examples)))[1] == list(reversed(dev))


def test_a_line_gives_its_labels_primary_first_and_its_people() -> None:
    ex = parse_line("pa | call {Liam O'Brien} and {priya} tmrw\n")
    assert ex is not None
    assert ex.labels == ("person", "admin")
    assert ex.text == "call Liam O'Brien and priya tmrw"
    assert ex.people == ("Liam O'Brien", "priya")
    assert parse_line("x | the sky is blue").labels == ()
    assert parse_line("# a comment") is None and parse_line("no separator") is None


def test_a_pack_without_a_corpus_has_none() -> None:
    assert corpus_path("vaultbrain-base") is not None
    assert corpus_path("no-such-pack") is None
    assert load_corpus("no-such-pack") == []


def test_the_second_dev_set_is_never_trained_on() -> None:
    """bench/data/classifier-dev2.txt is held out: none of its thoughts is in the corpus the
    model learns from, and the training loader reads only corpus/."""
    dev2 = Path(__file__).resolve().parents[2] / "bench" / "data" / "classifier-dev2.txt"
    with open(dev2, encoding="utf-8") as fh:
        held_out = [ex for ex in map(parse_line, fh) if ex is not None]
    assert len(held_out) >= 150
    corpus = load_corpus("vaultbrain-base")
    seen = {" ".join(ex.text.lower().split()) for ex in corpus}
    assert not [ex.text for ex in held_out if " ".join(ex.text.lower().split()) in seen]
    assert corpus_path("vaultbrain-base").parent.name == "corpus"
    # every voice of the issue is there, and every type as the first one
    firsts = [ex.labels[0] if ex.labels else "x" for ex in held_out]
    assert all(firsts.count(t) >= 15 for t in ("person", "project", "idea", "admin"))
    assert firsts.count("x") >= 5
    text = " ".join(ex.text for ex in held_out)
    for word in ("nächsten", "rdv", "martes", "sábado", "https://", "£", "van der", "O'"):
        assert word in text


def test_the_third_dev_set_is_never_trained_on_and_has_every_voice() -> None:
    """bench/data/classifier-dev3.txt is held out as the second is: no thought of it is in the
    corpus, and it has the voices of issue 42 and lines that are no thought at all."""
    dev3 = Path(__file__).resolve().parents[2] / "bench" / "data" / "classifier-dev3.txt"
    with open(dev3, encoding="utf-8") as fh:
        lines = fh.readlines()
    held_out = [ex for ex in map(parse_line, lines) if ex is not None]
    assert len(held_out) >= 150
    seen = {" ".join(ex.text.lower().split()) for ex in load_corpus("vaultbrain-base")}
    dev2 = Path(__file__).resolve().parents[2] / "bench" / "data" / "classifier-dev2.txt"
    with open(dev2, encoding="utf-8") as fh:
        seen |= {" ".join(ex.text.lower().split()) for ex in map(parse_line, fh) if ex}
    assert not [ex.text for ex in held_out if " ".join(ex.text.lower().split()) in seen]
    firsts = [ex.labels[0] if ex.labels else "x" for ex in held_out]
    assert all(firsts.count(t) >= 15 for t in ("person", "project", "idea", "admin"))
    sections = {line[4:].split(",")[0].strip() for line in lines if line.startswith("# -- ")}
    for voice in ("dictation", "phone shorthand", "nursing", "mechanic", "developer"):
        assert voice in sections
    for language in ("Dutch with English", "Polish with English", "Italian with English"):
        assert language in sections
    assert {"Obsidian syntax", "names that are words"} <= sections
    assert sum(1 for s in sections if s.startswith("noise")) >= 3
    text = " ".join(ex.text for ex in held_out)
    for mark in ("[[", "📅", "- [ ]", "#project", "Traceback", "lorem ipsum"):
        assert mark in text


def test_the_fourth_dev_set_is_held_out_from_the_corpus_and_the_other_sets() -> None:
    """bench/data/classifier-dev4.txt, written before the judge round changed the classifier,
    guards against fitting the third set: no thought of it is in the corpus or the other dev
    sets, and it has every voice of issue 42 (a lawyer's and German and Spanish too)."""
    data = Path(__file__).resolve().parents[2] / "bench" / "data"
    with open(data / "classifier-dev4.txt", encoding="utf-8") as fh:
        lines = fh.readlines()
    held_out = [ex for ex in map(parse_line, lines) if ex is not None]
    assert len(held_out) >= 120
    seen = {" ".join(ex.text.lower().split()) for ex in load_corpus("vaultbrain-base")}
    for other in ("classifier-dev2.txt", "classifier-dev3.txt"):
        with open(data / other, encoding="utf-8") as fh:
            seen |= {" ".join(ex.text.lower().split()) for ex in map(parse_line, fh) if ex}
    assert not [ex.text for ex in held_out if " ".join(ex.text.lower().split()) in seen]
    firsts = [ex.labels[0] if ex.labels else "x" for ex in held_out]
    assert all(firsts.count(t) >= 15 for t in ("person", "project", "idea", "admin"))
    sections = {line[4:].split(",")[0].strip() for line in lines if line.startswith("# -- ")}
    for voice in ("dictation", "phone shorthand", "nursing", "shop owner", "lawyer", "developer"):
        assert voice in sections
    for language in ("German", "Spanish", "Dutch", "Polish", "Italian"):
        assert f"{language} with English" in sections
    assert {"Obsidian syntax", "names that are words", "full names"} <= sections
    assert sum(1 for s in sections if s.startswith("noise")) >= 4


def _headings(lines: list[str], short: bool = False) -> set[str]:
    """The section names of a dev set (``# -- name``), lowercased; with ``short``, the corpus's
    sub-headings (a short ``# name`` line) too."""
    names = set()
    for line in lines:
        if line.startswith("# -- "):
            names.add(line[5:].strip().lower())
        elif short and line.startswith("# ") and len(line) < 60:
            names.add(line[2:].strip().lower())
    return names


def _blind_set(n: int) -> tuple[list[Any], list[Any]]:
    """bench/data/classifier-dev{n}.txt checked as a set written blind: at least 150 thoughts,
    none in the corpus, the probe or an earlier dev set, none twice; each type first at least
    15 times; six voices no other set has; at least 15 noise lines that name no one and hold
    no bare URL. Its thoughts and its noise lines."""
    root = Path(__file__).resolve().parents[2]
    data = root / "bench" / "data"
    with open(data / f"classifier-dev{n}.txt", encoding="utf-8") as fh:
        lines = fh.readlines()
    held_out = [ex for ex in map(parse_line, lines) if ex is not None]
    assert len(held_out) >= 150
    seen = {" ".join(ex.text.lower().split()) for ex in load_corpus("vaultbrain-base")}
    others = [data / f"classifier-dev{k}.txt" for k in range(2, n)]
    other_headings = set()
    for other in [*others, root / "corpus" / "vaultbrain-base.txt", root / "corpus" / "probe.txt"]:
        with open(other, encoding="utf-8") as fh:
            other_lines = fh.readlines()
        seen |= {" ".join(ex.text.lower().split()) for ex in map(parse_line, other_lines) if ex}
        other_headings |= _headings(other_lines, short=True)
    texts = [" ".join(ex.text.lower().split()) for ex in held_out]
    assert not [t for t in texts if t in seen]
    assert len(set(texts)) == len(texts), "no thought twice"
    firsts = [ex.labels[0] if ex.labels else "x" for ex in held_out]
    assert all(firsts.count(t) >= 15 for t in ("person", "project", "idea", "admin"))
    voices = {h for h in _headings(lines) if not h.startswith("noise")}
    assert len(voices - other_headings) >= 6, voices & other_headings
    section, noise = "", []
    for line in lines:
        if line.startswith("# -- "):
            section = line[5:].strip().lower()
        elif section.startswith("noise") and (ex := parse_line(line)) is not None:
            noise.append(ex)
    assert len(noise) >= 15
    assert all(not ex.labels and not ex.people for ex in noise)
    assert not [ex.text for ex in noise if ex.text.startswith(("http://", "https://"))]
    return held_out, noise


def test_the_sixth_dev_set_is_held_out_and_in_voices_no_other_set_has() -> None:
    """bench/data/classifier-dev6.txt, written blind while the sixth round tuned on the fourth
    and fifth sets: no thought of it is in the corpus, the probe or another dev set; at least
    six of its voices are headings of no other set; its noise names no one and holds no bare
    URL (a bare URL is a Links record, not noise)."""
    held_out, _ = _blind_set(6)
    text = " ".join(ex.text for ex in held_out)
    for mark in ("dinnae", "ptal", "Tito", "sensei", "McDonald's", "goroutine"):
        assert mark in text


def test_the_seventh_dev_set_is_held_out_and_in_voices_no_other_set_has() -> None:
    """bench/data/classifier-dev7.txt, written blind while the seventh round tuned on the
    fourth to sixth sets: no thought of it is in the corpus, the probe or another dev set; at
    least six of its voices are headings of no other set; its noise names no one, holds no
    bare URL and has the kinds no earlier set had (crontab, Dockerfile, LaTeX, an OTP text)."""
    held_out, noise = _blind_set(7)
    noise_text = " ".join(ex.text for ex in noise)
    for mark in ("/usr/local/bin/backup.sh", "RUN apt-get", "\\hline", "verification code"):
        assert mark in noise_text
    text = " ".join(ex.text for ex in held_out)
    for mark in (
        "so yeah",
        "arvo",
        "abeg",
        "preponed",
        "Tanaka-san",
        "Tết",
        "María José Fernández",
    ):
        assert mark in text


def test_the_eighth_dev_set_is_held_out_and_in_voices_no_other_set_has() -> None:
    """bench/data/classifier-dev8.txt, written blind while the classifier was tuned on the
    fourth to seventh sets: no thought of it is in the corpus, the probe or another dev set; at
    least six of its voices are headings of no other set; its noise names no one, holds no bare
    URL and has the kinds no earlier set had (a spreadsheet formula, a REPL line, a quoted reply,
    an auto-reply, a MIME boundary, a SMART template, a test-runner failure)."""
    held_out, noise = _blind_set(8)
    noise_text = " ".join(ex.text for ex in noise)
    for mark in (
        "=VLOOKUP(",
        ">>> ",
        "> On ",
        "out of the office",
        "------=_Part",
        "FAILED tests/",
    ):
        assert mark in noise_text
    text = " ".join(ex.text for ex in held_out)
    for mark in ("lah", "haffi", "braai", "gezellig", "nonna", "D'Souza", "de la cruz", "oppa"):
        assert mark in text
    people = {name for ex in held_out for name in ex.people}
    for name in ("Kim Min-jun", "Tanaka Hiroshi", "Mrs van der Berg", "J. Okafor", "Sully"):
        assert name in people


def test_the_ninth_dev_set_is_held_out_and_in_voices_no_other_set_has() -> None:
    """bench/data/classifier-dev9.txt, written blind while the classifier was tuned on the
    second to eighth sets: no thought of it is in the corpus, the probe or another dev set; at
    least six of its voices are headings of no other set; its noise names no one, holds no bare
    URL and has the kinds no earlier set had (a kubectl row, a Terraform plan, a pytest summary,
    an Excel error, a vCard, a subtitle timing line, a prompt injection)."""
    held_out, noise = _blind_set(9)
    noise_text = " ".join(ex.text for ex in noise)
    for mark in (
        "Running",
        "Plan: 3 to add",
        "passed",
        "#REF!",
        "BEGIN:VCARD",
        " --> ",
        "ignore previous instructions",
    ):
        assert mark in noise_text
    text = " ".join(ex.text for ex in held_out)
    for mark in ("→ tmrw", "full stop", "órale", "kvetch", "babushka", "laoshi", "doh forget"):
        assert mark in text
    people = {name for ex in held_out for name in ex.people}
    for name in ("Siti binti Rahman", "J.R. Okoye", "Raj K.", "Prof. Ní Bhriain", "chase"):
        assert name in people
