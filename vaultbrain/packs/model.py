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

:class:`ResolvedPack` (``vaultbrain/packs/resolved.py``) is the merged manifest frozen into
plain objects: what every command reads, without pydantic. The models below share their
methods with those objects (the rule mixins there); ``resolved.freeze`` makes one from the other.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from vaultbrain.packs import resolved
from vaultbrain.packs.fields import FieldSpec, StrictModel, TasksSpec
from vaultbrain.packs.resolved import (  # noqa: F401 (re-exported: where they lived)
    PackError,
    ResolvedPack,
    SubtypeRules,
    TypeRules,
    canonical_json,
    normalize_prefix,
)

Primitive = Literal["entity", "media", "temporal", "annotation", "concept"]
PRIMITIVES: tuple[str, ...] = ("entity", "media", "temporal", "annotation", "concept")
API_VERSIONS = ("vaultbrain-schema-pack-v1", "gbrain-schema-pack-v1")
SKILLPACK_API_VERSIONS = ("vaultbrain-skillpack-v1", "gbrain-skillpack-v1")
PACK_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_SEMVER = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")


def is_type_name(name: str) -> bool:
    """A type name: a lowercase slug in the vault's own letters, any script (``book``,
    ``bücher``, ``книга``): letters, digits, a script's marks, ``-`` and ``_``, a letter
    first. (gbrain takes any non-empty name; vaultbrain keeps names a person can type in a
    ``→ type`` gesture and a folder can be named after.)"""
    return (
        bool(name)
        and name[0].isalpha()
        and name == name.lower()
        and all(
            ch.isalnum() or ch in "-_" or unicodedata.category(ch).startswith("M") for ch in name
        )
    )


class SubtypeWhen(StrictModel):
    """When a subtype applies: a regex over the note's path, or a frontmatter value."""

    path_pattern: str | None = None
    frontmatter_field: str | None = None
    frontmatter_value: str | int | float | bool | None = None


class Subtype(StrictModel, SubtypeRules):
    """gbrain's per-type subtype rule (``subtypes:`` on a type): a note of the type is of
    this subtype when a frontmatter value equals ``frontmatter_value`` exactly (``bundle:
    true``; ``true`` is not ``1``), or its path matches ``path_pattern``. Written beside the
    note's ``type:`` as ``subtype:`` (vaultbrain/filing/records.py, adopt.py)."""

    __part__ = resolved.Subtype

    name: str
    when: SubtypeWhen


class PageType(StrictModel, TypeRules):
    __part__ = resolved.PageType

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
            obj._stripped_prefixes = stripped  # noqa: SLF001
        return obj

    @field_validator("name")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not is_type_name(v):
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
