"""keras.ops.image against Keras 3.15.1's values, dtypes, shapes, gradients and error
classes, recorded by tests/tf_reference/record_kops_image.py (one test per function)."""
import pytest

import fasteager as fe
from fasteager.keras.ops import image
from tests.keras.ops._nn_image_replay import check_all
from tests.tf_reference import load

REF = load("kops_image")
KERAS_IMAGE = sorted(REF)

# resampling and filters sum many float32 products in another order than TensorFlow's
TOL = {"rtol": 1e-4, "atol": 1e-4}

# recorded cases fasteager does not match yet: {name: {case index: why}}; each must still
# fail (check_all says so when one starts passing, so the entry can go)
KNOWN = {
    "resize": {21: "fe.image.resize's bilinear upsampling of uint8 gives 233.49998 where "
                   "TensorFlow's kernel gives 233.5 (one float32 ulp), so Keras's round "
                   "then saturate_cast lands one lower at one pixel"},
    "rgb_to_hsv": {6: "a pixel whose red and blue tie (0.297 in float16): fe.image.rgb_to_hsv's "
                      "gradient sends the tied minimum's share to other channels than "
                      "TensorFlow's RGBToHSV gradient does"},
}


@pytest.mark.parametrize("name", KERAS_IMAGE)
def test_matches_keras(name):
    # these compute in float32 whatever the input (TensorFlow's resize and projective
    # transform kernels, fasteager's colour conversions), so a float64 result carries
    # float32 rounding
    f32 = name in ("resize", "rgb_to_hsv", "hsv_to_rgb", "affine_transform",
                   "perspective_transform")
    check_all(getattr(image, name), REF[name], name, f64_like_f32=f32,
              known=KNOWN.get(name, {}), **TOL)


def test_every_name_in_its_namespace():
    assert sorted(image.__all__) == KERAS_IMAGE
    assert len(KERAS_IMAGE) == 16
    for name in KERAS_IMAGE:
        assert getattr(fe.keras.ops.image, name) is getattr(image, name), name
