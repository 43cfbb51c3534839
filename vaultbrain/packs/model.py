"""The pack manifest, validated with pydantic, and the resolved pack everything consults."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from vaultbrain.errors import UserError

FieldType = Literal[
    "text", "list", "number", "checkbox", "date", "datetime", "link", "links", "enum"
]
Primitive = Literal["entity", "media", "temporal", "annotation", "concept"]
API_VERSIONS = ("vaultbrain-schema-pack-v1", "gbrain-schema-pack-v1")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")


class PackError(UserError):
    """A pack that cannot be loaded or resolved; ``code`` says which kind of failure."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class FieldSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: FieldType = "text"
    values: list[str] | None = None
    required: bool = False
    default: Any = None
    description: str | None = None

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
            return (True, value.strip()) if isinstance(value, str) and value.strip() else (False, None)
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


class PageType(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    primitive: Primitive = "entity"
    path_prefixes: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    extractable: bool = False
    expert_routing: bool = False
    fields: dict[str, FieldSpec] = Field(default_factory=dict)
    fileable: bool = False
    description: str | None = None
    template: str | None = None
    collection: str | None = None
    title_field: str | None = None

    @field_validator("name")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", v):
            raise ValueError("a type name is a lowercase slug")
        return v

    @property
    def folder(self) -> str:
        """Where new notes of this type are filed: the first path prefix, without its slash."""
        if not self.path_prefixes:
            return self.name.capitalize()
        return self.path_prefixes[0].strip("/")

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


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    api_version: str
    name: str
    version: str
    description: str | None = None
    author: str | None = None
    license: str | None = None
    homepage: str | None = None
    min_version: str | None = None
    gbrain_min_version: str | None = None
    extends: str | None = "vaultbrain-base"
    borrow_from: list[dict[str, Any]] = Field(default_factory=list)
    page_types: list[PageType] = Field(default_factory=list)
    link_types: list[dict[str, Any]] = Field(default_factory=list)
    frontmatter_links: list[dict[str, Any]] = Field(default_factory=list)
    takes_kinds: list[str] = Field(default_factory=lambda: ["fact", "take", "bet", "hunch"])
    enrichable_types: list[str] = Field(default_factory=list)
    filing_rules: list[dict[str, Any]] = Field(default_factory=list)
    phases: list[Any] = Field(default_factory=list)
    calibration_domains: list[Any] = Field(default_factory=list)

    @field_validator("api_version")
    @classmethod
    def _api(cls, v: str) -> str:
        if v not in API_VERSIONS:
            raise ValueError(f"api_version must be one of {', '.join(API_VERSIONS)}")
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", v):
            raise ValueError("a pack name is a lowercase slug")
        return v

    @field_validator("version")
    @classmethod
    def _semver(cls, v: str) -> str:
        if not re.fullmatch(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?", v):
            raise ValueError("version must be semver (1.2.3)")
        return v


class ResolvedPack:
    """A pack with its extends chain merged: what the classifier, filing and the daemon read."""

    def __init__(self, manifest: Manifest, chain: list[str] | None = None) -> None:
        self.manifest = manifest
        self.chain = chain or [manifest.name]
        self._by_name = {t.name: t for t in manifest.page_types}
        self._aliases: dict[str, str] = {}
        for t in manifest.page_types:
            for alias in t.aliases:
                self._aliases.setdefault(alias.lower(), t.name)

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def version(self) -> str:
        return self.manifest.version

    @cached_property
    def sha8(self) -> str:
        canonical = json.dumps(
            self.manifest.model_dump(mode="json"), sort_keys=True, separators=(",", ":")
        )
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
        if not name:
            return None
        low = name.strip().lower()
        t = self._by_name.get(low)
        if t is None and low in self._aliases:
            t = self._by_name.get(self._aliases[low])
        return t

    def type_for_path(self, rel: str) -> PageType | None:
        """The type a note's path implies: first matching prefix, whole folder names, any case."""
        low = rel.lower()
        for t in self.manifest.page_types:
            for prefix in t.path_prefixes:
                p = prefix.lower().strip("/")
                if p and (low.startswith(p + "/")):
                    return t
        return None

    def folders(self) -> list[str]:
        return [t.folder for t in self.manifest.page_types]
