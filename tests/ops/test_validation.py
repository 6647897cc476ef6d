"""Public op entries: only documented arguments, typed errors for bad ones, empty inputs
that allocate nothing, out-of-memory as ResourceExhaustedError."""
import inspect

import numpy as np
import pytest

import fasteager as fe
from fasteager.ops.registry import OPS


# ---- argument whitelists (item 7) -----------------------------------------------------------

def _dummy_inputs(op):
    n = 2 if op.nin < 0 else op.nin
    return [fe.constant([1.0, 2.0]) for _ in range(n)]


NUMPY_KEYWORDS = {"where": np.array([True, False]), "out": np.zeros(2, np.float32),
                  "dtype": np.float16, "not_an_argument": 1}


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("keyword", sorted(NUMPY_KEYWORDS))
def test_every_op_rejects_undeclared_keywords(name, keyword):
    op = OPS[name]
    if keyword in op.attrs:
        pytest.skip("%s is a declared attribute of %s" % (keyword, name))
    with pytest.raises(TypeError, match=r"^%s: unexpected keyword argument '%s'"
                       % (name, keyword)):
        op(*_dummy_inputs(op), **{keyword: NUMPY_KEYWORDS[keyword]})


def test_declared_attributes_are_named_parameters_of_the_forward():
    # nothing from NumPy's own keyword set slipped into an op's attrs
    for name, op in OPS.items():
        assert not op.attrs & {"out", "where", "casting", "order", "subok", "signature"}, name


def test_where_out_dtype_do_not_reach_the_ufunc():
    x = fe.constant([1.0, 2.0])
    buf = np.zeros(2, np.float32)
    with pytest.raises(TypeError, match="add: unexpected keyword argument 'where'"):
        fe.add(x, x, where=np.array([True, False]))
    with pytest.raises(TypeError, match="add: unexpected keyword argument 'out'"):
        fe.add(x, 1.0, out=buf)
    assert not buf.any()
    with pytest.raises(TypeError, match="exp: unexpected keyword argument 'dtype'"):
        fe.exp(x, dtype=np.float16)
    with pytest.raises(TypeError, match="round: unexpected keyword argument 'decimals'"):
        fe.round(x, decimals=2)


def test_a_third_positional_tensor_is_not_an_output_buffer():
    # np.add(a, b, c) writes into c: a tensor must never be written
    a = fe.constant([1.0, 2.0])
    buf = fe.constant([0.0, 0.0])
    with pytest.raises(TypeError, match=r"add: wrong number of tensor arguments \(expected 2, "
                                        r"got 3\)"):
        fe.add(a, 1.0, buf)
    np.testing.assert_array_equal(buf.numpy(), [0.0, 0.0])
    with pytest.raises(TypeError, match="exp: wrong number"):
        fe.exp(a, a)


