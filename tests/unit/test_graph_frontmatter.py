"""The graph's fast frontmatter reader (vaultbrain/graph/extract.py, simple_frontmatter): on
every block it accepts, exactly what PyYAML's safe loader reads; everything else is left to
YAML. A table of edges, then many random blocks built from tricky pieces."""

from __future__ import annotations

import random

import pytest
import yaml

from vaultbrain.graph.extract import _quick_parse, simple_frontmatter

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml(block: str) -> object:
    return yaml.load(block, Loader=LOADER)


@pytest.mark.parametrize(
    ("block", "read"),
    [
        ("type: person\nname: Ada Adeyemi 1148", True),
        ("contact: ada@example.com\nscore: 12\nzero: 0\nneg: -3", True),
        ("last_interaction: 2025-01-30\ncreated: 2025-01-30T20:56:00", True),
        ("topics:\n  - roadmap\n  - hiring\nnext: x", True),
        ("topics:\n- roadmap\n- 2025-01-02", True),  # an indentless list
        ('attendees:\n  - "[[People/Sarah|Sarah]]"', True),
        ("empty:\nafter: 1", True),
        ("quoted: 'it is'\nblank: ''\nagain: \"\"", True),
        ("title: Tom's café, Zoë", True),
        ("title: No way", True),
        ("key:   spaced value   ", True),
        ("a: 1\na: 2", True),  # the last one wins, as in YAML
        ("flag: yes", False),  # a YAML 1.1 boolean
        ("flag: Off", False),
        ("nothing: null", False),
        ("on: 1", False),  # a boolean key
        ("octal: 012", False),
        ("float: 1.5", False),
        ("under: 1_000", False),
        ("url: https://example.com", False),
        ("note: text # comment", False),
        ("links: [[People/Ann]]", False),  # a flow list in YAML
        ("list: [a, b]", False),
        ("multi: |\n  two\n  lines", False),
        ("wrapped: some text\n  continued", False),
        ("nested:\n  inner: 1", False),
        ("anchor: &a x", False),
        ("tabbed:\tx", False),
        ("bad: 2025-02-30", False),
        ("zone: 2025-01-30T20:56:00Z", False),
        ('escape: "a\\nb"', False),
        ("quote: 'it''s'", False),
        ("# a comment\nk: v", False),
        ("k: v\n\nj: w", False),
        ("", False),
        ("items:\n  - a\n    - b", False),
        ("items:\n  -", False),
        ("k:v", False),
    ],
)
def test_simple_frontmatter_reads_only_what_it_reads_exactly(block: str, read: bool) -> None:
    got = simple_frontmatter(block)
    assert (got is not None) is read
    if got is not None:
        want = _yaml(block)
        assert repr(got) == repr(want)  # repr: True is not 1, a date not a datetime


PIECES = [
    "x", "Ada", "yes", "No", "null", "~", "0", "07", "12", "-4", "1.5", "1e3", "2025-01-30",
    "2025-1-3", "2025-01-30T20:56:00", "2025-01-30 20:56:00", "2025-02-30", "'q'", '"q"',
    "'it''s'", '"a\\tb"', "a: b", "a:b", "a #c", "a#c", "[a]", "{a: 1}", "&x", "*x", "!t",
    "|", ">", "@x", "`x", "%x", "a, b", "Zoë", ".inf", ".nan", "=", "<<", "true", "False",
    "on", "OFF", "y", "n", "-", "- x", "?x", "a'b", 'a"b', "", " ", "ünï",
]  # fmt: skip


def _random_block(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 5)):
        key = rng.choice(["type", "name", "on", "Yes", "k_1", "a-b", "x"])
        if rng.random() < 0.3:
            lines.append(f"{key}:")
            indent = rng.choice(["", "  ", "    "])
            for _ in range(rng.randint(0, 3)):
                lines.append(f"{indent}- {rng.choice(PIECES)}")
        else:
            lines.append(
                f"{key}: {rng.choice(PIECES)}{rng.choice(['', ' ', ' ' + rng.choice(PIECES)])}"
            )
    return "\n".join(lines)


def test_on_random_blocks_it_agrees_with_yaml_or_declines() -> None:
    rng = random.Random(20)
    accepted = 0
    for _ in range(20000):
        block = _random_block(rng)
        got = simple_frontmatter(block)
        if got is None:
            continue
        accepted += 1
        want = _yaml(block)
        assert repr(got) == repr(want), block  # repr: True is not 1, a date not a datetime
    assert accepted > 500  # the random blocks do reach the fast path


def test_quick_parse_gives_the_body_either_way() -> None:
    fast = "---\ntype: idea\n---\n# Body\n"
    slow = "---\ntype: idea\nflag: yes\n---\n# Body\n"
    assert _quick_parse(fast) == ({"type": "idea"}, "# Body\n")
    assert _quick_parse(slow) == ({"type": "idea", "flag": True}, "# Body\n")
