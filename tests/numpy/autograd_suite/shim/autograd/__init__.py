"""A stand-in for the ``autograd`` package, so that HIPS autograd's own test files run
against fasteager: ``autograd.numpy`` (and its ``random``, ``linalg``, ``fft``) is
``fasteager.numpy`` (plus the few helpers autograd adds there, see ``numpy/``);
``grad``, ``value_and_grad`` and ``test_util.check_grads`` are built on
``fe.GradientTape`` and ``fe.autodiff.jvp``. See ``../run.py``."""
import builtins

import fasteager as fe
import fasteager.numpy as _fnp

from . import numpy  # noqa: F401

tuple = builtins.tuple       # autograd's differentiable tuple: a plain tuple here


def _argnums(argnum):
    return (argnum,) if isinstance(argnum, int) else builtins.tuple(argnum)


def _conj(g, x):
    # autograd's gradient of a real function of complex x is the conjugate of
    # TensorFlow's (docs/numpy.md); its tests compare with autograd's convention
    return _fnp.conj(g) if _fnp.iscomplexobj(x) else g


def value_and_grad(fun, argnum=0):
    # values stay tensors, so that a gradient can be differentiated again (d_fun in the
    # tests is grad(fun) checked by check_grads)
    def wrapped(*args, **kwargs):
        args = list(args)
        nums = _argnums(argnum)
        xs = [_fnp.asarray(args[i]) for i in nums]
        for i, x in zip(nums, xs):
            args[i] = x
        with fe.GradientTape() as tape:
            tape.watch(xs)
            y = fun(*args, **kwargs)
        grads = tape.gradient(y, xs, unconnected_gradients="zero")
        grads = [_conj(g, x) for g, x in zip(grads, xs)]
        out = grads[0] if isinstance(argnum, int) else builtins.tuple(grads)
        return y, out
    return wrapped


def grad(fun, argnum=0):
    vg = value_and_grad(fun, argnum)
    return lambda *args, **kwargs: vg(*args, **kwargs)[1]


def elementwise_grad(fun, argnum=0):
    return grad(lambda *a, **k: _fnp.sum(fun(*a, **k)), argnum)
