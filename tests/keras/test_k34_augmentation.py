"""Keras 3's random augmentation layers against values recorded from Keras 3.15.1 by
tests/tf_reference/record_k34_augmentation.py.

Inference mode must return the input unchanged (as Keras). In training mode a layer with
an integer seed draws from SeedGenerator(seed) in Keras's order, so its first call is
compared with Keras's output; invariants (shape, dtype, range, seeded determinism, that
it changed the input) are checked besides.
"""
import json

import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

L = fe.keras.layers
REF = load("k34_augmentation")
CASES = sorted(REF["cases"])
DETERMINISTIC = {"crop_upsize", "grayscale_all_cf", "posterization_fixed"}


def _config(case):
    """Keras's config, as recorded (fasteager's from_config reads its DTypePolicy dict)."""
    return dict(case["config"])


def _norm(v):
    """JSON form (tuples as lists), the auto-numbered layer name left out, the dtype policy
    by name (fasteager writes a plain float32 policy as its name)."""
    v = json.loads(json.dumps(v))
    v.pop("name", None)
    if isinstance(v.get("dtype"), dict):
        v["dtype"] = v["dtype"]["config"]["name"]
    return v


@pytest.mark.parametrize("key", CASES)
def test_config_matches_keras(key):
    case = REF["cases"][key]
    cls = getattr(L, case["cls"])
    layer = cls(**case["kwargs"])
    config = _config(case)
    assert _norm(layer.get_config()) == _norm(config)
    again = cls.from_config(config)
    assert _norm(again.get_config()) == _norm(config)
    back = L.deserialize(L.serialize(layer))
    assert type(back) is cls and _norm(back.get_config()) == _norm(config)


@pytest.mark.parametrize("key", CASES)
def test_inference_returns_input(key):
    case = REF["cases"][key]
    layer = getattr(L, case["cls"]).from_config(_config(case))
    x = np.array(case["x"], case["dtype"])
    y = layer(x, training=False)
    want = np.array(case["infer"], case["infer_dtype"])
    assert y.dtype.name == case["infer_dtype"]
    if case["cls"] in ALWAYS_APPLIED:
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-3 * np.abs(x).max())
        return
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(y.numpy(), x.astype(want.dtype))   # (the compute dtype)


# MixUp draws its weights from keras.random.beta, whose values are fasteager's own
# (fe.keras.random's docstring: TensorFlow's gamma sampler is not among fasteager's ops);
# its permutation and mixing are checked by _check_mixup instead
NOT_KERAS_VALUES = {"mixup", "mixup_alpha_cf", "cutmix", "cutmix_factor_cf"}
# CLAHE is deterministic and applies whatever the training flag (as Keras's)
ALWAYS_APPLIED = {"ContrastLimitedAdaptiveHistogramEqualization"}
# CutMix passes a single image through (nothing to mix with), as Keras does
PASS_THROUGH = {"cutmix_single"}


def _mix_fit(out, x):
    """For each output image, the (j, w) with out[i] = w x[i] + (1 - w) x[j] best, and the
    worst residual."""
    fits, worst = [], 0.0
    for i in range(len(x)):
        best = None
        for j in range(len(x)):
            d = (x[i] - x[j]).ravel()
            w = 1.0 if not d.any() else float(np.dot((out[i] - x[j]).ravel(), d) / np.dot(d, d))
            r = float(np.abs(w * x[i] + (1 - w) * x[j] - out[i]).max())
            if best is None or r < best[2]:
                best = (j, w, r)
        fits.append(best[:2])
        worst = max(worst, best[2])
    return fits, worst


def _check_mixup(case, out, x):
    fits, worst = _mix_fit(out, x)
    assert worst < 1e-3 * np.abs(x).max()
    assert all(-1e-5 <= w <= 1 + 1e-5 for _, w in fits)
    want, _ = _mix_fit(np.array(case["train"], np.float32), x)
    # the permutation is keras.random.shuffle's, which matches Keras: same partners where
    # the weight leaves the partner visible
    for (j, w), (kj, kw) in zip(fits, want):
        if 0.05 < w < 0.95 and 0.05 < kw < 0.95:
            assert j == kj


