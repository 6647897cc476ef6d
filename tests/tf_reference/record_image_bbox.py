"""Record tf.image.(stateless_)sample_distorted_bounding_box from TensorFlow 2.21 for
tests/image/test_sample_distorted_bounding_box.py: the stateless crops of a table of
cases (seeds, ranges, image sizes, dtypes, box sets), the fallbacks to the whole image,
the stateful op's shapes and dtypes, and the error class of each bad argument.

Run from the repository root: /path/to/tf-venv/bin/python tests/tf_reference/record_image_bbox.py
"""
import pathlib
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from tests.tf_reference import save  # noqa: E402

BOX = [[[0.1, 0.2, 0.6, 0.7]]]
TWO = [[[0.1, 0.2, 0.6, 0.7]], [[0.0, 0.0, 0.1, 0.1]]]
KWARGS = [{}, {"min_object_covered": 0.5, "aspect_ratio_range": [0.5, 2.0],
               "area_range": [0.1, 0.9]},
          {"min_object_covered": 0.0, "area_range": [0.01, 1.0]},
          {"min_object_covered": 0.9, "max_attempts": 5},
          {"aspect_ratio_range": [3.0, 4.0], "area_range": [0.02, 0.3]}]
SIZES = [[37, 53, 3], [100, 200, 3], [1, 1, 1], [480, 640, 3], [5, 1000, 1]]
SEEDS = [[0, 0], [1, 2], [123, 456], [-5, 99], [2 ** 40, 7]]
# stateful calls in order: (seed, image_size, its dtype, kwargs); a seed's kernel keeps
# its state between calls with the same attributes
STATEFUL_CALLS = [(1, [37, 53, 3], "int32", {}), (1, [37, 53, 3], "int32", {}),
                  (7, [100, 200, 3], "int32", {"max_attempts": 3}),
                  (1, [37, 53, 3], "int64", {}),
                  (7, [100, 200, 3], "int32", {"max_attempts": 3}),
                  (1, [37, 53, 3], "int32", {"min_object_covered": 0.5}),
                  (2 ** 33 + 5, [64, 64, 3], "int32", {"area_range": [0.2, 0.6]}),
                  (1, [37, 53, 3], "int32", {})]


def outputs(r):
    return [{"dtype": x.dtype.name, "shape": x.shape.as_list(),
             "value": [None if np.isnan(v) else v for v in x.numpy().reshape(-1).tolist()]}
            for x in r]


def case(size, boxes, seed, kw, size_dtype="int32"):
    boxes = np.asarray(boxes, np.float32).reshape(-1, 1, 4)
    r = tf.image.stateless_sample_distorted_bounding_box(
        tf.constant(size, size_dtype), tf.constant(boxes), seed=seed, **kw)
    return {"size": size, "boxes": boxes.reshape(-1, 4).tolist(), "seed": seed, "kwargs": kw,
            "size_dtype": size_dtype, "out": outputs(r)}


def error(kw):
    try:
        tf.image.stateless_sample_distorted_bounding_box(**kw)
    except Exception as e:      # noqa: BLE001 - the class is what is recorded
        return type(e).__name__
    return None


def main():
    stateless = []
    for size in SIZES:
        for seed in SEEDS:
            for kw in KWARGS:
                stateless.append(case(size, BOX, seed, kw))
    for seed in SEEDS:
        stateless.append(case([100, 200, 3], TWO, seed, {"min_object_covered": 0.9}))
        stateless.append(case([100, 200, 3], [], seed,
                              {"use_image_if_no_bounding_boxes": True}))
    for dt in ("uint8", "int8", "int16", "int64"):
        stateless.append(case([100, 120, 3], BOX, [1, 2], {}, dt))
    fallbacks = [case([100, 200, 3], BOX, [3, 4], {"min_object_covered": 1.0}),
                 case([100, 200, 3], BOX, [1, 2], {"max_attempts": 1}),
                 case([100, 200, 3], BOX, [1, 2], {"area_range": [0.9, 0.5]}),
                 case([100, 200, 3], [[[0.6, 0.7, 0.1, 0.2]]], [1, 2], {}),
                 case([0, 200, 3], BOX, [1, 2], {})]
    stateful = outputs(tf.image.sample_distorted_bounding_box(
        tf.constant([100, 200, 3], tf.int64), BOX, seed=7))
    sequences = {}
    for global_seed in (None, 5):
        tf.random.set_seed(global_seed)     # (also clears TensorFlow's kernel cache)
        sequences[str(global_seed)] = [
            outputs(tf.image.sample_distorted_bounding_box(
                tf.constant(size, dtype), BOX, seed=seed, **kw))
            for seed, size, dtype, kw in STATEFUL_CALLS]
    good = {"image_size": [100, 200, 3], "bounding_boxes": BOX, "seed": [1, 2]}
    bad = {"no_boxes": {"bounding_boxes": tf.zeros([1, 0, 4])},
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
           "seed_three": {"seed": [1, 2, 3]}}
    errors = {name: error({**good, **kw}) for name, kw in bad.items()}
    save("image_bbox", {"stateless": stateless, "fallbacks": fallbacks,
                        "stateful_seed7_int64": stateful, "stateful_calls": STATEFUL_CALLS,
                        "stateful_sequences": sequences,
                        "errors": errors})


if __name__ == "__main__":
    main()
