"""What ``vaultbrain capture`` says of a thought: the capture made (in the command's own
process, or by the daemon it was handed to: vaultbrain/daemon/door.py) and the lines that
tell the person what became of it. Both paths print exactly this, so a person cannot tell
them apart but by the time they take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import WAITING_FOR_PERSON, CaptureStatus, capture_doc
from vaultbrain.errors import StorageError, UserError, VaultbrainError, write_failure

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def capture_said(brain: Brain, text: str, cid: str | None = None) -> dict[str, Any]:
    """Capture ``text`` (under ``cid`` when the command chose it: see
    :func:`vaultbrain.capture.pipeline.capture`) and say what became of it:
    ``{"summary": <the capture as --json prints it>, "lines": [<what the command prints>]}``.
    A failed capture is a UserError that says exactly what was and was not done."""
    from vaultbrain.capture.pipeline import capture

    try:
        record = capture(brain, text, cid).to_record()
    except (StorageError, OSError) as exc:
        raise capture_failure(brain, text, exc) from exc
    summary = capture_doc(record)
    if CaptureStatus.of(summary["status"]) in WAITING_FOR_PERSON:
        review_note_now(brain)
    return {"summary": summary, "lines": said_lines(str(record["id"]), summary)}


def said_lines(cid: str, summary: dict[str, Any]) -> list[str]:
    """The lines ``vaultbrain capture`` prints for a capture (hints without the --vault the
    person gave: the command adds it)."""
    from vaultbrain.classify.result import fallback_note

    status = summary["status"]
    conf = summary["confidence"]
    head = f"{status}" + (f" ({conf:.2f}, {summary['classified_by']})" if conf is not None else "")
    said = fallback_note(summary["fallback"])  # the LLM failed and the embedded one decided
    out = [f"{cid}: {head}" + (f" ({said})" if said else "")]
    for d in summary["destinations"]:
        said = {"link": " (linked: your note, not written)"}.get(d.get("op", ""), "")
        held = " (held: confirm)" if d.get("held") else ""
        out.append(f"  {d['type']:<8} {d['path']}{said}{held}")
    if status == CaptureStatus.NEEDS_REVIEW:
        out.append("  waiting for you in Brain/Needs Review.md (or `vaultbrain review list`)")
    if status == CaptureStatus.PENDING:
        # (no error: another process holds it, the daemon it was handed to, filing it now)
        why = summary["error"] or "the daemon is filing it"
        out.append(f"  pending: {why}; the daemon will retry")
    return out


def review_note_now(brain: Brain) -> None:
    """The capture waits for the person: Needs Review shows it (its line links there)."""
    from vaultbrain.capture.review_queue import ReviewQueue

    try:
        ReviewQueue(brain).write()
    except (VaultbrainError, OSError):
        pass  # the daemon draws it; the capture itself is safe


def capture_failure(brain: Brain, text: str, exc: Exception) -> Exception:
    """What a failed capture did and did not do, exactly. A disk that refused the state
    dir after the inbox line was written leaves the thought safe in the inbox (anchored: the
    daemon files it once it can write), so "nothing was changed, try again" would make the
    person capture it twice."""
    from vaultbrain.capture.lines import check_thought
    from vaultbrain.filing.inbox import unjournaled_line

    rel = brain.inbox_rel
    try:
        thought = check_thought(text)
        store = brain.store.inbox
        line = unjournaled_line(
            brain.vault,
            rel,
            thought,
            lambda cid: store.summary(cid, include_deleted=True) is not None,
        )
    except (VaultbrainError, OSError):
        line = None
    if line is None:
        return exc
    return UserError(
        f"the thought is in {rel} (line {line.number + 1}, ^vb-{line.block_id}) but was not "
        f"filed: {write_failure(exc)}; the daemon files it once the state dir can be written, so do not "
        "capture it again"
    )
