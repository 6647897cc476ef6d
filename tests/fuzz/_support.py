"""Shared pieces of the fuzz tests: settings, random arrays, comparisons, the child runner.

Every fuzz test is deterministic (fixed seeds, ``derandomize=True``) and bounded; the
environment variable ``FASTEAGER_FUZZ_EXAMPLES=N`` raises every test's number of
examples (and of child-process cases) to N for longer local runs.

Arrays come in several memory layouts (C, Fortran, strided, reversed, transposed) and
optionally read-only: a read-only array is a view of a writable base, so writing to the
base after an op shows whether the op's result still aliases the input.

Targets that may crash the interpreter (the Cython kernels) run in a child process
(``run_in_child``): a segfault there fails one test and names the case it died on.
"""
import json
import linecache
import os
import pathlib
import subprocess
import sys
import traceback

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import fasteager as fe
from tests.child_process import child_env

EXAMPLES = int(os.environ.get("FASTEAGER_FUZZ_EXAMPLES", "0") or 0)
REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def examples(default):
    """The number of examples of one test: ``default``, or FASTEAGER_FUZZ_EXAMPLES."""
    return EXAMPLES or default


def fuzz(default):
    """Hypothesis settings of one fuzz test: fixed seed, bounded, no deadline."""
    return settings(max_examples=examples(default), derandomize=True, deadline=None,
                    database=None, print_blob=False,
                    suppress_health_check=list(HealthCheck))


# ---- errors ------------------------------------------------------------------------------

# built-ins a user may see from bad arguments: TensorFlow raises TypeError for wrong Python
# types; everything else must be one of fasteager's typed errors
_NEVER = (fe.errors.InternalError, fe.errors.UnknownError)


def is_typed_error(e):
    """True when ``e`` is an error fasteager documents for bad arguments: one of its typed
    errors, a TypeError, or a ValueError that fasteager raises on purpose (Python's
    protocols: ``bool()`` of a many-element tensor, ``__index__``), as TensorFlow does."""
    if isinstance(e, _NEVER):
        return False
    if isinstance(e, fe.errors.OpError):
        return True
    return type(e) is TypeError or (type(e) is ValueError and _raised_by_fasteager(e))


def _raised_by_fasteager(e):
    # the innermost frame is a `raise` statement in fasteager's own source (not a NumPy or
    # built-in conversion failing inside it)
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    path = tb.tb_frame.f_code.co_filename
    if "fasteager" not in path:
        return False
    for candidate in (path, str(REPO_ROOT / path)):
        line = linecache.getline(candidate, tb.tb_lineno).strip()
        if line:
            return line.startswith("raise ")
    return False


def describe_error(e):
    return "%s.%s: %s" % (type(e).__module__, type(e).__name__, str(e)[:300])


def call_or_typed_error(fn, *args, **kwargs):
    """``fn(*args)``; a typed error returns ``(None, e)``, any other error fails."""
    try:
        return fn(*args, **kwargs), None
    except Exception as e:    # noqa: BLE001 - which errors are allowed is the point
        assert is_typed_error(e), "untyped error %s\n%s" % (describe_error(e),
                                                            traceback.format_exc())
        return None, e


# ---- arrays ------------------------------------------------------------------------------

LAYOUTS = ("c", "fortran", "strided", "reversed", "transposed")
FLOAT_DTYPES = (np.float16, np.float32, np.float64)


def shapes(max_rank=3, max_dim=4, min_rank=0):
    """Shapes of rank ``min_rank..max_rank`` with dims ``0..max_dim`` (0-size included)."""
    return st.lists(st.integers(0, max_dim), min_size=min_rank, max_size=max_rank).map(tuple)


def broadcast_pairs(max_rank=3, max_dim=4):
    """Pairs of shapes that broadcast together (some ranks differ, some dims are 1)."""
    @st.composite
    def pair(draw):
        out = draw(shapes(max_rank, max_dim))
        a, b = [], []
        for d in out:
            ka, kb = draw(st.sampled_from([(d, d), (1, d), (d, 1)]))
            a.append(ka)
            b.append(kb)
        cut_a = draw(st.integers(0, len(a)))
        cut_b = draw(st.integers(0, len(b))) if cut_a == 0 else 0
        return tuple(a[cut_a:]), tuple(b[cut_b:])
    return pair()


def lay_out(a, layout, readonly):
    """``a``'s values in another memory layout; returns ``(array, writable_base)``.

    Writing to ``writable_base`` changes ``array`` (they share memory), which is how the
    tests check that a result does not alias its input.
    """
    if a.ndim == 0 or layout == "c":
        arr = a.copy()
    elif layout == "fortran":
        arr = np.asfortranarray(a)
    elif layout == "strided":
        big = np.zeros(tuple(2 * d for d in a.shape), a.dtype)
        arr = big[tuple(slice(None, None, 2) for _ in a.shape)]
        arr[...] = a
    elif layout == "reversed":
        arr = np.ascontiguousarray(np.flip(a))
        arr = np.flip(arr)
    else:   # transposed: the values of a, stored as a transposed array
        arr = np.ascontiguousarray(a.T).T
    if not readonly:
        return arr, arr
    view = arr.view()
    view.flags.writeable = False
    return view, arr


