"""The import rules of docs/architecture.md, checked from the source (nothing imported).

Each module of ``src/fasteager`` belongs to one layer (``LAYERS``, bottom first); a module
imports only from its own layer or those below, at module level or inside a function.
``ops/`` imports only ``ops/``, the core and the leaf modules; nothing below ``keras``
imports the package module ``fasteager`` itself; the number of imports inside functions
may only shrink (``DEFERRED_CEILING``), and no import cycle spans more than
``MAX_CYCLE`` modules. The rules run on a copy of a tree with a planted violation too, so
a checker that stopped seeing violations would fail here.
"""
import ast
import os
import re
import sys

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
PKG = "fasteager"

# (layer name, module-name prefixes), bottom first. A module takes the layer of its
# longest matching prefix; the package module itself is the top.
LAYERS = [
    ("leaf", ["fasteager._version", "fasteager.dtypes", "fasteager.errors",
              "fasteager.tensor_shape", "fasteager._alloc", "fasteager._gemm",
              "fasteager._special", "fasteager._kernels", "fasteager._norm",
              "fasteager._rnn"]),
    ("core", ["fasteager._core", "fasteager._graph"]),
    ("ops", ["fasteager.ops"]),
    ("engine.base", ["fasteager._src"]),       # nest, debugging checks: above ops only
    ("engine.autodiff", ["fasteager._src.autodiff"]),
    ("engine.composite", ["fasteager._src.composite"]),
    ("engine.io", ["fasteager._src.io"]),
    ("engine.tracing", ["fasteager._src.tracing"]),
    ("engine.state", ["fasteager._src.state"]),
    ("engine.initializers", ["fasteager._src.initializers"]),
    ("subsystems", [""]),            # everything not named elsewhere: facades, numpy, data...
    ("keras", ["fasteager.keras"]),
    ("top", ["fasteager", "fasteager.bench", "fasteager.contrib"]),
]
OPS_MAY_IMPORT = {"leaf", "core", "ops"}
# Imports inside functions are for optional third-party packages and lazy/deprecation
# module __getattr__ only; this ceiling is today's count and may only go down.
DEFERRED_CEILING = 7
MAX_CYCLE = 4


def layer_of(mod):
    if mod == PKG:
        return len(LAYERS) - 1
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if p == PKG:
                continue
            if p == "" or mod == p or mod.startswith(p + "."):
                if len(p) > best_len:
                    best, best_len = i, len(p)
    return best


def modules(src_pkg_dir):
    out = {}
    parent = os.path.dirname(src_pkg_dir)
    for d, _, files in os.walk(src_pkg_dir):
        if "__pycache__" in d:
            continue
        for f in files:
            if f.endswith((".py", ".pyx")):
                p = os.path.join(d, f)
                name = os.path.relpath(p, parent).rsplit(".", 1)[0].replace(os.sep, ".")
                if name.endswith(".__init__"):
                    name = name[: -len(".__init__")]
                out[name] = p
    return out


def _tree(path):
    src = open(path, encoding="utf-8").read()
    if path.endswith(".pyx"):
        # Cython: keep the Python import lines; an indented one is inside a function
        keep = []
        for line in src.splitlines():
            if re.match(r"\s*(from\s+\S+\s+import\s|import\s)", line) and "cimport" not in line:
                body = line.strip().rstrip("\\")
                if "(" in body and ")" not in body:
                    body = body.split("(")[0] + "_unparsed"       # wrapped import list
                keep.append(("def _f():\n    " + body) if line[:1].isspace() else body)
        src = "\n".join(keep)
    return ast.parse(src)


def _targets(mod, node, names, is_pkg):
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name == PKG or a.name.startswith(PKG + ".")]
    base = node.module or ""
    if node.level:
        parts = mod.split(".") if is_pkg else mod.split(".")[:-1]
        if node.level > 1:
            parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([base] if base else []))
    if not (base == PKG or base.startswith(PKG + ".")):
        return []
    out = []
    for a in node.names:
        sub = base + "." + a.name
        out.append(sub if sub in names else base)
    return out


