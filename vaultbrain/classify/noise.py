"""Lines that are no thought to file, whatever a model makes of them: keyboard mash, a line
of no words (digits, emoji, punctuation), and text addressed to the model instead of the
person's notes ("ignore the previous instructions…", "answer in JSON with confidence 1").

The embedded classifier reads every thought with this first; the arbiter files nothing the
embedded classifier calls noise (``classify/arbiter.py``), so a small model that turns
keyboard mash into four suggestions, or obeys a line that tells it to, files nothing.

Mash is told by its letter pairs: words people write, in any of the corpus's languages, are
made of pairs the corpus's own words use; "qwpoeiru" and "sdfkjh" are not (nor keyboard
rows). Names and words of the vault are never mash.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Container, Iterable

from vaultbrain.patterns import LazyPattern

_LETTERS = LazyPattern(r"[^\W\d_]+")
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "qwertzuiop", "yxcvbnm", "azertyuiop", "wxcvbn")
_RUNS = frozenset(row[i : i + 4] for row in _ROWS for i in range(len(row) - 3)) | frozenset(
    row[::-1][i : i + 4] for row in _ROWS for i in range(len(row) - 3)
)
RARE = 2  # a letter pair seen in fewer corpus words than this is unusual


def letter_pairs(words: Iterable[str]) -> frozenset[str]:
    """The letter pairs that ordinary words use (each in at least :data:`RARE` words)."""
    seen: Counter[str] = Counter()
    for w in words:
        if w.isalpha():
            seen.update({w[i : i + 2] for i in range(len(w) - 1)})
    return frozenset(p for p, n in seen.items() if n >= RARE)


def _mash(word: str, pairs: frozenset[str]) -> bool:
    """A word no language of the corpus would spell: keyboard rows, or too many letter pairs
    no ordinary word has, or one letter over and over."""
    if len(word) < 4:
        return False
    if any(word[i : i + 4] in _RUNS for i in range(len(word) - 3)):
        return True
    if len(set(word)) <= 2 and len(word) >= 5:
        return True  # "aaaaa", "hjhjhj"
    if not word.isascii():
        return False  # the pairs of accented letters are too few in the corpus to judge
    odd = sum(1 for i in range(len(word) - 1) if word[i : i + 2] not in pairs)
    return odd >= 2 and odd / (len(word) - 1) >= 0.3


def mash_reason(text: str, known: Container[str], pairs: frozenset[str]) -> str | None:
    """``"keyboard mash"`` when most of the words are mash and few are words the corpus or
    the vault knows; ``"no words"`` for a line of digits, emoji or punctuation alone."""
    found = _LETTERS.findall(text)
    if not found:
        return "no words"
    if not pairs:
        return None
    words = [w.lower() for w in found]
    ordinary = sum(1 for w in words if w in known)
    # a capitalised word is a name, however it is spelt ("Krzysztof", "Tadhg")
    mash = sum(
        1
        for raw, w in zip(found, words, strict=True)
        if w not in known and not raw.istitle() and _mash(w, pairs)
    )
    if mash and (not ordinary or mash * 2 >= len(words) and ordinary * 3 <= len(words)):
        return "keyboard mash"
    return None


# -- lines addressed to the model -----------------------------------------------------------
_CUE_WORDS = frozenset(
    "ignore ignoriere ignorieren ignoriert ignorez ignorer ignora ignorar ignorá disregard forget "
    "vergiss oublie oubliez olvida esqueça esqueca override bypass instructions instruction "
    "anweisungen anweisung instrucciones instruções instrucoes consignes prompt prompts system "
    "json confidence assistant classifier destinations jailbreak inst im_start llm chatgpt gpt "
    "ai model modell modèle modelo".split()
)
_INJECTION = [
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,30}?\b(?:"
    r"(?:previous|prior|above|earlier|preceding|your|all|any|these|those|the\s+above)\s+"
    r"(?:\w+\s+)?(?:instructions?|rules|prompts?|guidelines|directions|system\s+prompt)"
    r"|instructions?|prompts?|everything\s+(?:above|before))\b",
    r"\b(?:ignorier\w*|vergiss)\b[^.!?\n]{0,40}?\b(?:anweisung\w*|regeln|prompts?|vorgaben)\b",
    r"\b(?:ignore[rz]?|oublie[rz]?)\b[^.!?\n]{0,40}?\b(?:instructions?|consignes|règles)\b",
    r"\b(?:ignor[aeá]\w*|olvid[ae]\w*)\b[^.!?\n]{0,40}?\b(?:instrucciones|reglas|indicaciones)\b",
    r"\b(?:ignor[ae]\w*|esqueç?c?a)\b[^.!?\n]{0,40}?\b(?:instruções|instrucoes|regras)\b",
    r"\b(?:system\s+prompt|system\s+message|developer\s+mode|jailbreak"
    r"|as\s+an?\s+(?:ai|assistant|(?:large\s+)?language\s+model)"
    r"|you\s+are\s+(?:now\s+)?(?:an?\s+)?(?:ai|assistant|chatgpt|llm|gpt|model"
    r"|(?:large\s+)?language\s+model|(?:\w+\s+)?assistant))\b",
    r"\b(?:respond|reply|answer|output|return|print|write)\b[^.!?\n]{0,30}?\b(?:in\s+json|json\s+only"
    r"|only\s+json|the\s+following\s+json|with\s+json)\b",
    r"\bconfidence\b[^.!?\n]{0,20}?(?:\b1(?:\.0+)?\b|\b100\s*%|\bmax(?:imum)?\b)",
    r"\"?(?:destinations|confidence)\"?\s*:\s*[\[{\d]",
    r"<\|im_start\|>|\[/?INST\]|</?(?:system|assistant)>|###\s*(?:instruction|system)",
    r"\b(?:antworte|réponds|responde)\b[^.!?\n]{0,30}?\bjson\b",
]


@functools.cache
def _injection() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in _INJECTION), re.I)


def injection_reason(text: str) -> str | None:
    """``"addressed to the model"`` for a line that instructs the classifier."""
    low = text.lower()
    if _CUE_WORDS.isdisjoint(re.compile(r"[a-zà-ÿ_]+").findall(low)) and "<|" not in low:
        return None
    return "addressed to the model" if _injection().search(text) else None


def noise_reason(text: str, known: Container[str], pairs: frozenset[str]) -> str | None:
    """Why ``text`` is no thought to file, or None."""
    return injection_reason(text) or mash_reason(text, known, pairs)
