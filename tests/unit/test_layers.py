"""The layers of vaultbrain, read from its source with ``ast``: which package may import which.

Every ``import`` counts, at module level or inside a function (a function-level import is
still a dependency, only a later one), except those under ``if TYPE_CHECKING:``, which exist
for annotations alone. The rules:

- ``vault/`` and ``store/`` import nothing from filing, capture, daemon, cli or classify;
- ``classify/`` imports nothing from filing, capture, daemon or cli;
- no cycle between packages, apart from the edges listed in ``KNOWN_CYCLE_EDGES``, each a
  debt to pay: once it is gone, its entry must go too (a test checks that every entry still
  names an import that exists).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import vaultbrain

ROOT = Path(vaultbrain.__file__).parent
UPPER = {"filing", "capture", "daemon", "cli"}

# (importing module, imported module): imports that close a cycle between packages, each a debt
# to pay. None today: capture builds on filing (records, names, inbox, links, corrections), and
# the person's decisions on a capture live in capture/ (resolution.py, review.py). What filing
# did to records (a re-file, a move) it reports, and capture follows the report
# (capture/follow.py); nothing below reaches up.
KNOWN_CYCLE_EDGES: set[tuple[str, str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[str, bool]]:
    """(imported vaultbrain module, whether only for type checking) for each import."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]

    def walk(node: ast.AST, typing_only: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for stmt in child.body:
                    yield from walk_one(stmt, True)
                for stmt in child.orelse:
                    yield from walk_one(stmt, typing_only)
            else:
                yield from walk_one(child, typing_only)

    def walk_one(node: ast.AST, typing_only: bool) -> Iterator[tuple[str, bool]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, typing_only
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                # `from vaultbrain.capture import lines` imports the module capture.lines.
                full = f"{source}.{alias.name}"
                yield (full if full in modules else source), typing_only
        else:
            yield from walk(node, typing_only)

    for target, typing_only in walk(ast.parse(path.read_text("utf-8")), False):
        if target == "vaultbrain" or target.startswith("vaultbrain."):
            yield target, typing_only


def _graph(with_typing: bool) -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        for target, typing_only in _imports(module, path, modules):
            if with_typing or not typing_only:
                graph[module].add(target)
    return graph


def _package(module: str) -> str:
    """``vaultbrain.filing.sync`` -> ``filing``; a top-level module is its own package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "vaultbrain"


def _violations(layer: str, forbidden: set[str]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in _graph(with_typing=True).items()
        if _package(module) == layer
        for target in targets
        if _package(target) in forbidden
    )


def test_the_graph_sees_real_imports() -> None:
    graph = _graph(with_typing=False)
    assert "vaultbrain.capture.journal" in graph["vaultbrain.capture.pipeline"]  # module level
    assert "vaultbrain.classify.adapt" in graph["vaultbrain.capture.classify"]  # in a function
    assert "vaultbrain.capture.lines" in graph["vaultbrain.capture.pipeline"]  # from pkg import mod
    assert "vaultbrain.brain" not in graph["vaultbrain.capture.plan"]  # TYPE_CHECKING only
    assert "vaultbrain.brain" in _graph(with_typing=True)["vaultbrain.capture.plan"]


def test_vault_and_store_import_no_higher_layer() -> None:
    assert _violations("vault", UPPER | {"classify"}) == []
    assert _violations("store", UPPER | {"classify"}) == []


def test_classify_imports_no_filing_capture_daemon_or_cli() -> None:
    assert _violations("classify", UPPER) == []


def test_the_low_layers_never_see_the_process_context() -> None:
    """``vault/``, ``store/``, ``packs/`` and ``classify/`` take what they use (a store, a
    vault, a pack), never the brain, not even for a type hint."""
    brain = {"vaultbrain.brain"}
    graph = _graph(with_typing=True)
    for layer in ("vault", "store", "packs", "classify"):
        found = sorted(
            f"{m} imports {t}"
            for m, ts in graph.items()
            if _package(m) == layer
            for t in ts & brain
        )
        assert found == [], layer


def test_the_brain_imports_none_of_the_layers_above_it() -> None:
    """The brain is the process's context, low in the house: what filing, capture and the
    graph keep per process they keep in its memo."""
    above = {"filing", "capture", "graph", "daemon", "cli", "digest", "youtube", "idealoom"}
    targets = _graph(with_typing=True)["vaultbrain.brain"]
    assert sorted(t for t in targets if _package(t) in above) == []


def test_filing_never_reaches_up_into_capture() -> None:
    """Filing reports what it did (moves, re-filings, deletions, updates waiting); capture
    follows the report (vaultbrain/capture/follow.py)."""
    assert _violations("filing", {"capture", "daemon", "cli"}) == []


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of a graph (Tarjan), each with more than one member."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
        if v not in index:
            connect(v)
    return sorted(groups)


def _package_cycles(skip: set[tuple[str, str]]) -> list[list[str]]:
    """The groups of packages that import each other around a loop."""
    edges: dict[str, set[str]] = defaultdict(set)
    for module, targets in _graph(with_typing=False).items():
        for target in targets:
            a, b = _package(module), _package(target)
            if a != b and (module, target) not in skip:
                edges[a].add(b)
    return _cycles(edges)


def test_no_cycle_between_packages_beyond_the_known_ones() -> None:
    assert _package_cycles(KNOWN_CYCLE_EDGES) == []


def test_no_cycle_between_the_feature_packages() -> None:
    features = {"filing", "capture", "daemon", "cli", "youtube", "graph", "digest"}
    present = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert features <= present  # a renamed package must be renamed here too
    tangled = [sorted(set(g) & features) for g in _package_cycles(set())]
    assert [g for g in tangled if len(g) > 1] == []


def test_every_known_cycle_edge_still_exists() -> None:
    graph = _graph(with_typing=False)
    gone = sorted(edge for edge in KNOWN_CYCLE_EDGES if edge[1] not in graph.get(edge[0], ()))
    assert gone == [], "remove these from KNOWN_CYCLE_EDGES: the import is gone"


def test_no_cycle_between_modules() -> None:
    """Not even through a function-level import: a module that needs one above it is handed
    what it needs (the way capture/lines gets ``confirm``, or vault/relocate sits above both
    vault/files and vault/statedir)."""
    assert _cycles(_graph(with_typing=False)) == []


def test_the_cycle_finder_finds_one() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
