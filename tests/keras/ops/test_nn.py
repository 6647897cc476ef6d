"""keras.ops.nn against Keras 3.15.1's values, dtypes, shapes, gradients and error classes,
recorded by tests/tf_reference/record_kops_nn.py (one test per function)."""
import json
import pathlib

import pytest

import fasteager as fe
from fasteager.keras.ops import nn
from tests.keras.ops._nn_image_replay import check_all
from tests.tf_reference import load

REF = load("kops_nn")
NAMES = json.loads((pathlib.Path(__file__).resolve().parents[3] / "tests" / "tf_reference"
                    / "kops_nn.json").read_text()).keys()
KERAS_NN = sorted(NAMES)

# convolutions and attention sum many float32 products: TensorFlow's order differs
LOOSE = {"conv", "conv_transpose", "depthwise_conv", "separable_conv", "dot_product_attention",
         "ctc_loss", "psnr", "fold", "adaptive_average_pool", "average_pool"}


# recorded cases fasteager does not match yet: {name: {case index: why}}; each must still
# fail (check_all says so when one starts passing, so the entry can go)
KNOWN = {
    "ctc_decode": {10: "beam search with mask_index=-1: Keras's slicing duplicates every class "
                       "but the blank, so paths tie exactly; TensorFlow's heap (gtl::TopN) "
                       "orders the tied beams in an order not reproduced here"},
}


@pytest.mark.parametrize("name", KERAS_NN)
def test_matches_keras(name):
    tol = {"rtol": 1e-4, "atol": 1e-4} if name in LOOSE else {}
    tol["known"] = KNOWN.get(name, {})
    if name == "ctc_loss":
        tol["f64_like_f32"] = True
    check_all(getattr(nn, name), REF[name], name, **tol)


def test_every_name_in_its_namespaces():
    assert sorted(nn.__all__) == KERAS_NN
    assert len(KERAS_NN) == 55
    for name in KERAS_NN:
        f = getattr(nn, name)
        assert getattr(fe.keras.ops, name) is f, name
        assert getattr(fe.keras.ops.nn, name) is f, name
