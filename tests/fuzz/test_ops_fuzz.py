"""Property-based fuzzing of the op table, through the descriptions of tests/ops/op_specs.py.

For every entry of ``SPECS`` (one per op of ``OPS``): random shapes (any rank and 0-size
dims for the element-wise entries, the spec's own cases for the others), float16/32/64,
NaN/Inf values, strided/transposed/Fortran and read-only inputs, compared with the
spec's NumPy reference; inputs are never modified and results never alias them. Ops
given a dtype outside their kinds raise a typed error. Differentiable ops have tape
gradients of the input's shape and dtype, finite where the forward is smooth.

The Cython kernels (convolution, pooling, fused softmax-cross-entropy) and the
index-taking ops run in a child process (``CHILD_TARGETS``), so a
segfault fails a test instead of ending the run.
"""
import os
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fasteager as fe
from fasteager.ops.registry import OPS
from tests.fuzz import _support as S
from tests.ops import op_specs_nn as R
from tests.ops.op_specs import SPECS
from tests.ops.op_specs_base import BINARY, UNARY

# entries whose cases are the generic unary/binary lists take any shape (pair)
ELEMENTWISE_UNARY = sorted(n for n, s in SPECS.items() if s.cases is UNARY)
ELEMENTWISE_BINARY = sorted(n for n, s in SPECS.items() if s.cases is BINARY)
# entries whose fn indexes its argument with Python syntax, or reads Tensor attributes,
# need a Tensor, not an ndarray
NEEDS_TENSOR = {"getitem", "index_backward", "svd"}
# entries that call the op's public function directly (no casts around it)
_PUBLIC_MODULES = ("fasteager.ops", "fasteager.nn", "fasteager.math", "fasteager.linalg")
DIRECT = sorted(n for n, s in SPECS.items()
                if getattr(s.fn, "__module__", "").startswith(_PUBLIC_MODULES))
# NumPy references that loop forever on Inf (LAPACK gesdd): their NaN/Inf cases are the
# child target "svd_nonfinite" instead
REF_HANGS_ON_NONFINITE = {"svd", "pinv"}
# where NaN/Inf results are implementation-defined: the order of NaN in a sort, and 0 * Inf
# at the zero-padded taps of a convolution whose filter holds Inf
# the gamma family at its poles and at -inf: SciPy (the reference) and C/TensorFlow
# disagree on the sign of infinity and on NaN vs inf (fasteager: inf for lgamma, NaN for
# digamma/polygamma at poles); finite values are checked everywhere
POLES_BY_CONVENTION = {"lgamma", "digamma", "polygamma"}
UNDEFINED_ON_NONFINITE = {"argsort", "conv2d", "conv2d_backprop_input",
                          "conv2d_backprop_filter", "depthwise_conv2d",
                          "depthwise_conv2d_backprop_input",
                          "depthwise_conv2d_backprop_filter",
                          # the colorsys reference has no HSV for a NaN or inf pixel
                          "adjust_hue", "adjust_saturation"} | REF_HANGS_ON_NONFINITE | \
    POLES_BY_CONVENTION
# float16 is not yet aligned with NumPy for these (eig/eigh refuse it where the reference
# upcasts; rfft/irfft compute it in float32 and return float32): fuzzed in float32/64 only
NO_FLOAT16_YET = {"eig", "eigh", "rfft", "irfft"}


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


@st.composite
def _case(draw, name, dtypes=S.FLOAT_DTYPES, special=True):
    """(shapes, dtype, [(layout, readonly)], seed, special fraction) for one spec."""
    spec = SPECS[name]
    if name in ELEMENTWISE_UNARY:
        shapes = (draw(S.shapes()),)
    elif name in ELEMENTWISE_BINARY:
        shapes = draw(S.broadcast_pairs())
    else:
        shapes = draw(st.sampled_from(spec.cases))
    if name in NO_FLOAT16_YET:
        dtypes = [d for d in dtypes if np.dtype(d) != np.float16]
    dtype = draw(st.sampled_from(dtypes))
    lay = [draw(S.layouts()) for _ in shapes]
    special = special and name not in UNDEFINED_ON_NONFINITE
    frac = draw(st.sampled_from([0.0, 0.0, 0.3])) if special else 0.0
    return shapes, np.dtype(dtype), lay, draw(st.integers(0, 2**31)), frac