def _cutmix_fit(out, x, channels_first):
    """For each output image: the partner j whose values fill the changed pixels, and the
    changed pixels' (rows, cols) mask; asserts the change is one axis-aligned rectangle
    across all channels."""
    fits = []
    for i in range(len(x)):
        changed = out[i] != x[i]
        c_axis = 0 if channels_first else -1
        hw = changed.any(axis=c_axis)
        partner = None
        if hw.any():
            rows, cols = np.nonzero(hw)
            box = np.zeros_like(hw)
            box[rows.min():rows.max() + 1, cols.min():cols.max() + 1] = True
            for j in range(len(x)):
                sel = box[None] if channels_first else box[..., None]
                pasted = np.where(sel, x[j], x[i])
                if np.array_equal(pasted, out[i]):
                    partner = j
                    break
            assert partner is not None, "image %d: not one pasted rectangle" % i
        fits.append((partner, hw))
    return fits


def _check_cutmix(case, out, x):
    cf = case["kwargs"].get("data_format") == "channels_first"
    want = np.array(case["train"], np.float32)
    # Keras's recorded output obeys the same invariant (the check is not fasteager-shaped)
    _cutmix_fit(want, x, cf)
    if np.array_equal(want, x):
        # the shuffle (which matches Keras's) kept every image in place: nothing to paste
        np.testing.assert_array_equal(out, x)
    else:
        assert any(p is not None for p, _ in _cutmix_fit(out, x, cf))


@pytest.mark.parametrize("key", CASES)
def test_seeded_training_matches_keras(key):
    case = REF["cases"][key]
    if key in NOT_KERAS_VALUES:
        x = np.array(case["x"], case["dtype"])
        check = _check_mixup if case["cls"] == "MixUp" else _check_cutmix
        check(case, getattr(L, case["cls"])(**case["kwargs"])(x).numpy(), x)
        return
    x = np.array(case["x"], case["dtype"])
    y = getattr(L, case["cls"])(**case["kwargs"])(x)
    want = np.array(case["train"], case["train_dtype"])
    assert y.dtype.name == case["train_dtype"] and tuple(y.shape) == want.shape
    np.testing.assert_allclose(y.numpy().astype(np.float64), want.astype(np.float64), rtol=1e-4,
                               atol=1e-3 * max(1.0, float(np.abs(x).max())))


@pytest.mark.parametrize("key", CASES)
def test_training_invariants(key):
    case = REF["cases"][key]
    x = np.array(case["x"], case["dtype"])
    make = getattr(L, case["cls"])
    a = make(**case["kwargs"])(x).numpy()
    b = make(**case["kwargs"])(x).numpy()
    np.testing.assert_array_equal(a, b)          # an integer seed: the same first draw
    if case["cls"] in ALWAYS_APPLIED:
        np.testing.assert_array_equal(a, make(**case["kwargs"])(x, training=False).numpy())
        lo, hi = case["kwargs"].get("value_range", (0, 255))
        assert a.min() >= lo - 1e-4 and a.max() <= hi + 1e-4 and not np.allclose(a, x)
        return
    if key in PASS_THROUGH:
        np.testing.assert_array_equal(a, x)
        return
    if key in DETERMINISTIC:
        # nothing left to draw (a crop not smaller than the image is centre-cropped and
        # resized; factor 1.0 greys every image; a fixed bit count): it still transforms
        assert a.shape != x.shape or not np.array_equal(a, x)
        return
    layer = make(**case["kwargs"])
    draws = [layer(x).numpy() for _ in range(4)]  # the generator advances between calls
    assert any(not np.array_equal(d, draws[0]) for d in draws[1:])
    vr = case["kwargs"].get("value_range")
    if vr is not None:
        assert a.min() >= min(vr) and a.max() <= max(vr)
    if case["cls"] in ("RandomFlip", "RandomCrop"):
        # a flip or crop only moves values: every output value is an input value
        assert np.isin(a, x.astype(a.dtype)).all()
    if case["cls"] == "RandomInvert":
        top = case["kwargs"].get("value_range", (0, 255))[1]
        assert np.all(np.isclose(a, x) | np.isclose(a, top - x))
    if case["cls"] == "RandomGrayscale":
        axis = 1 if case["kwargs"].get("data_format") == "channels_first" else -1
        grey = np.all(np.ptp(a, axis=axis) < 1e-4, axis=(1, 2))   # per image
        assert all(g or np.array_equal(ai, xi) for g, ai, xi in zip(grey, a, x))


