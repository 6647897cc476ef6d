"""autograd-style checks in forward mode through fasteager.numpy: functions of one and of
several arguments, containers in and out, JVPs checked at orders 1 and 2 against finite
differences (and against HIPS autograd's make_jvp where it is installed)."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp
from fasteager import nest

EPS1, EPS2 = 1e-6, 1e-4


def _flat_values(out):
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in nest.flatten(out)])


def check_jvps(f, args, order=2, seed=0):
    """JVPs of ``f`` (positional ``args``: arrays, or lists/dicts of them) along random
    directions match central differences; at order 2, forward-over-forward and
    forward-over-reverse second directional derivatives of <u, f> match too."""
    rng = np.random.default_rng(seed)
    flat = [np.asarray(a, dtype=np.float64) for a in nest.flatten(args)]
    v = [rng.standard_normal(a.shape) for a in flat]
    w = [rng.standard_normal(a.shape) for a in flat]

    def call(arrays):
        return f(*nest.pack_sequence_as(args, [fnp.asarray(a) for a in arrays]))

    def shifted(*terms):
        return [a + sum(c * d[i] for c, d in terms) for i, a in enumerate(flat)]

    def tensors(arrays):
        return nest.pack_sequence_as(args, [fnp.asarray(a) for a in arrays])

    out, tangent = fe.autodiff.jvp(f, list(tensors(flat)), list(tensors(v)))
    numeric = (_flat_values(call(shifted((EPS1, v)))) -
               _flat_values(call(shifted((-EPS1, v))))) / (2 * EPS1)
    np.testing.assert_allclose(_flat_values(tangent), numeric, rtol=1e-5, atol=1e-6)
    if order < 2:
        return
    u = rng.standard_normal(_flat_values(out).shape)

    def g(arrays):
        return float(_flat_values(call(arrays)) @ u)
    e = EPS2
    want = (g(shifted((e, v), (e, w))) - g(shifted((e, v), (-e, w)))
            - g(shifted((-e, v), (e, w))) + g(shifted((-e, v), (-e, w)))) / (4 * e * e)

    def contracted(*xs):
        outs = nest.flatten(f(*xs))
        offset, total = 0, None
        for o in outs:
            n = int(np.prod(o.shape))
            term = fnp.sum(fnp.ravel(o) * u[offset:offset + n])
            total = term if total is None else total + term
            offset += n
        return total
    # forward over forward
    xs = tensors(flat)
    flat_xs = nest.flatten(xs)
    with fe.autodiff.ForwardAccumulator(flat_xs, [fnp.asarray(a) for a in w]) as outer:
        with fe.autodiff.ForwardAccumulator(flat_xs, [fnp.asarray(a) for a in v]) as inner:
            y = contracted(*xs)
        first = inner.jvp(y)
    np.testing.assert_allclose(float(outer.jvp(first)), want, rtol=1e-4, atol=1e-5)
    # forward over reverse
    with fe.autodiff.ForwardAccumulator(flat_xs, [fnp.asarray(a) for a in w]) as acc:
        with fe.GradientTape() as tape:
            tape.watch(flat_xs)
            y = contracted(*xs)
        grads = tape.gradient(y, flat_xs)
    got = sum(float(np.sum(np.asarray(acc.jvp(gr)) * vi)) for gr, vi in zip(grads, v))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


R = np.random.default_rng(3)


def logistic(w, x):
    return 1 / (1 + fnp.exp(-fnp.dot(x, w)))


def mlp(params, x):
    h = x
    for layer in params:
        h = fnp.tanh(fnp.dot(h, layer["w"]) + layer["b"])
    return fnp.sum(h ** 2, axis=1)


def two_outputs(a, b):
    return {"prod": a * b, "stats": (fnp.mean(a), fnp.std(b))}


def softmax_rows(z):
    z = z - fnp.max(z, axis=1, keepdims=True)
    e = fnp.exp(z)
    return e / fnp.sum(e, axis=1, keepdims=True)


def indexing_and_linalg(a, m):
    spd = fnp.dot(m, m.T) + 3 * fnp.eye(3)
    return fnp.linalg.solve(spd, a[::-1]) + fnp.log(fnp.linalg.det(spd)) + a[[0, 2, 0]]


PROGRAMS = {
    "one_argument": (lambda x: fnp.sin(x) * fnp.cos(x) ** 2, [R.standard_normal((2, 3))]),
    "several_arguments": (logistic, [R.standard_normal(4), R.standard_normal((5, 4))]),
    "container_inputs": (mlp, [[{"w": R.standard_normal((3, 3)) * 0.5,
                                 "b": R.standard_normal(3) * 0.1} for _ in range(2)],
                               R.standard_normal((4, 3))]),
    "container_outputs": (two_outputs, [R.standard_normal(3), R.standard_normal(3)]),
    "softmax": (softmax_rows, [R.standard_normal((2, 4))]),
    "indexing_and_linalg": (indexing_and_linalg, [R.standard_normal(3),
                                                  R.standard_normal((3, 3))]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_forward_mode_orders_1_and_2(name):
    f, args = PROGRAMS[name]
    check_jvps(f, args, order=2)


def test_check_jvps_catches_a_wrong_jvp():
    # the checker must be able to fail: a function whose forward-mode tangent is cut
    # (stop_gradient) while its values still move under finite differences
    with pytest.raises(AssertionError):
        check_jvps(lambda x: fe.stop_gradient(x) * x, [np.array([1.0, 2.0])], order=1)


@pytest.mark.parametrize("name", ["one_argument", "several_arguments", "softmax"])
def test_jvps_equal_autograds_make_jvp(name):
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    sources = {
        "one_argument": lambda m: (lambda x: m.sin(x) * m.cos(x) ** 2),
        "several_arguments": lambda m: (lambda w, x: 1 / (1 + m.exp(-m.dot(x, w)))),
        "softmax": lambda m: (lambda z: m.exp(z - m.max(z, axis=1, keepdims=True))
                              / m.sum(m.exp(z - m.max(z, axis=1, keepdims=True)), axis=1,
                                      keepdims=True)),
    }
    args = PROGRAMS[name][1]
    rng = np.random.default_rng(1)
    v = rng.standard_normal(args[0].shape)
    _, theirs = autograd.make_jvp(sources[name](anp), 0)(*args)(v)
    tangents = [fnp.asarray(v)] + [fnp.zeros(a.shape) for a in args[1:]]
    _, ours = fe.autodiff.jvp(sources[name](fnp), [fnp.asarray(a) for a in args], tangents)
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-12, atol=1e-14)
