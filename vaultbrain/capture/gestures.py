"""What a person's edit of a line vaultbrain wrote means: one pure reading for every line.

A gesture means one thing wherever on the line it is typed, in the inbox and in
``Brain/Needs Review.md`` alike (the table README's review section shows):

============================================  ===============================================
the person, on a line vaultbrain wrote        what happens
============================================  ===============================================
ticks it (``[x]``)                            a suggestion is confirmed; a thought in review
                                              takes the suggestion it has (none: they are told)
ticks a section's "confirm all N below"       each item under it is confirmed as if ticked,
(Needs Review only)                           but one with a gesture of its own or nothing
                                              to accept
writes ``→ type`` (or ``-> type``, several:   it is filed as those types (a filed one is
``→ person, admin``), before or after our     re-filed); the arrow is consumed; a type and
suffix, after the block id, with or without   a capitalised name (``→ person Sarah Chen``)
spaces                                        names its note
strikes it (``~~…~~``) or cancels it (``[-]``) dismissed: notes it made go to the archive
deletes it (Needs Review only)                dismissed
unticks a filed line                          nothing: the box stays as they left it
types anything else around or in our suffix   theirs, kept byte for byte; never a gesture
moves the line, swaps two, pastes one twice   nothing (a second copy is left alone)
removes or moves the block id                 the line is matched again; the id goes back
============================================  ===============================================

Gestures are read only from the parts of a line the person typed: never from our suffix
(its links show titles, which may hold anything a classifier named), and never from the
thought's own Markdown (``the call moved from ~~Monday~~ to Friday`` is words, and so are
an arrow and a link typed in it: ``ping Bob → [[Projects/Kiln]]``).

Only striking, cancelling or deleting dismisses. Two gestures that contradict each other (a
strike and an arrow; a tick in the inbox and a strike in Needs Review) do nothing and are
said, on the item in Needs Review and in the daemon's log, until the person settles them.

Nothing here reads or writes a file: :func:`read_inbox_line` and :func:`read_review_item`
read one line against what vaultbrain wrote there, and :func:`decide_lines` turns every line
read in one pass into actions (vaultbrain/capture/inbox_pass.py and review.py run them).
"""

from __future__ import annotations

import difflib
import enum
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from vaultbrain.capture.model import CaptureStatus
from vaultbrain.filing.inbox import split_taken
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inbox import InboxLine
from vaultbrain.vault.inline import shield

S = CaptureStatus


class Gesture(enum.StrEnum):
    NONE = "none"
    CONFIRM = "confirm"  # ticked
    RETYPE = "retype"  # → type
    DISMISS = "dismiss"  # struck, cancelled, or (Needs Review) deleted
    UNCLEAR = "unclear"  # two gestures at odds, or a type that is not one: said, not done


class Source(enum.StrEnum):
    INBOX = "inbox"
    REVIEW = "review"
    SECTION = "section"  # a section's "confirm all N below" ticked in Needs Review


@dataclass(frozen=True)
class TypeNames:
    """The pack's fileable types as a person may write them: any case, singular or plural,
    with or without accents."""

    names: tuple[str, ...]
    _lookup: ClassVar[dict[str, str]]  # (set per value in __post_init__, not a field)

    def __post_init__(self) -> None:
        lookup: dict[str, str] = {}
        for name in self.names:
            for form in _forms(name):
                lookup.setdefault(form, name)
        object.__setattr__(self, "_lookup", lookup)

    def get(self, word: str) -> str | None:
        return self._lookup.get(_fold(word))

    def near(self, word: str) -> str | None:
        """The type a misspelt word was meant to be (``projcet``), or None."""
        hits = difflib.get_close_matches(_fold(word), list(self._lookup), n=1, cutoff=0.75)
        return self._lookup[hits[0]] if hits else None


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.strip().lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _forms(name: str) -> set[str]:
    base = _fold(name)
    forms = {base, base + "s", base + "es"}
    if base.endswith("y"):
        forms.add(base[:-1] + "ies")
    if base == "person":
        forms.add("people")
    return forms


