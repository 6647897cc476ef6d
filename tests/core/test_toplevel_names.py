"""TensorFlow's smaller top-level names (predicates, graph-era names, shape helpers,
arithmetic variants, numpy_function, the functional control flow, the sequence ops).
Expected values were read from TensorFlow 2.21 itself."""
import warnings

import numpy as np
import pytest

import fasteager as fe
from fasteager.errors import InvalidArgumentError
from tests.gradcheck import check_grads


def _np(t):
    return t.numpy().tolist()


# ---- predicates and graph-era names --------------------------------------------------------

def test_is_tensor():
    assert fe.is_tensor(fe.constant(1.0)) and fe.is_tensor(fe.Variable(1.0))
    assert fe.is_tensor(fe.ragged.constant([[1], [2, 3]]))
    assert not fe.is_tensor(np.ones(2)) and not fe.is_tensor(3)


def test_static_value_and_symbolic_tensors():
    seen = []

    @fe.function
    def f(x):
        c = fe.constant([1.0, 2.0])
        seen.append((fe.get_static_value(x), fe.get_static_value(c * 2),
                     fe.is_symbolic_tensor(x), fe.is_symbolic_tensor(x * 2),
                     fe.inside_function()))
        return x
    f(fe.constant(1.0))
    x_value, c_value, x_sym, x2_sym, inside = seen[0]
    assert x_value is None and c_value.tolist() == [2.0, 4.0]
    assert x_sym and x2_sym and inside
    assert not fe.inside_function() and not fe.is_symbolic_tensor(fe.constant(1.0))
    assert fe.get_static_value(fe.constant([1, 2])).tolist() == [1, 2]
    assert fe.get_static_value(fe.Variable(1.0)) is None
    assert fe.get_static_value([1, 2]) == [1, 2]


def test_ensure_shape():
    assert _np(fe.ensure_shape(fe.constant([1, 2, 3]), [None])) == [1, 2, 3]
    with pytest.raises(InvalidArgumentError, match=r"\[3\] is not compatible with expected "
                                                   r"shape \[4\]"):
        fe.ensure_shape(fe.constant([1, 2, 3]), [4])
    with pytest.raises(ValueError):      # InvalidArgumentError is a ValueError
        fe.ensure_shape(fe.constant([1, 2, 3]), [3, 1])


def test_name_scope_group_no_op_tuple_identity_n():
    assert fe.get_current_name_scope() == ""
    with fe.name_scope("a"), fe.name_scope("b"):
        assert fe.get_current_name_scope() == "a/b"
    assert fe.group(fe.constant(1)) is None and fe.no_op() is None
    out = fe.tuple([fe.constant(1), None, fe.constant(2.0)])
    assert out[1] is None and _np(out[0]) == 1 and out[2].dtype == fe.float32
    ids = fe.identity_n([1, 2.0])
    assert [t.dtype for t in ids] == [fe.int32, fe.float32]


def test_control_dependencies_runs_callables():
    calls = []
    with fe.control_dependencies([lambda: calls.append(1), fe.constant(1)]):
        y = fe.constant(2) + 1
    assert calls == [1] and _np(y) == 3
    with pytest.raises(TypeError), fe.control_dependencies(fe.constant(1)):
        pass


def test_gradients_and_hessians_raise_as_in_eager_tensorflow():
    for fn in (fe.gradients, fe.hessians):
        with pytest.raises(RuntimeError, match="Use tf.GradientTape instead"):
            fn(fe.constant(1.0), fe.constant(2.0))


# ---- shapes ---------------------------------------------------------------------------------

def test_shape_n_and_broadcast_shapes():
    shapes = fe.shape_n([fe.ones((2, 3)), fe.ones(4)], out_type=fe.int64)
    assert [_np(s) for s in shapes] == [[2, 3], [4]] and shapes[0].dtype == fe.int64
    d = fe.broadcast_dynamic_shape([2, 1, 3], [4, 1])
    assert _np(d) == [2, 4, 3] and d.dtype == fe.int32
    d64 = fe.broadcast_dynamic_shape(fe.constant([2, 1], fe.int64), fe.constant([4, 1, 1],
                                                                                 fe.int64))
    assert _np(d64) == [4, 2, 1] and d64.dtype == fe.int64
    with pytest.raises(InvalidArgumentError, match=r"\[2,3\] vs. \[4\]"):
        fe.broadcast_dynamic_shape([2, 3], [4])
    s = fe.broadcast_static_shape(fe.TensorShape([2, 1]), fe.TensorShape([None, 4]))
    assert s.as_list() == [2, 4]
    assert fe.broadcast_static_shape(fe.TensorShape([None]), fe.TensorShape([1])).as_list() \
        == [None]
    with pytest.raises(ValueError, match="Incompatible|incompatible"):
        fe.broadcast_static_shape(fe.TensorShape([2, 3]), fe.TensorShape([4]))


