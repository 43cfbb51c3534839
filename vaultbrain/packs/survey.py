"""How well the active pack fits the vault: which notes it types, which it leaves untyped.

A note's type is its frontmatter ``type`` (a name or alias the pack declares) or else the
type its path implies; a frontmatter type the pack does not declare counts as no type. The
share of untyped notes is measured over notes in folders (root-level notes such as the inbox
are loose by design) outside vaultbrain's own output (``Brain/``, the YouTube and IdeaLoom
folders). ``reindex`` ends with :func:`untyped_warning` and ``doctor`` runs
:func:`schema_pack_consistency`; both say the same thing so the signal persists after the
session that caused it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.choice import folder_packs, typer_for
from vaultbrain.packs.loader import home_dir, load_pack
from vaultbrain.packs.resolved import PackError, ResolvedPack
from vaultbrain.vault.counted import index_note
from vaultbrain.vault.note import parse_note

if TYPE_CHECKING:
    from vaultbrain.packs.context import PackContext

UNTYPED_THRESHOLD = 0.10
MIN_NOTES = 5  # the untyped notes a folder needs for `schema detect` to propose a type
GENERATED_FOLDERS = ("Brain",)
Typer = Callable[[str], ResolvedPack]


@dataclass
class NoteTyping:
    rel: str
    folder: str  # the folder holding the note ("" at the vault root)
    type: str | None
    declared: str | None  # the frontmatter `type`, as written
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    # (with_data only) the body's section headings, lower case: a kind's structure
    headings: tuple[str, ...] = field(default=(), repr=False)

    @property
    def title(self) -> str:
        return Path(self.rel).stem


@dataclass
class Survey:
    notes: list[NoteTyping]
    excluded: list[str]

    def in_scope(self) -> list[NoteTyping]:
        return [n for n in self.notes if n.folder]

    def untyped(self, scope_only: bool = True, own_types: bool = False) -> list[NoteTyping]:
        """Notes no type of the pack reaches (by folder or a ``type:`` it declares); with
        ``own_types``, nor a ``type:`` of the note's own. A README, index or folder note is
        none of them: it is no record of any type."""
        pool = self.in_scope() if scope_only else self.notes
        return [
            n
            for n in pool
            if n.type is None and not (own_types and n.declared) and not index_note(n.rel)
        ]


def generated_folders(settings: Any | None) -> list[str]:
    folders = list(GENERATED_FOLDERS)
    if settings is not None:
        for key in ("youtube.folder", "idealoom.folder"):
            try:
                value = settings.get(key)
            except UserError:
                continue
            if value:
                folders.append(str(value).strip("/"))
    return folders


def _under(rel_low: str, folders: Iterable[str]) -> bool:
    return any(rel_low.startswith(f.lower().strip("/") + "/") for f in folders)


def survey_vault(
    vault: Any,
    typer: Typer | ResolvedPack,
    exclude: Iterable[str] = (),
    skip: Iterable[str] = (),
    with_data: bool = False,
    template: Callable[[str], bool] | None = None,
) -> Survey:
    """Type every note of ``vault`` (not under ``exclude`` folders, not the ``skip`` notes,
    not a ``template``): the one count of the vault (vaultbrain/vault/counted.py)."""
    if isinstance(typer, ResolvedPack):
        pack = typer
        typer = lambda _rel: pack  # noqa: E731
    exclude = [e for e in exclude if e]
    skip_low = {s.lower() for s in skip}
    out: list[NoteTyping] = []
    for rel, _ in vault.iter_notes():
        low = rel.lower()
        if low in skip_low or _under(low, exclude) or (template is not None and template(rel)):
            continue
        try:
            note = vault.read(rel)
        except (UserError, OSError):
            continue
        parsed = parse_note(note.text)
        data = parsed.data if isinstance(parsed.data, dict) else {}
        declared = data.get("type")
        declared = (
            str(declared).strip()
            if isinstance(declared, str | int) and str(declared).strip()
            else None
        )
        # A README, index or folder note is counted but is no record of any type.
        ptype = None if index_note(rel) else typer(rel).infer_type(rel, data)
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        out.append(
            NoteTyping(
                rel,
                folder,
                ptype.name if ptype else None,
                declared,
                data if with_data else {},
                _headings(parsed.body) if with_data else (),
            )
        )
    out.sort(key=lambda n: n.rel.lower())
    return Survey(out, exclude)


_HEADING = re.compile(r"^#{2,4}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1", re.MULTILINE | re.DOTALL)


def _headings(body: str) -> tuple[str, ...]:
    """The section headings (``##`` to ``####``) of a note's body, outside code fences,
    lower case and without duplicates, in order: the structure notes of one kind share."""
    seen: dict[str, None] = {}
    for m in _HEADING.finditer(_FENCE.sub("", body)):
        seen.setdefault(" ".join(m.group(1).lower().split()), None)
    return tuple(seen)


def _typer_and_scope(
    subject: Any, pack: Any = None, settings: Any = None
) -> tuple[Any, Typer | ResolvedPack, list[str], list[str], str]:
    """(vault, typer, excluded folders, skipped notes, pack identity) from an app or a vault."""
    if hasattr(subject, "vault") and hasattr(subject, "settings"):  # an App
        app = subject
        typer = typer_for(app) if pack is None else pack
        settings = app.settings
        vault = app.vault
        identity = (pack if isinstance(pack, ResolvedPack) else app.pack).identity
    else:
        vault = subject
        if pack is None:
            raise TypeError("untyped_warning(vault, pack): pass the pack")
        typer = pack
        # Without settings only the built-in generated folders are left out: packs never read
        # settings themselves (settings validate pack names against packs/).
        identity = pack.identity if isinstance(pack, ResolvedPack) else pack("").identity
    skip = []
    if settings is not None:
        try:
            skip.append(str(settings.get("inbox_note")))
        except UserError:
            pass
    return vault, typer, generated_folders(settings), skip, identity


def _templates_of(subject: Any) -> Callable[[str], bool] | None:
    templates = getattr(subject, "templates", None)
    return templates.holds if templates is not None else None


def _survey(subject: Any, pack: Any = None, settings: Any = None) -> tuple[Survey, str]:
    vault, typer, exclude, skip, identity = _typer_and_scope(subject, pack, settings)
    return survey_vault(vault, typer, exclude, skip, template=_templates_of(subject)), identity


def _in_folders(survey: Survey) -> tuple[int, int]:
    """(untyped notes in folders, notes in folders): the untyped warning's."""
    scope = [n for n in survey.in_scope() if not index_note(n.rel)]
    return len(survey.untyped()), len(scope)


def untyped_counts(subject: Any, pack: Any = None, settings: Any = None) -> tuple[int, int, str]:
    """(untyped notes in folders, notes in folders, pack identity): the untyped warning's."""
    survey, identity = _survey(subject, pack, settings)
    return (*_in_folders(survey), identity)


def untyped_warning(subject: Any, pack: Any = None, settings: Any = None) -> str | None:
    """The seed's warning when 10% or more of the notes in folders have no matching type.

    ``untyped_warning(app)`` honours per-folder packs (tier 3); ``untyped_warning(vault,
    pack, settings)`` types every note with ``pack``.
    """
    survey, identity = _survey(subject, pack, settings)
    untyped, total = _in_folders(survey)
    return format_untyped(untyped, total, identity, _most_in_a_folder(survey.untyped()))


def format_untyped(
    untyped: int, total: int, identity: str, detects: int | None = None
) -> str | None:
    """The untyped warning. ``detects``: the most untyped notes below one top folder;
    `schema detect` is named only when that is enough for it to propose a type (None: not
    known, it is named with what it needs)."""
    if not total or untyped / total < UNTYPED_THRESHOLD:
        return None
    pct = 100.0 * untyped / total
    said = (
        f"[schema] {untyped} of the {total} notes in folders ({pct:.0f}%) have no type of the "
        f"active schema pack ({identity}): `vaultbrain schema review-orphans` lists them by "
        "folder"
    )
    if detects is None:
        return (
            f"{said}; `vaultbrain schema detect` proposes a type for each folder of "
            f"{MIN_NOTES} or more."
        )
    if detects >= MIN_NOTES:
        return f"{said}; `vaultbrain schema detect` proposes types for them."
    return f"{said}."


def _most_in_a_folder(notes: list[NoteTyping]) -> int:
    tops = Counter(n.folder.split("/", 1)[0].lower() for n in notes if n.folder)
    return max(tops.values(), default=0)


@dataclass
class OrphanFolder:
    folder: str
    count: int
    samples: list[str]


@dataclass
class Orphans:
    pack: str
    total: int
    untyped: int
    folders: list[OrphanFolder]
    undeclared_types: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "total": self.total,
            "untyped": self.untyped,
            "folders": [f.__dict__ for f in self.folders],
            "undeclared_frontmatter_types": self.undeclared_types,
        }


