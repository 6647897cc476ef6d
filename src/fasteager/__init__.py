"""fasteager: eager-execution automatic differentiation and deep learning on NumPy.

``import fasteager as tf`` runs TensorFlow-2 eager code; see README.md for a tour.
This module only re-exports the public names.
"""
import importlib as _importlib
import os as _os
import warnings as _warnings

# Our Cython kernels' OpenMP threads must not spin-wait between parallel loops: on small
# machines the spinning starves OpenBLAS's threads (measured: 2x slower convnet steps).
# libgomp reads OMP_WAIT_POLICY once, when it loads (with _kernels and _graph, which link
# it, just below), so the default is in the environment only for that import: afterwards
# the environment is the user's again. The runtime that reads it is fasteager's own copy
# of libgomp (libgomp.fe.1, made at build time by build_tools/private_openmp.py), so the
# setting stays fasteager's: PyTorch, which ships libgomp.so.1, loads and configures its
# own, whether it is imported before or after us. A user's OMP_WAIT_POLICY wins.
_wait_policy_default = "OMP_WAIT_POLICY" not in _os.environ
if _wait_policy_default:
    _os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
try:
    from . import _core, _graph, _kernels  # noqa: F401,E402  (load libgomp)
finally:
    if _wait_policy_default:
        del _os.environ["OMP_WAIT_POLICY"]

from ._version import __version__  # noqa: F401,E402
from . import _version as version  # noqa: F401,E402 - tf.version.VERSION

from . import dtypes, errors  # noqa: F401
from ._core import Tensor, convert_to_tensor  # noqa: F401
from ._core import get_tracer as _core_get_tracer
from .dtypes import (DType, as_dtype, bool, complex64, complex128, double, float16,  # noqa: F401
                     float32, float64, half, int8, int16, int32, int64, uint8, uint16, uint32,
                     uint64)
from .tensor_shape import TensorShape  # noqa: F401
from . import ops as _ops  # noqa: F401 - builds the op table
from .ops.array_ops import (broadcast_to, concat, constant, expand_dims, eye, fill,  # noqa: F401
                            identity, linspace, ones, ones_like, range, rank, reshape, shape,
                            size, split, squeeze, stack, stop_gradient, transpose, unstack,
                            zeros, zeros_like)
from .ops.elementwise_ops import (abs, add, add_n, cast, ceil, clip_by_value, cos,  # noqa: F401
                                  divide, equal, exp, expm1, floor, floordiv, floormod, greater,
                                  greater_equal, is_finite, is_inf, is_nan, less, less_equal, log,
                                  log1p, logical_and, logical_not, logical_or, logical_xor,
                                  maximum, minimum, mod, multiply, negative, not_equal, pow,
                                  reciprocal, round, rsqrt, sigmoid, sign, sin, sqrt, square,
                                  squared_difference, subtract, tan, tanh, truediv, where)
from .ops.reduction_ops import (argmax, argmin, clip_by_norm, reduce_all, reduce_any,  # noqa: F401
                                reduce_max, reduce_mean, reduce_min, reduce_sum)
from .ops.linalg_ops import matmul  # noqa: F401
from .ops.reduction_ops import cumprod, cumsum, reduce_logsumexp, reduce_prod  # noqa: F401
from .ops.elementwise_ops import complex  # noqa: F401,A004 - tf.complex
from .ops.indexing_ops import (boolean_mask, gather, gather_nd, meshgrid, repeat,  # noqa: F401
                               reverse, scatter_nd, slice, strided_slice)
from .ops.array_ops import one_hot, pad, tile  # noqa: F401
from .ops.indexing_ops import (tensor_scatter_nd_add, tensor_scatter_nd_max,  # noqa: F401
                               tensor_scatter_nd_min, tensor_scatter_nd_sub,
                               tensor_scatter_nd_update)
from .ops.linalg_ops import einsum, norm, tensordot  # noqa: F401
from .ops.elementwise_ops import (acos, acosh, asin, asinh, atan, atan2, atanh, cosh,  # noqa: F401
                                  sinh)
from .ops.sort_ops import argsort, sort  # noqa: F401
from .ops.special_ops import erf  # noqa: F401
from ._src.state.variables import Variable  # noqa: F401
from .autodiff import (GradientTape, UnconnectedGradients, custom_gradient,  # noqa: F401
                       gradients_function, implicit_gradients, implicit_value_and_gradients,
                       value_and_gradients_function)