def test_mixup_mixes_labels_with_the_images_weights():
    rng = np.random.default_rng(1)
    x = rng.random((6, 3, 3, 3)).astype(np.float32)
    labels = np.eye(6, dtype=np.float32)
    out = L.MixUp(alpha=0.7, seed=3)({"images": x, "labels": labels})
    fits, worst = _mix_fit(out["images"].numpy(), x)
    assert worst < 1e-4
    got = out["labels"].numpy()
    for i, (j, w) in enumerate(fits):
        want = w * labels[i] + (1 - w) * labels[j]
        np.testing.assert_allclose(got[i], want, atol=1e-4)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-5)


def test_cutmix_labels_mix_by_pasted_area():
    rng = np.random.default_rng(2)
    x = rng.random((6, 8, 8, 3)).astype(np.float32)
    labels = np.eye(6, dtype=np.float32)
    out = L.CutMix(seed=5)({"images": x, "labels": labels})
    got = out["labels"].numpy()
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-5)
    for i, (j, hw) in enumerate(_cutmix_fit(out["images"].numpy(), x, False)):
        if j is None or j == i:
            continue
        # the pasted box's continuous area, in whole pixels, is within a pixel row/column
        # of the label weight's area
        assert abs(got[i, j] - hw.mean()) <= 2.0 / 8 + 1e-6


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_random_crop_in_a_model_is_cropped_symbolically_and_fits():
    # as Keras: the symbolic output is compute_output_shape's, so fit trains on the crop
    x = np.random.default_rng(3).random((8, 10, 10, 3)).astype(np.float32)
    y = np.ones((8, 1), np.float32)
    model = fe.keras.Sequential([fe.keras.Input((10, 10, 3)), L.RandomCrop(6, 6, seed=2),
                                 L.RandomFlip(seed=1), L.Flatten(), L.Dense(1)])
    assert model.layers[0].output_shape == (None, 6, 6, 3)
    model.compile("sgd", "mse")
    history = model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_bounding_boxes_are_refused_by_name():
    x = np.zeros((1, 4, 4, 3), np.float32)
    with pytest.raises(NotImplementedError, match="RandomFlip: bounding_boxes"):
        L.RandomFlip(seed=1)({"images": x, "bounding_boxes": {"boxes": np.zeros((1, 1, 4))}})


def test_bad_image_rank_names_the_shape():
    with pytest.raises(ValueError, match="rank 3"):
        L.RandomRotation(0.1)(np.zeros((4, 4), np.float32))


def test_unseeded_layers_draw_and_dict_inputs():
    x = np.random.default_rng(0).random((2, 6, 6, 3)).astype(np.float32)
    out = L.RandomFlip(seed=1)({"images": x, "labels": np.arange(2),
                               "segmentation_masks": x[..., :1]})
    assert tuple(out["images"].shape) == x.shape
    np.testing.assert_array_equal(out["labels"].numpy(), np.arange(2))
    # a mask moves with its image
    np.testing.assert_array_equal(out["segmentation_masks"].numpy(), out["images"].numpy()[..., :1])
    assert tuple(L.RandomRotation(0.3)(x).shape) == x.shape
    # inside a model, predict runs in inference mode: the input comes back
    model = fe.keras.Sequential([fe.keras.Input((6, 6, 3)), L.RandomZoom(0.3),
                                 L.RandomContrast(0.4)])
    np.testing.assert_allclose(model.predict(x, verbose=0), x)


@pytest.mark.parametrize("key", sorted(REF["errors"]))
def test_bad_arguments_raise_as_keras(key):
    case = REF["errors"][key]
    err = {"ValueError": ValueError, "NotImplementedError": NotImplementedError}[case["error"]]
    with pytest.raises(err):
        getattr(L, case["cls"])(**case["kwargs"])
