"""The resolved pack everything consults, and its parts as plain objects.

A manifest is validated with pydantic (``vaultbrain/packs/model.py``, ``fields.py``) where
it is read: once, when a pack file changed. What the rest of vaultbrain reads is the result,
frozen into the plain objects of this module: each part's fields are its attributes, and
page types, their fields and subtypes keep their methods (the rule mixins below, which the
pydantic models share). A command that finds its pack in the state dir's cache unpickles
these and never imports pydantic, whose import and model classes were a third of a cold
``vaultbrain capture``.

:class:`ResolvedPack` is a manifest with its ``extends`` chain and ``borrow_from`` targets
merged (see :mod:`vaultbrain.packs.merge`); its identity is ``name@version+sha8`` where sha8
is the first 8 hex digits of SHA-256 over the canonical JSON of the merged manifest after
defaults, so a change anywhere in the chain changes the identity a capture records.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from functools import cached_property
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.patterns import LazyPattern

_DATE = LazyPattern(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = LazyPattern(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")


class PackError(UserError):
    """A pack that cannot be loaded or resolved.

    ``code`` says which kind of failure (INVALID_SHAPE, INVALID_API_VERSION, PARSE_ERROR,
    FILE_NOT_FOUND, UNKNOWN_PACK, EXTENDS_TOO_DEEP, ALIAS_CYCLE); ``field`` names the
    manifest path that is wrong (``page_types[2].fields.status.type``) when there is one.
    """

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.field = field
        self.detail = message


def normalize_prefix(prefix: str) -> str:
    """A path prefix as matched: forward slashes, lower case, one trailing slash."""
    return prefix.replace("\\", "/").strip().strip("/").lower() + "/"


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def plural(name: str) -> str:
    if name.endswith("y") and not name.endswith(("ay", "ey", "oy", "uy")):
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    return name + "s"


def collection_for(name: str) -> str:
    """The store collection of a type named ``name``: its plural; a name in another script
    (``bücher``, ``книга``) takes an ASCII form, since a collection names a folder of
    ``db export``: its letters without accents, or else its punycode (``xn--80afd5a``)."""
    if name.isascii():
        return plural(name)
    folded = "".join(
        ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch)
    )
    if folded.isascii():
        return plural(folded)
    return "xn--" + name.encode("punycode").decode("ascii").strip("-")


# -- what page types, fields and subtypes do (shared by the pydantic models and the parts) --


class SubtypeRules:
    """gbrain's per-type subtype rule: a regex over the note's path, or a frontmatter value."""

    if TYPE_CHECKING:  # (declared by the model or the part; no pydantic field here)
        name: str
        when: Any

    def matches(self, rel: str, frontmatter: dict[str, Any] | None) -> bool:
        w = self.when
        if w.frontmatter_field and frontmatter is not None and w.frontmatter_value is not None:
            value = frontmatter.get(w.frontmatter_field)
            want = w.frontmatter_value
            # gbrain compares with ===: a boolean is never a number, nor a number a string
            if type(value) is type(want) or (
                isinstance(value, int | float)
                and isinstance(want, int | float)
                and not isinstance(value, bool)
                and not isinstance(want, bool)
            ):
                if value == want:
                    return True
        if w.path_pattern:
            path = rel.replace("\\", "/")
            from vaultbrain.packs.linear import compile_pack_regex

            try:
                rx = compile_pack_regex(w.path_pattern)
            except ValueError:  # gbrain skips a malformed pattern silently; so do we
                return False
            # gbrain tests the path as written and '/' + the path in lower case; the path in
            # lower case too, so a pattern written for `books/` finds `Books/`
            low = path.lower()
            return any(rx.search(p) is not None for p in (path, "/" + low, low))
        return False


class TypeRules:
    """A page type's derived values: where its notes go, its store collection, its title."""

    if TYPE_CHECKING:
        name: str
        path_prefixes: list[str]
        fields: dict[str, Any]
        collection: str | None
        title_field: str | None
        subtypes: list[Any] | None
        _stripped_prefixes: list[str]

    @property
    def stripped_prefixes(self) -> list[str]:
        """Prefixes as written with a leading ``/``, before it was stripped."""
        return list(self._stripped_prefixes)

    def subtype_for(self, rel: str, frontmatter: dict[str, Any] | None = None) -> str | None:
        """The first subtype whose rule matches (frontmatter or path), or None."""
        for sub in self.subtypes or []:
            if sub.matches(rel, frontmatter):
                return str(sub.name)
        return None

    @property
    def folder(self) -> str:
        """Where new notes of this type are filed: the first path prefix, without its slash."""
        if not self.path_prefixes:
            return self.name.capitalize()
        return self.path_prefixes[0].replace("\\", "/").strip("/")

    @property
    def store_collection(self) -> str:
        return self.collection or collection_for(self.name)

    @property
    def title_key(self) -> str:
        if self.title_field:
            return self.title_field
        for candidate in ("title", "name"):
            if candidate in self.fields:
                return candidate
        return "title"