from ._src.state.placement import device  # noqa: F401
from ._src.state import placement as _placement
from ._src.state.module import Module, name_scope  # noqa: F401
from ._src.composite.tensor_array import TensorArray  # noqa: F401
from ._src.tracing.py_function import init_scope, py_function  # noqa: F401
from ._src.tracing.function import function, TensorSpec  # noqa: F401,A001
from ._src.tracing.printing import print_ as print  # noqa: F401,A001
from . import compat, config, math, nest, nn, random  # noqa: F401
from . import debugging, linalg  # noqa: F401
from . import data, profiler, summary, train  # noqa: F401
from . import image, io, ragged, sparse, strings  # noqa: F401
from . import bitwise, signal  # noqa: F401
from . import numpy as _numpy  # noqa: F401 - installs Tensor's NumPy-style methods
from .dtypes import string  # noqa: F401
from .ragged import RaggedTensor, RaggedTensorSpec  # noqa: F401
from ._src.tracing.functional import map_fn  # noqa: F401
from ._src.tracing.control_flow import cond, while_loop  # noqa: F401
from . import autograph  # noqa: F401
from . import types  # noqa: F401
from .sparse import SparseTensor, SparseTensorSpec  # noqa: F401
from . import experimental  # noqa: F401,E402
from ._src.composite.extension_type import type_spec_from_value  # noqa: F401,E402
from ._src.autodiff.gradients import AggregationMethod, gradients, hessians  # noqa: F401,E402
from ._src.composite.fingerprint import fingerprint  # noqa: F401,E402
from ._src.composite.indexed_slices import IndexedSlices, is_tensor  # noqa: F401,E402
from ._src.composite.strings import as_string  # noqa: F401,E402
from ._src.composite.type_spec import TypeSpec  # noqa: F401,E402
from ._src.state.scopes import get_current_name_scope  # noqa: F401,E402
from ._src.state.variable_options import (VariableAggregation,  # noqa: F401,E402
                                          VariableSynchronization)
from ._src.tracing.control_deps import control_dependencies, group, no_op, tuple  # noqa: F401,A004,E402,E501
from ._src.tracing.host_functions import numpy_function, timestamp  # noqa: F401,E402
from ._src.tracing.introspection import (get_static_value, inside_function,  # noqa: F401,E402
                                         is_symbolic_tensor)
from .ops.array_ops import (broadcast_dynamic_shape, broadcast_static_shape,  # noqa: F401,E402
                            ensure_shape, identity_n, saturate_cast, shape_n)
from .ops.elementwise_ops import realdiv, scalar_mul, truncatediv, truncatemod  # noqa: F401,E402
from .ops.indexing_ops import dynamic_partition, dynamic_stitch, unravel_index  # noqa: F401,E402
from .ops.reduction_ops import clip_by_global_norm  # noqa: F401,E402
from .ops.segment_ops import histogram_fixed_width, histogram_fixed_width_bins  # noqa: F401,E402
from .ops.sequence_ops import (batch_to_space, parallel_stack, reverse_sequence,  # noqa: F401,E402
                               roll, sequence_mask, space_to_batch, space_to_batch_nd)
from .ops.sort_ops import searchsorted, unique, unique_with_counts  # noqa: F401,E402
from ._src.autodiff.wrappers import grad_pass_through, recompute_grad  # noqa: F401,E402
from ._src.initializers import (constant_initializer, ones_initializer,  # noqa: F401,E402
                                random_normal_initializer, random_uniform_initializer,
                                zeros_initializer)
from ._src.tracing.functional import (case, foldl, foldr, scan, switch_case,  # noqa: F401,E402
                                      vectorized_map)

newaxis = None


def executing_eagerly():
    """True, except while ``fe.function`` traces a Python function."""
    return _core_get_tracer() is None


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Accepted for 2017-style programs; eager execution is always on."""


def get_logger():
    import logging
    return logging.getLogger("fasteager")


# Heavy parts load on first use (``fe.keras``, ``fe.saved_model``, ...), so ``import
# fasteager`` pays for the core, the ops and the engine only. TensorFlow 2's short names
# for Keras's namespaces (``tf.losses`` is ``tf.keras.losses``; ``tf.layers`` is the 2017
# name of ``tf.keras.layers``) are aliases of the same modules.
_LAZY = {
    "keras": "fasteager.keras",
    "saved_model": "fasteager.saved_model",
    "distribute": "fasteager.distribute",
    "cuda": "fasteager.cuda",
    "bench": "fasteager.bench",
    "initializers": "fasteager.keras.initializers",
    "losses": "fasteager.keras.losses",
    "metrics": "fasteager.keras.metrics",
    "optimizers": "fasteager.keras.optimizers",
    "layers": "fasteager.keras.layers",
}

# Module paths that moved (old attribute -> new module): the old name still works for one
# release and warns (DeprecationWarning).
_DEPRECATED = {
    "control_flow": "fasteager._src.tracing.control_flow",
    "graph_view": "fasteager._src.tracing.graph_view",
    "forward": "fasteager._src.autodiff.forward",
    "variables": "fasteager._src.state.variables",
    "module": "fasteager._src.state.module",
    "placement": "fasteager._src.state.placement",
    "extension_type": "fasteager._src.composite.extension_type",
    "tensor_array": "fasteager._src.composite.tensor_array",
    # fasteager.function and fasteager.py_function were modules too, but those names are
    # TensorFlow's tf.function and tf.py_function, which the package exports: they stay
    # the functions (and `import fasteager.function` no longer gives a module)
}


def __getattr__(name):
    target = _LAZY.get(name)
    if target is not None:
        module = _importlib.import_module(target)
        globals()[name] = module     # later reads are plain attribute reads
        return module
    target = _DEPRECATED.get(name)
    if target is not None:
        _warnings.warn("fasteager.%s is deprecated and will be removed in the next release: "
                       "it moved to %s, which is private; use the names fasteager exports"
                       % (name, target), DeprecationWarning, stacklevel=2)
        return _importlib.import_module(target)
    raise AttributeError("module 'fasteager' has no attribute %r" % (name,))


def _load_gpu_backend():
    """The device layer's GPU backend, fasteager.cuda: loaded on the first op, never at
    import (it is heavy and optional)."""
    from . import cuda
    return cuda


_placement.set_gpu_backend_loader(_load_gpu_backend)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
