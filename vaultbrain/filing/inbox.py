"""The inbox note as the filing layer uses it: create it, add lines, rewrite taken lines."""

from __future__ import annotations

from collections.abc import Callable

from vaultbrain.errors import ConflictError, UserError
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault import Vault
from vaultbrain.vault.inbox import (
    InboxLine,
    append_line,
    inbox_problem,
    render_taken_line,
    replace_line,
    scan_inbox,
)
from vaultbrain.vault.inline import shield

REVIEW_NOTE = "Brain/Needs Review.md"
WAITING = "⏳ waiting for the classifier"
INBOX_HEADER = """\
> [!info] vaultbrain inbox
> Write one thought per line below. When you have stopped typing for a few seconds, vaultbrain
> files each finished line as notes (People, Projects, Ideas, Admin…) and ticks it, with links
> to what it became. Lines waiting for your decision stay unticked and say so; resolve them in
> [[Brain/Needs Review]]. Headings, quotes, comments and code blocks are never taken.
> A line that is only a YouTube video URL pulls in its transcript; options on the same line:
> `#video`, `#audio`, `#no-transcript`, other `#tags`, and ` -- what to do with it` as a prompt.
> Any other bare URL is saved as a link.

"""
MAX_CAS_RETRIES = 20

# vaultbrain's own suffix on a taken line, by structure (the forms ``capture.lines.line_form``
# writes), so it is never read as the person's words, whatever links it holds and whatever
# the person typed around it. A suggestion's note may be cut short by the person's edit.
_LINK = r"\[\[[^\[\]\n]*\]\]"
SUFFIX = LazyPattern(
    r"(?:→ (?:filed|dismissed|needs review in "
    + _LINK
    + r"|"
    + _LINK
    + r"(?: · "
    + _LINK
    + r")*(?: \(suggested(?:[^()\[\]]|"
    + _LINK
    + r")*\)?)?)"
    r"|⏳ waiting for the classifier(?: \(offline, will retry\))?)"
)


# What was last said about each inbox that cannot be used, so a daemon says it once (and
# again only when it changes), not at every pass.
_SAID: dict[tuple[str, str], str] = {}


def unusable_inbox(vault: Vault, rel: str) -> tuple[str | None, bool]:
    """(why the inbox cannot be used or None, whether that is news since the last call)."""
    key = (str(vault.root), rel)
    problem = inbox_problem(vault, rel)
    if problem is None:
        _SAID.pop(key, None)
        return None, False
    news = _SAID.get(key) != problem
    _SAID[key] = problem
    return problem, news


def ensure_inbox(vault: Vault, rel: str) -> None:
    """Make the inbox note if nothing is there; a link or folder in its place is an error."""
    problem = inbox_problem(vault, rel)
    if problem:
        raise UserError(problem)
    if vault.try_read(rel) is None:
        try:
            vault.create(rel, INBOX_HEADER)
        except FileExistsError:
            pass


def find_line(text: str, capture_id: str) -> InboxLine | None:
    if f"^vb-{capture_id}" not in text:
        # No line can carry the id (a capture from the command line has none): the block
        # parse, and markdown-it's import, are spared.
        return None
    for line in scan_inbox(text):
        if line.block_id == capture_id:
            return line
    return None


def add_line(vault: Vault, rel: str, raw: str, capture_id: str | None = None) -> None:
    """Append a new line to the inbox (compare-and-swap, retried). An inbox that is a
    symlink or a folder is refused before anything is written (``inbox_problem``).
    ``capture_id``: the line's anchor; a line that already carries it is not added again
    (a capture handed to the daemon and then made here: vaultbrain/daemon/door.py)."""
    ensure_inbox(vault, rel)
    for _ in range(MAX_CAS_RETRIES):
        note = vault.read(rel)
        if capture_id is not None and find_line(note.text, capture_id) is not None:
            return
        try:
            vault.replace(rel, append_line(note.text, raw), note.hash)
            return
        except ConflictError:
            continue
    raise UserError(f"{rel} keeps changing; try again in a moment")


