"""Record Keras 3.15.1's random augmentation layers (topic "k34_augmentation").

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_k34_augmentation.py
Each case: the layer's config (get_config), a fixed input, its inference-mode output
(training=False) and the training-mode output of a freshly built layer with an integer
seed (its first call: Keras draws from SeedGenerator(seed), state [seed, 0]).
"""
import os
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
    train = getattr(L, cls)(**kwargs)(x)
    return {"cls": cls, "kwargs": _jsonable(kwargs), "config": _jsonable(layer.get_config()),
            "x": x.tolist(), "dtype": dtype, "infer": np.asarray(infer).tolist(),
            "infer_dtype": str(infer.dtype.name if hasattr(infer.dtype, "name") else
                               infer.dtype),
            "train": np.asarray(train).tolist(), "train_dtype": str(train.dtype.name)}


CASES = {
    "flip_hv": case("RandomFlip", {"seed": 3}, (4, 5, 6, 3)),
    "flip_h_single": case("RandomFlip", {"mode": "horizontal", "seed": 7}, (5, 6, 3)),
    "flip_v_cf": case("RandomFlip", {"mode": "vertical", "seed": 11,
                                     "data_format": "channels_first"}, (4, 2, 5, 6)),
    "rotation": case("RandomRotation", {"factor": 0.2, "seed": 5}, (3, 7, 6, 2)),
    "rotation_constant_nearest": case(
        "RandomRotation", {"factor": (-0.1, 0.3), "fill_mode": "constant", "fill_value": 1.5,
                           "interpolation": "nearest", "seed": 2}, (2, 6, 6, 1)),
    "rotation_wrap_single": case("RandomRotation", {"factor": 0.5, "fill_mode": "wrap",
                                                    "seed": 9}, (5, 4, 3)),
    "zoom": case("RandomZoom", {"height_factor": 0.3, "seed": 4}, (3, 8, 7, 2)),
    "zoom_hw_nearest": case("RandomZoom", {"height_factor": (-0.4, -0.1),
                                           "width_factor": (0.1, 0.5), "fill_mode": "nearest",
                                           "seed": 6}, (2, 6, 8, 3)),
    "zoom_cf_constant": case("RandomZoom", {"height_factor": 0.2, "width_factor": 0.3,
                                            "fill_mode": "constant",
                                            "data_format": "channels_first", "seed": 8},
                             (2, 3, 6, 5)),
    "translation": case("RandomTranslation", {"height_factor": 0.2, "width_factor": 0.3,
                                              "seed": 1}, (3, 7, 8, 2)),
    "translation_constant": case("RandomTranslation",
                                 {"height_factor": (-0.5, 0.0), "width_factor": (0.1, 0.4),
                                  "fill_mode": "constant", "fill_value": -2.0,
                                  "interpolation": "nearest", "seed": 12}, (2, 6, 6, 1)),
    "translation_single_reflect": case("RandomTranslation",
                                       {"height_factor": 0.4, "width_factor": 0.4,
                                        "seed": 13}, (6, 5, 3)),
    "crop": case("RandomCrop", {"height": 4, "width": 5, "seed": 3}, (3, 8, 9, 2)),
    "crop_single": case("RandomCrop", {"height": 3, "width": 3, "seed": 14}, (6, 7, 3)),
    "crop_cf": case("RandomCrop", {"height": 3, "width": 4, "seed": 15,
                                   "data_format": "channels_first"}, (2, 3, 6, 7)),
    "crop_upsize": case("RandomCrop", {"height": 8, "width": 6, "seed": 16}, (2, 5, 6, 3)),
    "contrast": case("RandomContrast", {"factor": 0.5, "seed": 2}, (4, 5, 6, 3)),
    "contrast_pair_unit": case("RandomContrast", {"factor": (0.2, 0.8), "value_range": (0, 1),
                                                  "seed": 21}, (3, 4, 4, 3), scale=1.0),
    "contrast_single": case("RandomContrast", {"factor": 0.9, "seed": 22}, (5, 4, 3)),
    "brightness": case("RandomBrightness", {"factor": 0.2, "seed": 2}, (4, 5, 6, 3)),
    "brightness_pair_unit": case("RandomBrightness",
                                 {"factor": (-0.5, 0.1), "value_range": (1, 0), "seed": 23},
                                 (3, 4, 4, 3), scale=1.0),
    "brightness_single": case("RandomBrightness", {"factor": 0.8, "seed": 24}, (5, 4, 3)),
    "hue": case("RandomHue", {"factor": 0.5, "seed": 31}, (3, 5, 4, 3)),
    "hue_unit_cf": case("RandomHue", {"factor": (0.2, 0.9), "value_range": (0, 1),
                                      "data_format": "channels_first", "seed": 32},
                        (2, 3, 4, 5), scale=1.0),
    "hue_single": case("RandomHue", {"factor": 1.0, "seed": 33}, (4, 4, 3)),
    "saturation": case("RandomSaturation", {"factor": 0.5, "seed": 34}, (3, 5, 4, 3)),
    "saturation_pair_cf": case("RandomSaturation",
                               {"factor": (0.1, 0.9), "value_range": (0, 1),
                                "data_format": "channels_first", "seed": 35},
                               (2, 3, 4, 5), scale=1.0),
    "grayscale": case("RandomGrayscale", {"factor": 0.5, "seed": 36}, (6, 4, 4, 3)),
    "grayscale_all_cf": case("RandomGrayscale", {"factor": 1.0, "seed": 37,
                                                 "data_format": "channels_first"},
                             (2, 3, 4, 4)),
    "invert": case("RandomInvert", {"seed": 38}, (5, 4, 4, 3)),
    "invert_pair_unit": case("RandomInvert", {"factor": (0.3, 0.7), "value_range": (0, 1),
                                              "seed": 39}, (6, 3, 3, 3), scale=1.0),
    "invert_single": case("RandomInvert", {"factor": 0.9, "seed": 40}, (4, 4, 3)),
    "posterization": case("RandomPosterization", {"factor": 5, "seed": 41}, (4, 5, 5, 3)),
    "posterization_pair_unit": case("RandomPosterization",
                                    {"factor": (2, 6), "value_range": (0, 1), "seed": 42},
                                    (3, 4, 4, 3), scale=1.0),
    "posterization_fixed": case("RandomPosterization", {"factor": (3, 3), "seed": 43},
                                (2, 4, 4, 3)),
    "sharpness": case("RandomSharpness", {"factor": 0.7, "seed": 44}, (3, 5, 6, 3)),
    "sharpness_pair_cf": case("RandomSharpness",
                              {"factor": (0.6, 1.0), "value_range": (0, 1),
                               "data_format": "channels_first", "seed": 45},
                              (2, 3, 5, 5), scale=1.0),
    "sharpness_single": case("RandomSharpness", {"factor": 0.2, "seed": 46}, (5, 5, 2)),
    "shear": case("RandomShear", {"x_factor": 0.3, "y_factor": 0.2, "seed": 47},
                  (3, 6, 7, 2)),
    "shear_x_constant_nearest": case("RandomShear",
                                     {"x_factor": (0.1, 0.6), "fill_mode": "constant",
                                      "fill_value": 3.0, "interpolation": "nearest",
                                      "seed": 48}, (2, 6, 6, 1)),
    "shear_y_cf_single": case("RandomShear", {"y_factor": 0.5, "fill_mode": "wrap",
                                              "data_format": "channels_first", "seed": 49},
                              (2, 5, 6)),
    "degeneration": case("RandomColorDegeneration", {"factor": 0.6, "seed": 50},
                         (3, 4, 5, 3)),
    "degeneration_pair_unit_cf": case("RandomColorDegeneration",
                                      {"factor": (0.2, 1.0), "value_range": (0, 1),
                                       "data_format": "channels_first", "seed": 51},
                                      (2, 3, 4, 4), scale=1.0),
    "jitter_all": case("RandomColorJitter", {"brightness_factor": 0.2, "contrast_factor": 0.4,
                                             "saturation_factor": 0.6, "hue_factor": 0.3,
                                             "seed": 52}, (3, 5, 4, 3)),
    "jitter_unit_two": case("RandomColorJitter", {"value_range": (0, 1),
                                                  "contrast_factor": (0.1, 0.5),
                                                  "hue_factor": 0.8, "seed": 53},
                            (2, 4, 4, 3), scale=1.0),
    "jitter_single_brightness": case("RandomColorJitter", {"brightness_factor": 0.5,
                                                           "seed": 54}, (4, 4, 3)),
    "erasing": case("RandomErasing", {"scale": (0.1, 0.5), "seed": 55}, (4, 8, 8, 3)),
    "erasing_fill_cf": case("RandomErasing", {"factor": 0.8, "fill_value": 7.0,
                                              "data_format": "channels_first", "seed": 56},
                            (3, 2, 6, 7)),
    "erasing_rgb_single": case("RandomErasing", {"fill_value": (10.0, 20.0, 300.0),
                                                 "scale": 0.6, "seed": 57}, (6, 6, 3)),
    "blur": case("RandomGaussianBlur", {"seed": 58}, (3, 6, 6, 2)),
    "blur_pair_cf": case("RandomGaussianBlur", {"factor": (0.2, 0.9), "kernel_size": (3, 5),
                                                "sigma": (0.3, 0.9), "value_range": (0, 1),
                                                "data_format": "channels_first", "seed": 59},
                         (4, 2, 7, 6), scale=1.0),
    "blur_single_k5": case("RandomGaussianBlur", {"kernel_size": 5, "sigma": 0.7,
                                                  "seed": 60}, (6, 6, 3)),
    "perspective": case("RandomPerspective", {"seed": 61}, (3, 6, 7, 2)),
    "perspective_half_nearest_cf": case("RandomPerspective",
                                        {"factor": (0.3, 0.9), "scale": 0.4,
                                         "interpolation": "nearest", "fill_value": 2.0,
                                         "data_format": "channels_first", "seed": 62},
                                        (4, 2, 6, 6)),
    "perspective_single": case("RandomPerspective", {"scale": 0.7, "seed": 63}, (5, 6, 3)),
    "elastic": case("RandomElasticTransform", {"seed": 64}, (3, 8, 8, 2)),
    "elastic_constant_cf": case("RandomElasticTransform",
                                {"factor": (0.2, 0.8), "scale": (0.5, 1.0),
                                 "fill_mode": "constant", "fill_value": 9.0,
                                 "interpolation": "nearest", "value_range": (0, 100),
                                 "data_format": "channels_first", "seed": 65},
                                (4, 2, 8, 9), scale=100.0),
    "elastic_single": case("RandomElasticTransform", {"scale": 0.6, "fill_mode": "wrap",
                                                      "seed": 66}, (7, 6, 3)),
    "mixup": case("MixUp", {"seed": 67}, (5, 4, 4, 3)),
    "mixup_alpha_cf": case("MixUp", {"alpha": 0.9, "data_format": "channels_first",
                                     "seed": 68}, (4, 3, 4, 4)),
    "cutmix": case("CutMix", {"seed": 69}, (5, 8, 8, 3)),
    "cutmix_factor_cf": case("CutMix", {"factor": (0.3, 0.6), "seed": 70,
                                        "data_format": "channels_first"}, (4, 2, 6, 7)),
    "cutmix_single": case("CutMix", {"seed": 71}, (6, 6, 3)),
    "clahe": case("ContrastLimitedAdaptiveHistogramEqualization", {}, (2, 16, 16, 3)),
    "clahe_grid_pad_cf": case("ContrastLimitedAdaptiveHistogramEqualization",
                              {"tile_grid_size": (3, 4), "clip_limit": 2.0,
                               "data_format": "channels_first"}, (2, 3, 10, 11)),
    "clahe_unit_noclip_single": case("ContrastLimitedAdaptiveHistogramEqualization",
                                     {"value_range": (0, 1), "clip_limit": 0.0,
                                      "tile_grid_size": (2, 2)}, (9, 7, 1), scale=1.0),
    "flip_uint8": case("RandomFlip", {"seed": 72}, (3, 4, 5, 3), dtype="uint8"),
    "rotation_uint8": case("RandomRotation", {"factor": 0.3, "seed": 73}, (2, 5, 5, 3),
                           dtype="uint8"),
    "brightness_uint8": case("RandomBrightness", {"factor": 0.4, "seed": 75}, (2, 4, 4, 3),
                             dtype="uint8"),
    "invert_uint8": case("RandomInvert", {"seed": 76}, (4, 4, 4, 3), dtype="uint8"),
    "flip_mixed": case("RandomFlip", {"seed": 77, "dtype": "mixed_float16"}, (2, 4, 4, 3)),
    "rotation_mixed": case("RandomRotation", {"factor": 0.2, "seed": 78,
                                              "dtype": "mixed_float16"}, (2, 5, 5, 2)),
    "hue_mixed": case("RandomHue", {"factor": 0.4, "seed": 79, "dtype": "mixed_float16"},
                      (2, 4, 4, 3)),
    "clahe_mixed": case("ContrastLimitedAdaptiveHistogramEqualization",
                        {"tile_grid_size": (2, 2), "dtype": "mixed_float16"}, (2, 8, 8, 3)),
}