# ---- arithmetic -----------------------------------------------------------------------------

def test_truncating_division():
    a, b = fe.constant([7, -7, 7, -7]), fe.constant([2, 2, -2, -2])
    assert _np(fe.truncatediv(a, b)) == [3, -3, -3, 3]
    assert _np(fe.truncatemod(a, b)) == [1, -1, 1, -1]
    assert _np(fe.truncatediv(fe.constant([7.0, -7.0]), 2.0)) == [3.0, -3.0]
    assert _np(fe.truncatemod(fe.constant([7.5, -7.5]), 2.0)) == [1.5, -1.5]
    with pytest.raises(InvalidArgumentError, match="division by zero"):
        fe.truncatediv(fe.constant([7]), fe.constant([0]))
    assert _np(fe.realdiv(fe.constant([7.0, -7.0]), 2.0)) == [3.5, -3.5]
    with pytest.raises(InvalidArgumentError, match="realdiv"):
        fe.realdiv(fe.constant([7]), fe.constant([2]))
    check_grads(lambda x, y: fe.truncatemod(x, y), [[7.5, -7.3, 2.2], [2.0, 2.5, -1.5]])


def test_scalar_mul():
    assert _np(fe.scalar_mul(2, fe.constant([1.0, 2.0]))) == [2.0, 4.0]
    with pytest.raises(ValueError, match="0-D"):
        fe.scalar_mul(fe.constant([2.0, 3.0]), fe.constant([1.0, 2.0]))


def test_saturate_cast():
    x = fe.saturate_cast(fe.constant([-300.0, 5.7, 300.0, np.nan]), fe.uint8)
    assert x.dtype == fe.uint8 and _np(x) == [0, 5, 255, 0]
    assert _np(fe.saturate_cast(fe.constant([-300, 5, 300]), fe.int8)) == [-128, 5, 127]
    assert _np(fe.saturate_cast(fe.constant([3e9, -3e9, 5.0]), fe.int32)) == \
        [2147483520, -2147483648, 5]
    big = fe.saturate_cast(fe.constant([1e300, -1e300], fe.float64), fe.float32)
    assert _np(big) == [float(np.finfo(np.float32).max), float(np.finfo(np.float32).min)]
    assert _np(fe.saturate_cast(fe.constant([200, 5], fe.uint8), fe.int8)) == [127, 5]


def test_clip_by_global_norm():
    clipped, norm = fe.clip_by_global_norm([fe.constant([3.0, 4.0]), None,
                                            fe.constant([[12.0]])], 6.5)
    assert float(norm) == 13.0 and clipped[1] is None
    assert _np(clipped[0]) == [1.5, 2.0] and _np(clipped[2]) == [[6.0]]
    same, _ = fe.clip_by_global_norm([fe.constant([0.3, 0.4])], 1.0)
    np.testing.assert_allclose(same[0].numpy(), [0.3, 0.4], rtol=1e-6)
    nan, norm = fe.clip_by_global_norm([fe.constant([np.inf, 4.0])], 1.0)
    assert np.isinf(norm.numpy()) and np.isnan(nan[0].numpy()).all()
    with pytest.raises(TypeError, match="sequence"):
        fe.clip_by_global_norm(fe.constant([3.0, 4.0]), 1.0)
    check_grads(lambda a, b: fe.clip_by_global_norm([a, b], 1.0)[0],
                [[3.0, 4.0], [[1.0, -2.0]]])


def test_as_string_is_strings_as_string():
    assert fe.as_string(fe.constant([1, 2])).numpy().tolist() == [b"1", b"2"]


def test_timestamp():
    t = fe.timestamp()
    assert t.dtype == fe.float64 and t.shape == () and float(t) > 1.5e9