@dataclass(frozen=True)
class Reading:
    """A line read against what vaultbrain wrote there."""

    gesture: Gesture = Gesture.NONE
    types: tuple[str, ...] = ()
    why: str = ""  # for UNCLEAR: what the person is told
    # The line's parts with a consumed gesture (the arrow) taken out: what is rendered back.
    words: str = ""
    shown: str | None = None  # our suffix as it stands on the line (None: not there)
    remark: str = ""
    after: str = ""  # what the person typed after the block id
    intact: bool = True  # our suffix is one we could have written (not edited inside)
    title: str = ""  # RETYPE with a name: ``→ person Sarah Chen`` (the note's title)


# An arrow and the words after it, at the end of a part of a line the person added. A word
# as Obsidian shows it: in emphasis (``**idea**``), as a tag (``#idea``), with a full stop.
_WORD = r"(?:\*{1,2}|_{1,2})?#?[^\W\d_][\w-]*\*{0,2}"
_ARROW = LazyPattern(
    rf"(?:^|(?<=\s)|(?<=[^\w\s]))(?:→|->)\s*(?P<types>{_WORD}(?:\s*(?:,|&|\+|\s)\s*{_WORD})*)"
    r"[.!;]?\s*$"
)
_STRIKE = LazyPattern(r"~~(?=\S).*?(?<=\S)~~|~~[^~]+$")
# One type, then a name of up to four capitalised words (the arrow's words, as matched).
_NAMED = LazyPattern(
    r"(?P<type>[^\W\d_][\w-]*)\s+(?P<name>[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*){0,3})"
)


def read_arrow(part: str, names: TypeNames, strict: bool = False) -> tuple[Reading | None, str]:
    """A trailing ``→ type`` in ``part``: the reading it gives (None: no arrow meant as a
    gesture) and ``part`` without it. ``strict``: every arrow is a gesture (Needs Review,
    where vaultbrain writes none), so words that are not types are said to be so; on an
    inbox line only a misspelt type is (``→ ask mom later`` is the person's remark)."""
    # An arrow inside the person's Markdown (a code span, a link, a URL, ``\→``) is text.
    guarded = shield(part)
    m = _ARROW.search(guarded)  # (its words are outside any span: as in ``part``)
    if not m:
        return None, part
    words = [w.strip("*_#") for w in re.split(r"\s*(?:,|&|\+|\s)\s*", m.group("types")) if w]
    found = [names.get(w) for w in words]
    rest = part[: m.start()].rstrip()
    if all(found):
        return Reading(Gesture.RETYPE, tuple(dict.fromkeys(t for t in found if t))), rest
    named = _NAMED.fullmatch(m.group("types").strip())
    if named and found[0] and all(w[:1].isupper() for w in named.group("name").split()):
        # ``→ person Sarah Chen``: one type and the name its note takes
        return Reading(Gesture.RETYPE, (found[0],), title=named.group("name")), rest
    meant = [w for w in words if names.get(w) is None and (strict or names.near(w))]
    if meant and len(words) <= 4:
        listed = ", ".join(names.names)
        bad = ", ".join(f"“{w}”" for w in meant)
        why = f"{bad} is not a type (write one of: {listed})"
        return Reading(Gesture.UNCLEAR, why=why), part
    return None, part  # "→ ask mom later": the person's words


# Stands for a part of the line that is no strike of the person's: our suffix (its links
# show titles, which may be anything a classifier named), and the thought as it was taken
# (its own ``~~Monday~~`` is its words). One mark, not a space, so a strike across it counts.
_OURS = "\ufffc"


def _struck(words: str, shown: str | None, remark: str, after: str, baseline: str) -> bool:
    """The person struck the line: a strike-through in the parts they typed that the
    thought itself did not have. Our suffix is never read for one."""
    text = f"{words} {_OURS if shown is not None else ''}{remark}{after}"
    if "~~" not in text:
        return False
    # A ``~~`` inside the person's Markdown (a code span, a URL) strikes nothing.
    if baseline and baseline in text:
        return bool(_STRIKE.search(shield(text.replace(baseline, _OURS, 1))))
    return len(_STRIKE.findall(shield(text))) > len(_STRIKE.findall(shield(baseline)))


