"""``schema lint``: rules run on the merged manifest (inherited types included).

Each rule is a pure function of the resolved pack returning issues; an issue of severity
``error`` fails the lint. Rules and what they catch:

- ``duplicate_type`` / ``duplicate_link_type``: one pack declares a name twice.
- ``unreachable_type``: a type no path reaches: every prefix already claimed by an earlier
  type (error), or no prefix on a fileable type (warning: its new notes go to a folder no
  prefix types). A type with no prefix that is neither fileable nor expert-routed is a
  type a ``type:`` property names (as gbrain's "concept-only" types): no issue.
- ``expert_routing_without_prefix`` (gbrain's rule): an expert-routed type with no prefix.
- ``empty_pack``: the merged pack declares no type: it types no note (gbrain types by
  gbrain-base's folders then; vaultbrain does not, README's pack section says why).
- ``alias_shadows_type``: an alias that is another type's name (it never reaches the type
  that declares it).
- ``alias_declared_by_two_types``: the alias means two things.
- ``alias_to_undeclared_type``: an alias that names a type of another known pack which this
  pack does not declare (a gbrain-style type alias whose target is missing).
- ``enrichable_type_undeclared``, ``link_type_undeclared_type``,
  ``frontmatter_link_undeclared_type``, ``frontmatter_link_undeclared_link``,
  ``calibration_domain_undeclared_type``: a reference to a type or link verb nobody declares;
  ``frontmatter_link_unknown_field``: a field the type does not declare.
- ``prefix_collision``: the same folder on two types; ``prefix_nested``: one type's folder
  inside another's (an error when the outer one comes first, so the inner never matches).
- ``prefix_leading_slash``: a prefix written ``/People/`` (gbrain's packs do); it is read
  from the vault root with the slash stripped.
- ``link_regex_unsupported``, ``path_pattern_unsupported``: a pattern the linear-time
  engine that runs a pack's patterns (RE2, vaultbrain/packs/linear.py) cannot run.
- ``field_default_invalid``, ``title_field_undeclared``, ``extends_deep``,
  ``min_version_newer``.
- ``tasks_field_undeclared`` (error), ``tasks_status_unmapped``, ``tasks_priority_unmapped``:
  a type's ``tasks:`` block names a field it does not declare, or a value it does not map.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vaultbrain.packs.linear import unsupported_reason
from vaultbrain.packs.loader import find_pack, list_packs, read_manifest
from vaultbrain.packs.model import Manifest, PackError, ResolvedPack, normalize_prefix


@dataclass
class LintIssue:
    rule: str
    severity: str  # error | warning
    message: str
    type: str | None = None
    link: str | None = None
    hint: str | None = None

    def as_dict(self) -> dict[str, Any]:
        doc = {k: v for k, v in asdict(self).items() if v is not None}
        if self.rule in GBRAIN_RULES:
            doc["gbrain_rule"] = GBRAIN_RULES[self.rule]
        return doc


# gbrain's name for each rule both run (src/core/schema-pack/lint-rules.ts), in a report's
# JSON beside vaultbrain's, so a gbrain pack's author finds the rule they know. The others
# are vaultbrain's own (its prefixes, patterns, fields and tasks).
GBRAIN_RULES = {
    "alias_shadows_type": "alias_shadows_type",
    "alias_declared_by_two_types": "alias_declared_by_two_types",
    "alias_to_undeclared_type": "alias_references_undeclared_type",
    "enrichable_type_undeclared": "enrichable_types_undeclared",
    "link_type_undeclared_type": "link_types_undeclared",
    "frontmatter_link_undeclared_type": "frontmatter_links_undeclared_page_type",
    "frontmatter_link_undeclared_link": "frontmatter_links_undeclared_link_type",
    "expert_routing_without_prefix": "expert_routing_without_prefix",
    "prefix_collision": "prefix_collision",
    "prefix_nested": "prefix_strict_subset_overlap",
    "link_regex_unsupported": "link_regex_catastrophic_backtrack",
}


@dataclass
class LintReport:
    pack: str
    issues: list[LintIssue] = field(default_factory=list)

    @property
    def errors(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "ok": self.ok,
            "errors": [i.as_dict() for i in self.errors],
            "warnings": [i.as_dict() for i in self.warnings],
        }


def lint_pack(
    pack: ResolvedPack,
    layers: Iterable[Manifest] = (),
    known_types: Iterable[str] = (),
    vaultbrain_version: str | None = None,
) -> LintReport:
    """Every rule over ``pack``; ``layers`` are the chain's own manifests (for duplicates)."""
    m = pack.manifest
    report = LintReport(pack.identity)
    add = report.issues.extend
    add(_duplicates(layers))
    if not m.page_types:
        add(
            [
                LintIssue(
                    "empty_pack",
                    "warning",
                    "the pack declares no type (its own or inherited): it types no note",
                    hint="add a type, or extend vaultbrain-base (`extends: vaultbrain-base`)",
                )
            ]
        )
    add(_unreachable(m))
    add(_aliases(m, set(known_types)))
    add(_references(m))
    add(_prefixes(m))
    add(_regexes(m))
    add(_fields(m))
    add(_tasks(m))
    for warning in pack.warnings:
        report.issues.append(LintIssue("extends_deep", "warning", warning))
    if vaultbrain_version and m.min_version and _ver(m.min_version) > _ver(vaultbrain_version):
        report.issues.append(
            LintIssue(
                "min_version_newer",
                "warning",
                f"the pack wants vaultbrain {m.min_version}; this is {vaultbrain_version}",
            )
        )
    return report