def test_fingerprint_is_farmhash64_as_tensorflow():
    fp = fe.fingerprint(fe.constant([[1, 2], [3, 4]], fe.int32))
    assert fp.dtype == fe.uint8 and _np(fp) == [[76, 18, 253, 133, 168, 204, 240, 10],
                                                [254, 162, 60, 240, 103, 244, 53, 255]]
    assert _np(fe.fingerprint(fe.constant(["hello", "world"]))) == [
        [232, 12, 56, 49, 169, 229, 139, 180], [110, 180, 184, 94, 67, 84, 26, 228]]
    assert _np(fe.fingerprint(fe.constant([[b"ab", b"c"]]))) == [
        [65, 83, 39, 149, 164, 245, 170, 22]]
    with pytest.raises(InvalidArgumentError, match="at least one dimension"):
        fe.fingerprint(fe.constant(1))


# ---- numpy_function -------------------------------------------------------------------------

def test_numpy_function():
    kinds = []

    def double(a):
        kinds.append(type(a))
        return a * 2
    y = fe.numpy_function(double, [fe.constant([1.0, 2.0])], fe.float32)
    assert _np(y) == [2.0, 4.0] and kinds == [np.ndarray]
    pair = fe.numpy_function(lambda a: (a, a + 1), [fe.constant([1.0])], [fe.float32, fe.float32])
    assert [_np(p) for p in pair] == [[1.0], [2.0]]
    x = fe.constant(2.0)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.numpy_function(lambda a: a * 2, [x], fe.float32)
    assert tape.gradient(y, x) is None

    @fe.function
    def f(v):
        return fe.numpy_function(np.sort, [v], fe.float32)
    assert _np(f(fe.constant([3.0, 1.0, 2.0]))) == [1.0, 2.0, 3.0]
    assert _np(f(fe.constant([9.0, 7.0, 8.0]))) == [7.0, 8.0, 9.0]

    @fe.function
    def wrong(v):
        return fe.numpy_function(lambda a: a.astype(np.float64), [v], fe.float32)
    with pytest.raises(InvalidArgumentError, match="float64, but expects float32"):
        wrong(fe.constant([1.0]))


# ---- enums and types ------------------------------------------------------------------------

def test_enums_and_type_spec():
    assert [a.value for a in fe.VariableAggregation] == [0, 1, 2, 3]
    assert fe.VariableAggregation.MEAN.name == "MEAN"
    assert [s.name for s in fe.VariableSynchronization] == ["AUTO", "NONE", "ON_WRITE",
                                                             "ON_READ"]
    assert fe.AggregationMethod.DEFAULT == fe.AggregationMethod.ADD_N == 0
    assert isinstance(fe.TensorSpec([2]), fe.TypeSpec)
    assert issubclass(fe.RaggedTensorSpec, fe.TypeSpec)
    assert not isinstance(fe.constant(1), fe.TypeSpec)

    class Point(fe.experimental.ExtensionType):
        x: fe.Tensor
    assert isinstance(fe.type_spec_from_value(Point(fe.constant(1.0))), fe.TypeSpec)

    class MySpec(fe.TypeSpec):
        pass
    assert isinstance(MySpec(), fe.TypeSpec) and issubclass(MySpec, fe.TypeSpec)


def test_indexed_slices():
    s = fe.IndexedSlices(fe.constant([[1.0, 2.0]]), fe.constant([1]), fe.constant([3, 2]))
    assert _np(fe.convert_to_tensor(s)) == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
    assert s.shape.as_list() == [3, 2] and s.dtype == fe.float32
    check_grads(lambda v: fe.IndexedSlices(v, fe.constant([2, 0]), fe.constant([3, 2]))
                .to_dense(), [[[1.0, 2.0], [3.0, 4.0]]])


# ---- initializers ---------------------------------------------------------------------------

def test_initializers():
    assert _np(fe.constant_initializer(2.0)((2,), fe.float32)) == [2.0, 2.0]
    assert _np(fe.constant_initializer([1, 2, 3, 4])((2, 2))) == [[1, 2], [3, 4]]
    assert fe.constant_initializer([1, 2]).get_config() == {"value": [1, 2]}
    with pytest.raises(TypeError):
        fe.constant_initializer([1, 2, 3])((2, 2))
    with pytest.raises(TypeError):
        fe.constant_initializer(lambda: 1)
    z = fe.zeros_initializer()((2,), fe.int32)
    assert z.dtype == fe.int32 and _np(z) == [0, 0]
    assert fe.zeros_initializer().get_config() == {}
    assert _np(fe.ones_initializer()((2,))) == [1.0, 1.0]
    normal = fe.random_normal_initializer(1.0, 2.0, seed=3)
    assert normal.get_config() == {"mean": 1.0, "stddev": 2.0, "seed": 3}
    assert _np(normal((4,))) == _np(normal((4,)))          # a seed: the same every call
    assert fe.random_normal_initializer()((2,)).dtype == fe.float32
    with pytest.raises(ValueError, match="floating point"):
        fe.random_normal_initializer()((2,), fe.int32)
    uniform = fe.random_uniform_initializer(-1, 1, seed=3)
    assert uniform.get_config() == {"minval": -1, "maxval": 1, "seed": 3}
    u = fe.random_uniform_initializer(0.0, 1.0)((1000,)).numpy()
    assert u.min() >= 0.0 and u.max() < 1.0 and 0.4 < u.mean() < 0.6
    again = fe.random_uniform_initializer.from_config(uniform.get_config())
    assert _np(again((3,))) == _np(uniform((3,)))


