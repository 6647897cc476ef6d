"""Forward mode over the whole op table (tests/ops/op_specs.py): for every differentiable op
and every gradient case, JVPs against finite differences at order 1, second directional
derivatives forward-over-forward and forward-over-reverse against finite differences, and
forward Jacobians equal to reverse Jacobians."""
import numpy as np
import pytest

import fasteager as fe
from tests.ops.op_specs import SPECS

EPS1 = 1e-6
EPS2 = 1e-4


def _inputs(spec, shapes, seed=1):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        a = rng.standard_normal(s)
        if spec.domain is not None:
            a = spec.domain(a)
        out.append(np.asarray(a, dtype=np.float64))
    return out


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


CASES = [(name, i) for name in sorted(SPECS) for i, case in enumerate(SPECS[name].cases)
         if SPECS[name].grad and not any(0 in s for s in case)]


def _refused(name, run):
    """Run ``run()``; an op whose VJP is a kernel without a derivative of its own (its spec
    checks order 1 only, the backward kernel is in NO_GRADIENT) refuses forward mode with
    UnimplementedError instead of a wrong JVP. True when it refused."""
    try:
        run()
    except fe.errors.UnimplementedError as e:
        assert SPECS[name].order == 1, "%s refused forward mode: %s" % (name, e)
        assert "JVP cannot be derived" in str(e)
        return True
    return False


class Problem:
    """One op case: its inputs, a direction per input and a cotangent per output, and the
    scalar g(x) = <u, f(x)> that finite differences see."""

    def __init__(self, name, case):
        self.spec = SPECS[name]
        self.arrays = _inputs(self.spec, self.spec.cases[case])
        rng = np.random.default_rng(7)
        self.v = [rng.standard_normal(a.shape) for a in self.arrays]
        self.w = [rng.standard_normal(a.shape) for a in self.arrays]
        outs = self.outputs([fe.constant(a) for a in self.arrays])
        self.us = [rng.standard_normal(o.shape) for o in outs]

    def outputs(self, tensors):
        return [o for o in _as_list(self.spec.fn(*tensors))]

    def g(self, arrays):
        outs = self.outputs([fe.constant(a) for a in arrays])
        return sum(float(np.sum(np.asarray(o) * u)) for o, u in zip(outs, self.us))

    def shifted(self, *terms):
        return [a + sum(c * d[i] for c, d in terms) for i, a in enumerate(self.arrays)]

    def contract(self, tangents):
        return sum(0.0 if t is None else float(np.sum(np.asarray(t) * u))
                   for t, u in zip(tangents, self.us))


def _close(got, want, what, rtol, atol):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("name,case", CASES)
def test_jvp_matches_finite_differences(name, case):
    _refused(name, lambda: _check_jvp(name, case))


def _check_jvp(name, case):
    p = Problem(name, case)
    xs = [fe.constant(a) for a in p.arrays]
    with fe.autodiff.ForwardAccumulator(xs, [fe.constant(v) for v in p.v]) as acc:
        outs = p.outputs(xs)
    got = p.contract([acc.jvp(o) for o in outs])
    want = (p.g(p.shifted((EPS1, p.v))) - p.g(p.shifted((-EPS1, p.v)))) / (2 * EPS1)
    _close(got, want, "order 1 (forward)", 1e-4, 1e-5)


def _second_fd(p):
    # D^2 g [v, w] by central differences in both directions
    e = EPS2
    return (p.g(p.shifted((e, p.v), (e, p.w))) - p.g(p.shifted((e, p.v), (-e, p.w)))
            - p.g(p.shifted((-e, p.v), (e, p.w))) + p.g(p.shifted((-e, p.v), (-e, p.w)))) \
        / (4 * e * e)


ORDER2 = [(n, i) for n, i in CASES if SPECS[n].order >= 2]


@pytest.mark.parametrize("name,case", ORDER2)
def test_second_order_forward_over_forward_and_over_reverse(name, case):
    p = Problem(name, case)
    want = _second_fd(p)
    xs = [fe.constant(a) for a in p.arrays]
    vs = [fe.constant(v) for v in p.v]
    ws = [fe.constant(w) for w in p.w]
    # forward over forward: the outer accumulator differentiates the inner one's JVPs
    with fe.autodiff.ForwardAccumulator(xs, ws) as outer:
        with fe.autodiff.ForwardAccumulator(xs, vs) as inner:
            outs = p.outputs(xs)
        inner_t = [inner.jvp(o) for o in outs]
    got = p.contract([None if t is None else outer.jvp(t) for t in inner_t])
    _close(got, want, "order 2 (forward over forward)", 1e-3, 1e-4)
    # forward over reverse: the Hessian-vector product of g, dotted with v
    us = [fe.constant(u) for u in p.us]
    with fe.autodiff.ForwardAccumulator(xs, ws) as acc:
        with fe.GradientTape() as tape:
            tape.watch(xs)
            total = fe.add_n([fe.reduce_sum(o * u) for o, u in zip(p.outputs(xs), us)])
        grads = tape.gradient(total, xs)
    hvp = [None if g is None else acc.jvp(g) for g in grads]
    got = sum(0.0 if h is None else float(np.sum(np.asarray(h) * v)) for h, v in zip(hvp, p.v))
    _close(got, want, "order 2 (forward over reverse)", 1e-3, 1e-4)


@pytest.mark.parametrize("name,case", CASES)
def test_forward_jacobian_equals_reverse_jacobian(name, case):
    _refused(name, lambda: _check_jacobians(name, case))


def _check_jacobians(name, case):
    p = Problem(name, case)
    xs = [fe.constant(a) for a in p.arrays]
    sizes = [a.size for a in p.arrays]
    outs0 = p.outputs(xs)
    # forward: one JVP per input coordinate gives one Jacobian column
    cols = []
    for i, a in enumerate(p.arrays):
        for k in range(a.size):
            basis = [np.zeros_like(b) for b in p.arrays]
            basis[i].reshape(-1)[k] = 1.0
            with fe.autodiff.ForwardAccumulator(xs, [fe.constant(b) for b in basis]) as acc:
                outs = p.outputs(xs)
            cols.append(np.concatenate([
                np.zeros(o.shape).reshape(-1) if acc.jvp(o) is None
                else np.asarray(acc.jvp(o)).reshape(-1) for o in outs]))
    forward = np.stack(cols, axis=1)
    # reverse: the tape's Jacobians of every output w.r.t. every input
    with fe.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        outs = p.outputs(xs)
    rows = []
    for o in outs:
        jac = tape.jacobian(o, xs, unconnected_gradients="zero")
        m = int(np.prod(o.shape))
        rows.append(np.concatenate([np.asarray(j).reshape(m, n) for j, n in zip(jac, sizes)],
                                   axis=1))
    reverse = np.concatenate(rows, axis=0)
    assert forward.shape == reverse.shape == (sum(int(np.prod(o.shape)) for o in outs0),
                                              sum(sizes))
    np.testing.assert_allclose(forward, reverse, rtol=1e-9, atol=1e-12)


def test_every_differentiable_op_with_a_spec_is_walked():
    # (an op without a spec fails tests/ops/test_op_table.py)
    # (ops TensorFlow has no gradient for raise LookupError, tested in test_op_table.py)
    from fasteager.ops.registry import OPS, UNREGISTERED_GRADIENT
    walked = {n for n, _ in CASES}
    missing = sorted(n for n, op in OPS.items() if op.differentiable and n in SPECS
                     and n not in walked and n not in UNREGISTERED_GRADIENT)
    assert not missing, missing