def _ver(text: str) -> tuple[int, ...]:
    core = text.split("+", 1)[0].split("-", 1)[0]
    return tuple(int(x) for x in core.split(".") if x.isdigit())


def _duplicates(layers: Iterable[Manifest]) -> list[LintIssue]:
    out = []
    for layer in layers:
        seen: set[str] = set()
        for t in layer.page_types:
            if t.name in seen:
                out.append(
                    LintIssue(
                        "duplicate_type",
                        "error",
                        f"{layer.name} declares type {t.name!r} more than once; only the first counts",
                        type=t.name,
                        hint="merge the two declarations into one",
                    )
                )
            seen.add(t.name)
        links: set[str] = set()
        for lt in layer.link_types:
            if lt.name in links:
                out.append(
                    LintIssue(
                        "duplicate_link_type",
                        "error",
                        f"{layer.name} declares link type {lt.name!r} more than once",
                        link=lt.name,
                    )
                )
            links.add(lt.name)
    return out


def _unreachable(m: Manifest) -> list[LintIssue]:
    out = []
    claimed: dict[str, str] = {}
    for t in m.page_types:
        mine = [normalize_prefix(p) for p in t.path_prefixes]
        if not mine and t.expert_routing:
            out.append(
                LintIssue(
                    "expert_routing_without_prefix",
                    "warning",
                    f"type {t.name!r} routes experts but has no path_prefixes: only notes whose "
                    "`type:` names it are its experts",
                    type=t.name,
                    hint=f"add a folder, e.g. path_prefixes: [{t.name.capitalize()}/]",
                )
            )
        elif not mine and t.fileable:
            out.append(
                LintIssue(
                    "unreachable_type",
                    "warning",
                    f"type {t.name!r} has no path_prefixes: its new notes go to "
                    f"{t.folder}/, which no prefix types; a frontmatter `type:` does",
                    type=t.name,
                    hint=f"add a folder, e.g. path_prefixes: [{t.name.capitalize()}/]",
                )
            )
        elif mine and all(_claimed_by(p, claimed) for p in mine):
            owners = sorted({_claimed_by(p, claimed) or "" for p in mine})
            out.append(
                LintIssue(
                    "unreachable_type",
                    "error",
                    f"type {t.name!r}: every prefix is matched first by {', '.join(owners)}; no path "
                    "reaches it",
                    type=t.name,
                    hint="give it a folder of its own",
                )
            )
        for p in mine:
            claimed.setdefault(p, t.name)
    return out


def _claimed_by(prefix: str, claimed: dict[str, str]) -> str | None:
    for other, owner in claimed.items():
        if prefix.startswith(other):
            return owner
    return None


def _aliases(m: Manifest, known_types: set[str]) -> list[LintIssue]:
    out = []
    names = {t.name for t in m.page_types}
    owners: dict[str, list[str]] = {}
    for t in m.page_types:
        for alias in t.aliases:
            low = alias.strip().lower()
            if low == t.name:
                continue
            if low in names:
                out.append(
                    LintIssue(
                        "alias_shadows_type",
                        "error",
                        f"type {t.name!r} declares alias {alias!r}, which is the name of type "
                        f"{low!r}: the name wins, so the alias never reaches {t.name!r}",
                        type=t.name,
                        hint=f"remove alias {alias!r} from {t.name!r} or rename a type",
                    )
                )
            elif low in known_types:
                out.append(
                    LintIssue(
                        "alias_to_undeclared_type",
                        "warning",
                        f"type {t.name!r} aliases {alias!r}, a type of another pack that this pack "
                        "does not declare; the alias only names "
                        f"{t.name!r}",
                        type=t.name,
                        hint=f"declare a type {low!r} (or borrow it), or drop the alias",
                    )
                )
            if t.name not in owners.setdefault(low, []):
                owners[low].append(t.name)
    for alias, types in owners.items():
        if len(types) > 1:
            out.append(
                LintIssue(
                    "alias_declared_by_two_types",
                    "error",
                    f"alias {alias!r} is declared by {', '.join(types)}; it can mean only one",
                    hint="keep it on one type",
                )
            )
    return out