# ---- functional -----------------------------------------------------------------------------

def test_folds_and_scans():
    assert _np(fe.foldl(lambda a, x: a + x, fe.constant([1, 2, 3, 4]))) == 10
    assert _np(fe.foldl(lambda a, x: a * 10 + x, fe.constant([1, 2, 3]),
                        initializer=fe.constant(5))) == 5123
    assert _np(fe.foldr(lambda a, x: a * 10 + x, fe.constant([1, 2, 3]))) == 321
    assert _np(fe.foldl(lambda a, x: a + x[0] * x[1], (fe.constant([1, 2]), fe.constant([3, 4])),
                        initializer=fe.constant(0))) == 11
    assert _np(fe.scan(lambda a, x: a + x, fe.constant([1, 2, 3, 4]))) == [1, 3, 6, 10]
    assert _np(fe.scan(lambda a, x: a * 10 + x, fe.constant([1, 2, 3]),
                       initializer=fe.constant(0), reverse=True)) == [321, 32, 3]
    fib = fe.scan(lambda a, x: (a[1], a[0] + a[1]), fe.constant([1, 2, 3, 4]),
                  initializer=(fe.constant(0), fe.constant(1)))
    assert isinstance(fib, tuple) and [_np(t) for t in fib] == [[1, 1, 2, 3], [1, 2, 3, 5]]
    assert _np(fe.scan(lambda a, x: a + x, fe.constant([[1, 2], [3, 4]]))) == [[1, 2], [4, 6]]
    empty = fe.scan(lambda a, x: a + x, fe.constant([], fe.int32), initializer=fe.constant(0))
    assert empty.shape == (0,) and empty.dtype == fe.int32
    with pytest.raises(InvalidArgumentError):
        fe.foldl(lambda a, x: a + x, fe.constant([], fe.int32))
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        fe.scan(lambda a, x: a + x, fe.constant(1))


def test_fold_and_scan_gradients():
    x = fe.constant(1.0)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.foldl(lambda a, e: a * e * x, fe.constant([1.0, 2.0, 3.0]),
                     initializer=fe.constant(1.0))
    assert float(y) == 6.0 and float(tape.gradient(y, x)) == 18.0
    check_grads(lambda e: fe.scan(lambda a, v: a * v + fe.sin(v), e), [[0.5, -1.0, 2.0]])


def test_folds_inside_function():
    @fe.function
    def f(x):
        return fe.scan(lambda a, e: a + e * x, fe.constant([1.0, 2.0, 3.0])), \
            fe.foldl(lambda a, e: a * e, fe.constant([1.0, 2.0, 3.0]) * x)
    for v in (1.0, 3.0):
        s, p = f(fe.constant(v))
        assert _np(s) == [1.0, 1.0 + 2 * v, 1.0 + 5 * v] and float(p) == 6.0 * v ** 3


def test_case():
    x = fe.constant(3)
    pairs = [(x < 2, lambda: fe.constant(1)), (x < 5, lambda: fe.constant(2))]
    assert _np(fe.case(pairs, default=lambda: fe.constant(3))) == 2
    assert _np(fe.case(pairs, exclusive=True)) == 2
    both = [(x < 4, lambda: fe.constant(1)), (x < 5, lambda: fe.constant(2))]
    assert _np(fe.case(both, exclusive=True)) == 1       # TensorFlow 2.21 takes the first
    assert _np(fe.case([(fe.constant(False), lambda: 1)], default=lambda: fe.constant(9))) == 9
    with pytest.raises(InvalidArgumentError, match="None of conditions evaluated as True"):
        fe.case([(x < 2, lambda: fe.constant(1)), (x < 3, lambda: fe.constant(2))])
    with pytest.raises(TypeError, match="pred must be a Tensor"):
        fe.case([(True, lambda: fe.constant(1))])
    with pytest.raises(TypeError, match="callable"):
        fe.case([(x < 4, 1)])


