"""Every covered fasteager.numpy entry against NumPy itself: values, dtypes and shapes."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp
import fasteager.scipy.special as fsp

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3))                     # float64
A32 = A.astype(np.float32)
POS = np.abs(A) + 0.5
I32 = np.arange(6, dtype=np.int32).reshape(2, 3) - 2
I64 = np.arange(1, 4)
B = A > 0
V = RNG.standard_normal(3)
M = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
U = RNG.uniform(-0.9, 0.9, (2, 3))

# (name, args, kwargs): fnp.<name>(*args, **kwargs) must equal np.<name>(*args, **kwargs)
UNARY_FLOAT = ["negative", "positive", "abs", "absolute", "fabs", "sign", "exp", "expm1",
               "sqrt", "square", "reciprocal", "sin", "cos", "tan", "tanh", "floor", "ceil",
               "rint", "isnan", "isinf", "isfinite", "log", "log1p", "log2", "log10"]
BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "mod",
          "remainder", "power", "maximum", "minimum", "equal", "not_equal",
          "less", "less_equal", "greater", "greater_equal"]

CASES = []
for n in UNARY_FLOAT:
    x = POS if n.startswith("log") or n in ("sqrt", "reciprocal") else A
    CASES += [(n, (x,), {}), (n, (x.astype(np.float32),), {})]
for n in ["exp", "sqrt", "negative", "abs", "square", "sign", "tanh"]:
    CASES.append((n, (I32 + 3,), {}))                       # int inputs: NumPy's float loop
for n in BINARY:
    y = POS if n in ("power", "floor_divide", "mod", "remainder", "divide", "true_divide") else A
    CASES += [(n, (A, y[0]), {}),                           # broadcast pair
              (n, (A32, 2.0), {}),                          # Python float stays float32
              (n, (I32, y), {}),                            # int32 with float64 -> float64
              (n, (I32, 3), {}),                            # int32 with Python int
              (n, (I32, I64 + 1), {})]                      # int32 with int64 -> int64
CASES += [
    ("logical_and", (B, ~B), {}), ("logical_or", (B, B[0]), {}), ("logical_xor", (B, True), {}),
    ("logical_not", (B,), {}), ("invert", (I32,), {}), ("bitwise_and", (I32, 3), {}),
    ("bitwise_or", (I32, I64), {}), ("bitwise_xor", (I32, 5), {}), ("bitwise_not", (I32,), {}),
    ("add", (A, 1), {"dtype": np.float32}),
    ("true_divide", (I32, I32 + 10), {}),                   # int / int is float64
    ("round", (A * 10,), {}), ("round", (A * 10,), {"decimals": 1}), ("around", (A,), {}),
    ("where", (B, A, 0.0), {}), ("where", (B, I32, 1.5), {}), ("where", (B, A32, A), {}),
    ("clip", (A, -0.5, 0.5), {}), ("clip", (A32, -0.5, None), {}), ("clip", (I32, 0, 2), {}),
    ("clip", (I32, 0.5, 2), {}),
    ("isclose", (A, A + 1e-9), {}), ("nonzero", (I32,), {}), ("where", (B,), {}),
    # reductions
    ("sum", (A,), {}), ("sum", (A,), {"axis": 0}), ("sum", (A,), {"axis": (0, 1)}),
    ("sum", (A32,), {"axis": 1, "keepdims": True}), ("sum", (I32,), {}), ("sum", (B,), {}),
    ("sum", (I32,), {"dtype": np.float32}),
    ("mean", (A,), {"axis": -1}), ("mean", (I32,), {}), ("mean", (A32,), {"keepdims": True}),
    ("max", (A,), {}), ("max", (A,), {"axis": 1}), ("amax", (I32,), {"axis": 0}),
    ("min", (A32,), {"axis": 0, "keepdims": True}), ("amin", (I32,), {}), ("max", (B,), {}),
    ("prod", (A,), {"axis": 1}), ("prod", (I32,), {}),
    ("var", (A,), {}), ("var", (A,), {"axis": 0, "ddof": 1}), ("var", (I32,), {}),
    ("std", (A32,), {"axis": 1}), ("std", (A,), {"ddof": 1, "keepdims": True}),
    ("argmax", (A,), {}), ("argmax", (A,), {"axis": 1}), ("argmin", (A,), {"axis": 0}),
    ("argmax", (A,), {"axis": 0, "keepdims": True}),
    ("all", (B,), {}), ("all", (I32,), {"axis": 0}), ("any", (B,), {"axis": 1}),
    ("any", (A,), {}),
    ("cumsum", (A,), {}), ("cumsum", (A,), {"axis": 1}), ("cumsum", (I32,), {"axis": 0}),
    ("cumprod", (A,), {"axis": 1}),
    # products
    ("dot", (A, V), {}), ("dot", (V, V), {}), ("dot", (A, A.T), {}), ("dot", (2.0, A), {}),
    ("dot", (I32, V), {}),
    ("dot", (RNG.standard_normal((2, 2, 3)), RNG.standard_normal((4, 3, 2))), {}),
    ("matmul", (A, A.T), {}), ("matmul", (V, A.T), {}), ("matmul", (A, V), {}),
    ("matmul", (RNG.standard_normal((4, 2, 3)), A.T), {}),
    ("outer", (V, A[0]), {}), ("inner", (A, V), {}), ("inner", (V, V), {}), ("vdot", (A, A), {}),
    ("tensordot", (A, A, 2), {}), ("tensordot", (A, A.T, ([1], [0])), {}),
    ("einsum", ("ij,kj->ik", A, A), {}), ("einsum", ("ij->", I32), {}),
    ("trace", (M,), {}),
    # creation
    ("array", ([1.0, 2.0],), {}), ("array", ([1, 2],), {}), ("array", ([[True]],), {}),
    ("array", (A32,), {}), ("array", ([1, 2],), {"dtype": np.float32}),
    ("array", (3.0,), {"ndmin": 2}), ("asarray", ([1.5],), {}), ("asarray", (I32,), {}),
    ("zeros", ((2, 3),), {}), ("zeros", (3,), {"dtype": np.int32}), ("ones", ((2,),), {}),
("full", ((2, 2), 1.5), {}), ("full", (3, 7), {}),
    ("full", ((2,), 1), {"dtype": np.float32}), ("arange", (5,), {}), ("arange", (1, 2, 0.25), {}),
    ("arange", (3,), {"dtype": np.float32}), ("linspace", (0, 1, 5), {}),
    ("linspace", (0, 1), {"num": 4, "endpoint": False}), ("eye", (3,), {}),
    ("eye", (2, 3), {"k": 1}), ("identity", (2,), {"dtype": np.int32}),
    ("zeros_like", (A32,), {}), ("ones_like", (I32,), {}), ("full_like", (A, 2), {}),
    ("logspace", (0, 2, 3), {}),
    # shape functions
    ("reshape", (A, (3, 2)), {}), ("reshape", (A, -1), {}), ("ravel", (A,), {}),
    ("transpose", (A,), {}), ("transpose", (RNG.standard_normal((2, 3, 4)), (1, 0, 2)), {}),
    ("swapaxes", (RNG.standard_normal((2, 3, 4)), 0, 2), {}),
    ("moveaxis", (RNG.standard_normal((2, 3, 4)), 0, -1), {}),
    ("concatenate", ((A, A32),), {}), ("concatenate", ((A, I32),), {"axis": 1}),
    ("concatenate", ((A, V),), {"axis": None}), ("stack", ((V, V),), {}),
    ("stack", ((A, A),), {"axis": -1}), ("vstack", ((A, A[0]),), {}), ("hstack", ((V, V),), {}),
    ("hstack", ((A, A),), {}), ("column_stack", ((V, V),), {}),
    ("squeeze", (A[None],), {}), ("squeeze", (A[:, None],), {"axis": 1}),
    ("expand_dims", (A, 1), {}), ("expand_dims", (A, (0, -1)), {}),
    ("tile", (V, 2), {}), ("tile", (A, (2, 1)), {}), ("tile", (V, (2, 2)), {}),
    ("repeat", (V, 2), {}), ("repeat", (A, 2), {"axis": 1}), ("repeat", (A, [1, 2]), {"axis": 0}),
    ("broadcast_to", (V, (2, 3)), {}), ("flip", (A,), {}), ("flip", (A,), {"axis": 1}),
    ("take", (V, [0, 2]), {}), ("take", (A, [2, 0]), {"axis": 1}),
    ("diag", (V,), {}), ("diag", (A,), {}), ("atleast_2d", (V,), {}), ("atleast_1d", (2.0,), {}),
    ("copy", (A,), {}),
]
MULTI = [  # functions returning a list or tuple of arrays
    ("split", (A, 3), {"axis": 1}), ("split", (V, [1]), {}), ("split", (I64, [1, 2]), {}),
    ("array_split", (V, 2), {}), ("nonzero", (B,), {}),
]
LINALG = [
    ("norm", (V,), {}), ("norm", (A,), {}), ("norm", (A,), {"axis": 1}), ("norm", (V,), {"ord": 1}),
    ("norm", (V,), {"ord": np.inf}), ("norm", (V,), {"ord": 3}), ("norm", (A,), {"ord": "fro"}),
    ("norm", (A,), {"ord": 1}), ("norm", (A,), {"ord": np.inf}),
    ("norm", (A,), {"axis": 0, "keepdims": True}),
    ("norm", (I32,), {}),
    ("inv", (M,), {}), ("det", (M,), {}), ("solve", (M, V), {}), ("solve", (M, A.T), {}),
    ("cholesky", (M @ M.T,), {}), ("inv", (M.astype(np.float32),), {}),
]
SCIPY = [("logsumexp", (A,), {}), ("logsumexp", (A32,), {"axis": 1}),
         ("logsumexp", (A,), {"axis": 0, "keepdims": True}), ("expit", (A,), {}),
         ("erf", (A,), {})]


def _id(case):
    name, args, kwargs = case
    def d(a):
        return "%s%s" % (a.dtype, list(a.shape)) if isinstance(a, np.ndarray) else repr(a)[:12]
    return "%s(%s%s)" % (name, ",".join(d(a) for a in args), "," + str(kwargs) if kwargs else "")


def _check(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, "dtype %s (expected %s)" % (got.dtype, want.dtype)
    assert got.shape == want.shape, "shape %s (expected %s)" % (got.shape, want.shape)
    tol = 1e-5 if want.dtype in (np.float32, np.float16) else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_against_numpy(case):
    name, args, kwargs = case
    want = getattr(np, name)(*args, **kwargs)
    got = getattr(fnp, name)(*args, **kwargs)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _check(g, w)
    else:
        _check(got, want)


@pytest.mark.parametrize("case", MULTI, ids=_id)
def test_multi_against_numpy(case):
    name, args, kwargs = case
    want = getattr(np, name)(*args, **kwargs)
    got = getattr(fnp, name)(*args, **kwargs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _check(g, w)


@pytest.mark.parametrize("case", LINALG, ids=_id)
def test_linalg_against_numpy(case):
    name, args, kwargs = case
    _check(getattr(fnp.linalg, name)(*args, **kwargs), getattr(np.linalg, name)(*args, **kwargs))


def test_slogdet_against_numpy():
    sign, logdet = fnp.linalg.slogdet(M)
    want = np.linalg.slogdet(M)
    _check(sign, want[0])
    _check(logdet, want[1])


@pytest.mark.parametrize("case", SCIPY, ids=_id)
def test_scipy_special_against_scipy(case):
    special = pytest.importorskip("scipy.special")
    name, args, kwargs = case
    _check(getattr(fsp, name)(*args, **kwargs), getattr(special, name)(*args, **kwargs))


@pytest.mark.parametrize("x", [A, A32, I32, B, np.zeros((0, 3))], ids=str)
def test_empty_and_scalar_shapes(x):
    for name in ("sum", "mean", "ravel", "transpose"):
        if name == "mean" and x.size == 0:
            continue
        _check(getattr(fnp, name)(x), getattr(np, name)(x))
    _check(fnp.add(np.float64(2.0), 1), np.add(np.float64(2.0), 1))


def test_empty_is_zeros():
    _check(fnp.empty((2, 2)), np.zeros((2, 2)))
    _check(fnp.empty_like(A32), np.zeros_like(A32))


def test_promotion_rules():
    i = np.arange(3, dtype=np.int32)
    assert fnp.array([1.0, 2.0]).dtype == np.float64          # Python floats: float64
    assert fnp.array([1, 2]).dtype == np.int64
    assert fnp.add(i, np.arange(3.0)).dtype == np.float64      # functions: NumPy's rules
    # operators on tensors made here follow NumPy's rules too
    assert (fnp.asarray(i) + np.arange(3.0)).dtype == np.float64
    assert (fnp.arange(3) * 0.5).numpy().tolist() == [0.0, 0.5, 1.0]
    v = fnp.array([1.0, 2.0])
    assert float(v @ v) == 5.0 and (v[0] + 1).dtype == np.float64
    # tensors made by the TF-style namespace keep TensorFlow's rules
    with pytest.raises(fe.errors.InvalidArgumentError):
        fe.constant([1, 2]) + fe.constant([1.0, 2.0])
    assert fnp.true_divide(i, i + 1).dtype == np.float64
    assert fnp.add(np.ones(2, np.float32), 1.0).dtype == np.float32   # weak Python scalar
    assert fnp.multiply(i, 2.5).dtype == np.float64
    assert fnp.sum(i).dtype == np.int64
    assert fnp.mean(i).dtype == np.float64
    assert fnp.concatenate([i, np.ones(2, np.float32)]).dtype == np.float64


def test_constants_and_dtypes():
    assert fnp.pi == np.pi and fnp.e == np.e and fnp.inf == np.inf and np.isnan(fnp.nan)
    assert fnp.newaxis is None
    for n in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
              "bool_", "complex64"):
        assert getattr(fnp, n) is getattr(np, n)
    x = fnp.zeros(3, dtype=fnp.float32)
    assert x.dtype == np.float32 and x.dtype == fnp.float32
    assert isinstance(x, fnp.ndarray)
    assert fnp.result_type(x, 1.0) == np.float32
    assert fnp.shape(A) == (2, 3) and fnp.ndim(A) == 2 and fnp.size(A) == 6


def test_random_is_seeded_and_matches_numpy():
    # fnp.random is NumPy's global stream (as autograd.numpy.random): seeding either one
    # seeds both, so each side draws right after its own seed call
    fnp.random.seed(3)
    got = [fnp.random.randn(2, 3), fnp.random.rand(4), fnp.random.normal(1.0, 2.0, (3,)),
           fnp.random.uniform(-1, 1, size=5), fnp.random.randint(0, 10, size=4),
           fnp.random.permutation(5), fnp.random.choice(5, 3)]
    np.random.seed(3)
    want = [np.random.randn(2, 3), np.random.rand(4), np.random.normal(1.0, 2.0, (3,)),
            np.random.uniform(-1, 1, size=5), np.random.randint(0, 10, size=4),
            np.random.permutation(5), np.random.choice(5, 3)]
    for g, w in zip(got, want):
        _check(g, w)
    g = fnp.random.default_rng(7)
    _check(g.normal(size=3), np.random.default_rng(7).normal(size=3))
    x = fnp.arange(6.0).reshape(3, 2)
    p = fnp.random.permutation(x)
    assert sorted(np.asarray(p)[:, 0].tolist()) == [0.0, 2.0, 4.0]
