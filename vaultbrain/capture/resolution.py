"""The person's resolution of a capture: confirm a suggestion, resolve a thought as a type,
dismiss it. The CLI's review commands (vaultbrain/cli/review.py), the gestures in
``Brain/Needs Review.md`` (vaultbrain/capture/review.py) and a suggestion's inbox line the
person ticked (vaultbrain/capture/lines.py) all end here, so all give the same result.

A thought filed by the person's choice runs the pipeline (vaultbrain/capture/pipeline.py)
with the person's classification; re-filing a record already written is
vaultbrain/filing/refile.py's, and so is the archive a dismissed note moves to.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.journal import Journal
from vaultbrain.capture.lines import finish_line
from vaultbrain.capture.model import Capture
from vaultbrain.capture.pipeline import file_capture
from vaultbrain.capture.write import unwrite, write_held
from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.errors import UserError
from vaultbrain.filing.corrections import record_correction
from vaultbrain.filing.db import coerce_fields
from vaultbrain.filing.links import title_for_url
from vaultbrain.filing.refile import archive, audit, fileable_type, fix, restore_base
from vaultbrain.packs import PageType
from vaultbrain.vault.note import update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def _capture(brain: Brain, capture_id: str) -> dict[str, Any]:
    rec = brain.store.inbox.get(capture_id)
    if rec is None:
        raise UserError(f"no capture {capture_id!r}; `vaultbrain review list` shows the queue")
    return rec


def _edit_note(
    brain: Brain, rel: str, changes: dict[str, Any], remove: tuple[str, ...] = ()
) -> None:
    edit = brain.vault.edit(
        rel, lambda note: update_frontmatter(note.text, changes, remove) if note else None
    )
    if edit.before is not None:
        restore_base(brain, rel)


def _finish(brain: Brain, cap: dict[str, Any]) -> dict[str, Any]:
    """The capture's inbox line shows its new status (the capture as it is now)."""
    return finish_line(brain, Journal(brain), Capture.from_record(cap)).to_record()


def confirm(brain: Brain, capture_id: str) -> dict[str, Any]:
    """Accept a suggestion: its notes lose ``confirmed: false``, the updates it held back are
    written into the existing notes now; the capture is filed."""
    with brain.store.locked():
        cap = _capture(brain, capture_id)
        if cap["status"] == "needs_review":
            dests = Classification.from_dict(cap.get("classification") or {}).fileable
            if not dests:
                raise UserError(
                    f"{capture_id} has no suggestion to accept; choose a type: "
                    f"`vaultbrain review resolve {capture_id} TYPE`"
                )
            return _file_as(brain, cap, dests, by="confirm")
        if cap["status"] != "suggested":
            raise UserError(f"{capture_id} is {cap['status']}, not a suggestion to confirm")
        for d in cap.get("destinations", []):
            if d.get("op") == "create":
                _edit_note(
                    brain, d["path"], {"updated": brain.now().isoformat()}, remove=("confirmed",)
                )
        if any(d.get("held") for d in cap.get("destinations", [])):
            held = Capture.from_record(cap)
            cap["destinations"] = write_held(brain, held)
            if held.warnings:
                cap["warnings"] = held.warnings
        cap["status"] = "filed"
        cap["confirmed_at"] = cap["updated"] = brain.now().isoformat()
        brain.store.inbox.put(cap)
    audit(
        brain,
        "resolution",
        capture=capture_id,
        decision="confirm",
        destinations=cap.get("destinations", []),
    )
    return _finish(brain, cap)


