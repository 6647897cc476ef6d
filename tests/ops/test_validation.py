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
    lambda: fe.repeat(SCALAR, 2, axis=0),
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
