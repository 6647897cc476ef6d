"""Record Keras 3.15.1's augmentation policies RandAugment and AugMix (topic "k34_augmix").

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_k34_augmix.py
Each case: the layer's config, a fixed input, its inference-mode output (training=False)
and the training-mode output of a freshly built seeded layer (AugMix's picks come from
Python's global ``random``, so only its invariants are testable); ERRORS: the error class
and message Keras raises for bad arguments.
"""
import os
import random
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save

L = keras.layers


def _jsonable(v):
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    return v


def case(cls, kwargs, shape, scale=255.0, seed=0, dtype="float32"):
    rng = np.random.default_rng(seed)
    x = (rng.random(shape) * scale).astype(dtype)
    layer = getattr(L, cls)(**kwargs)
    infer = layer(x, training=False)
    random.seed(0)
    train = getattr(L, cls)(**kwargs)(x)
    return {"cls": cls, "kwargs": _jsonable(kwargs), "config": _jsonable(layer.get_config()),
            "x": x.tolist(), "dtype": dtype, "infer": np.asarray(infer).tolist(),
            "infer_dtype": str(infer.dtype.name), "train": np.asarray(train).tolist(),
            "train_dtype": str(train.dtype.name)}


def error(cls, kwargs):
    try:
        getattr(L, cls)(**kwargs)
    except Exception as e:  # noqa: BLE001 (recording whatever Keras raises)
        return {"cls": cls, "kwargs": _jsonable(kwargs), "error": type(e).__name__,
                "message": str(e)}
    raise AssertionError(f"Keras accepted {cls}({kwargs})")


CASES = {
    "randaugment_default": case("RandAugment", {"seed": 3}, (2, 8, 8, 3)),
    "randaugment_unit": case("RandAugment", {"value_range": (0, 1), "num_ops": 3,
                                             "factor": 0.8, "seed": 5}, (2, 7, 6, 3),
                             scale=1.0),
    "randaugment_pair_nearest": case("RandAugment", {"factor": (0.2, 0.6),
                                                     "interpolation": "nearest",
                                                     "seed": 7}, (3, 6, 6, 3)),
    "randaugment_single": case("RandAugment", {"num_ops": 1, "seed": 9}, (6, 5, 3)),
    "randaugment_cf": case("RandAugment", {"num_ops": 3, "factor": 0.7, "seed": 11,
                                           "data_format": "channels_first"}, (2, 3, 7, 6)),
    "randaugment_uint8": case("RandAugment", {"seed": 12}, (2, 6, 6, 3), dtype="uint8"),
    "augmix_default": case("AugMix", {"seed": 3}, (2, 8, 8, 3)),
    "augmix_unit_base_ops": case("AugMix", {"value_range": (0, 1), "num_chains": 2,
                                            "chain_depth": 2, "factor": 0.5, "alpha": 0.5,
                                            "all_ops": False, "seed": 4}, (2, 7, 6, 3),
                                 scale=1.0),
    "augmix_pair_nearest": case("AugMix", {"factor": (0.1, 0.4), "interpolation": "nearest",
                                           "seed": 8}, (3, 6, 6, 3)),
    "augmix_cf": case("AugMix", {"chain_depth": 2, "seed": 13,
                                 "data_format": "channels_first"}, (2, 3, 7, 6)),
    "augmix_uint8": case("AugMix", {"seed": 14}, (2, 6, 6, 3), dtype="uint8"),
    "augmix_single": case("AugMix", {"num_chains": 1, "seed": 2}, (6, 5, 3)),
}

ERRORS = {
    "randaugment_factor_big": error("RandAugment", {"factor": 1.5}),
    "randaugment_factor_negative": error("RandAugment", {"factor": -0.5}),
    "randaugment_factor_pair_big": error("RandAugment", {"factor": (1.2, 1.5)}),
    "randaugment_factor_str": error("RandAugment", {"factor": "x"}),
    "randaugment_factor_triple": error("RandAugment", {"factor": (0.1, 0.2, 0.3)}),
    "augmix_factor_big": error("AugMix", {"factor": 2.0}),
    "augmix_factor_pair_negative": error("AugMix", {"factor": (-0.5, -0.1)}),
}

save("k34_augmix", {"keras": keras.__version__, "cases": CASES, "errors": ERRORS})