def _combine(readings: Iterable[Reading]) -> Reading:
    """One reading of several gestures on one line (or one thought's two lines)."""
    real = [r for r in readings if r.gesture is not Gesture.NONE]
    if not real:
        return Reading()
    unclear = [r for r in real if r.gesture is Gesture.UNCLEAR]
    if unclear:
        return unclear[0]
    kinds = {r.gesture for r in real}
    if kinds == {Gesture.RETYPE}:
        types = tuple(dict.fromkeys(t for r in real for t in r.types))
        title = next((r.title for r in real if r.title), "") if len(types) == 1 else ""
        return Reading(Gesture.RETYPE, types, title=title)
    if Gesture.DISMISS in kinds and Gesture.RETYPE in kinds:
        return Reading(
            Gesture.UNCLEAR,
            why="it is struck out and given a type at once: keep one of the two",
        )
    if Gesture.DISMISS in kinds:
        return next(r for r in real if r.gesture is Gesture.DISMISS)
    if Gesture.RETYPE in kinds:  # a tick beside an arrow: the arrow says more
        return next(r for r in real if r.gesture is Gesture.RETYPE)
    return real[0]


# -- an inbox line ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LineView:
    """What reading a capture's line needs of the capture."""

    id: str
    status: CaptureStatus
    text: str  # the thought as taken
    written_suffix: str | None  # our suffix as last written on its line
    written_done: bool | None
    form: tuple[str, bool]  # the suffix and tick its status calls for now
    can_accept: bool = False  # a thought in review that has a suggestion to take
    types: tuple[str, ...] = ()  # the types it is filed as now


def read_inbox_line(line: InboxLine, view: LineView, names: TypeNames) -> Reading:
    """The person's gesture on a taken inbox line, and its parts."""
    text, after = line.text, line.after_id
    words, shown, remark = split_taken(text, view.text or None)
    if shown is None and after:
        # The id moved in front of our suffix: the words, suffix and remark are all there.
        joined = f"{text}{after}"
        w2, s2, r2 = split_taken(joined, view.text or None)
        if s2 is not None:
            words, shown, remark, after = w2, s2, r2, ""
    intact = True
    ours = view.written_suffix
    if shown is not None and ours and shown != ours:
        segment = shown + remark
        if _spread(ours, segment):
            # Our suffix is all there with the person's words typed inside it: theirs are
            # kept (as a remark), ours is what we wrote.
            intact, shown, remark = False, ours, _theirs(segment, ours)
        elif not _complete(shown):
            intact = False  # cut short by the person
    readings: list[Reading] = []
    # An arrow the person added: after the block id, after our suffix, or after their words.
    arrow, after = read_arrow(after, names)
    readings.append(arrow or Reading())
    arrow, remark = read_arrow(remark, names)
    readings.append(arrow or Reading())
    base = view.text or ""
    if words != base and (not base or words.startswith(base)):
        added = words[len(base) :]
        arrow, added = read_arrow(added, names)
        if arrow is not None:
            readings.append(arrow)
            words = (base + added).rstrip() if base else added
    # A strike or a cancel on a dismissed thought's line (or on a line that still says
    # so) is that dismissal, done: not a gesture at odds with an arrow the person writes
    # later to file it again, nor a new dismissal of what that arrow filed.
    spent = view.status is S.DISMISSED or shown == f"→ {S.DISMISSED.value}"
    if not spent and _struck(words, shown, remark, after, base):
        readings.append(Reading(Gesture.DISMISS))
    box = line.box if line.box is not None else ("x" if line.checked else " ")
    if box == "-" and not spent:
        readings.append(Reading(Gesture.DISMISS))
    elif box in ("x", "X"):
        readings.append(Reading(Gesture.CONFIRM))
    reading = _combine(readings)
    return Reading(
        reading.gesture,
        reading.types,
        reading.why,
        words,
        shown,
        remark,
        after,
        intact,
        reading.title,
    )


def _complete(suffix: str) -> bool:
    """Whether ``suffix`` is whole, as vaultbrain writes it (not cut or edited inside)."""
    return bool(_WHOLE.fullmatch(suffix))


_LINK = r"\[\[[^\[\]\n]*\]\]"
_LINKS = LazyPattern(_LINK)
_WHOLE = LazyPattern(
    r"→ (?:filed|dismissed|needs review in "
    + _LINK
    + r"|"
    + _LINK
    + r"(?: · "
    + _LINK
    + r")*(?: \(suggested: confirm in "
    + _LINK
    + r"\))?)"
    r"|⏳ waiting for the classifier(?: \(offline, will retry\))?"
)


def _spread(ours: str, segment: str) -> bool:
    """Whether every character of ``ours`` is in ``segment``, in order, with more between."""
    if len(segment) <= len(ours):
        return False
    sm = difflib.SequenceMatcher(a=ours, b=segment, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks()) >= len(ours)