class FieldRules:
    """How a value offered for a field is coerced or dropped, and the JSON schema the
    classifier is asked to fill (Obsidian's property types)."""

    if TYPE_CHECKING:
        type: str
        values: list[str] | None
        collects: list[str] | None

    def collects_type(self, type_name: str) -> bool:
        return self.collects is not None and ("any" in self.collects or type_name in self.collects)

    def coerce(self, value: Any) -> tuple[bool, Any]:
        """(ok, value as stored) for a value offered for this field; not ok means drop it."""
        t = self.type
        if value is None:
            return False, None
        if t == "text":
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                text = str(value).strip()
                return bool(text), text
            return False, None
        if t in ("list", "links"):
            items = value if isinstance(value, list) else [value]
            out = []
            for item in items:
                if isinstance(item, str) and item.strip():
                    out.append(item.strip())
                elif isinstance(item, int | float) and not isinstance(item, bool):
                    out.append(str(item))
                else:
                    return False, None
            return True, out
        if t == "link":
            return (
                (True, value.strip()) if isinstance(value, str) and value.strip() else (False, None)
            )
        if t == "number":
            if isinstance(value, bool):
                return False, None
            if isinstance(value, int | float):
                return True, value
            try:
                return True, float(value) if "." in str(value) else int(value)
            except (TypeError, ValueError):
                return False, None
        if t == "checkbox":
            return (True, value) if isinstance(value, bool) else (False, None)
        if t == "date":
            return (True, value) if isinstance(value, str) and _DATE.match(value) else (False, None)
        if t == "datetime":
            if isinstance(value, str) and _DATETIME.match(value):
                return True, value if len(value) == 19 else value + ":00"
            return False, None
        if t == "enum":
            if isinstance(value, str) and self.values:
                low = value.strip().lower()
                for allowed in self.values:
                    if allowed.lower() == low:
                        return True, allowed
            return False, None
        return False, None  # pragma: no cover

    def json_schema(self) -> dict[str, Any]:
        t = self.type
        if t in ("list", "links"):
            return {"type": "array", "items": {"type": "string"}}
        if t == "number":
            return {"type": "number"}
        if t == "checkbox":
            return {"type": "boolean"}
        if t == "enum":
            return {"type": "string", "enum": list(self.values or [])}
        if t == "date":
            return {"type": "string", "description": "YYYY-MM-DD"}
        if t == "datetime":
            return {"type": "string", "description": "YYYY-MM-DDTHH:MM:SS"}
        return {"type": "string"}


# -- the parts ----------------------------------------------------------------------------


class Part:
    """A validated manifest part: its fields, in declaration order, are its attributes
    (a name starting with ``_`` is kept but is not a field)."""

    __hash__ = None  # type: ignore[assignment]  # (mutable, as the models were)

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Any:
        # Declared fields are attributes; asking for anything else is a mistake to name.
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def given(self, name: str) -> bool:
        """Whether the pack wrote ``name`` (not its default)."""
        return name in self.__dict__.get("_given", ())

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if not k.startswith("_"))
        return f"{type(self).__name__}({shown})"


class PageType(TypeRules, Part):
    """A page type of the resolved pack."""


class FieldSpec(FieldRules, Part):
    """One frontmatter property of a page type."""


class Subtype(SubtypeRules, Part):
    """A subtype rule of a page type."""


def freeze(value: Any) -> Any:
    """A validated manifest model (or a list or dict of them) as plain parts: each model
    class names the part it becomes (``__part__``); its fields in declaration order, and a
    page type's stripped prefixes."""
    part = getattr(type(value), "__part__", None)
    if part is not None:
        fields = {name: freeze(getattr(value, name)) for name in type(value).model_fields}
        fields["_given"] = frozenset(value.model_fields_set)  # what the pack itself wrote
        if isinstance(value, TypeRules):
            fields["_stripped_prefixes"] = value.stripped_prefixes
        return part(fields)
    if isinstance(value, list | tuple):
        return [freeze(v) for v in value]
    if isinstance(value, dict):
        return {k: freeze(v) for k, v in value.items()}
    return value


def as_data(value: Any, drop_none: bool = False) -> Any:
    """A part (or a list or dict of them) as plain JSON data, fields in declaration order
    (what pydantic's ``model_dump(mode="json")`` gave); ``drop_none`` leaves out the fields
    that are None (``exclude_none``)."""
    if isinstance(value, Part):
        return {
            k: as_data(v, drop_none)
            for k, v in value.__dict__.items()
            if not k.startswith("_") and not (drop_none and v is None)
        }
    if isinstance(value, list | tuple):
        return [as_data(v, drop_none) for v in value]
    if isinstance(value, dict):
        return {k: as_data(v, drop_none) for k, v in value.items()}
    return value


def replaced(part: Part, **changes: Any) -> Part:
    """A copy of ``part`` with some fields changed."""
    unknown = set(changes) - set(part.__dict__)
    if unknown:
        raise AttributeError(f"{type(part).__name__} has no field {sorted(unknown)[0]!r}")
    return type(part)({**part.__dict__, **changes})