def unjournaled_line(
    vault: Vault, rel: str, thought: str, known: Callable[[str], bool]
) -> InboxLine | None:
    """The last anchored line holding ``thought`` whose capture id is not ``known`` to the
    store: a capture whose line was added but whose state write failed. Such a line is
    already safe (the daemon journals an anchored line it does not know), so the person
    must be told not to capture the thought again."""
    try:
        note = vault.try_read(rel)
    except UserError:
        return None
    if note is None:
        return None
    found = None
    for line in scan_inbox(note.text):
        if line.block_id and person_text(line, None) == thought and not known(line.block_id):
            found = line
    return found


def split_taken(text: str, original: str | None = None) -> tuple[str, str | None, str]:
    """(the person's words, our suffix or None, the person's remark after it) of a line's
    text. The remark keeps its leading space, so the line renders back byte for byte.

    ``original``: the capture's words, when known; our suffix is looked for right after them
    first, then at the last place one of our forms starts: the person's thought may hold an
    arrow and a link of its own (``ping Bob → [[Projects/Kiln]]``), and ours comes after it.
    """
    if original and text.startswith(original):
        at = len(original)
        if text[at : at + 1] == " ":
            m = SUFFIX.match(text, at + 1)
            if m:
                return original, m.group(0), text[m.end() :]
        elif at == len(text):
            return original, None, ""
    guarded = shield(text)  # an arrow in the thought's code span or link is no suffix of ours
    starts = [
        i + 1 for i, ch in enumerate(guarded) if ch == " " and guarded[i + 1 : i + 2] in ("→", "⏳")
    ]
    for start in reversed(starts):
        m = SUFFIX.match(text, start)
        if m:
            return text[: start - 1].rstrip(), m.group(0), text[m.end() :]
    if original and text.startswith(original) and text[len(original)] == " ":
        # Our suffix is gone (the person removed it): what they typed after it stays.
        return original, None, text[len(original) :]
    return text, None, ""


def person_text(line: InboxLine, previous_suffix: str | None) -> str:
    """The person's words on a taken line: what is left once our own suffix is removed."""
    return split_taken(line.text)[0]


DISMISSED_SUFFIX = "→ dismissed"  # the suffix of a dismissed thought's line


def rewrite_line(
    vault: Vault,
    rel: str,
    capture_id: str,
    previous_suffix: str | None,
    suffix: str,
    done: bool,
    original: str | None = None,
) -> bool:
    """Rewrite the taken line of ``capture_id``; False when the person removed it (or the
    inbox is no longer a note vaultbrain may write: a symlink's swap would replace the link).
    ``original``: the thought as taken, so an arrow and a link in it stay its words."""
    if inbox_problem(vault, rel):
        return False
    for _ in range(MAX_CAS_RETRIES):
        note = vault.try_read(rel)
        if note is None:
            return False
        line = find_line(note.text, capture_id)
        if line is None:
            return False
        words, _, remark = split_taken(line.text, original)
        if previous_suffix == DISMISSED_SUFFIX and suffix != previous_suffix and original:
            # Filed again (an arrow on the dismissed line): the strike that dismissed it goes.
            if "~~" in words and words.replace("~~", "") == original.replace("~~", ""):
                words = original
        new_raw = render_taken_line(line, words, suffix, capture_id, done, remark)
        if new_raw == line.raw:
            return True
        try:
            vault.replace(rel, replace_line(note.text, line.number, new_raw), note.hash)
            return True
        except ConflictError:
            continue
    raise UserError(f"{rel} keeps changing; the line will be rewritten on the next pass")


def parts_of(line: InboxLine, record: dict | None) -> tuple[str, str | None, str]:
    """(words, our suffix as it stands or None, the person's remark) of an anchored line."""
    original = record.get("text", "") if record is not None else None
    return split_taken(line.text, original or None)