def _arrays(spec, shapes, dtype, lay, seed, frac):
    rng = np.random.default_rng(seed)
    arrays, bases = [], []
    for shape, (layout, ro) in zip(shapes, lay):
        a = S.random_values(rng, shape, dtype, spec.domain, special=frac)
        arr, base = S.lay_out(a, layout, ro)
        arrays.append(arr)
        bases.append(base)
    return arrays, bases


def _tolerance(spec, dtype):
    if dtype == np.float16:
        return 1e-2
    if dtype == np.float32:
        return max(spec.rtol or 0, 2e-5)
    return max(spec.rtol or 0, 1e-9)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_forward_matches_numpy_on_random_inputs(name):
    spec = SPECS[name]

    @S.fuzz(25)
    @given(_case(name))
    def check(case):
        shapes, dtype, lay, seed, frac = case
        arrays, bases = _arrays(spec, shapes, dtype, lay, seed, frac)
        before = [a.copy() for a in arrays]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                want = _as_list(spec.ref(*[a.copy() for a in arrays]))
            except (TypeError, np.linalg.LinAlgError):
                want = None     # NumPy rejects it (float16 linalg): fasteager must too
            args = [fe.constant(a) if name in NEEDS_TENSOR else a for a in arrays]
            got, err = S.call_or_typed_error(spec.fn, *args)
        if want is None:
            assert err is not None, "%s%s %s: accepted what NumPy rejects" % (name, shapes,
                                                                                dtype)
            return
        assert err is None, "%s%s %s: %s" % (name, shapes, dtype, S.describe_error(err))
        got = _as_list(got)
        for a, b in zip(arrays, before):
            assert S.same_values(a, b), "%s modified its input" % name
        assert len(got) == len(want)
        what = "%s%s %s layouts %s" % (name, shapes, dtype, lay)
        for g, w in zip(got, want):
            w = np.asarray(w)
            S.assert_matches(g, w, dtype, what, rtol=_tolerance(spec, dtype))
            if w.dtype.kind == "f":
                # TensorFlow's rule: a float op keeps its float dtype (float16 included)
                assert g.dtype.as_numpy_dtype == w.dtype, (what, g.dtype, w.dtype)
        # results hold their own memory: writing to the inputs afterwards changes nothing
        snapshot = [np.array(g.numpy()) for g in got]
        for b in bases:
            b[...] = b.dtype.type(1) if b.dtype.kind == "b" else b.dtype.type(7)
        for g, s in zip(got, snapshot):
            assert S.same_values(g.numpy(), s), "%s: result aliases its input" % what

    check()


# ---- dtypes outside an op's kinds --------------------------------------------------------

_ALL_DTYPES = (np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8,
               np.uint32, np.bool_, np.complex64, np.complex128)


@pytest.mark.parametrize("name", DIRECT)
def test_dtypes_outside_the_op_kinds_raise_typed_errors(name):
    spec, op = SPECS[name], OPS[name]

    @S.fuzz(12)
    @given(_case(name, dtypes=_ALL_DTYPES, special=False))
    def check(case):
        shapes, dtype, lay, seed, frac = case
        arrays, _ = _arrays(spec, shapes, dtype, lay, seed, frac)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got, err = S.call_or_typed_error(spec.fn, *arrays)
        if dtype.kind not in op.kinds:
            assert err is not None, "%s accepted %s (kinds %r)" % (name, dtype, op.kinds)
        elif err is None and dtype.kind in "iub":
            with np.errstate(all="ignore"):
                want = _as_list(spec.ref(*arrays))
            for g, w in zip(_as_list(got), want):
                w = np.asarray(w)
                if w.dtype == dtype:      # same-dtype integer results are exact
                    S.assert_matches(g, w, dtype, "%s %s" % (name, dtype))
                    assert g.dtype.as_numpy_dtype == dtype

    check()


