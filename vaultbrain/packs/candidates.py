"""The proposals ``schema detect`` makes (:class:`Candidate`, :class:`Detection`) and the file
that keeps them for review, ``<state>/schema-candidates.json``: the person's decisions on a
proposal (ignore, rename, apply) outlive the next detection."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultbrain.packs.context import PackContext

CANDIDATES = "schema-candidates.json"


@dataclass
class Candidate:
    folder: str  # the folder it types, or its evidence (`type:X`, `tag:X`) when it has none
    notes: int
    name: str
    primitive: str
    fields: dict[str, dict[str, Any]]
    description: str
    samples: list[str] = field(default_factory=list)
    frontmatter_types: dict[str, int] = field(default_factory=dict)
    action: str = "new"  # new: a type of its own | extend: add the folder to `extends_type`
    extends_type: str | None = None
    status: str = "proposed"  # proposed | ignored | applied
    source: str = "heuristic"  # heuristic | llm
    reason: str = ""
    evidence: str = "folder"  # folder | type | tag | category | name: what says they are a kind
    folders: list[str] = field(default_factory=list)  # its path prefixes (folders) in the pack
    aliases: list[str] = field(default_factory=list)  # the vault's own spellings of its name

    @property
    def prefix(self) -> str:
        """How the proposal is named: its folder with a slash, or its evidence."""
        if self.evidence != "folder" and self.folder not in self.folders:
            return self.folder  # (`type:twir-item`, never `type:twir-item/`, if folders hold it)
        return self.folder.strip("/") + "/"

    @property
    def path_prefixes(self) -> list[str]:
        if self.evidence == "folder" and not self.folders:  # (a proposals file of before)
            return [self.folder.strip("/") + "/"]
        return [f.strip("/") + "/" for f in self.folders]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"prefix": self.prefix}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        keys = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in keys})


@dataclass
class Detection:
    pack: str
    total: int
    untyped: int
    candidates: list[Candidate]
    source: str = "heuristic"
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "total": self.total,
            "untyped": self.untyped,
            "source": self.source,
            "note": self.note,
            "candidates": [c.as_dict() for c in self.candidates],
        }


def load_candidates(app: PackContext) -> Detection | None:
    doc = app.store.read_json(CANDIDATES, None)
    if not isinstance(doc, dict) or not isinstance(doc.get("candidates"), list):
        return None
    return Detection(
        str(doc.get("pack", "")),
        int(doc.get("total", 0)),
        int(doc.get("untyped", 0)),
        [Candidate.from_dict(c) for c in doc["candidates"] if isinstance(c, dict)],
        str(doc.get("source", "heuristic")),
        doc.get("note"),
    )


def remember_candidates(app: PackContext, detection: Detection) -> None:
    """Save proposals, keeping the person's decisions (ignore, rename, apply) per folder."""
    previous = load_candidates(app)
    if previous is not None:
        before = {c.folder.lower(): c for c in previous.candidates}
        for c in detection.candidates:
            old = before.get(c.folder.lower())
            if old is None:
                continue
            if old.status in ("ignored", "applied"):
                c.status = old.status
            if old.reason.startswith("renamed"):
                c.name, c.reason, c.action, c.extends_type = old.name, old.reason, "new", None
    save_candidates(app, detection)


def save_candidates(app: PackContext, detection: Detection) -> None:
    doc = detection.as_dict() | {"generated": app.now().isoformat(timespec="seconds")}
    for c in doc["candidates"]:
        c.pop("prefix", None)
    app.store.write_json(CANDIDATES, doc)