def test_name_is_accepted_and_ignored():
    a = fe.constant([1.0, 2.0])
    np.testing.assert_array_equal(fe.add(a, a, name="sum").numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(fe.nn.relu(a, name="r").numpy(), [1.0, 2.0])


def _public_functions():
    for mod in (fe, fe.math, fe.nn, fe.linalg):
        for k in dir(mod):
            v = getattr(mod, k)
            if inspect.isfunction(v) and (v.__module__ or "").startswith("fasteager.ops"):
                yield "%s.%s" % (mod.__name__, k), v


def test_public_wrappers_take_no_arbitrary_keywords():
    for qualname, fn in _public_functions():
        params = inspect.signature(fn).parameters.values()
        if any(p.kind == p.VAR_KEYWORD for p in params):
            with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
                fn("i->i", fe.ones(2), out=np.zeros(2))
            assert qualname.endswith("einsum"), qualname


def test_einsum_takes_tensorflows_optimize_keyword():
    np.testing.assert_array_equal(fe.einsum("i->i", fe.ones(2), optimize="greedy").numpy(),
                                  [1.0, 1.0])


def test_defop_refuses_an_ambiguous_forward():
    from fasteager.ops.registry import defop
    try:
        with pytest.raises(ValueError, match="declare nin="):
            defop("_test_ambiguous", lambda x, k: x, no_grad="test")
        with pytest.raises(ValueError, match="declare attrs="):
            defop("_test_kwargs", lambda x, **kw: x, grads=[None])
    finally:
        leaked = [OPS.pop(n, None) for n in ("_test_ambiguous", "_test_kwargs")]
    assert leaked == [None, None]


# ---- axis validation: typed errors instead of IndexError (item 10) -------------------------

SCALAR = fe.constant(1.0)


@pytest.mark.parametrize("call", [
    lambda: fe.squeeze(SCALAR, axis=0),
    lambda: fe.split(SCALAR, 1, axis=0),
    lambda: fe.reduce_sum(SCALAR, axis=0),
    lambda: fe.reduce_sum(SCALAR, axis=-1),
    lambda: fe.argmax(SCALAR),
    lambda: fe.reverse(SCALAR, [0]),
    lambda: fe.tensordot(SCALAR, SCALAR, [[0], [0]]),
    lambda: fe.tensordot(fe.ones(3), SCALAR, [[0], [0]]),
    lambda: fe.tensordot(fe.ones(3), fe.ones(3), [[3], [0]]),
    lambda: fe.squeeze(fe.ones((1, 2)), axis=-3),
    lambda: fe.unstack(fe.ones((2, 2)), axis=-3),
    lambda: fe.boolean_mask(fe.ones((2, 3)), [True, False, True], axis=-5),
    lambda: fe.boolean_mask(fe.ones((2, 3)), [True, False, True], axis=2),
])
def test_axis_out_of_range_is_invalid_argument(call):
    with pytest.raises(fe.errors.InvalidArgumentError, match="out of range"):
        call()


def test_reductions_over_no_axes_of_a_scalar_still_work():
    assert float(fe.reduce_sum(SCALAR, axis=[])) == 1.0
    assert float(fe.reduce_sum(SCALAR)) == 1.0


@pytest.mark.parametrize("perm", [[1, 2], [0, 0], [1], [0, 1, 2], [-3, 0]])
def test_transpose_rejects_a_perm_that_is_not_a_permutation(perm):
    with pytest.raises(fe.errors.InvalidArgumentError, match="transpose: perm"):
        fe.transpose(fe.ones((2, 3)), perm)


def test_transpose_accepts_negative_axes():
    assert fe.transpose(fe.ones((2, 3)), [-1, 0]).shape == (3, 2)


# ---- empty inputs allocate nothing; out of memory is ResourceExhaustedError (item 8) -------

def _peak_bytes(fn):
    import tracemalloc
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_conv2d_of_an_empty_batch_allocates_no_im2col_buffer():
    # one image's im2col buffer would be 4096*4096 rows of 3*3*64 floats: 36 GiB
    x, w = fe.zeros([0, 4096, 4096, 64]), fe.zeros([3, 3, 64, 8])

    def run():
        with fe.GradientTape() as tape:
            tape.watch([x, w])
            y = fe.nn.conv2d(x, w, 1, "SAME")
        return (y,) + tuple(tape.gradient(y, [x, w]))
    (y, dx, dw), peak = _peak_bytes(run)
    assert y.shape == (0, 4096, 4096, 8) and dx.shape == x.shape and dw.shape == w.shape
    assert not dw.numpy().any()
    assert peak < 16 << 20, peak


@pytest.mark.parametrize("call", [
    lambda: fe.nn.conv2d_transpose(fe.zeros([0, 2048, 2048, 8]), fe.zeros([3, 3, 64, 8]),
                                   [0, 2048, 2048, 64], 1, "SAME"),
    lambda: fe.nn.depthwise_conv2d(fe.zeros([0, 2048, 2048, 16]), fe.zeros([3, 3, 16, 2]),
                                   [1, 1, 1, 1], "SAME"),
    lambda: fe.nn.conv1d(fe.zeros([0, 1 << 22, 64]), fe.zeros([9, 64, 8]), 1, "SAME"),
    lambda: fe.nn.max_pool2d(fe.zeros([0, 4096, 4096, 64]), 3, 1, "SAME"),
    lambda: fe.nn.avg_pool2d(fe.zeros([0, 4096, 4096, 64]), 3, 1, "SAME"),
])
def test_other_conv_and_pool_paths_on_empty_batches(call):
    y, peak = _peak_bytes(call)
    assert y.shape[0] == 0
    assert peak < 16 << 20, peak


def test_one_hot_of_no_indices_allocates_nothing_for_the_depth():
    y, peak = _peak_bytes(lambda: fe.one_hot(fe.zeros([0, 3], fe.int32), 1 << 31, axis=1))
    assert y.shape == (0, 1 << 31, 3) and y.dtype == fe.float32
    assert peak < 1 << 20, peak


def test_conv2d_transpose_rejects_negative_output_shapes():
    with pytest.raises(fe.errors.InvalidArgumentError, match="conv2d_transpose: output_shape"):
        fe.nn.conv2d_transpose(fe.ones([1, 4, 4, 3]), fe.ones([2, 2, 2, 3]), [1, -4, 4, 2], 1)


def test_conv2d_rejects_an_empty_filter_window():
    for w_shape in ([0, 3, 1, 1], [3, 0, 1, 1]):
        with pytest.raises(fe.errors.InvalidArgumentError, match="conv2d: the filter window"):
            fe.nn.conv2d(fe.ones([1, 5, 5, 1]), fe.zeros(w_shape), 1, "VALID")


def test_memory_error_in_a_forward_kernel_is_resource_exhausted(monkeypatch):
    from fasteager.ops import conv_ops

    def no_memory(*args):
        np.empty((1 << 50,), np.float32)   # NumPy's MemoryError, with its size
    monkeypatch.setattr(conv_ops._kernels, "conv2d_forward", no_memory)
    with pytest.raises(fe.errors.ResourceExhaustedError,
                       match=r"conv2d: out of memory \(tried to allocate 4096.0 TiB for an "
                             r"array of shape \[1125899906842624\] \(float32\); inputs: "):
        fe.nn.conv2d(fe.ones([1, 5, 5, 1]), fe.ones([3, 3, 1, 1]), 1, "VALID")


def test_memory_error_in_a_backward_kernel_is_resource_exhausted(monkeypatch):
    from fasteager.ops import conv_ops

    def no_memory(*args):
        raise MemoryError()
    x, w = fe.ones([1, 5, 5, 1]), fe.ones([3, 3, 1, 1])
    with fe.GradientTape() as tape:
        tape.watch(w)
        y = fe.nn.conv2d(x, w, 1, "VALID")
    monkeypatch.setattr(conv_ops._kernels, "conv2d_backward_filter", no_memory)
    with pytest.raises(fe.errors.ResourceExhaustedError,
                       match=r"conv2d_backprop_filter: out of memory \(an allocation failed"):
        tape.gradient(y, w)


def test_memory_error_in_a_vjp_itself_is_resource_exhausted(monkeypatch):
    from fasteager.ops import elementwise_ops

    def no_memory(g):
        raise MemoryError()
    x = fe.constant([1.0, 3.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.maximum(x, 2.0)
    monkeypatch.setattr(elementwise_ops, "_zeros", no_memory)
    with pytest.raises(fe.errors.ResourceExhaustedError, match="gradient of maximum: out of"):
        tape.gradient(y, x)


@pytest.mark.parametrize("call,opname", [
    (lambda: fe.zeros([1 << 25, 1 << 25]), "zeros"),
    (lambda: fe.ones([1 << 25, 1 << 25]), "ones"),
    (lambda: fe.fill([1 << 25, 1 << 25], 1.0), "fill"),
    (lambda: fe.eye(1 << 25), "eye"),
    (lambda: fe.constant(1.0, shape=[1 << 25, 1 << 25]), "constant"),
    (lambda: fe.add(fe.zeros([1 << 24, 1]), fe.zeros([1 << 24])), "add"),
])
def test_huge_allocations_are_resource_exhausted(call, opname):
    with pytest.raises(fe.errors.ResourceExhaustedError,
                       match=r"^%s: out of memory \(tried to allocate [0-9.]+ TiB for an array "
                             r"of shape \[" % opname):
        call()


@pytest.mark.parametrize("call", [lambda: fe.zeros([-1]), lambda: fe.ones([2, -3]),
                                  lambda: fe.fill([-2], 1.0), lambda: fe.eye(-2),
                                  lambda: fe.constant(1.0, shape=[-1])])
def test_negative_creation_shapes_are_invalid_argument(call):
    with pytest.raises(fe.errors.InvalidArgumentError, match="negative dimensions"):
        call()


# ---- scatter_nd with empty index rows; erf and gelu in float16 (item 11) -------------------

def test_scatter_nd_empty_index_rows_sum_into_the_whole_tensor():
    u = fe.constant(np.arange(6.0).reshape(3, 2))
    got = fe.scatter_nd(np.zeros((3, 0), np.int32), u, [2])
    np.testing.assert_array_equal(got.numpy(), [6.0, 9.0])
    got = fe.scatter_nd(np.zeros((2, 2, 0), np.int64), fe.ones((2, 2, 2, 3)), [2, 3])
    np.testing.assert_array_equal(got.numpy(), np.full((2, 3), 4.0))
    got = fe.scatter_nd(np.zeros((0,), np.int32), fe.constant([1.0, 2.0]), [2])
    np.testing.assert_array_equal(got.numpy(), [1.0, 2.0])
    w = fe.constant([1.0, 5.0], dtype=fe.float64)
    with fe.GradientTape() as tape:
        tape.watch(u)
        y = fe.scatter_nd(np.zeros((3, 0), np.int32), u, [2]) * w
    np.testing.assert_array_equal(tape.gradient(y, u).numpy(), [[1.0, 5.0]] * 3)


def _erf(x):
    import math
    return np.vectorize(math.erf)(x)


HALF_CASES = np.array([-3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 60.0], np.float16)


@pytest.mark.parametrize("fn,ref,dref", [
    (fe.math.erf, _erf, lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x)),
    (fe.nn.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
     lambda x: 0.5 * (1 + _erf(x / np.sqrt(2))) + x * np.exp(-x * x / 2) / np.sqrt(2 * np.pi)),
    (lambda x: fe.nn.gelu(x, approximate=True), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
     None),
])
def test_erf_and_gelu_in_float16(fn, ref, dref):
    x = fe.constant(HALF_CASES)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    g = tape.gradient(y, x)
    assert y.dtype == fe.float16 and g.dtype == fe.float16
    xs = HALF_CASES.astype(np.float64)
    np.testing.assert_allclose(y.numpy(), ref(xs), rtol=2e-3, atol=2e-3)
    if dref is not None:
        np.testing.assert_allclose(g.numpy(), dref(xs), rtol=2e-3, atol=2e-3)
    else:
        assert np.isfinite(g.numpy()).all()
