"""The person's decisions on a capture: confirm a suggestion, choose its types, dismiss it,
re-file a record it made. The CLI's review commands (vaultbrain/cli/review.py), the gestures
in ``Brain/Needs Review.md`` and on the inbox line (vaultbrain/capture/acts.py) all end here,
so all give the same result.

Each decision is checked against the journal's table before any note is touched (a decision
its state does not allow is refused, and nothing is written); a thought filed by the
person's choice runs the pipeline (vaultbrain/capture/pipeline.py) with the person's
classification; re-filing a record is vaultbrain/filing/refile.py's, followed here
(vaultbrain/capture/follow.py). Notes a decision drops go to ``Brain/Archive/``, and the
links this thought wrote to them in the notes it keeps (link fields, its ``## Log`` line)
go with them: no link of ours points into the archive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from vaultbrain.capture import follow
from vaultbrain.capture.journal import Journal, Step
from vaultbrain.capture.lines import finish_line
from vaultbrain.capture.model import Capture, CaptureStatus, Filed, OpKind
from vaultbrain.capture.pipeline import file_capture
from vaultbrain.capture.reasons import ask_for_name
from vaultbrain.capture.write import unwrite, write_held
from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.errors import UserError
from vaultbrain.filing.corrections import record_correction
from vaultbrain.filing.db import coerce_fields, update_record
from vaultbrain.filing.index import records
from vaultbrain.filing.links import title_for_url
from vaultbrain.filing.refile import archive, audit, fileable_type, fix
from vaultbrain.filing.style import SUGGESTED
from vaultbrain.filing.sync import notes_sync, restore_base
from vaultbrain.packs import PageType
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inbox import split_lines
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

S = CaptureStatus


def confirm(brain: Brain, capture_id: str) -> Capture:
    """Accept the suggestion: its notes lose ``suggested: true`` (and ``confirmed: false``
    where the style wrote it), the updates it held back
    are written into the existing notes now; the capture is filed. A thought waiting in
    review with a suggestion is filed as suggested."""
    journal = Journal(brain)
    with brain.store.locked():
        cap = journal.require(capture_id)
        if cap.status is S.NEEDS_REVIEW:
            dests = _classification(cap.classification).fileable
            if not dests:
                raise UserError(
                    f"{capture_id} has no suggestion to accept; choose a type: "
                    f"`vaultbrain review resolve {capture_id} TYPE`"
                )
            return _file_as(brain, journal, cap, dests, by="confirm")
        journal.check(capture_id, Step.CONFIRM)
        for d in cap.destinations:
            if d.op is OpKind.CREATE:
                _confirm_note(brain, d.path)
        filed: tuple[Filed, ...] = cap.destinations
        warnings: tuple[str, ...] = ()
        if any(d.held for d in cap.destinations):
            written = write_held(brain, cap)
            filed, warnings = written.destinations, written.warnings
        cap = journal.confirmed(capture_id, filed, warnings)
    audit(
        brain,
        "resolution",
        capture=capture_id,
        decision="confirm",
        destinations=[d.to_dict() for d in cap.destinations],
    )
    return finish_line(brain, journal, cap)


def resolve(
    brain: Brain,
    capture_id: str,
    type_name: str,
    sets: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Capture:
    """File a thought as ``type_name`` (one or more, comma-separated) by the person's choice.

    ``sets``: fields the person gives (``--set status=active``): written into the notes of
    the types that have them, over what the classifier said or the note held. ``title``:
    the title of its note (one type)."""
    names = [t.strip() for t in re.split(r"[,\s]+", type_name) if t.strip()]
    if not names:
        raise UserError("name a type to file it as (e.g. `project`, or `person,admin`)")
    journal = Journal(brain)
    types = [fileable_type(brain, name) for name in names]  # refused before anything is written
    wanted = list(dict.fromkeys(t.name for t in types))
    given = _given_fields(brain, types, sets or {})
    with brain.store.locked():
        cap = journal.require(capture_id)
        written = cap.written
        if cap.status in (S.FILED, S.CORRECTED, S.SUGGESTED) and written:
            single = len(written) == 1 and len(wanted) == 1 and written[0].type != wanted[0]
            if single and len(cap.destinations) == 1 and not title:
                # One record, another type: it is re-filed (its note keeps its content).
                cap = _refile(brain, cap.id, written[0], wanted[0])
            else:
                cap = _redecide(brain, journal, cap, wanted, given, title)
        else:
            journal.check(capture_id, Step.RESOLVE)
            dests = _destinations(brain, cap, wanted, given, title)
            cap = _file_as(brain, journal, cap, dests, by="resolve")
        return _set_fields(brain, journal, cap, given)


def dismiss(brain: Brain, capture_id: str) -> Capture:
    """Not a thought: the capture is dismissed; notes it created move to the archive (and
    the links it wrote to them leave the notes it updated), its log line leaves the notes it
    updated (a suggestion held its updates back: nothing to take)."""
    journal = Journal(brain)
    with brain.store.locked():
        cap = journal.check(capture_id, Step.DISMISS)
        for rel in unwrite(brain, cap):
            restore_base(brain, rel)
        made = [d for d in cap.destinations if d.op is OpKind.CREATE]
        _drop(brain, cap, made, reason=S.DISMISSED.value)
        cap = journal.dismissed(capture_id)
    audit(brain, "resolution", capture=capture_id, decision="dismiss")
    return finish_line(brain, journal, cap)


def fix_thought(brain: Brain, ref: str, type_name: str, note: str | None = None) -> dict[str, Any]:
    """``vaultbrain fix``: re-file record ``ref`` (or a capture's only record) as
    ``type_name``; the captures filed into it follow. Returns the new record."""
    from vaultbrain.filing.refile import is_record_id

    journal = Journal(brain)
    cap = journal.get(ref) if is_record_id(ref) else None  # (else a record's title)
    if cap is not None:
        mine = [d for d in cap.destinations if d.record_id]
        if not mine:
            raise UserError(
                f"capture {ref} filed nothing; use `vaultbrain review resolve {ref} TYPE`"
            )
        if len(mine) > 1:
            listing = ", ".join(f"{d.record_id} ({d.type} {d.title})" for d in mine)
            raise UserError(f"capture {ref} filed several records; fix one of them: {listing}")
        ref = mine[0].record_id
    new_rec, done = fix(brain, notes_sync(brain), ref, type_name, note)
    follow.refiled(brain, [done])
    return new_rec


# -- the steps ---------------------------------------------------------------------------------
def _refile(brain: Brain, capture_id: str, record: Filed, type_name: str) -> Capture:
    _own(brain, record, capture_id)
    _, done = fix(brain, notes_sync(brain), record.record_id, type_name, by="resolve")
    follow.refiled(brain, [done])
    journal = Journal(brain)
    cap = journal.require(done.sources[0]) if done.sources else None
    if cap is None:
        raise UserError(f"the record {record.record_id} has no capture")
    return cap


def _own(brain: Brain, record: Filed, capture_id: str) -> None:
    """The record knows the capture filed into it. A record rebuilt from its note after the
    state dir was lost has no sources, while the capture rebuilt from its inbox line names
    the record: without this, the record would be re-filed and its capture left behind."""
    ptype = brain.pack.get_type(record.type)
    if ptype is None or not record.record_id:
        return
    col = brain.store.collection(ptype.store_collection)
    rec = col.get(record.record_id)
    if rec is None or capture_id in (rec.get("sources") or ()):
        return
    rec["sources"] = [*(rec.get("sources") or ()), capture_id]
    col.put(rec)
    records(brain).upsert(ptype.store_collection, rec)


def _redecide(
    brain: Brain,
    journal: Journal,
    cap: Capture,
    wanted: list[str],
    given: dict[str, dict[str, Any]],
    title: str | None,
) -> Capture:
    """A filed thought or a suggestion the person files as ``wanted`` instead (``→
    project``, ``→ person, admin``): the notes it made of a type still wanted stay (now
    confirmed), those of a type no longer wanted leave for the archive (and a log line it
    wrote into a note of such a type leaves that note), and a type the classifier missed
    gets its note."""
    kept = [d for d in cap.destinations if d.type in wanted]
    if title and len(wanted) == 1:
        # The title the person gives is the title: a note it made under another one goes
        # (to the archive, its links with it) and the thought gets a note of that title.
        kept = [d for d in kept if d.title == title or d.op is not OpKind.CREATE]
    dropped = [d for d in cap.destinations if d not in kept]
    for rel in unwrite(brain, cap, only=[d for d in dropped if d.op is OpKind.UPDATE]):
        restore_base(brain, rel)
    _drop(
        brain,
        cap,
        [d for d in dropped if d.op is OpKind.CREATE],
        f"the person chose {', '.join(wanted)}",
        keep=kept,
    )
    dests = _destinations(brain, cap, wanted, given, title, kept)
    filed = _file_as(brain, journal, cap, dests, by="resolve")
    # A kept note already holds this thought (the plan found it as an existing record): it
    # stays the capture's own note, and the person's choice confirms it.
    created = {d.record_id for d in kept if d.op is OpKind.CREATE}
    if created:
        for d in filed.destinations:
            if d.record_id in created:
                _confirm_note(brain, d.path)
        filed = journal.annotate(
            cap.id,
            destinations=tuple(
                d.but(op=OpKind.CREATE) if d.record_id in created else d for d in filed.destinations
            ),
        )
    return finish_line(brain, journal, filed)


def _destinations(
    brain: Brain,
    cap: Capture,
    wanted: Iterable[str],
    given: dict[str, dict[str, Any]],
    title: str | None,
    kept: Iterable[Filed] = (),
) -> list[Destination]:
    suggested = _classification(cap.classification)
    kept_by_type = {d.type: d for d in kept}
    dests = []
    for name in dict.fromkeys(wanted):
        ptype = fileable_type(brain, name)
        previous = next((d for d in suggested.destinations if d.type == name), None)
        guess = (kept_by_type[name].title if name in kept_by_type else "") or title
        guess = guess or (previous.title if previous and previous.title else "")
        if not guess and cap.rebuilt_from_line and cap.classification is None:
            guess = _named_in(cap.text) if ptype.name == "person" else ""
        if not guess and _needs_name(ptype, suggested):
            # a person is never named after the sentence: the person is asked for the name
            raise UserError(
                f"{ask_for_name(ptype.name)} (or `vaultbrain review resolve {cap.id} "
                f"{ptype.name} --title NAME`)"
            )
        guess = guess or next((d.title for d in suggested.destinations if d.title), "")
        fields = dict(previous.fields) if previous else {}
        fields.update(given.get(name, {}))
        from_url = _url_fields(ptype, cap.text, fields)
        dests.append(Destination(ptype.name, guess or from_url or _title_from(cap.text), fields))
    return dests


def _named_in(text: str) -> str:
    """The one person a thought names, or "": a capture rebuilt from its line (the state
    dir was lost) knows what it became, not the classifier's reading that named them."""
    from vaultbrain.classify.entities import find_people

    people = find_people(text, frozenset())
    return people[0].name if len(people) == 1 else ""


def _needs_name(ptype: PageType, suggested: Classification) -> bool:
    """Whether a note of ``ptype`` needs a name the thought must give: a type the classifier
    read but could not name, or a type titled by a name (a person's ``name``)."""
    return ptype.name in suggested.unnamed or ptype.name == "person"


def _file_as(
    brain: Brain, journal: Journal, cap: Capture, dests: list[Destination], by: str
) -> Capture:
    """File a capture to ``dests`` as the person decided (confidence 1, classified by the
    person; a suggestion they accepted as it was stays the classifier's); what the
    classifier had said becomes a correction to learn from."""
    before = _classification(cap.classification)
    who = before.classified_by if by == "confirm" and before.classified_by else "person"
    result = Classification(dests, 1.0, f"decided by the person ({by})", who)
    journal.reclassified(cap.id, result.to_dict(), by)
    filed = file_capture(brain, journal, journal.require(cap.id))
    wrong = [d.type for d in before.destinations if d.type not in {x.type for x in dests}]
    if wrong or not before.destinations:
        for d in dests:
            record_correction(
                brain.store, cap.text, ",".join(wrong) or UNKNOWN, d.type, brain.now().isoformat()
            )
    audit(
        brain,
        "resolution",
        capture=cap.id,
        decision=by,
        destinations=[d.to_dict() for d in filed.destinations],
        before=dict(cap.classification) if cap.classification else None,
    )
    return finish_line(brain, journal, filed)


def _set_fields(
    brain: Brain, journal: Journal, cap: Capture, given: dict[str, dict[str, Any]]
) -> Capture:
    """The fields the person gave, written into the notes of their types: the person's word
    wins over what the classifier said and what the note held (a kept note included)."""
    if not given:
        return cap
    for d in cap.destinations:
        values = given.get(d.type)
        if values and d.written:
            update_record(brain, d.type, d.record_id, {k: _text(v) for k, v in values.items()})
    return journal.require(cap.id)


def _given_fields(
    brain: Brain, types: list[PageType], sets: Mapping[str, str]
) -> dict[str, dict[str, Any]]:
    """``sets`` per type, checked against each type before anything is written: a field no
    chosen type has is refused."""
    if not sets:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for key, value in sets.items():
        takers = [t for t in types if key in t.fields]
        if not takers:
            names = ", ".join(t.name for t in types)
            raise UserError(f"{key!r} is not a field of {names}")
        for t in takers:
            out.setdefault(t.name, {}).update(coerce_fields(t, {key: value}, brain))
    return out


def _text(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _drop(
    brain: Brain, cap: Capture, notes: list[Filed], reason: str, keep: Iterable[Filed] = ()
) -> None:
    """Move the notes the capture made to the archive and take the links it wrote to them
    out of the notes it keeps and updated: no link of ours points into the archive."""
    gone: list[str] = []
    for d in notes:
        if brain.vault.try_read(d.path) is not None:
            archive(brain, d.to_dict(), reason=reason)
            gone.append(d.path)
    if not gone:
        return
    stay = [d for d in (*keep, *cap.destinations) if d.path not in gone and d.written]
    for rel in dict.fromkeys(d.path for d in stay):
        if _unlink(brain, rel, cap.id, gone):
            restore_base(brain, rel)


def _unlink(brain: Brain, rel: str, capture_id: str, gone: list[str]) -> bool:
    """Links to the ``gone`` notes out of note ``rel``: list entries in its properties, and
    the tail of this capture's ``## Log`` line. True if the note was written."""
    targets = [g[:-3] if g.lower().endswith(".md") else g for g in gone]
    link = re.compile(
        r"\[\[(?:" + "|".join(re.escape(t) for t in targets) + r")(?:\|[^\[\]\n]*)?\]\]"
    )
    marker = f"#^vb-{capture_id}|"

    def build(note: Any) -> str | None:
        if note is None or not any(t in note.text for t in targets):
            return None
        parsed = parse_note(note.text)
        text = note.text
        if parsed.error is None and parsed.has_frontmatter:
            changes: dict[str, Any] = {}
            for key, value in parsed.data.items():
                if isinstance(value, list) and any(
                    isinstance(v, str) and link.search(v) for v in value
                ):
                    changes[key] = [
                        v for v in value if not (isinstance(v, str) and link.fullmatch(v.strip()))
                    ]
                elif isinstance(value, str) and link.fullmatch(value.strip()):
                    changes[key] = None
            if changes:
                remove = tuple(k for k, v in changes.items() if v in (None, []))
                text = update_frontmatter(
                    text, {k: v for k, v in changes.items() if k not in remove}, remove
                )
        lines = split_lines(text)  # (a thought's own U+2028 is not a line break)
        for i, line in enumerate(lines):
            if marker in line and line.lstrip().startswith("- "):
                lines[i] = _relink_log_line(line, link)
        new = "".join(lines)
        return new if new != note.text else None

    return brain.vault.edit(rel, build).written


def _relink_log_line(line: str, link: re.Pattern[str]) -> str:
    """``- date thought → [[A]] · [[B]] ([[Inbox#^vb-id|capture]])`` without the links to
    the archived notes (and without the arrow when none is left)."""
    end = line.rfind(" ([[")
    arrow = line.rfind(" → ", 0, end) if end > 0 else -1
    if arrow < 0:
        return line
    pieces = line[arrow + 3 : end].split(" · ")
    if not all(_ONE_LINK.fullmatch(p.strip()) for p in pieces):
        return line  # the thought's own arrow, not our tail
    kept = [p for p in pieces if not link.fullmatch(p.strip())]
    tail = f" → {' · '.join(kept)}" if kept else ""
    return line[:arrow] + tail + line[end:]


_ONE_LINK = LazyPattern(r"\[\[[^\[\]\n]*\]\]")


def _confirm_note(brain: Brain, rel: str) -> None:
    """A suggestion's note is confirmed, whatever its style: ``suggested`` and ``confirmed``
    leave the note (``updated`` moves where the note has one), compare-and-swap, and the
    record in the store no longer says ``confirmed: false``. Only vaultbrain's own
    ``suggested: true`` line goes: a ``suggested`` the person gave another value stays."""
    now = brain.now().isoformat()

    def build(note: Any) -> str | None:
        if note is None:
            return None
        parsed = parse_note(note.text)
        if parsed.error:
            return None
        changes = {"updated": now} if "updated" in parsed.data else {}
        ours = parsed.data.get(SUGGESTED) is True
        remove = ("confirmed", SUGGESTED) if ours else ("confirmed",)
        return update_frontmatter(note.text, changes, remove=remove)

    brain.vault.edit(rel, build)
    hit = records(brain).by_path(rel)
    if hit is not None:
        col = brain.store.collection(hit[0])
        with brain.store.locked():
            rec = col.get(hit[1]["id"])
            if rec is not None:
                rec.pop("confirmed", None)
                rec["updated"] = now
                col.put(rec)
    notes_sync(brain).sync_path(rel)


def _classification(data: Mapping[str, Any] | None) -> Classification:
    return Classification.from_dict(_plain(data or {}))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


_URL = LazyPattern(r"https?://[^\s<>\]\)\"']+")


def _url_fields(ptype: PageType, text: str, fields: dict[str, Any]) -> str | None:
    """A type with a ``url`` field (a link) takes the URL from the thought when nothing else
    gave one; returns the title a link of that URL gets (None: no URL to take)."""
    if "url" not in ptype.fields:
        return None
    found = _URL.search(text)
    url = fields.get("url") or (found.group(0).rstrip(".,;:!?") if found else None)
    if not url:
        return None
    fields["url"] = url
    return title_for_url(str(url))


def _title_from(text: str) -> str:
    words = text.strip().split()
    title = " ".join(words[:8]).rstrip(".,;:!?")
    return title[:1].upper() + title[1:]


__all__ = ["confirm", "dismiss", "fix_thought", "resolve"]