def review_orphans(app: PackContext, samples: int = 5) -> Orphans:
    """Notes no type of the pack reaches, grouped by folder (the vault root included)."""
    vault, typer, exclude, skip, identity = _typer_and_scope(app)
    survey = survey_vault(vault, typer, exclude, skip, template=_templates_of(app))
    orphans = survey.untyped(scope_only=False, own_types=True)  # a `type:` of its own: typed
    groups: dict[str, list[NoteTyping]] = {}
    for n in orphans:
        groups.setdefault(n.folder or "(vault root)", []).append(n)
    folders = [
        OrphanFolder(folder, len(notes), [n.rel for n in notes[:samples]])
        for folder, notes in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0].lower()))
    ]
    # (typed by a `type:` of their own, which the pack does not declare: listed apart)
    undeclared = Counter(n.declared for n in survey.notes if n.declared and n.type is None)
    return Orphans(identity, len(survey.notes), len(orphans), folders, dict(undeclared))


def schema_pack_consistency(app: PackContext) -> tuple[bool, str]:
    """``doctor``'s check: the pack resolves, lints clean and types the vault's notes."""
    from vaultbrain.packs.lint import chain_layers, lint_pack

    try:
        active = app.active
    except (PackError, UserError) as exc:
        return False, str(exc)
    home = home_dir(getattr(app, "env", None))
    for folder, name in folder_packs(app.settings):
        try:
            load_pack(name, home)
        except PackError as exc:
            return False, f"per-folder pack for {folder}/: {exc}"
    pack = active.pack
    report = lint_pack(pack, chain_layers(pack, home))
    if report.errors:
        first = report.errors[0]
        return False, (
            f"{pack.identity}: {len(report.errors)} lint error(s), first: {first.message} "
            "(`vaultbrain schema lint`)"
        )
    try:
        survey, identity = _survey(app)
        untyped, total = _in_folders(survey)
        # the one count, as `schema review-orphans` says it
        notes = len(survey.notes)
        typed = notes - len(survey.untyped(scope_only=False, own_types=True))
    except (UserError, OSError) as exc:
        return False, f"could not survey the vault: {exc}"
    warning = format_untyped(untyped, total, identity, _most_in_a_folder(survey.untyped()))
    if warning:
        return False, f"{warning} ({typed} of {notes} notes typed, a type: of their own included)"
    where = f"tier {active.tier}: {active.source}"
    return True, f"{pack.identity} ({where}); {typed} of {notes} notes typed"