@pytest.mark.parametrize("name", DIRECT)
def test_non_numeric_inputs_raise_typed_errors(name):
    from fasteager.ops.registry import STRING
    spec = SPECS[name]
    n_args = len(spec.cases[0])
    bads = [np.array([object(), None], dtype=object), None, [[1.0, 2.0], [3.0]], {"a": 1}]
    if STRING not in OPS[name].kinds:     # those take string tensors, as TensorFlow's do
        bads += [np.array(["a", "b"]), "text"]
    for bad in bads:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, err = S.call_or_typed_error(spec.fn, *([bad] * n_args))
        assert err is not None, "%s accepted %r" % (name, bad)


# ---- gradients -----------------------------------------------------------------------------

GRAD_SPECS = sorted(n for n, s in SPECS.items() if s.grad)


@pytest.mark.parametrize("name", GRAD_SPECS)
def test_gradients_have_the_input_shape_and_dtype_and_are_finite(name):
    spec = SPECS[name]

    @S.fuzz(8)
    @given(_case(name, dtypes=(np.float64,), special=False))
    def check(case):
        shapes, dtype, lay, seed, _ = case
        arrays, _ = _arrays(spec, shapes, dtype, lay, seed, 0.0)
        xs = [fe.constant(a) for a in arrays]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            with fe.GradientTape() as tape:
                tape.watch(xs)
                ys = _as_list(spec.fn(*xs))
                y = fe.add_n([fe.reduce_sum(v) for v in ys])
            grads = tape.gradient(y, xs, unconnected_gradients="zero")
        smooth = all(np.isfinite(np.asarray(v.numpy())).all() for v in ys)
        for x, g in zip(xs, grads):
            assert g.shape == x.shape and g.dtype == fe.float64, (name, shapes, g.shape, g.dtype)
            if smooth:
                assert np.isfinite(np.asarray(g.numpy())).all(), (name, shapes, g.numpy())

    check()


# ---- kernels and index-taking ops, in a child process ------------------------------------

def _f(rng):
    return rng.choice([np.float32, np.float64])


def _layout(rng, a):
    arr, _ = S.lay_out(a, rng.choice(S.LAYOUTS), bool(rng.integers(2)))
    return arr


