"""Op-table specs of the ``fe.image`` ops (loaded by tests/ops/op_specs.py).

adjust_contrast, adjust_saturation and adjust_hue have no gradient in TensorFlow
(AdjustContrastv2, AdjustSaturation, AdjustHue are not in its gradient registry): the
op-table test checks that a tape through them raises LookupError. The saturation and hue
references go pixel by pixel through Python's colorsys (an independent HSV)."""
import colorsys

import numpy as np

from fasteager.ops import image_color_ops as image
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import Spec


def _ref_adjust_contrast(x, factor):
    mean = x.mean(axis=(x.ndim - 3, x.ndim - 2), keepdims=True)
    return ((x - mean) * factor + mean).astype(x.dtype)


def _per_pixel(x, fn):
    flat = x.reshape(-1, 3).astype(np.float64)
    out = np.array([colorsys.hsv_to_rgb(*fn(*colorsys.rgb_to_hsv(*p))) for p in flat])
    return out.reshape(x.shape).astype(x.dtype)


def _ref_adjust_saturation(x, factor):
    return _per_pixel(x, lambda h, s, v: (h, min(max(s * float(factor), 0.0), 1.0), v))


def _ref_adjust_hue(x, delta):
    return _per_pixel(x, lambda h, s, v: ((h + float(delta)) % 1.0, s, v))


def _unit(x):
    # images in (0, 1); the factor / delta in (0, 1) too
    return 1 / (1 + np.exp(-x))


_COLOUR_CASES = [((2, 3, 3), ()), ((2, 2, 4, 3), ()), ((1, 1, 3), ())]

AREA_SPECS = {
    # both kernels run in float32 (TensorFlow's kernels are float32 only)
    "adjust_saturation": Spec(lambda x, f: execute(image.adjust_saturation_op, x, f),
                              _ref_adjust_saturation, grad=False, cases=_COLOUR_CASES,
                              domain=_unit, rtol=2e-5),
    "adjust_hue": Spec(lambda x, d: execute(image.adjust_hue_op, x, d), _ref_adjust_hue,
                       grad=False, cases=_COLOUR_CASES, domain=_unit, rtol=2e-5),
    "adjust_contrast": Spec(lambda x, f: execute(image.adjust_contrast_op, x, f),
                            _ref_adjust_contrast, grad=False,
                            cases=[((2, 3, 4), ()), ((2, 1, 2, 3), ()), ((1, 1, 1), ())]),
}