def _theirs(segment: str, ours: str) -> str:
    """What the person typed into our suffix: the characters of ``segment`` that are not
    ``ours`` (in order), kept as their remark."""
    sm = difflib.SequenceMatcher(a=ours, b=segment, autojunk=False)
    pieces: list[str] = []
    for tag, _i1, _i2, j1, j2 in sm.get_opcodes():
        if tag in ("insert", "replace"):
            pieces.append(segment[j1:j2])
    text = " ".join(p.strip() for p in pieces if p.strip())
    return f" {text}" if text else ""


# -- a Needs Review item -----------------------------------------------------------------------
@dataclass(frozen=True)
class ReviewItem:
    """One item line of ``Brain/Needs Review.md`` as the person left it."""

    kind: str  # "vbr" (a thought) | "vbc" (a sync conflict) | "vbm" (a merge proposal)
    id: str
    number: int
    box: str
    body: str  # without our block id and our note
    after: str = ""  # what the person typed after the block id
    section: str = ""  # the heading the line is under


def read_review_item(item: ReviewItem, names: TypeNames) -> Reading:
    readings: list[Reading] = []
    for part in (item.after, item.body):
        arrow, _ = read_arrow(part, names, strict=True)
        if arrow is not None:
            readings.append(arrow)
    # Nothing we write is struck: the thought and our words are drawn with their tildes
    # defused, and a link we drew (a note's path may hold "~~") stands as one mark.
    if _STRIKE.search(shield(_LINKS.sub(_OURS, f"{item.body} {item.after}"))):
        readings.append(Reading(Gesture.DISMISS))
    if item.box == "-":
        readings.append(Reading(Gesture.DISMISS))
    elif item.box in ("x", "X"):
        readings.append(Reading(Gesture.CONFIRM))
    elif item.box.strip():
        readings.append(
            Reading(
                Gesture.UNCLEAR,
                why=f"[{item.box}] means nothing here: tick it to accept, strike it to dismiss",
            )
        )
    if item.kind == "vbc":  # a conflict: the person fixed the note, whatever the mark
        kinds = {r.gesture for r in readings}
        if kinds & {Gesture.CONFIRM, Gesture.DISMISS}:
            return Reading(Gesture.CONFIRM)
        return Reading()
    return _combine(readings)


# -- one pass ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Act:
    """Carry out the person's gesture on capture ``id`` (or, for ``vbc``, a conflict)."""

    id: str
    gesture: Gesture
    types: tuple[str, ...] = ()
    why: str = ""
    sources: tuple[Source, ...] = ()
    kind: str = "vbr"
    title: str = ""  # RETYPE: the name the person gave (``→ person Sarah Chen``)


@dataclass(frozen=True)
class LinesDecision:
    acts: tuple[Act, ...] = ()
    # inbox line number -> the reading to render it back from (a consumed arrow taken out)
    consumed: Mapping[int, Reading] = field(default_factory=dict)