def _conv_case(rng):
    n, h, w, c = rng.integers(0, 5), rng.integers(0, 7), rng.integers(0, 7), rng.integers(1, 4)
    kh, kw, o = rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 4)
    if rng.random() < 0.1:
        kh, kw = (0, kw) if rng.random() < 0.5 else (kh, 0)   # an empty window: rejected
    wc = c if rng.random() < 0.85 else c + 1          # sometimes a channel mismatch
    strides = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    dil = [1, 1] if rng.random() < 0.6 else [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
    if dil != [1, 1]:
        strides = [1, 1]                               # TensorFlow: not both on CPU
    pad = str(rng.choice(["SAME", "VALID"]))
    dt = _f(rng)
    x = _layout(rng, rng.standard_normal((n, h, w, c)).astype(dt))
    f = _layout(rng, rng.standard_normal((kh, kw, wc, o)).astype(dt))
    desc = "conv2d x%s w%s strides=%s dil=%s %s %s" % (x.shape, f.shape, strides, dil, pad,
                                                       dt.__name__)

    def run():
        y, err = S.call_or_typed_error(fe.nn.conv2d, x, f, strides, pad, dilations=dil)
        if wc != c or kh == 0 or kw == 0:
            assert err is not None, "channel mismatch or empty window accepted"
            return
        ke = [(kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1]
        if pad == "VALID" and (h < ke[0] or w < ke[1]):
            return      # an empty or rejected output: either is TensorFlow's
        assert err is None, S.describe_error(err)
        want = R.conv2d_ref(x.astype(np.float64), f.astype(np.float64), strides, pad, dil)
        S.assert_matches(y, want, dt, desc, rtol=1e-4)
        assert y.dtype.as_numpy_dtype == dt
        xt, ft = fe.constant(x), fe.constant(f)
        with fe.GradientTape() as tape:
            tape.watch([xt, ft])
            z = fe.reduce_sum(fe.nn.conv2d(xt, ft, strides, pad, dilations=dil))
        gx, gf = tape.gradient(z, [xt, ft])
        assert gx.shape == x.shape and gf.shape == f.shape
        assert np.isfinite(gx.numpy()).all() and np.isfinite(gf.numpy()).all()
    return desc, run


def _conv_transpose_case(rng):
    n, oh, ow, o = rng.integers(0, 3), rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 3)
    kh, kw, c = rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 3)
    s = int(rng.integers(1, 3))
    pad = str(rng.choice(["SAME", "VALID"]))
    dt = _f(rng)
    dy = _layout(rng, rng.standard_normal((n, oh, ow, o)).astype(dt))
    f = _layout(rng, rng.standard_normal((kh, kw, c, o)).astype(dt))
    out = [n, oh * s + int(rng.integers(-1, 3)), ow * s + int(rng.integers(-1, 3)), c]
    desc = "conv2d_transpose dy%s w%s out=%s s=%d %s" % (dy.shape, f.shape, out, s, pad)

    def run():
        y, err = S.call_or_typed_error(fe.nn.conv2d_transpose, dy, f, out, s, pad)
        if err is not None:
            return
        assert tuple(y.shape) == tuple(out)
        # consistent with conv2d: the output's conv2d has dy's shape
        assert R.conv2d_out_shape(tuple(out), f.shape, (s, s), pad, (1, 1)) == dy.shape
        want = R.conv2d_backprop_input_ref(dy.astype(np.float64), f.astype(np.float64),
                                           tuple(out), (s, s), pad)
        S.assert_matches(y, want, dt, desc, rtol=1e-4)
    return desc, run


def _pool_case(rng):
    n, h, w, c = rng.integers(0, 3), rng.integers(0, 7), rng.integers(0, 7), rng.integers(1, 3)
    k = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    s = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    pad = str(rng.choice(["SAME", "VALID"]))
    kind = str(rng.choice(["max", "avg"]))
    dt = _f(rng)
    base = rng.permutation(max(n * h * w * c, 1))[:n * h * w * c].reshape((n, h, w, c))
    x = _layout(rng, (base / 7).astype(dt))        # no ties: the max is unique
    fn = fe.nn.max_pool2d if kind == "max" else fe.nn.avg_pool2d
    ref = R.max_pool_ref if kind == "max" else R.avg_pool_ref
    desc = "%s_pool2d x%s k=%s s=%s %s %s" % (kind, x.shape, k, s, pad, dt.__name__)

    def run():
        y, err = S.call_or_typed_error(fn, x, k, s, pad)
        if pad == "VALID" and (h < k[0] or w < k[1]):
            return
        assert err is None, S.describe_error(err)
        S.assert_matches(y, ref(x.astype(np.float64), k, s, pad), dt, desc, rtol=1e-5)
        xt = fe.constant(x)
        with fe.GradientTape() as tape:
            tape.watch(xt)
            z = fe.reduce_sum(fn(xt, k, s, pad) ** 2)
        g = tape.gradient(z, xt)
        assert g.shape == x.shape and np.isfinite(g.numpy()).all()
    return desc, run


