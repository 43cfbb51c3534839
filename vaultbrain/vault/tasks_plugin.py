"""Obsidian Tasks, as the vault's config folder sets it up: does it keep vaultbrain's own
checkboxes out of the person's task lists?

vaultbrain's own checkboxes are the inbox's lines (ticked once filed, open while they wait
for the person: a tick there accepts) and the items of ``Brain/Needs Review.md`` (a tick
accepts, ``[-]`` dismisses). They are checkboxes so the tick gesture works in Obsidian, so
Tasks and Dataview read them as tasks; the design keeps them out of task lists in two ways:

- they carry no field Tasks reads: Tasks reads a task's 📅 ⏳ 🔁 and priorities only at
  the end of its line, and vaultbrain's suffix (``→ …``) and block id end every inbox line
  it took, so what a person typed there is words to Tasks and a thought's dates are read on
  its note's one Tasks line only (a tick with Tasks makes no next occurrence there); Needs
  Review and every other copy are made inert (vaultbrain/vault/typed.py ``inert``);
- one line in Tasks' "Global Query" (:func:`exclusion_line`, said by ``vaultbrain doctor``
  when it is missing) leaves the inbox note and ``Brain/`` out of every Tasks query.
  Tasks' global *filter* (a tag every task must carry) also leaves them out, but then
  only the lines carrying the tag are tasks.

Read only: the plugin's settings are the person's; nothing here writes them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

PLUGIN_DATA = "plugins/obsidian-tasks-plugin/data.json"
PLUGIN_FOLDER = "plugins/obsidian-tasks-plugin"
BRAIN_FOLDER = "Brain/"
_MAX_DATA = 4 * 1024 * 1024
# A Tasks text filter on the task's file (src/Query/Filter/TextField.ts): the field, the
# operator, the value (a substring, or a /regex/flags).
_FILTER = re.compile(
    r"^(path|folder|filename) (includes|does not include|regex matches|regex does not match) (.*)$",
    re.IGNORECASE,
)
_REGEX = re.compile(r"^/(.+)/([^/]*)$")  # Tasks' RegexMatcher.validateAndConstruct


@dataclass(frozen=True)
class TasksSetup:
    """The Tasks plugin's settings that decide which lines its queries list."""

    global_filter: str
    global_query: str


def tasks_setup(config: Path) -> TasksSetup | None:
    """The settings of the Tasks plugin in the vault's config folder ``config``, or None
    when it is not installed. A plugin installed and never configured has no data.json:
    Tasks' defaults (no global filter, no global query)."""
    if not (config / PLUGIN_FOLDER).is_dir():
        return None
    data: object = {}
    try:
        path = config / PLUGIN_DATA
        if path.stat().st_size <= _MAX_DATA:
            data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    # Tasks 1.x kept the global filter at the top; later versions do too (Config/Settings.ts).
    gf = data.get("globalFilter")
    gq = data.get("globalQuery")
    return TasksSetup(gf.strip() if isinstance(gf, str) else "", gq if isinstance(gq, str) else "")


def escape_regex(text: str) -> str:
    """``text`` literally inside a Tasks /regex/ (Tasks' own escapeRegExp)."""
    return re.sub(r"([.*+?^${}()|\[\]/\\])", r"\\\1", text)


def exclusion_line(inbox_rel: str) -> str:
    """The one Global Query line that leaves the inbox note and ``Brain/`` out of every
    Tasks query (anchored: ``Projects/Inbox zero.md`` stays in)."""
    return f"path regex does not match /^({escape_regex(inbox_rel)}|{escape_regex(BRAIN_FOLDER)})/"


def _matcher(value: str) -> re.Pattern[str] | None:
    m = _REGEX.match(value.strip())
    if m is None:
        return None
    flags = re.IGNORECASE if "i" in m.group(2) else 0
    try:
        return re.compile(m.group(1), flags)
    except re.error:
        return None


def _field(name: str, path: str) -> str:
    if name == "path":
        return path
    if name == "filename":
        return path.rsplit("/", 1)[-1]
    return path.rsplit("/", 1)[0] + "/" if "/" in path else "/"  # Tasks' folder: "/" at the root


def query_lists(query: str, path: str) -> bool:
    """Whether a task in the note ``path`` passes the query's file filters (the lines of
    ``query`` that filter by path, folder or file name; Tasks ANDs its filters). Other
    instructions are not about the file and are left out of the answer."""
    for raw in query.splitlines():
        m = _FILTER.match(raw.strip())
        if m is None:
            continue
        name, op, value = m.group(1).lower(), m.group(2).lower(), m.group(3)
        text = _field(name, path)
        if "regex" in op:
            pattern = _matcher(value)
            if pattern is None:
                continue  # Tasks says the line is wrong; it filters nothing
            hit = pattern.search(text) is not None
        else:
            hit = value.lower() in text.lower()
        if hit == ("not" in op):
            return False
    return True


def own_checkboxes_finding(config: Path, inbox_rel: str) -> tuple[bool, str] | None:
    """(whether Tasks keeps vaultbrain's checkboxes out of its queries, what to say), or
    None when the Tasks plugin is not installed."""
    setup = tasks_setup(config)
    if setup is None:
        return None
    line = exclusion_line(inbox_rel)
    if setup.global_filter:
        return (
            True,
            f"global filter {setup.global_filter!r}: only lines carrying it are tasks, so "
            "vaultbrain's own checkboxes are not; its admin notes' task lines are not either "
            f"unless you add {setup.global_filter!r} to them (or, instead of the global filter, "
            f'put this line in Tasks\' "Global Query": {line})',
        )
    own = [inbox_rel, f"{BRAIN_FOLDER}Needs Review.md"]
    if not any(query_lists(setup.global_query, rel) for rel in own):
        return True, "its Global Query leaves vaultbrain's own checkboxes out of every query"
    return (
        False,
        "Tasks lists vaultbrain's own checkboxes (inbox lines waiting for you, Needs Review "
        f'items) with your tasks; add this one line to Tasks\' settings, "Global Query": {line}',
    )