def _references(m: Manifest) -> list[LintIssue]:
    out = []
    types = {t.name: t for t in m.page_types}
    links = {lt.name for lt in m.link_types}
    for e in m.enrichable_types:
        if e.type not in types:
            out.append(
                LintIssue(
                    "enrichable_type_undeclared",
                    "error",
                    f"enrichable_types names {e.type!r}, which is not a declared type",
                    type=e.type,
                )
            )
    for lt in m.link_types:
        inf = lt.inference
        for key in ("page_type", "target_type"):
            value = getattr(inf, key) if inf else None
            if value and value not in types:
                out.append(
                    LintIssue(
                        "link_type_undeclared_type",
                        "error",
                        f"link type {lt.name!r}: inference.{key} {value!r} is not a declared type",
                        link=lt.name,
                        type=value,
                    )
                )
    for fl in m.frontmatter_links:
        t = types.get(fl.page_type)
        if t is None:
            out.append(
                LintIssue(
                    "frontmatter_link_undeclared_type",
                    "error",
                    f"frontmatter_links names page_type {fl.page_type!r}, which is not declared",
                    type=fl.page_type,
                )
            )
        elif t.fields:
            for name in fl.fields:
                if name not in t.fields:
                    out.append(
                        LintIssue(
                            "frontmatter_link_unknown_field",
                            "warning",
                            f"frontmatter_links: type {t.name!r} declares no field {name!r}",
                            type=t.name,
                        )
                    )
        if fl.link_type not in links:
            out.append(
                LintIssue(
                    "frontmatter_link_undeclared_link",
                    "error",
                    f"frontmatter_links names link_type {fl.link_type!r}, which is not declared",
                    link=fl.link_type,
                )
            )
    for domain in m.calibration_domains:
        for name in domain.page_types:
            if name not in types:
                out.append(
                    LintIssue(
                        "calibration_domain_undeclared_type",
                        "error",
                        f"calibration domain {domain.name!r} names type {name!r}, which is not "
                        "declared",
                        type=name,
                    )
                )
    return out


def _prefixes(m: Manifest) -> list[LintIssue]:
    out = []
    for t in m.page_types:
        for raw in t.stripped_prefixes:
            out.append(
                LintIssue(
                    "prefix_leading_slash",
                    "warning",
                    f"{raw!r} ({t.name}) starts with '/': read as {raw.strip().lstrip('/')!r}, "
                    "a folder from the vault root",
                    type=t.name,
                    hint="write the prefix without the leading '/'",
                )
            )
    pairs = [(normalize_prefix(p), p, t.name) for t in m.page_types for p in t.path_prefixes]
    by_prefix: dict[str, list[str]] = {}
    for norm, _raw, owner in pairs:
        if owner not in by_prefix.setdefault(norm, []):
            by_prefix[norm].append(owner)
    for norm, owners in by_prefix.items():
        if len(owners) > 1:
            out.append(
                LintIssue(
                    "prefix_collision",
                    "error",
                    f"folder {norm!r} is a prefix of {', '.join(owners)}; only {owners[0]!r} is ever "
                    "inferred from it",
                    hint="keep the folder on one type",
                )
            )
    for i, (inner, raw_inner, inner_type) in enumerate(pairs):
        for j, (outer, raw_outer, outer_type) in enumerate(pairs):
            if inner_type == outer_type or inner == outer or not inner.startswith(outer):
                continue
            if j < i:
                out.append(
                    LintIssue(
                        "prefix_nested",
                        "error",
                        f"{raw_inner!r} ({inner_type}) is inside {raw_outer!r} ({outer_type}), which "
                        f"comes first, so {raw_inner!r} never matches",
                        type=inner_type,
                        hint=f"declare {inner_type!r} before {outer_type!r}",
                    )
                )
            else:
                out.append(
                    LintIssue(
                        "prefix_nested",
                        "warning",
                        f"{raw_inner!r} ({inner_type}) is inside {raw_outer!r} ({outer_type}); notes "
                        f"there are {inner_type}, the rest of {raw_outer!r} {outer_type}",
                        type=inner_type,
                    )
                )
    return out


