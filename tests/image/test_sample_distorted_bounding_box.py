"""fe.image.(stateless_)sample_distorted_bounding_box: the stateless crops equal
TensorFlow 2.21's (recorded by tests/tf_reference/record_image_bbox.py), the fallback to
the whole image, the stateful op's shapes and dtypes, the errors' classes, and the
sampler's invariants over many seeds (the crop lies in the image, its area and aspect
ratio are in range, it covers enough of a box, or else it is the whole image)."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError
from tests.tf_reference import load

REF = load("image_bbox")


def _run(c):
    boxes = np.asarray(c["boxes"], np.float32).reshape(-1, 1, 4)
    return tf.image.stateless_sample_distorted_bounding_box(
        tf.constant(c["size"], c["size_dtype"]), tf.constant(boxes), seed=c["seed"],
        **c["kwargs"])


def _check(got, want):
    for g, w in zip(got, want):
        assert g.dtype.name == w["dtype"] and list(g.shape) == w["shape"]
        expected = np.array([np.nan if v is None else v for v in w["value"]], np.float64)
        np.testing.assert_array_equal(g.numpy().reshape(-1).astype(np.float64), expected)


@pytest.mark.parametrize("i", range(len(REF["stateless"])))
def test_stateless_crop_is_tensorflows(i):
    c = REF["stateless"][i]
    _check(_run(c), c["out"])


@pytest.mark.parametrize("i", range(len(REF["fallbacks"])))
def test_fallback_to_the_whole_image_as_tensorflow(i):
    c = REF["fallbacks"][i]
    got = _run(c)
    _check(got, c["out"])
    h, w = c["size"][:2]
    assert got[0].numpy().tolist() == [0, 0, 0] and got[1].numpy().tolist() == [h, w, -1]


def test_stateful_crops_are_tensorflows_sequence():
    want = REF["stateful_seed7_int64"]
    tf.random.set_seed(None)
    got = tf.image.sample_distorted_bounding_box(tf.constant([100, 200, 3], tf.int64),
                                                 [[[0.1, 0.2, 0.6, 0.7]]], seed=7)
    _check(got, want)
    # the recorder's calls in its order: a seed's kernel state carries from call to call
    # (per image_size dtype and attributes; min_object_covered is an input), and
    # set_seed starts every kernel again
    box = [[[0.1, 0.2, 0.6, 0.7]]]
    for global_seed, outs in sorted(REF["stateful_sequences"].items()):
        tf.random.set_seed(None if global_seed == "None" else int(global_seed))
        for (seed, size, dtype, kw), out in zip(REF["stateful_calls"], outs):
            _check(tf.image.sample_distorted_bounding_box(tf.constant(size, dtype), box,
                                                          seed=seed, **kw), out)
    tf.random.set_seed(None)


def test_stateful_without_seed_follows_the_global_seed():
    args = ([64, 48, 3], [[[0.2, 0.2, 0.8, 0.8]]])
    tf.random.set_seed(5)
    first = [g.numpy() for g in tf.image.sample_distorted_bounding_box(*args)]
    tf.random.set_seed(5)
    again = [g.numpy() for g in tf.image.sample_distorted_bounding_box(*args)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    tf.random.set_seed(None)


@pytest.mark.parametrize("name", sorted(REF["errors"]))
def test_errors_have_tensorflows_class(name):
    good = {"image_size": [100, 200, 3], "bounding_boxes": [[[0.1, 0.2, 0.6, 0.7]]],
            "seed": [1, 2]}
    bad = {"no_boxes": {"bounding_boxes": np.zeros((1, 0, 4), np.float32)},
           "coords_out_of_range": {"bounding_boxes": [[[0.1, 0.2, 1.6, 0.7]]]},
           "boxes_rank_2": {"bounding_boxes": [[0.1, 0.2, 0.6, 0.7]]},
           "boxes_last_dim_3": {"bounding_boxes": [[[0.1, 0.2, 0.6]]]},
           "image_size_2": {"image_size": [100, 200]},
           "min_covered_negative": {"min_object_covered": -1.0},
           "aspect_one_value": {"aspect_ratio_range": [1.0]},
           "aspect_negative": {"aspect_ratio_range": [-1.0, 2.0]},
           "area_zero": {"area_range": [0.0, 1.0]},
           "area_above_one": {"area_range": [0.5, 1.5]},
           "max_attempts_zero": {"max_attempts": 0},
           "seed_three": {"seed": [1, 2, 3]}}[name]
    assert REF["errors"][name] == "InvalidArgumentError"
    with pytest.raises(InvalidArgumentError, match="stateless_sample_distorted_bounding_box"):
        tf.image.stateless_sample_distorted_bounding_box(**{**good, **bad})


def test_invariants_over_many_seeds():
    rng = np.random.default_rng(0)
    for trial in range(300):
        H, W = (int(v) for v in rng.integers(1, 300, 2))
        lo_a = float(rng.uniform(0.01, 0.9))
        area = [lo_a, float(rng.uniform(lo_a, 1.0))]
        lo_r = float(rng.uniform(0.2, 2.0))
        aspect = [lo_r, float(rng.uniform(lo_r, 3.0))]
        covered = float(rng.uniform(0, 1))
        y0, x0 = rng.uniform(0, 0.9, 2)
        box = [y0, x0, rng.uniform(y0, 1), rng.uniform(x0, 1)]
        seed = [int(v) for v in rng.integers(-2 ** 40, 2 ** 40, 2)]
        args = dict(image_size=[H, W, 3], bounding_boxes=[[box]], seed=seed,
                    min_object_covered=covered, aspect_ratio_range=aspect, area_range=area,
                    max_attempts=20)
        begin, size, bbox = (t.numpy() for t in
                             tf.image.stateless_sample_distorted_bounding_box(**args))
        again = tf.image.stateless_sample_distorted_bounding_box(**args)[0].numpy()
        np.testing.assert_array_equal(begin, again)          # stateless: a function of seed
        y, x, h, w = int(begin[0]), int(begin[1]), int(size[0]), int(size[1])
        desc = "trial %d: %r -> %s %s" % (trial, args, begin, size)
        assert begin[2] == 0 and size[2] == -1, desc
        assert 0 <= y and 0 <= x and 0 < h and 0 < w and y + h <= H and x + w <= W, desc
        np.testing.assert_allclose(bbox.reshape(-1), [y / H, x / W, (y + h) / H, (x + w) / W],
                                   rtol=1e-6)
        if (y, x, h, w) == (0, 0, H, W):
            continue        # the whole image: the fallback (or a crop that happens to be it)
        frac = h * w / (H * W)
        assert area[0] * (1 - 1e-5) <= frac <= area[1] * (1 + 1e-5), desc
        # the width is the height times the ratio, rounded
        assert aspect[0] - 0.5 / h - 1e-6 <= w / h <= aspect[1] + 0.5 / h + 1e-6, desc
        bx0, by0 = int(np.float32(box[1]) * np.float32(W)), int(np.float32(box[0]) * np.float32(H))
        bx1, by1 = int(np.float32(box[3]) * np.float32(W)), int(np.float32(box[2]) * np.float32(H))
        inter = max(0, min(x + w, bx1) - max(x, bx0)) * max(0, min(y + h, by1) - max(y, by0))
        assert (bx1 - bx0) * (by1 - by0) >= 1, desc
        assert inter / ((bx1 - bx0) * (by1 - by0)) >= covered - 1e-6, desc


def test_crop_feeds_slice():
    image = tf.reshape(tf.range(40 * 30 * 3), [40, 30, 3])
    begin, size, _ = tf.image.stateless_sample_distorted_bounding_box(
        tf.shape(image), [[[0.1, 0.1, 0.9, 0.9]]], seed=[4, 2], min_object_covered=0.2)
    crop = tf.slice(image, begin, size)
    b, s = begin.numpy(), size.numpy()
    np.testing.assert_array_equal(crop.numpy(),
                                  image.numpy()[b[0]:b[0] + s[0], b[1]:b[1] + s[1]])
