"""The op table. Importing this package defines every op and hands the core its operators.

Modules hold one topic each and import only downward, in the order below: ``registry``
(``defop`` and the helpers every op uses), then elementwise math, arrays, reductions,
indexing, segment sums, order, special functions, sequences, linear algebra (products,
decompositions, matrix functions), convolution, pooling, neural-network ops,
normalization, random, attention, FFT and signal processing, RNN and image ops. When this
package has finished importing, the table is complete and closed (``registry.close``).
"""
import importlib as _importlib
import types as _types
import warnings as _warnings

from .. import _core
from . import registry
from . import elementwise_ops, array_ops, reduction_ops, indexing_ops  # noqa: F401
from . import segment_ops, sort_ops, special_ops, sequence_ops  # noqa: F401
from . import linalg_ops, decomposition_ops, matrix_ops  # noqa: F401
from . import conv_ops, pool_ops, nn_ops, norm_ops  # noqa: F401
from . import random_ops, attention_ops, fft_ops, signal_ops, rnn_ops  # noqa: F401
from . import image_box_ops, image_color_ops, image_ops  # noqa: F401
from .registry import NO_GRADIENT, OPS  # noqa: F401

registry.close()
_core.set_core_ops(OPS)
# Tensor's methods built on ops (NumPy-style ones come from fasteager.numpy)
_core.set_array_methods({"T": array_ops.transpose, "astype": elementwise_ops.cast,
                         "reshape": array_ops.reshape, "real": elementwise_ops.real,
                         "imag": elementwise_ops.imag, "conj": elementwise_ops.conj})

# Old module names (by arrival) kept for one release: each maps to the topic modules that
# now hold its functions, searched in order.
_DEPRECATED = {
    "math_ops": ("elementwise_ops", "reduction_ops", "linalg_ops", "nn_ops"),
    "more_math_ops": ("segment_ops", "reduction_ops", "elementwise_ops", "sort_ops",
                      "indexing_ops", "special_ops"),
    "more_nn_ops": ("conv_ops", "pool_ops", "nn_ops", "norm_ops", "sequence_ops"),
    "more_special_ops": ("special_ops",),
}
_shims = {}
# ops/functional_ops.py (map_fn: control flow, not an op) moved up to the tracing layer;
# it is looked up by name here (the op table imports nothing above it)
_MOVED_UP = {"functional_ops": "fasteager._src.tracing.functional"}


def __getattr__(name):
    if name in _MOVED_UP:
        _warnings.warn("fasteager.ops.%s is deprecated and will be removed in the next "
                       "release; use fasteager.map_fn (now in %s, private)"
                       % (name, _MOVED_UP[name]), DeprecationWarning, stacklevel=2)
        return _importlib.import_module(_MOVED_UP[name])
    if name not in _DEPRECATED:
        raise AttributeError("module 'fasteager.ops' has no attribute %r" % name)
    homes = _DEPRECATED[name]
    _warnings.warn("fasteager.ops.%s is deprecated and will be removed in the next release; "
                   "its functions are in fasteager.ops.%s" % (name, ", fasteager.ops.".join(homes)),
                   DeprecationWarning, stacklevel=2)
    shim = _shims.get(name)
    if shim is None:
        shim = _types.ModuleType("fasteager.ops." + name, "Deprecated: see " + ", ".join(homes))
        for home in reversed(homes):    # the first module listed wins a shared name
            module = _importlib.import_module("." + home, __name__)
            shim.__dict__.update({k: v for k, v in vars(module).items()
                                  if not k.startswith("__")})
        _shims[name] = shim
    return shim
