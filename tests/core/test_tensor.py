"""Tensor basics: conversion rules, printing, operators, NumPy interop, errors."""
import operator

import numpy as np
import pytest

import fasteager as fe


def test_default_dtypes_follow_tensorflow():
    assert fe.constant(1.5).dtype == fe.float32
    assert fe.constant(3).dtype == fe.int32
    assert fe.constant(2**40).dtype == fe.int64
    assert fe.constant(True).dtype == fe.bool
    assert fe.constant([[1, 2], [3, 4]]).dtype == fe.int32
    assert fe.constant([1.0, 2]).dtype == fe.float32
    assert fe.constant(np.arange(3, dtype=np.int64)).dtype == fe.int64
    assert fe.constant(np.ones(2)).dtype == fe.float64
    assert fe.constant(1, dtype=fe.float64).dtype == fe.float64
    assert fe.constant([1, 2], dtype="float16").dtype == fe.float16


def test_dtype_objects():
    assert fe.float32.name == "float32"
    assert fe.float32.as_numpy_dtype is np.float32
    assert fe.float32.is_floating and not fe.float32.is_integer
    assert fe.int8.is_integer and fe.uint8.is_unsigned
    assert fe.as_dtype("float64") is fe.float64
    assert fe.as_dtype(np.int32) is fe.int32
    assert fe.as_dtype(np.dtype("bool")) is fe.bool
    assert fe.float32 == np.float32 and fe.float32 == "float32"
    with pytest.raises(TypeError):
        fe.as_dtype("not-a-dtype")


def test_float32_stays_float32():
    x = fe.constant(100.0)
    y = fe.log(1 + fe.exp(x))
    assert y.dtype == fe.float32
    assert np.isinf(y.numpy())           # overflows in float32, as TensorFlow
    assert (x * 2.5).dtype == fe.float32
    assert (2.5 / x).dtype == fe.float32


def test_int_true_division_is_float64():
    r = fe.constant(7) / fe.constant(2)
    assert r.dtype == fe.float64 and r.numpy() == 3.5
    assert (fe.constant(7) // 2).numpy() == 3
    assert (fe.constant(-7) % 3).numpy() == 2    # floormod, Python's sign rule


def test_mixed_dtypes_raise_with_op_and_dtypes():
    with pytest.raises(fe.errors.InvalidArgumentError) as e:
        fe.constant(1.0) + fe.constant(1)
    msg = str(e.value)
    assert "add" in msg and "float32" in msg and "int32" in msg
    assert isinstance(e.value, ValueError)
    with pytest.raises(fe.errors.InvalidArgumentError, match="matmul"):
        fe.matmul(fe.ones([2, 3]), fe.ones([2, 3]))
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"add.*\[2, 3\].*\[4\]"):
        fe.ones([2, 3]) + fe.ones([4])
    with pytest.raises(fe.errors.InvalidArgumentError, match="exp.*floating"):
        fe.exp(fe.constant([1, 2]))


def test_printing_matches_tensorflow_layout():
    a = fe.constant([[1, 2], [3, 4]])
    assert str(a) == "fe.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert str(fe.constant([[2.0]])) == "fe.Tensor([[2.]], shape=(1, 1), dtype=float32)"
    assert str(fe.constant(6.0, dtype=fe.float64)) == "fe.Tensor(6.0, shape=(), dtype=float64)"
    assert repr(a) == ("<fe.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n"
                       "       [3, 4]], dtype=int32)>")
    assert repr(fe.constant(2.0)) == "<fe.Tensor: shape=(), dtype=float32, numpy=2.0>"
    assert "{:.3f}".format(fe.constant(3.14159)) == "3.142"
    assert f"hello, {fe.matmul([[2.0]], [[2.0]])}" == "hello, [[4.]]"


def test_python_conversions_drive_control_flow():
    t = fe.constant(3)
    assert int(t) == 3 and float(t) == 3.0 and bool(t)
    assert operator.index(t) == 3
    assert list(range(t)) == [0, 1, 2]
    assert [1, 2, 3, 4][fe.constant(1)] == 2
    with pytest.raises(ValueError, match="more than one element"):
        bool(fe.constant([1, 2]))
    with pytest.raises(TypeError):
        operator.index(fe.constant(1.5))
    with pytest.raises(ValueError):
        int(fe.constant([1, 2]))


def test_len_and_iteration():
    t = fe.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3 and rows[1].numpy().tolist() == [3, 4]
    with pytest.raises(TypeError):
        len(fe.constant(1))


