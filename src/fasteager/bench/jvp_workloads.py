"""The forward-mode workload: the JVP of a NumPy program, written once against a NumPy
namespace and run by fasteager (``fasteager.numpy`` + ``fe.autodiff.jvp``), JAX
(``jax.numpy`` + ``jax.jvp``, op by op as eager code runs, no ``jit``) and HIPS autograd
(``autograd.numpy`` + ``make_jvp``).

Importing this module registers the workload with ``workloads`` (the runner's list).
"""
import numpy as np

from .workloads import _fasteager, workload

jvp_mlp = workload("jvp_numpy_mlp", "JVP of a NumPy-style 3-layer tanh MLP w.r.t. its input "
                   "(batch 32, width 64; quick: width 16), one tangent")


def _sizes(quick):
    return (32, 16) if quick else (32, 64)


def _program(xp, params, x):
    """The NumPy program: tanh layers, then a per-example squared norm."""
    h = x
    for w, b in params:
        h = xp.tanh(xp.dot(h, w) + b)
    return xp.sum(h * h, axis=1)


def _data(quick):
    batch, width = _sizes(quick)
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((width, width)) / np.sqrt(width),
               rng.standard_normal(width) * 0.1) for _ in range(3)]
    x = rng.standard_normal((batch, width))
    v = rng.standard_normal((batch, width))
    return params, x, v


@jvp_mlp.entry("fasteager")
def _(quick):
    fe = _fasteager()
    fnp = fe.numpy
    params, x, v = _data(quick)
    params = [(fnp.asarray(w), fnp.asarray(b)) for w, b in params]
    x, v = fnp.asarray(x), fnp.asarray(v)

    def run():
        return fe.autodiff.jvp(lambda a: _program(fnp, params, a), (x,), (v,))
    return run


@jvp_mlp.entry("jax")
def _(quick):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)     # the same float64 program
    params, x, v = _data(quick)
    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params]
    x, v = jnp.asarray(x), jnp.asarray(v)

    def run():
        _, tangent = jax.jvp(lambda a: _program(jnp, params, a), (x,), (v,))
        return tangent.block_until_ready()
    return run


@jvp_mlp.entry("autograd")
def _(quick):
    import autograd
    import autograd.numpy as anp
    params, x, v = _data(quick)
    jvp = autograd.make_jvp(lambda a: _program(anp, params, a))

    def run():
        return jvp(x)(v)
    return run
