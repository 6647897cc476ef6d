"""Keras 3's augmentation policies RandAugment and AugMix against values recorded from
Keras 3.15.1 by tests/tf_reference/record_k34_augmix.py.

Config and inference-mode output (the input, cast) are compared with Keras's. RandAugment
with an integer seed draws its op indices and every sub-layer's parameters from
SeedGenerator(seed) in Keras's order, so its first training call is compared with Keras's
output too. AugMix's values cannot be Keras's (its Dirichlet/Beta weights come from
fe.keras.random.gamma, not TensorFlow's sampler, and its picks from Python's global
``random``), so its training mode is checked by invariants: shape, dtype, value range,
seeded determinism, that it changed the input, and the blend with the input.
"""
import json
import random

import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

L = fe.keras.layers
REF = load("k34_augmix")
CASES = sorted(REF["cases"])
ERRORS = sorted(REF["errors"])


def _norm(v):
    """JSON form (tuples as lists), the auto-numbered name left out, the dtype policy by
    name."""
    v = json.loads(json.dumps(v))
    v.pop("name", None)
    if isinstance(v.get("dtype"), dict):
        v["dtype"] = v["dtype"]["config"]["name"]
    return v


def _train(case, python_seed=0):
    random.seed(python_seed)
    layer = getattr(L, case["cls"])(**case["kwargs"])
    return layer(np.array(case["x"], case["dtype"]))


def test_recorded_with_keras_3_15_1():
    assert REF["keras"] == "3.15.1"


@pytest.mark.parametrize("key", CASES)
def test_config_matches_keras(key):
    case = REF["cases"][key]
    cls = getattr(L, case["cls"])
    config = dict(case["config"])
    assert _norm(cls(**case["kwargs"]).get_config()) == _norm(config)
    again = cls.from_config(config)
    assert _norm(again.get_config()) == _norm(config)
    back = L.deserialize(L.serialize(again))
    assert type(back) is cls and _norm(back.get_config()) == _norm(config)


@pytest.mark.parametrize("key", CASES)
def test_inference_matches_keras(key):
    case = REF["cases"][key]
    layer = getattr(L, case["cls"]).from_config(dict(case["config"]))
    x = np.array(case["x"], case["dtype"])
    y = layer(x, training=False)
    assert y.dtype.name == case["infer_dtype"]
    np.testing.assert_array_equal(y.numpy(), np.array(case["infer"], case["infer_dtype"]))
    np.testing.assert_array_equal(y.numpy(), x)


@pytest.mark.parametrize("key", [k for k in CASES if k.startswith("randaugment")])
def test_randaugment_training_matches_keras(key):
    case = REF["cases"][key]
    y = _train(case)
    want = np.array(case["train"], case["train_dtype"])
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-4 * want.max())


@pytest.mark.parametrize("key", CASES)
def test_training_invariants(key):
    case = REF["cases"][key]
    x = np.array(case["x"], case["dtype"])
    y = _train(case)
    assert tuple(y.shape) == x.shape
    assert y.dtype.name == case["train_dtype"]
    low, high = case["kwargs"].get("value_range", (0, 255))
    tol = 1e-4 * (high - low)
    assert float(np.min(y.numpy())) >= low - tol and float(np.max(y.numpy())) <= high + tol
    assert not np.allclose(y.numpy(), x)
    np.testing.assert_array_equal(_train(case).numpy(), y.numpy())   # same seeds, same draws
    # Keras's too: within the range and changed
    want = np.array(case["train"], case["train_dtype"])
    assert want.shape == x.shape and not np.allclose(want, x)


def test_augmix_blends_input_with_the_chains():
    """With every pick "no op" (chain_depth 0) each chain is the input, so the blend is
    the input itself; with ops it is w x + (1 - w) sum_i m_i chain_i with m on the
    simplex."""
    x = (np.random.default_rng(1).random((2, 6, 6, 3)) * 255).astype("float32")
    same = L.AugMix(chain_depth=0, seed=3)(x)
    np.testing.assert_allclose(same.numpy(), x, rtol=1e-5, atol=1e-3)
    layer = L.AugMix(seed=3)
    change = layer.get_random_transformation(x)
    weights = change["chain_mixing_weights"].numpy()
    assert weights.shape == (3,) and np.all(weights >= 0)
    np.testing.assert_allclose(weights.sum(), 1.0, rtol=1e-5)
    assert 0.0 <= float(change["weight_sample"]) <= 1.0
    assert len(change["chain_transforms"]) == 3
    assert all(len(chain) <= 3 for chain in change["chain_transforms"])


def test_augmix_base_ops_leave_out_colour_layers():
    layer = L.AugMix(all_ops=False, seed=1)
    assert not hasattr(layer, "random_brightness") and not hasattr(layer, "random_sharpness")
    random.seed(0)
    for _ in range(5):
        for chain in layer.get_random_transformation(np.zeros((1, 4, 4, 3), "float32"))[
                "chain_transforms"]:
            assert all(name not in ("random_brightness", "random_color_degeneration",
                                    "random_contrast", "random_sharpness")
                       for name, _ in chain)


def test_sub_layers_take_the_policy_strength():
    layer = L.RandAugment(factor=0.6, value_range=(0, 1), seed=2)
    assert layer.random_rotation.factor == (0, 0.6)
    assert layer.random_posterization.factor == (1, 4)     # bits max(1, int(8 * 0.6))
    assert layer.solarization.addition_factor == (0, 0.6)
    assert list(layer.equalization.value_range) == [0, 1]


def test_dict_input_keeps_labels():
    x = (np.random.default_rng(2).random((2, 6, 6, 3)) * 255).astype("float32")
    labels = np.array([[1.0, 0.0], [0.0, 1.0]], "float32")
    for cls in (L.RandAugment, L.AugMix):
        out = cls(seed=4)({"images": x, "labels": labels})
        assert tuple(out["images"].shape) == x.shape
        np.testing.assert_array_equal(out["labels"].numpy(), labels)


@pytest.mark.parametrize("key", ERRORS)
def test_argument_errors_match_keras(key):
    case = REF["errors"][key]
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}
    with pytest.raises(getattr(__builtins__, case["error"], None) or ValueError) as info:
        getattr(L, case["cls"])(**kwargs)
    assert type(info.value).__name__ == case["error"]
    assert str(info.value) == case["message"]
