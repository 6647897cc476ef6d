"""Op-table specs of the ``fe.image`` ops (loaded by tests/ops/op_specs.py).

adjust_contrast has no gradient in TensorFlow (AdjustContrastv2 is not in its gradient
registry): the op-table test checks that a tape through it raises LookupError."""
import numpy as np

import fasteager as fe
from fasteager import image
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import Spec


def _ref_adjust_contrast(x, factor):
    mean = x.mean(axis=(x.ndim - 3, x.ndim - 2), keepdims=True)
    return ((x - mean) * factor + mean).astype(x.dtype)


AREA_SPECS = {
    "adjust_contrast": Spec(lambda x, f: execute(image.adjust_contrast_op, x, f),
                            _ref_adjust_contrast, grad=False,
                            cases=[((2, 3, 4), ()), ((2, 1, 2, 3), ()), ((1, 1, 1), ())]),
}