def _regexes(m: Manifest) -> list[LintIssue]:
    out = []
    for lt in m.link_types:
        pattern = lt.inference.regex if lt.inference else None
        reason = unsupported_reason(pattern) if pattern else None
        if reason is not None:
            out.append(
                LintIssue(
                    "link_regex_unsupported",
                    "error",
                    f"link type {lt.name!r}: regex {pattern!r}: {reason}",
                    link=lt.name,
                    hint="write it without lookarounds or backreferences",
                )
            )
    for t in m.page_types:
        for sub in t.subtypes or ():
            pattern = sub.when.path_pattern
            reason = unsupported_reason(pattern) if pattern else None
            if reason is not None:
                out.append(
                    LintIssue(
                        "path_pattern_unsupported",
                        "error",
                        f"type {t.name!r}: subtype {sub.name!r}: path_pattern {pattern!r}: {reason}",
                        type=t.name,
                        hint="write it without lookarounds or backreferences",
                    )
                )
    return out


def _fields(m: Manifest) -> list[LintIssue]:
    out = []
    for t in m.page_types:
        for name, spec in t.fields.items():
            if spec.default is not None and not spec.coerce(spec.default)[0]:
                out.append(
                    LintIssue(
                        "field_default_invalid",
                        "error",
                        f"type {t.name!r}: field {name!r} defaults to {spec.default!r}, which is not "
                        f"a valid {spec.type}",
                        type=t.name,
                    )
                )
        if t.title_field and t.fields and t.title_field not in t.fields:
            out.append(
                LintIssue(
                    "title_field_undeclared",
                    "warning",
                    f"type {t.name!r}: title_field {t.title_field!r} is not one of its fields",
                    type=t.name,
                )
            )
    return out


def _tasks(m: Manifest) -> list[LintIssue]:
    """A ``tasks:`` block names fields its type declares, and maps every status value."""
    out = []
    for t in m.page_types:
        spec = t.tasks
        if spec is None:
            continue
        named = {
            "title": spec.title,
            "due": spec.due,
            "priority": spec.priority,
            "status": spec.status,
            "completed": spec.completed,
            "recurrence": spec.recurrence,
        }
        for role, name in named.items():
            if name and name not in t.fields:
                out.append(
                    LintIssue(
                        "tasks_field_undeclared",
                        "error",
                        f"type {t.name!r}: tasks.{role} names {name!r}, which is not one of its "
                        "fields",
                        type=t.name,
                    )
                )
        status = t.fields.get(spec.status or "")
        if status is not None and status.type == "enum":
            unmapped = [v for v in status.values or [] if v not in spec.statuses]
            unknown = [v for v in spec.statuses if v not in (status.values or [])]
            if unmapped or unknown:
                out.append(
                    LintIssue(
                        "tasks_status_unmapped",
                        "warning",
                        f"type {t.name!r}: tasks.statuses "
                        + (f"misses {', '.join(unmapped)}" if unmapped else "")
                        + ("; " if unmapped and unknown else "")
                        + (f"maps {', '.join(unknown)}, not a status value" if unknown else ""),
                        type=t.name,
                        hint="map every status value to a checkbox: ' ', '/', 'x' or '-'",
                    )
                )
        prio = t.fields.get(spec.priority or "")
        if prio is not None and prio.type == "enum" and spec.given("priorities"):  # type: ignore[attr-defined]  # (a resolved Part)
            unknown = [v for v in spec.priorities if v not in (prio.values or [])]
            if unknown:
                out.append(
                    LintIssue(
                        "tasks_priority_unmapped",
                        "warning",
                        f"type {t.name!r}: tasks.priorities maps {', '.join(unknown)}, "
                        "not a priority value",
                        type=t.name,
                    )
                )
    return out


def chain_layers(pack: ResolvedPack, home: Path | None = None) -> list[Manifest]:
    """The own manifests of the pack's chain (the child first), for the per-pack rules."""
    layers: list[Manifest] = []
    for i, name in enumerate(pack.chain):
        path = Path(pack.source) if i == 0 and pack.source else find_pack(name, home)
        if path is None:
            continue
        try:
            layers.append(read_manifest(path))
        except PackError:
            continue
    return layers


def known_type_names(home: Path | None = None) -> set[str]:
    """Type names declared by any bundled or installed pack (the shared vocabulary)."""
    names: set[str] = set()
    for listing in list_packs(home):
        if listing.error:
            continue
        try:
            names.update(t.name for t in read_manifest(Path(listing.path)).page_types)
        except PackError:
            continue
    return names