def test_numpy_interop():
    a = fe.constant([[1, 2], [3, 4]])
    b = a + 1
    c = np.multiply(a, b)
    assert type(c) is np.ndarray and c.tolist() == [[2, 6], [12, 20]]
    d = np.ones((2, 2), dtype=np.int32) + a          # ndarray + Tensor gives a Tensor
    assert isinstance(d, fe.Tensor) and d.numpy().tolist() == [[2, 3], [4, 5]]
    e = np.ones((2, 2), dtype=np.int32) * a
    assert isinstance(e, fe.Tensor)
    assert np.asarray(a).dtype == np.int32
    assert np.mean(fe.constant([1.0, 3.0])) == 2.0


def test_numpy_view_is_read_only_and_constant_copies():
    src = np.arange(4.0)
    t = fe.constant(src)
    src[0] = 100.0                      # the tensor does not alias the caller's array
    assert t.numpy()[0] == 0.0
    v = t.numpy()
    with pytest.raises(ValueError):
        v[0] = 1.0
    assert isinstance(fe.constant(2.0).numpy(), np.float32)


def test_operators():
    x = fe.constant([1.0, 2.0, 3.0])
    y = fe.constant([3.0, 2.0, 1.0])
    np.testing.assert_allclose((x + y).numpy(), [4, 4, 4])
    np.testing.assert_allclose((x - y).numpy(), [-2, 0, 2])
    np.testing.assert_allclose((x * y).numpy(), [3, 4, 3])
    np.testing.assert_allclose((x / y).numpy(), [1 / 3, 1, 3], rtol=1e-6)
    np.testing.assert_allclose((x // y).numpy(), [0, 1, 3])
    np.testing.assert_allclose((x % y).numpy(), [1, 0, 0])
    np.testing.assert_allclose((x ** 2).numpy(), [1, 4, 9])
    np.testing.assert_allclose((2 ** x).numpy(), [2, 4, 8])
    np.testing.assert_allclose((-x).numpy(), [-1, -2, -3])
    np.testing.assert_allclose(abs(-x).numpy(), [1, 2, 3])
    np.testing.assert_allclose((1 - x).numpy(), [0, -1, -2])
    np.testing.assert_allclose((6 / x).numpy(), [6, 3, 2])
    assert (x < y).numpy().tolist() == [True, False, False]
    assert (x <= y).numpy().tolist() == [True, True, False]
    assert (x > y).numpy().tolist() == [False, False, True]
    assert (x >= y).numpy().tolist() == [False, True, True]
    assert (x == y).numpy().tolist() == [False, True, False]
    assert (x != y).numpy().tolist() == [True, False, True]
    b = fe.constant([True, False])
    assert (~b).numpy().tolist() == [False, True]
    assert (b & True).numpy().tolist() == [True, False]
    assert (b | False).numpy().tolist() == [True, False]
    assert (b ^ True).numpy().tolist() == [False, True]
    m = fe.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose((m @ m).numpy(), [[7, 10], [15, 22]])
    assert (x == None) is False  # noqa: E711 - TensorFlow's rule


def test_hash_is_identity():
    a = fe.constant(1.0)
    b = fe.constant(1.0)
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    assert len({a, b, a}) == 2


def test_shape_object():
    t = fe.zeros([1, 1, 784])
    assert t.shape == (1, 1, 784) and t.shape == [1, 1, 784]
    assert str(t.shape) == "(1, 1, 784)"
    assert t.shape.as_list() == [1, 1, 784] and t.shape.rank == 3
    assert t.ndim == 3 and t.dtype == fe.float32
    assert fe.TensorShape([2, None]).is_compatible_with([2, 5])


def test_basic_indexing_and_gradient():
    x = fe.constant(np.arange(12.0).reshape(3, 4))
    assert x[1].numpy().tolist() == [4, 5, 6, 7]
    assert x[:, ::-2].numpy().tolist() == [[3, 1], [7, 5], [11, 9]]
    assert x[None, 1, ...].shape == (1, 4)
    assert x[fe.newaxis].shape == (1, 3, 4)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(x[1:, :2] * 3.0)
    g = tape.gradient(y, x).numpy()
    want = np.zeros((3, 4))
    want[1:, :2] = 3
    np.testing.assert_array_equal(g, want)


def test_creation_functions():
    assert fe.zeros([2, 3]).numpy().sum() == 0 and fe.zeros([2]).dtype == fe.float32
    assert fe.ones([2], dtype=fe.int64).dtype == fe.int64
    assert fe.fill([2, 2], 7).numpy().tolist() == [[7, 7], [7, 7]]
    z = fe.zeros_like(fe.constant([1, 2]))
    assert z.dtype == fe.int32 and z.numpy().tolist() == [0, 0]
    assert fe.ones_like(fe.constant([1.0])).numpy().tolist() == [1.0]
    assert fe.range(5).numpy().tolist() == [0, 1, 2, 3, 4]
    assert fe.range(1, 2, 0.5).dtype == fe.float32
    assert fe.eye(2).numpy().tolist() == [[1, 0], [0, 1]]
    assert fe.constant(0, shape=[2, 2]).numpy().tolist() == [[0, 0], [0, 0]]
    assert fe.constant([1, 2, 3, 4], shape=[2, 2]).shape == (2, 2)
    assert fe.identity(fe.constant(3.0)).numpy() == 3.0
    assert fe.executing_eagerly()


def test_random_is_reproducible_with_seeds():
    fe.random.set_seed(1234)
    a = fe.random.normal([3]).numpy()
    b = fe.random.uniform([2], seed=7).numpy()
    fe.random.set_seed(1234)
    assert np.array_equal(a, fe.random.normal([3]).numpy())
    assert np.array_equal(b, fe.random.uniform([2], seed=7).numpy())
    assert fe.random.normal([2, 2], dtype=fe.float64).dtype == fe.float64
    u = fe.random.uniform([1000], minval=2, maxval=3)
    assert u.dtype == fe.float32 and 2 <= u.numpy().min() and u.numpy().max() < 3
    g1 = fe.random.Generator.from_seed(5).normal([4]).numpy()
    g2 = fe.random.Generator.from_seed(5).normal([4]).numpy()
    assert np.array_equal(g1, g2)
    with pytest.raises(fe.errors.InvalidArgumentError):
        fe.random.normal([2], dtype=fe.int32)


def test_errors_subclass_builtins():
    assert issubclass(fe.errors.InvalidArgumentError, ValueError)
    assert issubclass(fe.errors.NotFoundError, FileNotFoundError)
    assert issubclass(fe.errors.ResourceExhaustedError, MemoryError)
    assert issubclass(fe.errors.UnimplementedError, NotImplementedError)
    assert issubclass(fe.errors.FailedPreconditionError, RuntimeError)
    for cls in (fe.errors.InvalidArgumentError, fe.errors.NotFoundError):
        assert issubclass(cls, fe.errors.OpError)
    e = fe.errors.InvalidArgumentError(None, None, "bad thing")
    assert str(e) == "bad thing" and e.message == "bad thing"


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="fe.constant"):
        fe.Tensor(1.0)


def test_devices_cpu_and_soft_placement():
    assert fe.config.list_physical_devices("GPU") == []
    assert fe.config.experimental.list_physical_devices("CPU")[0].device_type == "CPU"
    with fe.device("/cpu:0"):
        assert (fe.constant(1.0) + 1.0).numpy() == 2.0
    with pytest.warns(RuntimeWarning, match="soft device placement"):
        import fasteager._src.state.placement as placement
        placement._warned = False
        with fe.device("/gpu:0"):
            r = fe.matmul([[2.0]], [[2.0]])
    assert r.numpy()[0, 0] == 4.0
    fe.config.set_soft_device_placement(False)
    try:
        with pytest.raises(fe.errors.InvalidArgumentError, match="no GPU"):
            with fe.device("GPU:0"):
                pass
    finally:
        fe.config.set_soft_device_placement(True)
    with pytest.raises(fe.errors.InvalidArgumentError, match="cannot parse"):
        fe.device("/tpu:zero")
    assert "CPU:0" in fe.constant(1.0).device


def test_numpy_scalars_adopt_the_tensor_dtype():
    t = fe.constant([1.0, 2.0]) * (1.0 / np.sqrt(4.0))       # np.float64 scalar
    assert t.dtype == fe.float32 and t.numpy().tolist() == [0.5, 1.0]
    assert (fe.constant([1, 2]) * np.int64(3)).dtype == fe.int32
    # NumPy values are cast as NumPy casts (TensorFlow 2.21: [0 0], int32)
    assert (fe.constant([1, 2]) * np.float64(0.5)).numpy().tolist() == [0, 0]
    with pytest.raises(fe.errors.InvalidArgumentError):
        fe.constant([1, 2]) + float("nan")
    t = fe.constant([1.0]) + np.array([1.0])                  # arrays too (TensorFlow's rule)
    assert t.dtype == fe.float32 and t.numpy().tolist() == [2.0]


def test_argmax_and_argmin_take_bool_as_tensorflow():
    # TF 2.21's ArgMax allows bool (tf.argmax(parts[-2] == class_names) in its images
    # tutorial)
    assert int(fe.argmax(fe.constant([False, True, True]))) == 1
    assert fe.argmin(fe.constant([[True, False]]), axis=1).numpy().tolist() == [1]
    assert fe.argmax(fe.constant([False, True])).dtype == fe.int64
