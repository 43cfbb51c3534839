"""The pack manifest, validated with pydantic, and the resolved pack everything consults.

(A type's fields, in Obsidian property types, and its Tasks line: ``vaultbrain/packs/fields.py``.)

A manifest is one pack file as written (``api_version: vaultbrain-schema-pack-v1``; gbrain's
``gbrain-schema-pack-v1`` loads too). Unknown keys are refused everywhere, so a typo is an
error instead of a silently ignored setting.

Page types carry the seed's keys (``name``, ``primitive``, ``path_prefixes``, ``aliases``,
``extractable``, ``expert_routing``) and vaultbrain's own: ``fields`` (Obsidian property
types), ``fileable`` (a classifier destination), ``description`` (told to the classifier),
``template`` (a file in ``templates/``), ``collection`` (the store collection its records
live in; default: the plural of the name) and ``title_field`` (the field that names a
record; default ``title`` or ``name``, whichever the type declares).

Aliases are other names for a type: a frontmatter ``type: contact``, a classifier answer
``"people"`` or ``db add task`` all mean the type that declares the alias. The alias graph is
symmetric per declaration (declaring ``contact`` on ``person`` links both ways) and must be a
forest: a cycle (``a: [b]``, ``b: [c]``, ``c: [a]``, or two types sharing two aliases) makes
resolution order-dependent and is refused at load with ``ALIAS_CYCLE``.

:class:`ResolvedPack` is a manifest with its ``extends`` chain and ``borrow_from`` targets
merged (see :mod:`vaultbrain.packs.merge`); its identity is ``name@version+sha8`` where sha8
is the first 8 hex digits of SHA-256 over the canonical JSON of the merged manifest after
defaults, so a change anywhere in the chain changes the identity a capture records.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from vaultbrain.errors import UserError
from vaultbrain.packs.fields import FieldSpec, StrictModel, TasksSpec

Primitive = Literal["entity", "media", "temporal", "annotation", "concept"]
PRIMITIVES: tuple[str, ...] = ("entity", "media", "temporal", "annotation", "concept")
API_VERSIONS = ("vaultbrain-schema-pack-v1", "gbrain-schema-pack-v1")
SKILLPACK_API_VERSIONS = ("vaultbrain-skillpack-v1", "gbrain-skillpack-v1")
_TYPE_NAME = re.compile(r"[a-z][a-z0-9_-]*")
PACK_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_SEMVER = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")


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


class SubtypeWhen(StrictModel):
    """When a subtype applies: a regex over the note's path, or a frontmatter value."""

    path_pattern: str | None = None
    frontmatter_field: str | None = None
    frontmatter_value: str | int | float | bool | None = None


class Subtype(StrictModel):
    """gbrain's per-type subtype rule (``subtypes:`` on a type): a note of the type is of
    this subtype when a frontmatter value equals ``frontmatter_value`` exactly (``bundle:
    true``; ``true`` is not ``1``), or its path matches ``path_pattern``. Written beside the
    note's ``type:`` as ``subtype:`` (vaultbrain/filing/records.py, adopt.py)."""

    name: str
    when: SubtypeWhen

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
            try:
                rx = re.compile(w.path_pattern)
            except re.error:  # gbrain skips a malformed pattern silently; so do we
                return False
            # gbrain tests the path as written and '/' + the path in lower case; the path in
            # lower case too, so a pattern written for `books/` finds `Books/`
            low = path.lower()
            return any(rx.search(p) is not None for p in (path, "/" + low, low))
        return False


