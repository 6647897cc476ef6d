"""The op table. Importing this package defines every op and hands the core its operators."""
from .. import _core
from . import array_ops, math_ops, nn_ops, random_ops  # noqa: F401 - defines the ops
from . import attention_ops, fft_ops, linalg_ops, special_ops  # noqa: F401
from . import norm_ops, rnn_ops  # noqa: F401
from . import image_box_ops, image_color_ops, image_ops  # noqa: F401
from .registry import NO_GRADIENT, OPS

_core.set_core_ops(OPS)
# Tensor's methods built on ops (NumPy-style ones come from fasteager.numpy)
_core.set_array_methods({"T": array_ops.transpose, "astype": math_ops.cast,
                         "reshape": array_ops.reshape, "real": math_ops.real,
                         "imag": math_ops.imag, "conj": math_ops.conj})
