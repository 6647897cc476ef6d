"""The README's tour runs top to bottom as printed, and prints what its comments say.

A tour line ``EXPR  # VALUE``, ``print(EXPR)  # VALUE`` or ``NAME = EXPR  # VALUE`` whose
comment looks like a value (a number, or text starting ``fe.Tensor(``, ``<fe.``, ``[<fe.`` or
``array(``) is checked: numbers by value, the rest against the repr (or the printed text).
Other comments are prose. MNIST is cut to 512 images to keep the test short; without
MNIST the examples' offline digits stand in (or the test skips, saying why).
"""
import ast
import contextlib
import importlib.util
import io
import os
import pathlib
import re

import pytest

import fasteager as fe
from tests.conftest import example_data_source, skip_without_example_data

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VALUE_COMMENT = re.compile(r"#\s*(-?\d+(\.\d*)?|fe\.Tensor\(.*|<fe\..*|\[<fe\..*|array\(.*)$")


def _tour_blocks():
    text = README.read_text()
    tour = text[text.index("## A short tour"):text.index("## How it is built")]
    return re.findall(r"```python\n(.*?)```", tour, re.S)


def _examples_data_module():
    spec = importlib.util.spec_from_file_location("_examples_data", ROOT / "examples" / "_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _expected(stmt, lines):
    """The value comment on the statement's last line, or None."""
    m = VALUE_COMMENT.search(lines[stmt.end_lineno - 1])
    return m.group(1).strip() if m else None


def _same(expected, got):
    """A number compares by value; other text with the repr (or the printed text)."""
    try:
        number = float(expected)
    except ValueError:
        text = got if isinstance(got, str) else repr(got)
        return " ".join(expected.split()) == " ".join(text.split())
    return abs(number - float(got)) < 1e-6


def _run_checked(block, namespace):
    """Run the block statement by statement, checking each value comment; returns how many
    comments were checked."""
    lines = block.splitlines()
    checked = 0
    for stmt in ast.parse(block).body:
        code = compile(ast.Module([stmt], []), str(README), "exec")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
        checked += _check_nested(stmt, lines, namespace, out.getvalue())
    return checked


def _check_nested(stmt, lines, namespace, printed):
    checked = 0
    for node in ast.walk(stmt):      # a comment inside a with-block names a variable
        if node is not stmt and isinstance(node, ast.Assign) and _expected(node, lines):
            value = namespace[node.targets[0].id]
            assert _same(_expected(node, lines), value), (ast.unparse(node), value)
            checked += 1
    expected = _expected(stmt, lines)
    if expected is None or not isinstance(stmt, (ast.Expr, ast.Assign)):
        return checked
    if isinstance(stmt, ast.Assign):
        got = namespace[stmt.targets[0].id]
    elif isinstance(stmt.value, ast.Call) and getattr(stmt.value.func, "id", None) == "print":
        got = printed.strip()
    else:
        got = eval(compile(ast.Expression(stmt.value), str(README), "eval"), namespace)
    assert _same(expected, got), (ast.unparse(stmt), expected, got)
    return checked + 1


@pytest.mark.data
def test_tour_runs_as_printed(tmp_path, monkeypatch):
    skip_without_example_data()
    if example_data_source() == "MNIST":
        real = fe.keras.datasets.mnist.load_data

        def small(path=None):
            (x, y), (xt, yt) = real(path)
            return (x[:512], y[:512]), (xt[:128], yt[:128])
    else:                           # the examples' offline fallback
        data = _examples_data_module()

        def small(path=None):
            (x, y), (xt, yt) = fe.keras.datasets.digits.load_data()
            return (data.digits_as_mnist(x[:512]), y[:512]), (data.digits_as_mnist(xt), yt)
    monkeypatch.setattr(fe.keras.datasets.mnist, "load_data", small)
    monkeypatch.chdir(tmp_path)
    blocks = _tour_blocks()
    assert len(blocks) >= 8
    namespace = {}
    checked = sum(_run_checked(block, namespace) for block in blocks)
    assert checked >= 6            # the tour's printed values are all checked
    assert os.path.exists(tmp_path / "runs" / "ckpt" / "checkpoint")
    assert os.path.exists(tmp_path / "w.safetensors")


def test_value_comments_are_checked():
    """The checker itself: a wrong comment fails, a right one passes, prose is ignored."""
    namespace = {"fe": fe}
    assert _run_checked("x = fe.constant(2.0) * 3   # 6\nx + 1   # 7.0\ny = 1  # prose\n",
                        namespace) == 2
    with pytest.raises(AssertionError):
        _run_checked("fe.constant(2.0) * 3   # 5\n", namespace)
    with pytest.raises(AssertionError):
        _run_checked("print(fe.constant([1.0]))   # fe.Tensor([2.], shape=(1,), dtype=float32)\n",
                     namespace)


def test_api_table_names_resolve():
    """Every ``tf.`` name in the README's API table exists in fasteager (the table cannot
    list what the package lacks)."""
    text = README.read_text()
    table = text[text.index("## TensorFlow API coverage"):text.index("## How it is built")]
    names = sorted(set(re.findall(r"`(tf\.[A-Za-z0-9_.]+)`", table)))
    assert len(names) > 100
    missing = []
    for name in names:
        obj = fe
        try:
            for part in name.split(".")[1:]:
                obj = getattr(obj, part)
        except AttributeError:
            missing.append(name)
    assert not missing, missing