def _xent_case(rng):
    shape = tuple(int(d) for d in rng.integers(0, 4, size=rng.integers(1, 4)))
    dt = _f(rng)
    logits = rng.standard_normal(shape).astype(dt)
    if rng.random() < 0.3 and logits.size:
        logits.reshape(-1)[rng.integers(logits.size)] = rng.choice([np.inf, -np.inf, np.nan])
    logits = _layout(rng, logits)
    classes = shape[-1]
    labels = rng.integers(-1, classes + 2, size=shape[:-1]).astype(
        rng.choice([np.int32, np.int64]))
    out_of_range = labels.size and (labels.min() < 0 or labels.max() >= classes)
    dense = _layout(rng, rng.random(shape).astype(dt))
    desc = "xent logits%s labels=%s %s" % (shape, labels.tolist(), dt.__name__)

    def run():
        y, err = S.call_or_typed_error(fe.nn.sparse_softmax_cross_entropy_with_logits,
                                       labels=labels, logits=logits)
        if out_of_range or classes == 0:
            # TensorFlow: "Must have at least one class", labels must lie in [0, classes)
            assert err is not None, "labels outside [0, %d) accepted" % classes
            return
        assert err is None, S.describe_error(err)
        if np.isfinite(logits).all():
            S.assert_matches(y, R.sparse_xent_ref(labels, logits), dt, desc, rtol=1e-5)
        y, err = S.call_or_typed_error(fe.nn.softmax_cross_entropy_with_logits,
                                       labels=dense, logits=logits)
        assert err is None, S.describe_error(err)
        if np.isfinite(logits).all():
            want = -(dense * R.log_softmax_ref(logits.astype(np.float64))).sum(-1)
            S.assert_matches(y, want, dt, desc, rtol=1e-5)
        for fn, ref in ((fe.nn.softmax, R.softmax_ref), (fe.nn.log_softmax, R.log_softmax_ref)):
            y, err = S.call_or_typed_error(fn, logits)
            assert err is None, S.describe_error(err)
            if np.isfinite(logits).all():
                S.assert_matches(y, ref(logits.astype(np.float64)), dt, desc, rtol=1e-5)
    return desc, run


