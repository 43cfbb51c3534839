"""No module of vaultbrain reaches into the private internals of CPython or of a library
(issue 43): no private module (``_sre``, ``re._parser``, ``re._compiler``,
``re._constants``), no private attribute of an imported module or of an object made from one
(``transport._pool``), no class built around its ``__init__`` (``HTTPTransport.__new__``). An
AST walk over every file of ``vaultbrain/``; our own objects' privates are ours to use."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "vaultbrain"
OURS = "vaultbrain"


# Underscored names that the library documents as its public API: a named tuple's methods,
# and os._exit (the way a forked child ends without running the parent's exit handlers).
DOCUMENTED = {"_replace", "_asdict", "_fields", "_make", "_exit"}


def private(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("_") and not dunder and name not in DOCUMENTED


def root_name(node: ast.expr) -> str | None:
    """The name an attribute chain or call chain starts from (``a`` of ``a.b().c``)."""
    while True:
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Name):
            return node.id
        else:
            return None


def reaches(source: str) -> list[str]:
    """Each reach into a foreign private in ``source``, as ``line: what``."""
    tree = ast.parse(source)
    found: list[str] = []
    foreign: set[str] = set()  # names bound to a module or object not of vaultbrain
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if any(private(part) for part in alias.name.split(".")):
                    found.append(f"{node.lineno}: import {alias.name}")
                if alias.name.split(".")[0] != OURS:
                    foreign.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            module = node.module
            if module == "__future__":
                continue
            if any(private(part) for part in module.split(".")):
                found.append(f"{node.lineno}: from {module} import ...")
            if module.split(".")[0] != OURS:
                for alias in node.names:
                    if private(alias.name):
                        found.append(f"{node.lineno}: from {module} import {alias.name}")
                    foreign.add(alias.asname or alias.name)
    # A name assigned an imported name's attribute or what calling one makes (``t =
    # httpx.HTTPTransport()``) holds a foreign object. (Only from an imported name: what a
    # foreign container holds, ``_built.get(key)``, may well be ours.)
    imported = set(foreign)
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets, value = [node.optional_vars], node.context_expr
        else:
            continue
        if isinstance(value, ast.Call):
            value = value.func
        while isinstance(value, ast.Attribute):
            value = value.value
        if isinstance(value, ast.Name) and value.id in imported:
            foreign.update(t.id for t in targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root = root_name(node.value)
            if root in foreign and private(node.attr):
                found.append(f"{node.lineno}: {root}...{node.attr}")
            if (
                node.attr == "__new__"
                and root in foreign
                and not (isinstance(node.value, ast.Name) and node.value.id == "object")
            ):
                found.append(f"{node.lineno}: {root}...__new__")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and private(node.args[1].value)
            and root_name(node.args[0]) in foreign
        ):
            found.append(f"{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


def test_no_module_of_vaultbrain_reaches_a_foreign_private() -> None:
    found = {
        str(path.relative_to(PACKAGE.parent)): hits
        for path in sorted(PACKAGE.rglob("*.py"))
        if (hits := reaches(path.read_text("utf-8")))
    }
    assert found == {}


@pytest.mark.parametrize(
    "source",
    [
        "import _sre\n",
        "import re._parser as p\n",
        "from re import _compiler\n",
        "from re import _constants as c\n",
        "import re\nx = re._parser.parse('a')\n",
        "import httpx\nt = httpx.HTTPTransport.__new__(httpx.HTTPTransport)\n",
        "import httpx\nt = httpx.HTTPTransport()\nt._pool = None\n",
        "import httpx\nwith httpx.Client() as c:\n    c._transport\n",
        "from httpx import Client\nc = Client()\nprint(c._transport)\n",
        "import sys\nsys._getframe()\n",
        "import atexit\natexit._run_exitfuncs()\n",
        "import httpx\nc = httpx.Client()\ngetattr(c, '_transport')\n",
    ],
)
def test_each_kind_of_reach_is_found(source: str) -> None:
    assert reaches(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "from __future__ import annotations\n",
        "class A:\n    def f(self):\n        return self._x\n",
        "from vaultbrain.brain import Brain\nb = Brain()\nb._memo\n",
        "import weakref\nkept = weakref.WeakKeyDictionary()\nmine = kept.get(1)\nmine._rows\n",
        "import re\np = re.compile('x')\np.pattern\n",
        "import dataclasses\nclass A:\n    __slots__ = ()\n    x = dataclasses.field().__doc__\n",
        "def f(cls):\n    return object.__new__(cls)\n",
        "import os\nif os.fork() == 0:\n    os._exit(0)\n",
        "from urllib.parse import urlsplit\nurlsplit('http://a')._replace(path='/')\n",
    ],
)
def test_what_is_ours_or_public_is_not_a_reach(source: str) -> None:
    assert reaches(source) == []
