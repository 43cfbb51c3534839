"""What Obsidian's own configuration says about a vault: which folders hold templates.

Template notes look like records (a Templater template for a meeting has ``type: meeting``)
and often do not parse (``date: {{date}}`` is not YAML), but they are the person's
scaffolding: vaultbrain never makes them records, never lists them as notes it cannot read,
never proposes them as a type, and never writes them. They are:

- the core Templates plugin's folder (``.obsidian/templates.json``, key ``folder``) and
  Templater's (``.obsidian/plugins/templater-obsidian/data.json``, ``templates_folder``),
  read from the vault's config folder (``.obsidian`` or a renamed one);
- any folder named ``Templates``, ``Template`` or ``_templates``;
- a note whose own text is a template (:func:`is_template_text`: Templater's tags, the core
  plugin's ``{{date}}``, ``{{time}}``, ``{{title}}``), wherever it is;
- a folder whose notes are mostly placeholders: more than half of them hold ``{{date}}``,
  ``{{title}}`` (Obsidian's, QuickAdd's, Periodic Notes') or ``<% tp.… %>`` (Templater's).
  That one needs the notes' heads read: :meth:`TemplateFolders.holds_note` looks (once per
  folder, again when the folder's entries change); :meth:`TemplateFolders.holds` answers from
  names, settings and what was already looked at, for walks that read no note.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

from vaultbrain.patterns import LazyPattern

TEMPLATE_FOLDER_NAMES = frozenset({"templates", "template", "_templates"})
_CONFIG_FILES = (
    ("templates.json", "folder"),
    ("plugins/templater-obsidian/data.json", "templates_folder"),
)
_MAX_CONFIG = 1_000_000
# {{date}}, {{date:YYYY-MM-DD}}, {{title}}, {{VALUE:name}}; <% tp.file.title %>, <%* … %>
PLACEHOLDER = LazyPattern(r"\{\{[^{}\n]{1,80}\}\}|<%[-_*+]?[^%\n]{1,200}%>")
HEAD_BYTES = 4096  # a template's placeholders sit in its properties and first lines
SAMPLE = 12  # notes looked at per folder (the first ones by name)


class TemplateFolders:
    """The template folders of one vault, re-read only when a config file changes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._stamp: tuple[int | None, ...] | None = None
        self._configured: tuple[str, ...] = ()
        # folder (lower case, "" for the root) -> (the folder's mtime_ns, mostly placeholders)
        self._looked: dict[str, tuple[int, bool]] = {}
        self._placeholder_folders: tuple[str, ...] = ()
        self._lock = threading.Lock()

    def refresh(self) -> None:
        stamp = tuple(_mtime(path) for path, _ in self._config_paths())
        if stamp == self._stamp:
            return
        self._stamp = stamp
        found = []
        for path, key in self._config_paths():
            folder = _configured_folder(path, key)
            if folder:
                found.append(folder.lower() + "/")
        self._configured = tuple(found)

    def _config_paths(self) -> list[tuple[Path, str]]:
        config = _config_folder(self.root)
        return [(config / rel, key) for rel, key in _CONFIG_FILES]

    def holds(self, rel: str) -> bool:
        """Whether the note ``rel`` is a template, by its folder's name, Obsidian's and
        Templater's settings, or a folder of placeholders already looked at."""
        low = rel.lower()
        if low.startswith((*self._configured, *self._placeholder_folders)):
            return True
        parts = low.split("/")[:-1]
        return any(part in TEMPLATE_FOLDER_NAMES for part in parts)

    def holds_note(self, rel: str) -> bool:
        """:meth:`holds`, and a folder whose notes are mostly placeholders (its notes' heads
        read once, and again when the folder gains, loses or renames a note)."""
        if self.holds(rel):
            return True
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        return self.placeholders_in(folder)

    def placeholders_in(self, folder: str) -> bool:
        """Whether more than half the notes directly in ``folder`` hold placeholders."""
        key = folder.lower()
        path = self.root / folder if folder else self.root
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return False
        with self._lock:
            seen = self._looked.get(key)
        if seen is not None and seen[0] == mtime:
            return seen[1]
        verdict = _mostly_placeholders(path)
        with self._lock:
            self._looked[key] = (mtime, verdict)
            self._placeholder_folders = tuple(
                sorted(k + "/" for k, (_, v) in self._looked.items() if v and k)
            )
        return verdict


# A template wherever it lives: Templater's tags (``<% tp.file.title %>``, ``<%* … %>``) or
# the core Templates plugin's own placeholders (``{{date}}``, ``{{time:HH:mm}}``,
# ``{{title}}``). Stricter than PLACEHOLDER: one note is judged alone, and a note about
# Mustache or Jinja (``{{ user.name }}``) is not a template of Obsidian's.
TEMPLATE_TEXT = re.compile(
    r"<%[-_*+]?[^%\n]{1,200}%>|<%\*|\{\{(?:date|time|title)(?::[^{}\n]{1,40})?\}\}"
)


def is_template_text(text: str) -> bool:
    """Whether a note's text is an Obsidian template by its content alone (Templater's
    ``<% … %>`` or ``<%* … %>``, core ``{{date}}``/``{{time}}``/``{{title}}``), wherever
    the note lives. Such a note is never a record and never written."""
    if "<%" not in text and "{{" not in text:
        return False
    return TEMPLATE_TEXT.search(text) is not None


def has_placeholders(text: str) -> bool:
    """Whether a note's head holds a template placeholder (``{{date}}``, ``<% … %>``)."""
    return PLACEHOLDER.search(text[:HEAD_BYTES]) is not None


def _mostly_placeholders(folder: Path) -> bool:
    try:
        with os.scandir(folder) as it:
            names = sorted(
                e.name
                for e in it
                if e.name.lower().endswith(".md")
                and not e.name.startswith(".")
                and e.is_file(follow_symlinks=False)
            )
    except OSError:
        return False
    if len(names) < 2:
        return False  # one note with a placeholder is a note about templates, not a folder
    names = names[:SAMPLE]
    hits = 0
    for name in names:
        try:
            with open(folder / name, "rb") as fh:
                head = fh.read(HEAD_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        hits += has_placeholders(head)
    return hits * 2 > len(names)


def config_folder(root: Path) -> Path:
    """The vault's config folder (``.obsidian`` or a renamed one), for other readers of it."""
    return _config_folder(root)


def _config_folder(root: Path) -> Path:
    """The vault's config folder: ``.obsidian``, or the one a renamed config folder is (the
    dot-folder that holds Obsidian's ``app.json``)."""
    default = root / ".obsidian"
    if default.is_dir():
        return default
    try:
        with os.scandir(root) as it:
            for entry in it:
                if entry.name.startswith(".") and (Path(entry.path) / "app.json").is_file():
                    return Path(entry.path)
    except OSError:
        pass
    return default


def _configured_folder(path: Path, key: str) -> str | None:
    try:
        if path.stat().st_size > _MAX_CONFIG:
            return None
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, str):
        return None
    folder = value.replace("\\", "/").strip().strip("/")
    return folder or None


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None
