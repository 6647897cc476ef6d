"""The shared op-table test: every op, forward vs NumPy and gradients vs finite differences."""
import numpy as np
import pytest

import fasteager as fe
from fasteager.ops.registry import NO_GRADIENT, OPS, UNREGISTERED_GRADIENT
from tests.gradcheck import _numeric_grad as numeric_grad
from tests.gradcheck import check_grads
from tests.ops.op_specs import SPECS
from tests.ops.op_specs_base import Spec


def test_every_op_has_a_spec():
    missing = sorted(set(OPS) - set(SPECS))
    assert not missing, "ops without an entry in tests/ops/op_specs.py: %s" % missing
    unknown = sorted(set(SPECS) - set(OPS))
    assert not unknown, "specs for ops that do not exist: %s" % unknown


def gradient_table_problems(specs, ops, no_gradient, unregistered=()):
    """What is wrong between the gradient cases and the op table: every differentiable op
    needs a gradient case on a non-empty input; every other op must be in ``no_gradient``
    with a reason, and have no gradient case. An op TensorFlow has no gradient for
    (``unregistered``: its tape raises LookupError) has no gradient case either."""
    problems = []
    for name, spec in sorted(specs.items()):
        if name in unregistered:
            if spec.grad:
                problems.append("%s has no registered gradient but its spec checks one" % name)
        elif ops[name].differentiable:
            if not spec.grad:
                problems.append("%s is differentiable but its spec checks no gradient" % name)
            elif all(any(0 in s for s in case) for case in spec.cases):
                problems.append("%s: every gradient case is empty (no values checked)" % name)
            if name in no_gradient:
                problems.append("%s has a gradient but is in NO_GRADIENT" % name)
        else:
            if spec.grad:
                problems.append("%s has no gradient but its spec checks one" % name)
            if not no_gradient.get(name):
                problems.append("%s has no gradient and no reason in NO_GRADIENT" % name)
    return problems


def test_gradient_cases_match_the_op_table():
    assert gradient_table_problems(SPECS, OPS, NO_GRADIENT, UNREGISTERED_GRADIENT) == []


@pytest.mark.parametrize("name", sorted(UNREGISTERED_GRADIENT))
def test_unregistered_gradient_raises_lookup_error(name):
    # recorded on the tape, as in TensorFlow, and the gradient through it raises
    spec = SPECS[name]
    ts = [fe.constant(a) for a in _inputs(spec, spec.cases[0], np.float32)]
    with fe.GradientTape() as tape:
        tape.watch(ts)
        y = spec.fn(*ts)
    with pytest.raises(LookupError, match=UNREGISTERED_GRADIENT[name]):
        tape.gradient(y, ts)


def test_gradient_table_check_refuses_a_differentiable_op_without_a_case():
    # the check above must not let through what the old one did (grad=False on an op
    # that has a VJP), nor an op without a gradient and without a reason
    class FakeOp:
        def __init__(self, differentiable):
            self.differentiable = differentiable
    specs = {"a": Spec(None, None, grad=False), "b": Spec(None, None, grad=False),
             "c": Spec(None, None, cases=[((0,),)]), "d": Spec(None, None)}
    ops = {"a": FakeOp(True), "b": FakeOp(False), "c": FakeOp(True), "d": FakeOp(False)}
    problems = gradient_table_problems(specs, ops, {"b": "", "d": "bool output"})
    assert [p.split()[0] for p in problems] == ["a", "b", "c:", "d"], problems


def _inputs(spec, shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        a = rng.standard_normal(s)
        if spec.domain is not None:
            a = spec.domain(a)
        out.append(np.asarray(a, dtype=dtype))
    return out


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


CASES = [(name, i) for name in sorted(SPECS) for i in range(len(SPECS[name].cases))]


@pytest.mark.parametrize("name,case", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_matches_numpy(name, case, dtype):
    spec = SPECS[name]
    if dtype not in spec.dtypes:
        pytest.skip("dtype not supported by this op")
    arrays = _inputs(spec, spec.cases[case], dtype)
    got = _as_list(spec.fn(*[fe.constant(a) for a in arrays]))
    want = _as_list(spec.ref(*arrays))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, fe.Tensor)
        w = np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        if w.dtype.kind == "f" and g.dtype.is_floating:
            # float32 stays float32 end to end
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
        rtol = spec.rtol or (1e-5 if dtype == np.float32 else 1e-10)
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=rtol)


GRAD_CASES = [(n, i) for n, i in CASES if SPECS[n].grad]


@pytest.mark.parametrize("name,case", GRAD_CASES)
def test_gradients_match_finite_differences(name, case):
    spec = SPECS[name]
    arrays = _inputs(spec, spec.cases[case], np.float64, seed=1)
    if any(a.size == 0 for a in arrays):
        # empty tensors: every gradient exists with its input's shape and dtype, and the
        # values of finite differences (zeros for an input used only with empty ones, as
        # the bias of an empty batch; ones for concat's non-empty input)
        def total(*xs):
            return fe.add_n([fe.reduce_sum(v) for v in _as_list(spec.fn(*xs))])
        ts = [fe.constant(a) for a in arrays]
        with fe.GradientTape() as tape:
            tape.watch(ts)
            y = total(*ts)
        grads = tape.gradient(y, ts, unconnected_gradients="zero")
        for t, g, want in zip(ts, grads, numeric_grad(total, arrays)):
            assert g.shape == t.shape and g.dtype == t.dtype, (g.shape, g.dtype)
            np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-8)
        return
    check_grads(spec.fn, arrays, order=spec.order)
