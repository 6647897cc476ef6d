"""Check gradients against central finite differences, at orders 1 and 2.

``check_grads(f, args)`` compares, for a random cotangent ``v``, the tape's vector-Jacobian
product ``v^T J`` with the finite-difference derivative of ``<v, f(x)>``; at order 2 it
does the same for the scalar function ``h(x) = <u, grad <v, f(x)>>`` computed with nested
tapes, so second derivatives are checked through the recorded backward pass.
"""
import numpy as np

import fasteager as fe

EPS = 1e-6


def _scalar_fn(f, vs):
    def g(*xs):
        outs = f(*xs)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        total = None
        for o, v in zip(outs, vs):
            term = fe.reduce_sum(o * v)
            total = term if total is None else total + term
        return total
    return g


def _numeric_grad(fn, arrays):
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        flat = a.reshape(-1)
        gflat = g.reshape(-1)
        for k in range(flat.size):
            old = flat[k]
            flat[k] = old + EPS
            hi = float(fn(*[fe.constant(x) for x in arrays]))
            flat[k] = old - EPS
            lo = float(fn(*[fe.constant(x) for x in arrays]))
            flat[k] = old
            gflat[k] = (hi - lo) / (2 * EPS)
        grads.append(g)
    return grads


def _tape_grad(fn, tensors):
    with fe.GradientTape() as tape:
        tape.watch(tensors)
        y = fn(*tensors)
    return tape.gradient(y, tensors)


def _compare(analytic, numeric, what, rtol, atol):
    for i, (a, n) in enumerate(zip(analytic, numeric)):
        a = np.zeros_like(n) if a is None else np.asarray(a)
        assert a.shape == n.shape, "%s: gradient %d has shape %s (expected %s)" % (
            what, i, a.shape, n.shape)
        np.testing.assert_allclose(a, n, rtol=rtol, atol=atol,
                                   err_msg="%s: gradient of input %d" % (what, i))


def check_grads(f, args, order=2, rtol=1e-4, atol=1e-5, seed=0):
    """Assert the gradients of ``f`` at float64 ``args`` match finite differences."""
    rng = np.random.default_rng(seed)
    arrays = [np.array(a, dtype=np.float64) for a in args]
    outs = f(*[fe.constant(a) for a in arrays])
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    vs = [fe.constant(rng.standard_normal(np.shape(o))) for o in outs]
    g = _scalar_fn(f, vs)
    analytic = _tape_grad(g, [fe.constant(a) for a in arrays])
    _compare(analytic, _numeric_grad(g, arrays), "order 1", rtol, atol)
    if order >= 2:
        us = [fe.constant(rng.standard_normal(a.shape)) for a in arrays]

        def h(*xs):
            grads = _tape_grad(g, list(xs))
            total = fe.constant(0.0, dtype=fe.float64)
            for gr, u in zip(grads, us):
                if gr is not None:
                    total = total + fe.reduce_sum(gr * u)
            return total
        analytic2 = _tape_grad(h, [fe.constant(a) for a in arrays])
        _compare(analytic2, _numeric_grad(h, arrays), "order 2", rtol * 10, atol * 10)
