"""autograd's ``check_grads`` over fasteager: reverse mode is ``GradientTape.gradient``
with ``output_gradients`` (TensorFlow's convention for complex values: the adjoint of the
real-linear derivative), forward mode is ``fe.autodiff.jvp``; both are checked against
central differences through the real inner product ``Re <a, b>``, and at order 2 the
derivative maps themselves are checked the same way (as autograd's own check_grads)."""
from itertools import product

import numpy as onp

import fasteager as fe
import fasteager.numpy as fnp
from fasteager import nest

TOL = 1e-6
RTOL = 1e-6
EPS = 1e-6


def scalar_close(a, b):
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def _arrays(value):
    return [onp.asarray(v) for v in nest.flatten(value)]


def _randn(value):
    out = []
    for a in _arrays(value):
        r = onp.random.randn(*a.shape)
        if onp.iscomplexobj(a):
            r = r + 1j * onp.random.randn(*a.shape)
        out.append(r)
    return out


def _inner(xs, ys):
    return sum(float(onp.real(onp.vdot(onp.asarray(x), onp.asarray(y))))
               for x, y in zip(xs, ys))


def _shift(xs, vs, c):
    return [x + c * v for x, v in zip(xs, vs)]


def _numerical_jvp(f, xs, vs):
    plus = _arrays(f(*[fnp.asarray(x) for x in _shift(xs, vs, EPS / 2)]))
    minus = _arrays(f(*[fnp.asarray(x) for x in _shift(xs, vs, -EPS / 2)]))
    return [(p - m) / EPS for p, m in zip(plus, minus)]


def _check_vjp(f, xs):
    ts = [fnp.asarray(x) for x in xs]
    with fe.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    ys = nest.flatten(y)
    u = _randn(ys)
    grads = tape.gradient(ys, ts, output_gradients=[fnp.asarray(a) for a in u],
                          unconnected_gradients="zero")
    v = _randn(xs)
    for g, x in zip(grads, xs):
        assert onp.shape(g) == onp.shape(x), "gradient shape %s for input %s" % (
            onp.shape(g), onp.shape(x))
    exact = _inner(v, [onp.asarray(g) for g in grads])
    numeric = _inner(u, _numerical_jvp(f, xs, v))
    assert scalar_close(numeric, exact), (
        "VJP check of %s failed:\nanalytic: %s\nnumeric:  %s"
        % (getattr(f, "__name__", f), exact, numeric))


def _check_jvp(f, xs):
    v = _randn(xs)
    _, tangent = fe.autodiff.jvp(f, [fnp.asarray(x) for x in xs], [fnp.asarray(a) for a in v])
    exact = _arrays(tangent)
    numeric = _numerical_jvp(f, xs, v)
    w = _randn(numeric)
    assert scalar_close(_inner(w, exact), _inner(w, numeric)), (
        "JVP check of %s failed" % getattr(f, "__name__", f))


def _vjp_map(f, n):
    """(x..., u...) -> the VJP of f at x for the output cotangents u."""
    def g(*args):
        xs, us = list(args[:n]), list(args[n:])
        with fe.GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        return tuple(tape.gradient(nest.flatten(y), xs, output_gradients=us,
                                   unconnected_gradients="zero"))
    return g


def _jvp_map(f, n):
    """(x..., v...) -> the JVP of f at x along v."""
    def g(*args):
        _, t = fe.autodiff.jvp(f, list(args[:n]), list(args[n:]))
        return t
    return g


def _check(f, xs, modes, order):
    if "fwd" in modes:
        _check_jvp(f, xs)
        if order > 1:
            _check(_jvp_map(f, len(xs)), xs + _randn(xs), modes, order - 1)
    if "rev" in modes:
        _check_vjp(f, xs)
        if order > 1:
            y = f(*[fnp.asarray(x) for x in xs])
            _check(_vjp_map(f, len(xs)), xs + _randn(nest.flatten(y)), modes, order - 1)


def check_grads(f, argnum=0, modes=("fwd", "rev"), order=2):
    nums = (argnum,) if isinstance(argnum, int) else tuple(argnum)

    def checker(*args, **kwargs):
        args = list(args)
        chosen = [args[i] for i in nums]      # each may be a list/tuple of arrays

        def of_xs(*xs):
            full = list(args)
            for i, x in zip(nums, nest.pack_sequence_as(chosen, list(xs))):
                full[i] = x
            return f(*full, **kwargs)
        xs = [onp.asarray(a, dtype=complex if onp.iscomplexobj(a) else float)
              for a in nest.flatten(chosen)]
        _check(of_xs, xs, modes, order)
    return checker


def combo_check(fun, *args, **kwargs):
    _check_grads = lambda f: check_grads(f, *args, **kwargs)

    def _combo_check(*args, **kwargs):
        kwarg_key_vals = [[(k, x) for x in xs] for k, xs in kwargs.items()]
        for _args in product(*args):
            for _kwargs in product(*kwarg_key_vals):
                _check_grads(fun)(*_args, **dict(_kwargs))
    return _combo_check