class PageType(StrictModel):
    name: str
    primitive: Primitive = "entity"
    path_prefixes: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    extractable: bool | dict[str, Any] = False
    expert_routing: bool = False
    fields: dict[str, FieldSpec] = Field(default_factory=dict)
    fileable: bool = False
    description: str | None = None
    template: str | None = None
    collection: str | None = None
    title_field: str | None = None
    tasks: TasksSpec | None = None
    subtypes: list[Subtype] | None = None
    # Prefixes written with a leading `/` (gbrain's packs do): stripped, and `schema lint`
    # says so, since the vault root is the only root a prefix can mean here.
    _stripped_prefixes: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _strip_leading_slash(cls, data: Any, handler: Any) -> Any:
        stripped: list[str] = []
        if isinstance(data, dict) and isinstance(data.get("path_prefixes"), list):
            prefixes = []
            for p in data["path_prefixes"]:
                if isinstance(p, str) and p.strip().startswith(("/", "\\")):
                    bare = p.strip().lstrip("/\\")
                    if bare:
                        stripped.append(p)
                        p = bare
                prefixes.append(p)
            data = {**data, "path_prefixes": prefixes}
        obj = handler(data)
        if stripped:
            obj._stripped_prefixes = stripped
        return obj

    @property
    def stripped_prefixes(self) -> list[str]:
        """Prefixes as written with a leading ``/``, before it was stripped."""
        return list(self._stripped_prefixes)

    def subtype_for(self, rel: str, frontmatter: dict[str, Any] | None = None) -> str | None:
        """The first subtype whose rule matches (frontmatter or path), or None."""
        for sub in self.subtypes or []:
            if sub.matches(rel, frontmatter):
                return sub.name
        return None

    @field_validator("name")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not _TYPE_NAME.fullmatch(v):
            raise ValueError(f"{v!r}: a type name is a lowercase slug (letters, digits, - or _)")
        return v

    @field_validator("path_prefixes")
    @classmethod
    def _prefixes(cls, v: list[str]) -> list[str]:
        for prefix in v:
            p = prefix.replace("\\", "/").strip()
            parts = [x for x in p.strip("/").split("/")]
            if not p.strip("/") or p.startswith("/") or any(x in ("", "..", ".") for x in parts):
                raise ValueError(f"{prefix!r}: a path prefix is a folder path from the vault root")
            if any(x.startswith(".") for x in parts):
                raise ValueError(f"{prefix!r}: dot-folders are never read as notes")
        return v

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, v: list[str]) -> list[str]:
        for alias in v:
            if not isinstance(alias, str) or not alias.strip():
                raise ValueError("an alias is a non-empty name")
        return v

    @field_validator("template")
    @classmethod
    def _template(cls, v: str | None) -> str | None:
        if v is not None and (v.startswith(("/", "\\")) or ".." in v.replace("\\", "/").split("/")):
            raise ValueError(f"{v!r}: a template is a file name inside templates/")
        return v

    @property
    def folder(self) -> str:
        """Where new notes of this type are filed: the first path prefix, without its slash."""
        if not self.path_prefixes:
            return self.name.capitalize()
        return self.path_prefixes[0].replace("\\", "/").strip("/")

    @property
    def store_collection(self) -> str:
        return self.collection or _plural(self.name)

    @property
    def title_key(self) -> str:
        if self.title_field:
            return self.title_field
        for candidate in ("title", "name"):
            if candidate in self.fields:
                return candidate
        return "title"


def _plural(name: str) -> str:
    if name.endswith("y") and not name.endswith(("ay", "ey", "oy", "uy")):
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    return name + "s"


class LinkInference(StrictModel):
    """How a link verb is found in a note's body: a regex whose group 1 names the target."""

    regex: str | None = None
    page_type: str | None = None
    target_type: str | None = None

    @field_validator("regex")
    @classmethod
    def _compiles(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"regex does not compile: {exc}") from exc
        return v


class LinkType(StrictModel):
    name: str
    inverse: str | None = None
    description: str | None = None
    inference: LinkInference | None = None


class FrontmatterLink(StrictModel):
    """Frontmatter properties of ``page_type`` whose links are ``link_type`` edges."""

    page_type: str
    fields: list[str] = Field(min_length=1)
    link_type: str


class EnrichableType(StrictModel):
    type: str
    rubric: str | None = None


class FilingRule(StrictModel):
    kind: str
    directory: str
    examples: list[str] = Field(default_factory=list)
    description: str | None = None

    @field_validator("directory")
    @classmethod
    def _inside(cls, v: str) -> str:
        if v.startswith(("/", "\\")) or ".." in v.replace("\\", "/").split("/"):
            raise ValueError(f"{v!r}: a directory is a folder path from the vault root")
        return v


class BorrowSpec(StrictModel):
    """Selective borrow: only the named types / link types of ``pack``'s own declarations."""

    pack: str
    types: list[str] | None = None
    link_types: list[str] | None = None


class CalibrationDomain(StrictModel):
    name: str
    aggregator: str | None = None
    page_types: list[str] = Field(default_factory=list)


class MigrationFrom(StrictModel):
    """gbrain's pack-upgrade declaration: the pack (and version range) this one succeeds."""

    pack: str
    version: str


SubtypeField = Literal["subtype", "legacy_type", "origin", "format", "kind", "period", "domain"]
# A resolver names where a value comes from: a fixed source or a frontmatter field.
Resolver = Literal["frontmatter", "body_first_link", "slug", "body_excerpt"] | dict[str, str]


class RetypeRule(StrictModel):
    kind: Literal["retype"]
    from_type: str = Field(min_length=1)
    to_type: str = Field(min_length=1)
    subtype: str | None = None
    subtype_field: SubtypeField = "subtype"
    path_filter: str | None = None
    slug_filter: str | None = None


class PageToLinkRule(StrictModel):
    kind: Literal["page_to_link"]
    from_type: str = Field(min_length=1)
    link_type: str = Field(min_length=1)
    source_slug_from: Resolver
    target_slug_from: Resolver
    inverse: str | None = None
    preserve_notes: bool | None = None


class PageToAliasRule(StrictModel):
    kind: Literal["page_to_alias"]
    from_type: str = Field(min_length=1)
    canonical_from: Resolver
    alias_slug_from: Resolver
    notes_from: Resolver | None = None


# gbrain's declarative migrations (``mapping_rules``): vaultbrain loads, merges and shows
# them; it does not run them (a retype would rewrite notes the person wrote).
MappingRule = Annotated[RetypeRule | PageToLinkRule | PageToAliasRule, Field(discriminator="kind")]