ERRORS = {}
for name, (cls, kwargs) in {
        "rotation_fill": ("RandomRotation", {"factor": 0.1, "fill_mode": "bogus"}),
        "zoom_factor": ("RandomZoom", {"height_factor": -1.0}),
        "translation_factor": ("RandomTranslation", {"height_factor": 1.5, "width_factor": 0}),
        "contrast_factor": ("RandomContrast", {"factor": 1.5}),
        "brightness_range": ("RandomBrightness", {"factor": 0.1, "value_range": 3}),
        "flip_factor": ("RandomFlip", {"factor": 0.1}),
        "hue_factor": ("RandomHue", {"factor": -0.5}),
        "saturation_range": ("RandomSaturation", {"factor": 0.5, "value_range": (1,)}),
        "grayscale_factor": ("RandomGrayscale", {"factor": 1.5}),
        "invert_factor": ("RandomInvert", {"factor": 2.0}),
        "posterization_factor": ("RandomPosterization", {"factor": 9}),
        "sharpness_factor": ("RandomSharpness", {"factor": 1.5}),
        "shear_factor": ("RandomShear", {"x_factor": -0.2}),
        "shear_interpolation": ("RandomShear", {"x_factor": 0.2, "interpolation": "cubic"}),
        "degeneration_range": ("RandomColorDegeneration", {"factor": 0.5, "value_range": 1}),
        "jitter_contrast": ("RandomColorJitter", {"contrast_factor": 1.5}),
        "erasing_scale": ("RandomErasing", {"scale": 2.0}),
        "erasing_factor": ("RandomErasing", {"factor": -0.5}),
        "blur_kernel": ("RandomGaussianBlur", {"kernel_size": 4}),
        "blur_sigma": ("RandomGaussianBlur", {"sigma": 1.5}),
        "perspective_scale": ("RandomPerspective", {"scale": 1.5}),
        "perspective_interpolation": ("RandomPerspective", {"interpolation": "bicubic"}),
        "elastic_fill": ("RandomElasticTransform", {"fill_mode": "bogus"}),
        "elastic_scale": ("RandomElasticTransform", {"scale": 3.0}),
        "cutmix_factor": ("CutMix", {"factor": 1.5}),
}.items():
    try:
        getattr(L, cls)(**kwargs)
        ERRORS[name] = {"cls": cls, "kwargs": kwargs, "error": None}
    except Exception as e:  # noqa: BLE001 -- the recorder notes whatever Keras raises
        ERRORS[name] = {"cls": cls, "kwargs": kwargs, "error": type(e).__name__}

save("k34_augmentation", {"cases": CASES, "errors": ERRORS})