def decide_lines(
    inbox: Sequence[tuple[InboxLine, LineView]] | None,
    views: Mapping[str, LineView],
    review: Sequence[ReviewItem] | None,
    base: Iterable[str] | None,
    names: TypeNames,
) -> LinesDecision:
    """Every gesture in one pass, from the anchored inbox lines (each with its capture's
    view), the Needs Review items, and ``base``: the items (``vbr-ID``/``vbc-ID``) of the
    version of Needs Review the person edited (None: unknown, so no line is taken as
    deleted). Pure."""
    by_id: dict[str, dict[Source, Reading]] = {}
    consumed: dict[int, Reading] = {}
    for line, view in inbox or ():
        reading = read_inbox_line(line, view, names)
        if reading.gesture is Gesture.RETYPE:
            consumed[line.number] = reading  # the arrow leaves the line, done or not
        if _matters(reading, view):
            by_id.setdefault(view.id, {})[Source.INBOX] = reading
    conflicts: list[Act] = []
    if review is not None:
        present = {f"{item.kind}-{item.id}" for item in review}
        for item in review:
            if item.kind == "vbs":
                continue  # a section's "confirm all": below, after each item's own gesture
            reading = read_review_item(item, names)
            if item.kind == "vbc":
                if reading.gesture is Gesture.CONFIRM:
                    conflicts.append(Act(item.id, Gesture.CONFIRM, kind="vbc"))
                continue
            if item.kind == "vbg":  # a take graded: → right|wrong|unclear, a tick, a strike
                verdict = _grade_of(item)
                if verdict is not None:
                    conflicts.append(Act(item.id, Gesture.CONFIRM, (verdict,), kind="vbg"))
                continue
            if item.kind == "vbm":  # a merge: a tick accepts, a strike or [-] rejects
                if reading.gesture in (Gesture.CONFIRM, Gesture.DISMISS):
                    conflicts.append(Act(item.id, reading.gesture, kind="vbm"))
                continue
            seen = views.get(item.id)
            if seen is not None and _matters(reading, seen):
                by_id.setdefault(item.id, {})[Source.REVIEW] = reading
        for key in set(base or ()) - present:
            kind, rid = key.split("-", 1)
            if kind == "vbc":
                conflicts.append(Act(rid, Gesture.CONFIRM, kind="vbc"))
                continue
            if kind != "vbr":
                continue  # (a section's line deleted: nothing)
            seen = views.get(rid)
            deleted = Reading(Gesture.DISMISS)
            if seen is not None and _matters(deleted, seen):
                by_id.setdefault(rid, {})[Source.REVIEW] = deleted
        _confirm_sections(review, views, by_id)
    acts: list[Act] = []
    for cid, readings in by_id.items():
        reading = _combine(readings.values())
        kinds = {r.gesture for r in readings.values()}
        if len(kinds) > 1 and reading.gesture is not Gesture.UNCLEAR:
            said = " and ".join(f"{s.value}: {r.gesture.value}" for s, r in readings.items())
            reading = Reading(
                Gesture.UNCLEAR,
                why=f"the inbox line and Needs Review say different things ({said})",
            )
        view = views[cid]
        if reading.gesture is Gesture.CONFIRM and view.status is S.NEEDS_REVIEW:
            if not view.can_accept:
                reading = Reading(
                    Gesture.UNCLEAR, why="there is no suggestion to accept: write → TYPE"
                )
        acts.append(
            Act(
                cid,
                reading.gesture,
                reading.types,
                reading.why,
                tuple(readings),
                title=reading.title,
            )
        )
    acts.extend(conflicts)
    return LinesDecision(tuple(acts), consumed)


def _grade_of(item: ReviewItem) -> str | None:
    """A verdict on a take to grade (vaultbrain/capture/grades.py), or None."""
    from vaultbrain.capture.grades import verdict_of

    said = verdict_of(f"{item.body} {item.after}")
    if said is not None:
        return said
    if item.box == "-" or _STRIKE.search(shield(f"{item.body} {item.after}")):
        return "wrong"
    if item.box in ("x", "X"):
        return "right"
    return None


def _confirm_sections(
    review: Sequence[ReviewItem],
    views: Mapping[str, LineView],
    by_id: dict[str, dict[Source, Reading]],
) -> None:
    """A ticked "confirm all N below" line: every item under its heading, as the person
    left the note, that has a suggestion to accept and no gesture of its own is confirmed
    (an item struck or given a type says more; one deleted is not there to confirm)."""
    ticked = {i.section for i in review if i.kind == "vbs" and i.box in ("x", "X")}
    if not ticked:
        return
    confirm = Reading(Gesture.CONFIRM)
    for item in review:
        if item.kind != "vbr" or item.section not in ticked or item.id in by_id:
            continue
        seen = views.get(item.id)
        if seen is None or not _matters(confirm, seen):
            continue
        if seen.status is S.NEEDS_REVIEW and not seen.can_accept:
            continue  # nothing to accept: it stays for the person's own decision
        by_id[item.id] = {Source.SECTION: confirm}


def _matters(reading: Reading, view: LineView) -> bool:
    """Whether a reading asks for something the capture is not already."""
    g, status = reading.gesture, view.status
    if g is Gesture.NONE:
        return False
    if g is Gesture.CONFIRM:
        # Our own tick on a finished line; a tick on a waiting line waits for what it
        # becomes (it confirms the suggestion then).
        return status in (S.SUGGESTED, S.NEEDS_REVIEW)
    if g is Gesture.DISMISS:
        return status is not S.DISMISSED
    if g is Gesture.RETYPE and status in (S.FILED, S.CORRECTED):
        return set(reading.types) != set(view.types)  # filed as those already
    return True  # RETYPE, UNCLEAR
