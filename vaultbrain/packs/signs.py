"""The signs that a group of notes is one kind, for ``schema detect``: the properties and
sections it shares that the rest of the vault lacks, names made of a date and a title, and the
folders that are places (an inbox, an archive, attachments, templates, daily notes), never a
kind."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.packs.naming import name_words
from vaultbrain.packs.survey import NoteTyping
from vaultbrain.vault.obsidian import config_folder

# Frontmatter keys that are vaultbrain's or Obsidian's own, never a proposed type's field.
RESERVED_KEYS = set(
    "type id created updated source confidence classified_by confirmed aliases cssclasses "
    "cssclass publish position title".split()
)
# Keys notes of every kind carry (dates of the file, navigation, tags): no sign of a kind.
_ANY_KIND_KEYS = (
    RESERVED_KEYS
    | set(
        "tags tag alias date modified created_at updated_at up parent related links banner "
        "cover icon permalink subtype categories category".split()
    )
    | {"date created", "date modified"}
)
FIELD_KEY = re.compile(r"^[^\W\d_][\w -]{0,63}$")  # (any script: `autor`, `автор`)
SHARED = 0.6  # share of a group's notes that must have a property for it to be the kind's
_ELSEWHERE = 0.5  # ... while fewer than this share of the other notes have it
# One section alone makes a kind only over many notes (most of them with it, as a template
# writes it): a ``## FAQ`` on five pages of six, a ``## Related`` on a client's seven, is how
# those pages are written, no kind.
_ONE_SECTION_NOTES = 10
# A date in a note's name: 2026-11-10, 2026.11.10, 2026_11_10, 20261110, 10.11.2026,
# 10-11-2026, 2026-W46, 2026-11, 2026-Q4.
NAME_DATE = re.compile(
    r"(?<!\d)(?:\d{4}[-._]\d{2}[-._]\d{2}|\d{8}|\d{2}[-.]\d{2}[-.]\d{4}|\d{4}-W\d{2}"
    r"|\d{4}-\d{2}|\d{4}-Q[1-4])(?!\d)"
)
_WEEKDAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun "
    "montag dienstag mittwoch donnerstag freitag samstag sonntag lundi mardi mercredi jeudi "
    "vendredi samedi dimanche lunes martes miércoles jueves viernes sábado domingo".split()
)
# Folders that are places, never kinds (their whole name, number prefixes and marks dropped).
_PLACE_NAMES = frozenset(
    (
        # inboxes
        "inbox, in, inbox notes, eingang, posteingang, eingangskorb, boîte de réception, "
        "bandeja de entrada, caixa de entrada, entrada, входящие, 收件箱, 受信箱, unsorted, "
        "unprocessed, to sort, to process, triage, "
        # archives
        "archive, archives, archiv, archivo, archives personnelles, архив, attic, "
        # attachments and drawings
        "attachments, attachment, assets, files, images, img, pictures, resources attachments, "
        "excalidraw, anhänge, anlagen, bilder, pièces jointes, adjuntos, anexos, вложения, 附件, "
        "添付ファイル, "
        # templates (also found by vault/obsidian.py, by settings and content)
        "templates, template, vorlagen, modèles, plantillas, шаблоны"
    ).split(", ")
)


class Signs:
    """The signs of a kind each note of a set shows (the properties no kind has in common,
    its sections), and how many notes of the set show each: a group of the set is compared
    with the rest of it without counting the rest again."""

    def __init__(self, notes: Iterable[NoteTyping]) -> None:
        self.keys: dict[str, frozenset[str]] = {}
        self.heads: dict[str, frozenset[str]] = {}
        for n in notes:
            self.keys[n.rel] = frozenset(kind_keys(n))
            self.heads[n.rel] = frozenset(n.headings)
        self.key_total = Counter(k for ks in self.keys.values() for k in ks)
        self.head_total = Counter(h for hs in self.heads.values() for h in hs)

    def of(
        self, group: list[NoteTyping], rest_without: list[NoteTyping] | None = None
    ) -> tuple[Counter[str], Counter[str], Counter[str], Counter[str], int]:
        """(keys in ``group``, keys in the rest, sections in ``group``, in the rest, how
        many notes the rest holds). The rest: the set without ``rest_without`` (``group``)."""
        away = group if rest_without is None else rest_without
        keys_in = Counter(k for n in group for k in self.keys[n.rel])
        heads_in = Counter(h for n in group for h in self.heads[n.rel])
        keys_away = keys_in if away is group else Counter(k for n in away for k in self.keys[n.rel])
        heads_away = (
            heads_in if away is group else Counter(h for n in away for h in self.heads[n.rel])
        )
        return (
            keys_in,
            self.key_total - keys_away,
            heads_in,
            self.head_total - heads_away,
            len(self.keys) - len(away),
        )


def kind_signs(
    group: list[NoteTyping],
    signs: Signs,
    dated: bool,
    rest_without: list[NoteTyping] | None = None,
    area: tuple[Counter[str], Counter[str]] | None = None,
) -> tuple[list[str] | None, str]:
    """What makes ``group`` (notes of ``signs``' set) one kind, against the rest of the set
    (without ``rest_without``, by default the group): properties most of its notes have and
    most others lack, sections (headings) likewise, or names of a date and a title. None:
    nothing (a topic or area folder, a daily-notes folder).

    ``area``: the ``area_counts`` of the place the group is in (its folder's parent folder,
    the group included). A sign is the group's only when the group holds half or more of the area's
    notes that show it: a property or section spread over the folders beside it (a help
    vault's ``description`` on the pages of every topic folder of a language, a ``## FAQ``
    here and there) is the area's way of writing pages, no kind of this folder's."""
    if len(group) < 2:
        return None, ""
    if dated and _daily_names(group):
        return None, "its notes are named by a date alone (daily notes)"
    keys_in, keys_out, heads_in, heads_out, others = signs.of(group, rest_without)
    if area is not None:
        keys_in, heads_in = _concentrated(keys_in, heads_in, area)
    keys = shared_signs(keys_in, keys_out, len(group), others)
    if keys:
        return keys, "its notes share " + ", ".join(keys[:4])
    heads = shared_signs(heads_in, heads_out, len(group), others)
    strong = shared_signs(heads_in, heads_out, len(group), others, share=0.8)
    if len(group) < _ONE_SECTION_NOTES:
        strong = []
    if len(heads) >= 2 or strong:
        heads = heads if len(heads) >= 2 else strong
        return [], "its notes share the sections " + ", ".join(f"## {h}" for h in heads[:4])
    if dated:
        with_title = sum(1 for n in group if _dated_title(n.title))
        if with_title >= SHARED * len(group):
            return [], f"{with_title} of {len(group)} notes are named by a date and a title"
    return None, ""


def area_counts(area: Iterable[NoteTyping], signs: Signs) -> tuple[Counter[str], Counter[str]]:
    """(properties, sections): how many notes of ``area`` show each (``kind_signs``' area)."""
    keys_area: Counter[str] = Counter()
    heads_area: Counter[str] = Counter()
    for n in area:
        known_keys = signs.keys.get(n.rel)
        keys_area.update(known_keys if known_keys is not None else kind_keys(n))
        known_heads = signs.heads.get(n.rel)
        heads_area.update(known_heads if known_heads is not None else n.headings)
    return keys_area, heads_area


def _concentrated(
    keys_in: Counter[str], heads_in: Counter[str], area: tuple[Counter[str], Counter[str]]
) -> tuple[Counter[str], Counter[str]]:
    """The group's signs (``keys_in``, ``heads_in``) it holds half or more of in ``area``."""
    keys_area, heads_area = area
    own_keys = Counter({k: c for k, c in keys_in.items() if 2 * c >= keys_area[k]})
    own_heads = Counter({h: c for h, c in heads_in.items() if 2 * c >= heads_area[h]})
    return own_keys, own_heads


def kind_keys(n: NoteTyping) -> set[str]:
    return {
        k
        for k in n.data
        if isinstance(k, str) and FIELD_KEY.match(k) and k.lower() not in _ANY_KIND_KEYS
    }


def shared_signs(
    inside: Counter[str],
    outside: Counter[str],
    size: int,
    others: int,
    share: float = SHARED,
) -> list[str]:
    """The signs at least ``share`` of a group of ``size`` show (two notes at least) that
    fewer than half of the ``others`` notes show."""
    need = max(2, share * size)
    return sorted(
        (
            k
            for k, c in inside.items()
            if c >= need and (not others or outside[k] < _ELSEWHERE * others)
        ),
        key=lambda k: (-inside[k], k),
    )


def _daily_names(group: list[NoteTyping]) -> bool:
    bare = sum(1 for n in group if _bare_date(n.title))
    return bare >= SHARED * len(group)


def _bare_date(title: str) -> bool:
    m = NAME_DATE.search(title)
    if m is None:
        return False
    rest = name_words(title[: m.start()] + " " + title[m.end() :])
    return all(w in _WEEKDAYS or w.isdigit() for w in rest) and len(rest) <= 2


def _dated_title(title: str) -> bool:
    m = NAME_DATE.search(title)
    return m is not None and not _bare_date(title)


# ISO 639-1 codes: a folder named by one (``en``, ``zh``, ``pt-br``, ``zh-TW``) beside two
# others is a language's copy of a translated tree (vaultbrain/packs/detect_folders.py).
_LANGUAGES = frozenset(
    "aa ab af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv "
    "cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho "
    "hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku "
    "kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn "
    "no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm "
    "sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi "
    "vo wa wo xh yi yo za zh zu".split()
)
_LOCALE = re.compile(r"^([a-z]{2})(?:[-_](?:[a-z]{2}|\d{3}|[a-z]{4}))?$")


def a_language(name: str) -> bool:
    """Whether a folder's name is a language's code (``de``, ``pt-br``, ``zh-Hant``)."""
    m = _LOCALE.match(name.lower())
    return m is not None and m.group(1) in _LANGUAGES


def a_place(folder: str, places_low: set[str]) -> bool:
    """An inbox, archive, attachments or templates folder, or one Obsidian writes daily
    notes to: a place, never a kind."""
    if folder.lower().strip("/") in places_low:
        return True
    last = folder.strip("/").rsplit("/", 1)[-1]
    words = name_words(last)
    while words and words[0].isdigit():
        words = words[1:]
    name = " ".join(words)
    return name in _PLACE_NAMES or (len(words) > 1 and words[-1] in {"inbox", "archive"})


def configured_places(root: Path, settings: Any) -> list[str]:
    """Folders Obsidian writes daily and periodic notes to, its attachments folder, and the
    ``daily_notes_folder`` setting."""
    found: list[str] = []
    config = config_folder(root)
    reads = [
        ("daily-notes.json", ("folder",)),
        ("app.json", ("attachmentFolderPath",)),
        ("plugins/periodic-notes/data.json", ("daily", "folder")),
        ("plugins/periodic-notes/data.json", ("weekly", "folder")),
        ("plugins/periodic-notes/data.json", ("monthly", "folder")),
        ("plugins/periodic-notes/data.json", ("quarterly", "folder")),
        ("plugins/periodic-notes/data.json", ("yearly", "folder")),
    ]
    for rel, path in reads:
        value = _json_at(config / rel, path)
        if isinstance(value, str):
            folder = value.replace("\\", "/").strip().strip("/")
            if folder and folder not in (".", "./") and not folder.startswith("./"):
                found.append(folder)
    if settings is not None:
        try:
            value = settings.get("daily_notes_folder")
        except UserError:
            value = None
        if value:
            found.append(str(value).strip().strip("/"))
    return found


def _json_at(path: Path, keys: tuple[str, ...]) -> Any:
    try:
        if path.stat().st_size > 1_000_000:
            return None
        value: Any = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