class ResolvedPack:
    """A pack with its extends chain merged: what the classifier, filing and the daemon read.

    ``manifest``: the merged manifest, validated (a pydantic ``Manifest``, frozen into parts
    here) or already frozen.
    """

    def __init__(
        self,
        manifest: Any,
        chain: list[str] | None = None,
        *,
        warnings: list[str] | None = None,
        origins: dict[str, list[str]] | None = None,
        source: str | None = None,
    ) -> None:
        if not isinstance(manifest, Part):
            manifest = freeze(manifest)
        self.manifest: Any = manifest
        self.chain = chain or [manifest.name]
        self.warnings = list(warnings or [])
        page_types: list[PageType] = manifest.page_types
        # type name -> packs declaring it, nearest first (explain says who overrode what)
        self.origins = origins or {t.name: [manifest.name] for t in page_types}
        self.source = source
        self._by_name = {t.name: t for t in page_types}
        self._aliases: dict[str, str] = {}
        for t in page_types:
            for alias in t.aliases:
                self._aliases.setdefault(alias.strip().lower(), t.name)
        # prefix -> (priority, type): the first declaration of a prefix in merged order wins
        self._prefixes: dict[str, tuple[int, PageType]] = {}
        order = 0
        for t in page_types:
            for prefix in t.path_prefixes:
                self._prefixes.setdefault(normalize_prefix(prefix), (order, t))
                order += 1
        self._max_depth = max((p.count("/") for p in self._prefixes), default=0)
        self._anywhere = manifest.path_match == "anywhere"

    @property
    def name(self) -> str:
        return str(self.manifest.name)

    @property
    def version(self) -> str:
        return str(self.manifest.version)

    @cached_property
    def sha8(self) -> str:
        canonical = canonical_json(as_data(self.manifest))
        return hashlib.sha256(canonical.encode()).hexdigest()[:8]

    @property
    def identity(self) -> str:
        return f"{self.name}@{self.version}+{self.sha8}"

    @property
    def types(self) -> list[PageType]:
        return list(self.manifest.page_types)

    def fileable_types(self) -> list[PageType]:
        return [t for t in self.manifest.page_types if t.fileable]

    def get_type(self, name: str) -> PageType | None:
        """A type by its name or one of its aliases, any case."""
        if not name or not isinstance(name, str):
            return None
        low = name.strip().lower()
        t = self._by_name.get(low)
        if t is None and low in self._aliases:
            t = self._by_name.get(self._aliases[low])
        return t

    def type_for_path(self, rel: str) -> PageType | None:
        """The type a note's path implies.

        The first matching prefix in merged order, matched from the vault root, any case, on
        whole folder names (``Projects/`` does not match ``Projects-old/``); None: untyped.
        """
        low = rel.replace("\\", "/").lower()
        if low.startswith("./"):
            low = low[2:]
        if self._anywhere:
            return self._type_anywhere(low)
        best: tuple[int, PageType] | None = None
        end = -1
        prefixes = self._prefixes
        for _ in range(self._max_depth):
            end = low.find("/", end + 1)
            if end < 0:
                break
            hit = prefixes.get(low[: end + 1])
            if hit is not None and (best is None or hit[0] < best[0]):
                best = hit
        return best[1] if best is not None else None

    def _type_anywhere(self, low: str) -> PageType | None:
        # gbrain's matching: a prefix may start at any folder boundary, not only the root.
        best: tuple[int, PageType] | None = None
        starts = [0] + [i + 1 for i, ch in enumerate(low) if ch == "/"]
        for start in starts[:-1]:
            end = start - 1
            for _ in range(self._max_depth):
                end = low.find("/", end + 1)
                if end < 0:
                    break
                hit = self._prefixes.get(low[start : end + 1])
                if hit is not None and (best is None or hit[0] < best[0]):
                    best = hit
        return best[1] if best is not None else None

    def subtype_for(self, rel: str, frontmatter: dict[str, Any] | None = None) -> str | None:
        """gbrain's subtype of a note (``subtypes:`` on its type), or None."""
        t = self.infer_type(rel, frontmatter)
        return t.subtype_for(rel, frontmatter) if t is not None else None

    def infer_type(self, rel: str, frontmatter: dict[str, Any] | None = None) -> PageType | None:
        """A note's type: its frontmatter ``type`` wins (name or alias); else its path.

        A frontmatter type the pack does not declare means the note has no matching type.
        """
        if frontmatter:
            declared = frontmatter.get("type")
            if isinstance(declared, str) and declared.strip():
                return self.get_type(declared)
        return self.type_for_path(rel)

    def folders(self) -> list[str]:
        return [t.folder for t in self.manifest.page_types]

    def prefixes(self) -> list[str]:
        """Every declared path prefix, normalized, in merged order."""
        return list(self._prefixes)

    def __repr__(self) -> str:
        return f"ResolvedPack({self.identity})"