def random_values(rng, shape, dtype, domain=None, special=0.0, scale=1.0):
    """Random values of ``dtype``: standard normal (through ``domain``) in float64, with a
    ``special`` fraction of NaN/+Inf/-Inf for float dtypes."""
    dtype = np.dtype(dtype)
    a = rng.standard_normal(shape) * scale
    if domain is not None:
        a = domain(a)
    if dtype.kind == "f" and special and a.size:
        pick = rng.random(a.shape) < special
        a = np.where(pick, rng.choice([np.nan, np.inf, -np.inf], size=a.shape), a)
    if dtype.kind in "iu":
        a = np.round(a * 3)
        if dtype.kind == "u":
            a = np.abs(a)
    elif dtype.kind == "b":
        a = a > 0
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(a).astype(dtype)


@st.composite
def layouts(draw):
    return draw(st.sampled_from(LAYOUTS)), draw(st.booleans())


# ---- comparisons -------------------------------------------------------------------------

_RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-10}


def same_values(x, y):
    """Exact equality, NaN equal to NaN (for "the input was not modified")."""
    x, y = np.asarray(x), np.asarray(y)
    return x.shape == y.shape and x.dtype == y.dtype and np.array_equal(
        x, y, equal_nan=x.dtype.kind in "fc")


def assert_matches(got, want, in_dtype, what, rtol=None):
    """``got`` (a Tensor) against NumPy ``want``: shape, NaN/Inf positions, values."""
    assert isinstance(got, fe.Tensor), "%s: not a Tensor (%r)" % (what, type(got))
    g = np.asarray(got.numpy())
    w = np.asarray(want)
    assert g.shape == w.shape, "%s: shape %s (expected %s)" % (what, g.shape, w.shape)
    if w.dtype.kind == "f" and g.dtype.kind == "f":
        nan_g, nan_w = np.isnan(g), np.isnan(w)
        bad = np.argwhere(nan_g != nan_w)
        assert not bad.size, "%s: NaN at %s differs (got %s, expected %s)" % (
            what, bad[0].tolist(), g[tuple(bad[0])], w[tuple(bad[0])])
        inf_g, inf_w = np.isinf(g), np.isinf(w)
        bad = np.argwhere((inf_g | inf_w) & ~(g == w))
        assert not bad.size, "%s: Inf at %s differs (got %s, expected %s)" % (
            what, bad[0].tolist(), g[tuple(bad[0])], w[tuple(bad[0])])
        ok = ~(nan_w | inf_w)
        g, w = g[ok], w[ok]
    if rtol is None:
        rtol = _RTOL.get(np.dtype(in_dtype), 0)
    if g.dtype.kind in "fc" or w.dtype.kind in "fc":
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol,
                                   atol=rtol, err_msg=what)
    else:
        np.testing.assert_array_equal(g, w, err_msg=what)


# ---- the child process -------------------------------------------------------------------

def run_in_child(module, target, seed, n, timeout=120, memory_mb=None):
    """Run ``n`` random cases of ``module.CHILD_TARGETS[target]`` in a fresh interpreter.

    A target is ``target(rng) -> (description, thunk)``; the child runs each thunk and
    reports, as JSON, every case that raised an untyped error or failed an assertion.
    A crash (segfault, abort) fails with the description of the case it died on; so does
    a hang (``timeout`` seconds for all cases) and, with ``memory_mb``, a case that asks
    for more address space than that (a decompression or allocation bomb: the child's
    RLIMIT_AS turns it into a MemoryError, which is not a typed error).
    Returns the number of cases that ran.
    """
    # cwd = the repository root puts `tests` on the child's path (python -c adds the cwd);
    # child_env puts this process's fasteager first
    code = ("from tests.fuzz import _support; _support.child_main(%r, %r, %d, %d, %r)"
            % (module, target, seed, n, fe.__file__))
    env = child_env(PYTHONFAULTHANDLER="1")
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, cwd=str(REPO_ROOT), env=env,
                              preexec_fn=lambda: _limit_child(memory_mb))
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        last = [ln for ln in err.splitlines() if ln.startswith("CASE ")]
        raise AssertionError("%s: child still running after %d s, on %s" % (
            target, timeout, last[-1] if last else "start-up")) from None
    last = [ln for ln in proc.stderr.splitlines() if ln.startswith("CASE ")]
    assert proc.returncode == 0, "%s: child died with code %d on %s\n%s" % (
        target, proc.returncode, last[-1] if last else "start-up", proc.stderr[-3000:])
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not report["failures"], "%s: %d of %d cases failed:\n%s" % (
        target, len(report["failures"]), report["ran"],
        "\n".join(report["failures"][:8]))
    return report["ran"]


def _limit_child(memory_mb):
    # a crashing child fails its test; it must not also leave a core dump in the work tree
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_mb is not None:
        limit = int(memory_mb) << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def child_main(module, target, seed, n, fe_file):
    """The child's side of ``run_in_child``."""
    import importlib
    assert os.path.samefile(fe.__file__, fe_file), (fe.__file__, fe_file)
    mod = importlib.import_module(module)
    make = {**mod.CHILD_TARGETS, **getattr(mod, "HARNESS_TARGETS", {})}[target]
    failures = []
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        desc, thunk = make(rng)
        sys.stderr.write("CASE %d: %s\n" % (i, desc))
        sys.stderr.flush()
        try:
            thunk()
        except AssertionError as e:
            failures.append("case %d %s: %s" % (i, desc, str(e)[:500]))
        except Exception as e:   # noqa: BLE001 - untyped errors are what is reported
            if not is_typed_error(e):
                failures.append("case %d %s: %s" % (i, desc, describe_error(e)))
    sys.stdout.write("\n" + json.dumps({"ran": n, "failures": failures}) + "\n")