def resolve(
    brain: Brain,
    capture_id: str,
    type_name: str,
    sets: dict[str, str] | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """File a thought as ``type_name`` (one or more, comma-separated) by the person's choice."""
    names = [t.strip() for t in re.split(r"[,\s]+", type_name) if t.strip()]
    with brain.store.locked():
        cap = _capture(brain, capture_id)
        # Records it wrote (a linked note of the person's, or an update a suggestion held back,
        # is not its to re-file).
        written = [
            d for d in cap.get("destinations", []) if d.get("record_id") and not d.get("held")
        ]
        dests_now = cap.get("destinations") or []
        if cap["status"] == "suggested" and dests_now:
            wanted = [fileable_type(brain, name).name for name in names]
            one = len(written) == 1 and len(wanted) == 1
            if not (one and written[0]["type"] != wanted[0]):
                return _redecide(brain, cap, wanted, sets, title)
        if cap["status"] in ("filed", "corrected", "suggested") and written:
            if len(written) == 1:
                return fix(brain, written[0]["record_id"], type_name)
            raise UserError(f"{capture_id} is already filed; use `vaultbrain fix RECORD_ID TYPE`")
        suggested = Classification.from_dict(cap.get("classification") or {})
        dests = []
        for name in names:
            ptype = fileable_type(brain, name)
            fields = coerce_fields(ptype, sets or {})
            previous = next((d for d in suggested.destinations if d.type == ptype.name), None)
            guess = title or (previous.title if previous and previous.title else None)
            if not guess:
                guess = next((d.title for d in suggested.destinations if d.title), None)
            base = dict(previous.fields) if previous else {}
            base.update({k: v for k, v in fields.items() if v is not None})
            from_url = _url_fields(ptype, cap["text"], base)
            guess = guess or from_url or _title_from(cap["text"])
            dests.append(Destination(ptype.name, guess, base))
        return _file_as(brain, cap, dests, by="resolve")


def _redecide(
    brain: Brain,
    cap: dict[str, Any],
    wanted: list[str],
    sets: dict[str, str] | None,
    title: str | None,
) -> dict[str, Any]:
    """A suggestion the person files as ``wanted`` instead (``→ project``, ``→ person, admin``):
    the suggested notes of a type still wanted stay (now confirmed), those of a type no longer
    wanted leave for the archive, and a type the classifier missed gets its note."""
    kept = [d for d in cap["destinations"] if d["type"] in wanted]
    for d in cap["destinations"]:
        if d not in kept and d.get("op") == "create" and brain.vault.try_read(d["path"]):
            archive(brain, d, reason=f"the person chose {', '.join(wanted)}")
    suggested = Classification.from_dict(cap.get("classification") or {})
    dests = []
    for name in dict.fromkeys(wanted):
        ptype = fileable_type(brain, name)
        held = next((d for d in kept if d["type"] == name), None)
        previous = next((d for d in suggested.destinations if d.type == name), None)
        guess = (held or {}).get("title") or title or (previous.title if previous else "")
        guess = guess or next((d.title for d in suggested.destinations if d.title), "")
        fields = dict(previous.fields) if previous else {}
        fields.update({k: v for k, v in coerce_fields(ptype, sets or {}).items() if v is not None})
        from_url = _url_fields(ptype, cap["text"], fields)
        dests.append(Destination(ptype.name, guess or from_url or _title_from(cap["text"]), fields))
    filed = _file_as(brain, cap, dests, by="resolve")
    # A kept note already holds this thought (the plan found it as an existing record): it
    # stays the capture's own note, and the person's choice confirms it.
    created = {d.get("record_id") for d in kept if d.get("op") == "create"}
    for d in filed.get("destinations", []):
        if d.get("record_id") in created:
            d["op"] = "create"
            _edit_note(
                brain, d["path"], {"updated": brain.now().isoformat()}, remove=("confirmed",)
            )
    brain.store.inbox.put(filed)
    return filed


def dismiss(brain: Brain, capture_id: str) -> dict[str, Any]:
    """Not a thought: the capture is dismissed; notes it created move to the archive, its log
    line leaves the notes it updated (a suggestion held its updates back: nothing to take)."""
    with brain.store.locked():
        cap = _capture(brain, capture_id)
        for rel in unwrite(brain, Capture.from_record(cap)):
            restore_base(brain, rel)
        for d in cap.get("destinations", []):
            if d.get("op") == "create" and brain.vault.try_read(d["path"]) is not None:
                archive(brain, d, reason="dismissed")
        cap["status"] = "dismissed"
        cap["dismissed_at"] = cap["updated"] = brain.now().isoformat()
        brain.store.inbox.put(cap)
    audit(brain, "resolution", capture=capture_id, decision="dismiss")
    return _finish(brain, cap)


def _file(brain: Brain, cap: dict[str, Any]) -> dict[str, Any]:
    return file_capture(brain, Journal(brain), Capture.from_record(cap)).to_record()


_URL = re.compile(r"https?://[^\s<>\]\)\"']+")


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


def _file_as(
    brain: Brain, cap: dict[str, Any], dests: list[Destination], by: str
) -> dict[str, Any]:
    """File a capture to ``dests`` as the person decided (confidence 1, classified by the person)."""
    result = Classification(dests, 1.0, f"decided by the person ({by})", "person")
    cap["classification_before"] = cap.get("classification")
    cap["classification"] = result.to_dict()
    cap["status"] = "pending"
    cap.pop("plan", None)
    cap.pop("last_error", None)
    brain.store.inbox.put(cap)
    filed = _file(brain, cap)
    filed["resolved_by"] = by
    brain.store.inbox.put(filed)
    before = Classification.from_dict(cap.get("classification_before") or {})
    wrong = [d.type for d in before.destinations if d.type not in {x.type for x in dests}]
    for d in dests:
        if wrong or not before.destinations:
            record_correction(
                brain.store,
                cap["text"],
                ",".join(wrong) or UNKNOWN,
                d.type,
                brain.now().isoformat(),
            )
    audit(
        brain,
        "resolution",
        capture=cap["id"],
        decision=by,
        destinations=filed.get("destinations", []),
        before=cap.get("classification_before"),
    )
    return _finish(brain, filed)


__all__ = ["confirm", "dismiss", "resolve"]