class Manifest(StrictModel):
    api_version: Literal["vaultbrain-schema-pack-v1", "gbrain-schema-pack-v1"]
    name: str
    version: str
    description: str | None = None
    author: str | None = None
    license: str | None = None
    homepage: str | None = None
    min_version: str | None = None
    gbrain_min_version: str | None = None
    extends: str | None = "vaultbrain-base"
    borrow_from: list[BorrowSpec] = Field(default_factory=list)
    page_types: list[PageType] = Field(default_factory=list)
    link_types: list[LinkType] = Field(default_factory=list)
    frontmatter_links: list[FrontmatterLink] = Field(default_factory=list)
    takes_kinds: list[str] = Field(default_factory=lambda: ["fact", "take", "bet", "hunch"])
    enrichable_types: list[EnrichableType] = Field(default_factory=list)
    filing_rules: list[FilingRule] = Field(default_factory=list)
    phases: list[str] = Field(default_factory=list)
    calibration_domains: list[CalibrationDomain] = Field(default_factory=list)
    migration_from: MigrationFrom | None = None
    mapping_rules: list[MappingRule] = Field(default_factory=list)
    # `root` (vaultbrain's rule): a prefix matches from the vault root. `anywhere`
    # (gbrain's): a prefix matches at any folder boundary. A gbrain pack (its api_version)
    # that does not say matches as gbrain does: anywhere (see _gbrain_paths).
    path_match: Literal["root", "anywhere"] = "root"

    @model_validator(mode="before")
    @classmethod
    def _gbrain_paths(cls, data: Any) -> Any:
        # gbrain's inferTypeFromPack tests `('/' + path).includes('/' + prefix)`: a prefix
        # matches wherever it starts a folder. A pack written for gbrain means that.
        if (
            isinstance(data, dict)
            and data.get("api_version") == "gbrain-schema-pack-v1"
            and "path_match" not in data
        ):
            return {**data, "path_match": "anywhere"}
        return data

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not PACK_NAME.fullmatch(v):
            raise ValueError(f"{v!r}: a pack name is a lowercase slug (letters, digits and -)")
        return v

    @field_validator("version")
    @classmethod
    def _semver(cls, v: str) -> str:
        if not _SEMVER.fullmatch(str(v)):
            raise ValueError(f"{v!r}: version must be semver (1.2.3)")
        return v

    @field_validator("min_version")
    @classmethod
    def _min_semver(cls, v: str | None) -> str | None:
        if v is not None and not _SEMVER.fullmatch(str(v)):
            raise ValueError(f"{v!r}: min_version must be semver (1.2.3)")
        return v

    @field_validator("enrichable_types", mode="before")
    @classmethod
    def _enrichable_shorthand(cls, v: Any) -> Any:
        # `enrichable_types: [person]` is shorthand for `[{type: person}]`.
        if isinstance(v, list):
            return [{"type": x} if isinstance(x, str) else x for x in v]
        return v

    @field_validator("extends")
    @classmethod
    def _extends(cls, v: str | None) -> str | None:
        if v is not None and not PACK_NAME.fullmatch(v):
            raise ValueError(f"{v!r}: extends names a pack (a lowercase slug) or is null")
        return v


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ResolvedPack:
    """A pack with its extends chain merged: what the classifier, filing and the daemon read."""

    def __init__(
        self,
        manifest: Manifest,
        chain: list[str] | None = None,
        *,
        warnings: list[str] | None = None,
        origins: dict[str, list[str]] | None = None,
        source: str | None = None,
    ) -> None:
        self.manifest = manifest
        self.chain = chain or [manifest.name]
        self.warnings = list(warnings or [])
        # type name -> packs declaring it, nearest first (explain says who overrode what)
        self.origins = origins or {t.name: [manifest.name] for t in manifest.page_types}
        self.source = source
        self._by_name = {t.name: t for t in manifest.page_types}
        self._aliases: dict[str, str] = {}
        for t in manifest.page_types:
            for alias in t.aliases:
                self._aliases.setdefault(alias.strip().lower(), t.name)
        # prefix -> (priority, type): the first declaration of a prefix in merged order wins
        self._prefixes: dict[str, tuple[int, PageType]] = {}
        order = 0
        for t in manifest.page_types:
            for prefix in t.path_prefixes:
                self._prefixes.setdefault(normalize_prefix(prefix), (order, t))
                order += 1
        self._max_depth = max((p.count("/") for p in self._prefixes), default=0)
        self._anywhere = manifest.path_match == "anywhere"

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def version(self) -> str:
        return self.manifest.version

    @cached_property
    def sha8(self) -> str:
        canonical = canonical_json(self.manifest.model_dump(mode="json"))
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

    def aliases_of(self, type_name: str) -> list[str]:
        t = self.get_type(type_name)
        return list(t.aliases) if t else []

    def __repr__(self) -> str:
        return f"ResolvedPack({self.identity})"