def imports(src_pkg_dir):
    """[(importer, imported, lineno, inside_function)] for every internal import."""
    mods = modules(src_pkg_dir)
    names = set(mods)
    found = []
    for mod, path in mods.items():
        is_pkg = os.path.basename(path).startswith("__init__.")

        def visit(node, in_fn):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for t in _targets(mod, child, names, is_pkg):
                        if t in names and t != mod:
                            found.append((mod, t, child.lineno, in_fn))
                visit(child, in_fn or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
        visit(_tree(path), False)
    return mods, found


def violations(src_pkg_dir):
    """Every broken rule, as readable lines (empty when the tree keeps the rules)."""
    mods, found = imports(src_pkg_dir)
    bad = []
    keras = [i for i, (n, _) in enumerate(LAYERS) if n == "keras"][0]
    for m, t, line, in_fn in found:
        lm, lt = layer_of(m), layer_of(t)
        where = "%s:%d%s" % (m, line, " (in a function)" if in_fn else "")
        if t == PKG:
            if lm < keras:
                bad.append("%s imports the package module %s (below keras)" % (where, t))
        elif t.startswith(m + "."):
            continue                      # a package importing its own submodule
        elif LAYERS[lm][0] == "ops" and LAYERS[lt][0] not in OPS_MAY_IMPORT:
            bad.append("%s: ops/ imports %s (layer %s)" % (where, t, LAYERS[lt][0]))
        elif lt > lm:
            bad.append("%s imports %s: layer %s above %s" % (
                where, t, LAYERS[lt][0], LAYERS[lm][0]))
    return bad


def deferred_count(src_pkg_dir):
    return sum(1 for *_, in_fn in imports(src_pkg_dir)[1] if in_fn)


def cycles(src_pkg_dir):
    """Strongly connected components (size > 1) of the import graph."""
    _, found = imports(src_pkg_dir)
    edges = {}
    for m, t, _, _ in found:
        if not t.startswith(m + "."):
            edges.setdefault(m, set()).add(t)
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))
    for v in list(edges):
        if v not in index:
            strong(v)
    return comps


PACKAGE_DIR = os.path.join(SRC, PKG)


def test_imports_point_downward():
    assert violations(PACKAGE_DIR) == []


def test_deferred_imports_do_not_grow():
    assert deferred_count(PACKAGE_DIR) <= DEFERRED_CEILING


def test_no_large_import_cycle():
    big = [c for c in cycles(PACKAGE_DIR) if len(c) > MAX_CYCLE]
    assert big == []


def _write(root, rel, text):
    path = os.path.join(root, *rel.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


@pytest.mark.parametrize("rel, text, expect", [
    # an op importing Keras (upward, and outside what ops/ may import)
    ("fasteager/_src/state/planted.py", "def f():\n    from ...keras import layers\n", "above"),
    # the engine reading the half-built package module
    ("fasteager/_src/tracing/planted.py", "import fasteager as fe\n", "package module"),
    # ops/ reaching sideways into the engine
    ("fasteager/ops/planted.py", "from .._src.autodiff import tape\n", "ops/ imports"),
    # the core importing the engine from Cython
    ("fasteager/_core.pyx", "def g():\n    from ._src.state import variables\n", "above"),
])
def test_planted_violation_is_caught(tmp_path, rel, text, expect):
    root = str(tmp_path)
    for rel_ok, body in [("fasteager/__init__.py", "from . import ops\n"),
                         ("fasteager/ops/__init__.py", ""),
                         ("fasteager/_src/__init__.py", ""),
                         ("fasteager/_src/autodiff/__init__.py", ""),
                         ("fasteager/_src/autodiff/tape.py", "from ...ops import x\n"),
                         ("fasteager/_src/state/__init__.py", ""),
                         ("fasteager/_src/state/variables.py", ""),
                         ("fasteager/_src/tracing/__init__.py", ""),
                         ("fasteager/ops/x.py", "from .. import errors\n"),
                         ("fasteager/errors.py", ""),
                         ("fasteager/keras/__init__.py", "import fasteager\n"),
                         ("fasteager/keras/layers.py", "from ..ops import x\n")]:
        _write(root, rel_ok, body)
    pkg = os.path.join(root, "fasteager")
    assert violations(pkg) == []              # the clean tree passes
    _write(root, rel, text)
    found = violations(pkg)
    assert len(found) == 1 and expect in found[0], found


def test_planted_cycle_is_caught(tmp_path):
    root = str(tmp_path)
    _write(root, "fasteager/__init__.py", "")
    names = ["a", "b", "c", "d", "e"]
    for i, n in enumerate(names):
        _write(root, "fasteager/%s.py" % n, "from . import %s\n" % names[(i + 1) % len(names)])
    assert [len(c) for c in cycles(os.path.join(root, "fasteager"))] == [5]