def _index_case(rng):
    shape = tuple(int(d) for d in rng.integers(0, 4, size=rng.integers(1, 4)))
    x = _layout(rng, rng.standard_normal(shape).astype(_f(rng)))
    axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
    n = shape[axis] if -len(shape) <= axis < len(shape) else 0
    idx = rng.integers(-2, n + 3, size=tuple(rng.integers(0, 3, size=rng.integers(0, 3))))
    idx = idx.astype(rng.choice([np.int32, np.int64]))
    which = str(rng.choice(["gather", "gather_nd", "scatter_nd", "one_hot", "segment_sum",
                            "unsorted_segment_sum"]))
    desc = "%s x%s axis=%d indices=%s" % (which, shape, axis, idx.tolist())

    def run():
        ok_axis = -len(shape) <= axis < len(shape)
        in_range = idx.size == 0 or (idx.min() >= 0 and idx.max() < n)
        if which == "gather":
            y, err = S.call_or_typed_error(fe.gather, x, idx, axis=axis)
            if not (ok_axis and in_range):
                assert err is not None, "accepted"
                return
            assert err is None, S.describe_error(err)
            S.assert_matches(y, np.take(x, idx, axis=axis), x.dtype, desc)
        elif which == "gather_nd":
            nd = idx.reshape(idx.shape + (1,)) if idx.ndim < 2 else idx
            y, err = S.call_or_typed_error(fe.gather_nd, x, nd)
            rows_ok = nd.shape[-1] <= x.ndim and all(
                (nd[..., j] >= 0).all() and (nd[..., j] < shape[j]).all()
                for j in range(min(nd.shape[-1], x.ndim)))
            if not rows_ok:
                assert err is not None, "accepted"
                return
            assert err is None, S.describe_error(err)
            want = x[tuple(np.moveaxis(nd, -1, 0))]
            S.assert_matches(y, want, x.dtype, desc)
        elif which == "scatter_nd":
            nd = idx.reshape(idx.shape + (1,))
            upd = np.ones(idx.shape + shape[1:], x.dtype)
            y, err = S.call_or_typed_error(fe.scatter_nd, nd, upd, shape)
            if not (idx.size == 0 or (idx.min() >= 0 and idx.max() < shape[0])):
                assert err is not None, "accepted"
                return
            assert err is None, S.describe_error(err)
            want = np.zeros(shape, x.dtype)
            np.add.at(want, idx.reshape(-1), 1)
            S.assert_matches(y, want, x.dtype, desc)
        elif which == "one_hot":
            depth = int(rng.integers(-1, 4))
            y, err = S.call_or_typed_error(fe.one_hot, idx, depth)
            if depth < 0:
                assert err is not None, "negative depth accepted"
                return
            assert err is None, S.describe_error(err)
            want = (idx[..., None] == np.arange(depth)).astype(np.float32)
            S.assert_matches(y, want, np.float32, desc)
        else:
            ids = idx.reshape(-1)[:shape[0]] if idx.size else idx.reshape(-1)
            data = x[:len(ids)] if len(ids) <= shape[0] else x
            if which == "segment_sum":
                ids = np.sort(ids)
                y, err = S.call_or_typed_error(fe.math.segment_sum, data, ids)
                bad = ids.size != data.shape[0] or (ids.size and ids.min() < 0)
                num = int(ids.max()) + 1 if ids.size else 0
            else:
                num = int(rng.integers(0, 4))
                y, err = S.call_or_typed_error(fe.math.unsorted_segment_sum, data, ids, num)
                bad = ids.size != data.shape[0] or (ids.size and ids.max() >= num)
            if bad:
                if ids.size == data.shape[0] and which == "unsorted_segment_sum":
                    # negative ids are dropped, as TensorFlow does; too large ones raise
                    assert err is not None, "accepted"
                return
            assert err is None, S.describe_error(err)
            want = np.zeros((num,) + data.shape[1:], data.dtype)
            keep = ids >= 0
            np.add.at(want, ids[keep], data[keep])
            S.assert_matches(y, want, data.dtype, desc)
    return desc, run


def _svd_nonfinite_case(rng):
    shape = tuple(int(d) for d in rng.integers(1, 4, size=rng.integers(2, 4)))
    a = rng.standard_normal(shape).astype(_f(rng))
    flat = a.reshape(-1)
    flat[rng.integers(a.size, size=rng.integers(1, 3))] = rng.choice([np.inf, -np.inf, np.nan])
    a = _layout(rng, a)
    uv = bool(rng.integers(2))
    desc = "svd a%s with %s compute_uv=%s" % (shape, a.ravel().tolist(), uv)

    def run():
        bad = ~np.isfinite(a).all(axis=(-2, -1))
        out = _as_list(fe.linalg.svd(a, compute_uv=uv))
        for o in out:
            v = o.numpy()
            # the matrices holding Inf/NaN give NaN factors (TensorFlow's result)
            assert np.isnan(v[bad]).all(), (desc, v)
            assert np.isfinite(v[~bad]).all(), (desc, v)
        # pinv runs gesdd too: the same rule (this case loops forever without it)
        p = fe.linalg.pinv(a).numpy()
        assert np.isnan(p[bad]).all() and np.isfinite(p[~bad]).all(), (desc, p)
    return desc, run


def _odd_array(rng, ndim=None):
    """An array of a random rank, dims 0..4, dtype (float or not) and layout."""
    ndim = int(rng.integers(0, 6)) if ndim is None else ndim
    shape = tuple(int(d) for d in rng.integers(0, 5, size=ndim))
    dt = rng.choice([np.float32, np.float64, np.float32, np.float64, np.float16, np.int32])
    return _layout(rng, rng.standard_normal(shape).astype(dt))


def _odd_pair(rng):
    return [1, 2, (1, 2), (2, 1), 0, -1, (1,), (1, 2, 3), "a", None, 2**40][rng.integers(11)]