def test_switch_case():
    branches = [lambda: fe.constant(10), lambda: fe.constant(20)]
    assert _np(fe.switch_case(fe.constant(1), branches)) == 20
    assert _np(fe.switch_case(fe.constant(7), branches)) == 20       # the last branch
    assert _np(fe.switch_case(fe.constant(-1), branches, default=lambda: fe.constant(0))) == 0
    assert _np(fe.switch_case(fe.constant(0, fe.int64), branches)) == 10
    assert _np(fe.switch_case(fe.constant(1), {0: branches[0], 1: branches[1]})) == 20
    assert _np(fe.switch_case(fe.constant(0), [(1, branches[1]), (0, branches[0])])) == 10
    with pytest.raises(TypeError, match="must be a Tensor"):
        fe.switch_case(1, branches)
    with pytest.raises(TypeError, match="integer Tensor"):
        fe.switch_case(fe.constant(1.0), branches)


def test_case_and_switch_case_inside_function():
    traces = []

    @fe.function
    def f(x, i):
        traces.append(1)
        a = fe.case([(x < 2, lambda: x * 10), (x < 5, lambda: x * 100)], default=lambda: -x)
        b = fe.switch_case(i, [lambda: x + 1, lambda: x + 2, lambda: x + 3])
        return a, b
    got = [[float(t) for t in f(fe.constant(v), fe.constant(i))]
           for v, i in [(1.0, 0), (3.0, 1), (7.0, 2), (3.0, 9)]]
    assert got == [[10.0, 2.0], [300.0, 5.0], [-7.0, 10.0], [300.0, 6.0]]
    assert len(traces) == 1


def test_case_without_default_inside_function_checks_every_call():
    traces = []

    @fe.function
    def f(x):
        traces.append(1)
        return fe.case([(x < 2, lambda: x * 10), (x < 5, lambda: x * 100)])

    @fe.function
    def g(x):       # the check of a branch not taken does not fire
        return fe.cond(x > 0, lambda: fe.case([(x < 2, lambda: x * 10)]), lambda: -x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no eager fallback
        assert float(f(fe.constant(1.0))) == 10.0 and float(f(fe.constant(3.0))) == 300.0
        with pytest.raises(InvalidArgumentError, match="None of conditions"):
            f(fe.constant(9.0))
        assert float(f(fe.constant(4.0))) == 400.0 and len(traces) == 1
        assert float(g(fe.constant(-9.0))) == 9.0 and float(g(fe.constant(1.0))) == 10.0
        with pytest.raises(InvalidArgumentError, match="None of conditions"):
            g(fe.constant(9.0))


def test_vectorized_map():
    y = fe.vectorized_map(lambda r: fe.reduce_sum(r) * r, fe.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert _np(y) == [[3.0, 6.0], [21.0, 28.0]]
    a, b = fe.vectorized_map(lambda r: (r, r * 2), fe.constant([1, 2]))
    assert _np(a) == [1, 2] and _np(b) == [2, 4]


def test_recompute_grad():
    f = fe.recompute_grad(lambda a: fe.sin(a) * a)
    x = fe.constant([1.0, 2.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(f(x))
    np.testing.assert_allclose(float(y), 2.6600656509399414, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.3817732, 0.07700372], rtol=1e-5)
    check_grads(fe.recompute_grad(lambda a, b: fe.tanh(a * b) + a), [[0.3, -0.7], [1.5, 0.2]])
    v = fe.Variable([1.0, 2.0])
    g = fe.recompute_grad(lambda a: fe.reduce_sum(a * v * v))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = g(x)
    gx, gv = tape.gradient(y, [x, v])
    assert float(y) == 9.0 and _np(gx) == [1.0, 4.0] and _np(gv) == [2.0, 8.0]


def test_grad_pass_through():
    y = fe.constant(3.0)
    with fe.GradientTape() as tape:
        tape.watch(y)
        z = fe.grad_pass_through(fe.round)(y * 1.4)
    assert float(z) == 4.0
    np.testing.assert_allclose(float(tape.gradient(z, y)), 1.4, rtol=1e-6)
    v = fe.Variable(1.0)
    with fe.GradientTape() as tape:
        tape.watch(y)
        z = fe.grad_pass_through(v.assign)(y)
    assert float(v) == 3.0 and float(z) == 3.0 and float(tape.gradient(z, y)) == 1.0
