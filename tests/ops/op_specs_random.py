"""Op-table entries of fe.random's graph ops: a Generator draw and dropout's mask inside
fe.function."""
import numpy as np

import fasteager as fe
from fasteager.ops import _philox
from fasteager.ops.nn_ops import dropout_mask
from fasteager.ops.random_ops import generator_draw, random_from_key
from tests.ops.op_specs_base import Spec

_U64 = (1 << 64) - 1


def _state_of(x):
    return np.floor(np.abs(np.asarray(x, np.float64)) * 1000).astype(np.int64)


def _draw(x):
    state = fe.cast(fe.floor(fe.abs(fe.cast(x, fe.float64)) * 1000.0), fe.int64)
    return generator_draw(state, method="normal", args=((2, 3), 0.5, 2.0, np.float32, "t"),
                          stream=0)


def _draw_ref(x):
    # TensorFlow's draw at the state's key and counter; the counter then moves 256 steps
    # per value (the values themselves are checked against TensorFlow in
    # tests/random/test_tf_exact.py)
    lo, hi, key = (int(w) & _U64 for w in _state_of(x).tolist())
    z = _philox.normal((key & 0xFFFFFFFF, key >> 32),
                       (lo & 0xFFFFFFFF, lo >> 32, hi & 0xFFFFFFFF, hi >> 32), 6, np.float32)
    c = (hi << 64 | lo) + 6 * 256
    words = [c & _U64, (c >> 64) & _U64, key]
    return z.reshape(2, 3) * np.float32(2.0) + np.float32(0.5), np.array(
        [w - (1 << 64) if w >> 63 else w for w in words], np.int64)


_KEY = np.array([12345, -678], np.int64)


def _mask(x):
    return dropout_mask(x, fe.constant(_KEY), rate=0.3)


def _mask_ref(x):
    x = np.asarray(x)
    rng = np.random.default_rng([int(w) & _U64 for w in _KEY])
    keep = rng.random(x.shape) >= 0.3
    return keep.astype(x.dtype) * np.asarray(1 / 0.7, x.dtype)


def _from_key(x):
    return random_from_key(fe.constant(_KEY), dist="normal", shape=(2, 3),
                           params=(0.5, 2.0), dtype="float32")


def _from_key_ref(x):
    rng = np.random.default_rng([int(w) & _U64 for w in _KEY])
    z = rng.standard_normal((2, 3), dtype=np.float64)
    return (z * 2.0 + 0.5).astype(np.float32)


AREA_SPECS = {
    "random_from_key": Spec(_from_key, _from_key_ref, cases=[((3,),)], grad=False),
    "dropout_mask": Spec(_mask, _mask_ref, cases=[((4, 5),), ((3,),)], grad=False),
    "generator_draw": Spec(_draw, _draw_ref, cases=[((3,),)], grad=False),
}