def _kernels_direct_case(rng):
    """The ``_kernels`` entry points called directly with odd ranks, dims, dtypes, layouts,
    strides, paddings, shapes and indices: a ValueError (their documented error) or a
    result, never a crash."""
    from fasteager import _kernels as K
    pad = ["SAME", "VALID", "same", "x", None, 3][rng.integers(6)]
    a4 = [_odd_array(rng, 4 if rng.random() < 0.8 else None) for _ in range(3)]
    shape4 = tuple(int(d) for d in rng.integers(-1, 6, size=4 if rng.random() < 0.9 else 3))
    idx = rng.integers(-3, 40, size=a4[1].shape).astype(
        np.int64 if rng.random() < 0.9 else np.int32)
    labels = rng.integers(-1, 5, size=a4[0].shape[:1]).astype(np.int64)
    calls = [
        ("conv2d_forward", K.conv2d_forward, (a4[0], a4[1], _odd_pair(rng), pad, _odd_pair(rng))),
        ("conv2d_backward_input", K.conv2d_backward_input,
         (a4[0], a4[1], shape4, _odd_pair(rng), pad, _odd_pair(rng))),
        ("conv2d_backward_filter", K.conv2d_backward_filter,
         (a4[0], a4[1], shape4, _odd_pair(rng), pad, _odd_pair(rng))),
        ("max_pool2d_forward", K.max_pool2d_forward, (a4[0], _odd_pair(rng), _odd_pair(rng), pad)),
        ("max_pool2d_backward", K.max_pool2d_backward, (a4[1], idx, shape4)),
        ("avg_pool2d_forward", K.avg_pool2d_forward, (a4[0], _odd_pair(rng), _odd_pair(rng), pad)),
        ("avg_pool2d_backward", K.avg_pool2d_backward,
         (a4[1], shape4, _odd_pair(rng), _odd_pair(rng), pad)),
        ("softmax", K.softmax, (a4[2],)), ("log_softmax", K.log_softmax, (a4[2],)),
        ("sparse_softmax_xent", K.sparse_softmax_xent,
         (a4[0][:, :, 0, 0] if a4[0].ndim == 4 and a4[0].size else a4[0], labels)),
        ("softmax_xent", K.softmax_xent, (a4[0], a4[1])),
        ("sgd_update", K.sgd_update, (a4[0], a4[1], 0.1, float(rng.choice([0.0, 0.9])), True,
                                      a4[2])),
        ("adagrad_update", K.adagrad_update, (a4[0], a4[1], a4[2], 0.1)),
    ]
    name, fn, args = calls[rng.integers(len(calls))]
    desc = "_kernels.%s(%s)" % (name, ", ".join(
        "%s%s%s" % (a.dtype, list(a.shape), "" if a.flags.c_contiguous else " strided")
        if isinstance(a, np.ndarray) else repr(a) for a in args))

    def run():
        try:
            fn(*args)
        except ValueError:      # the kernels' documented error (ops turn it into a typed one)
            pass
    return desc, run


CHILD_TARGETS = {"svd_nonfinite": _svd_nonfinite_case, "kernels_direct": _kernels_direct_case, "conv2d": _conv_case,
                 "conv2d_transpose": _conv_transpose_case,
                 "pooling": _pool_case, "softmax_xent": _xent_case,
                 "indexing": _index_case}


@pytest.mark.parametrize("target", sorted(CHILD_TARGETS))
def test_kernels_in_a_child_process(target):
    S.run_in_child(__name__, target, seed=1234, n=S.examples(60))


# the harness itself: a child that crashes fails the test and names the case it died on
HARNESS_TARGETS = {"abort": lambda rng: ("os.abort()", os.abort)}


def test_a_crash_in_the_child_fails_and_names_its_case():
    with pytest.raises(AssertionError, match=r"child died with code -?\d+ on CASE 0: os.abort"):
        S.run_in_child(__name__, "abort", seed=0, n=1)
