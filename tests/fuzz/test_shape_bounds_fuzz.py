"""Fuzzing of shape-producing ops with huge, negative and overflowing sizes.

Every op whose output shape comes from an argument (zeros, ones, fill, eye, range,
linspace, tile, broadcast_to, pad, one_hot, repeat, image.resize, reshape, the random
draws, sequence_mask, scatter_nd, unsorted_segment_sum, bincount) is called with sizes
drawn around the edges that break size arithmetic: 0, 1, -1, 2**31 - 1, 2**31, 2**32,
2**40, 2**62, 2**63 - 1, 2**63, 2**64, and small ones mixed in so products overflow only
together. The property: a result whose values NumPy can read, or a typed error
(InvalidArgumentError for a size past 2**63 - 1 elements or negative,
ResourceExhaustedError for more than the memory there is), never a crash (NumPy's tile
wraps around and writes out of bounds), a hang or a memory bomb. Cases run in a child
(``run_in_child``) under a 2 GiB address-space limit.
"""
import numpy as np

from tests.fuzz import _support as S

import fasteager as fe

_EDGES = [0, 1, 2, 3, -1, -2, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40, 2 ** 62, 2 ** 63 - 1,
          2 ** 63, 2 ** 64, 3 * 2 ** 61]


def _dim(rng):
    if rng.random() < 0.45:
        return int(rng.integers(0, 5))
    return int(rng.choice(_EDGES))


def _dims(rng, lo=0, hi=4):
    return [_dim(rng) for _ in range(int(rng.integers(lo, hi + 1)))]


def _ops(rng):
    x2 = fe.ones([2, 3])
    d = _dim(rng)
    return {
        "zeros": lambda: fe.zeros(_dims(rng), dtype=rng.choice(["float32", "int8",
                                                                  "float64", "bool"])),
        "ones": lambda: fe.ones(_dims(rng)),
        "fill": lambda: fe.fill(_dims(rng), 7),
        "eye": lambda: fe.eye(_dim(rng), _dim(rng) if rng.random() < 0.5 else None,
                              batch_shape=_dims(rng, 0, 2) if rng.random() < 0.5 else None),
        "range": lambda: fe.range(int(rng.choice([0, -d])), d,
                                  int(rng.choice([1, 2, -1, 2 ** 40])), dtype="int64"),
        "range_float": lambda: fe.range(0.0, float(d), float(rng.choice([1.0, 1e-30, 0.5]))),
        "linspace": lambda: fe.linspace(0.0, 1.0, d),
        "tile": lambda: fe.tile(x2, [_dim(rng), _dim(rng)]),
        "broadcast_to": lambda: fe.broadcast_to(fe.ones([3]), _dims(rng, 0, 3) + [3]),
        "pad": lambda: fe.pad(x2, [[_dim(rng), _dim(rng)], [_dim(rng), _dim(rng)]],
                              mode=str(rng.choice(["CONSTANT", "REFLECT", "SYMMETRIC"]))),
        "one_hot": lambda: fe.one_hot([0, 1, 2], d),
        "repeat": lambda: fe.repeat(fe.ones([3]), d if rng.random() < 0.5
                                    else [_dim(rng) for _ in range(3)]),
        "resize": lambda: fe.image.resize(fe.ones([1, 2, 2, 1]), [_dim(rng), _dim(rng)],
                                          method=str(rng.choice(["bilinear", "nearest"]))),
        "reshape": lambda: fe.reshape(fe.ones([0]), _dims(rng, 1, 3)),
        "uniform": lambda: fe.random.uniform(_dims(rng), seed=1),
        "normal": lambda: fe.random.normal(_dims(rng), seed=1),
        "stateless_uniform": lambda: fe.random.stateless_uniform(_dims(rng), seed=[1, 2]),
        "sequence_mask": lambda: fe.sequence_mask([1, 2], d),
        "scatter_nd": lambda: fe.scatter_nd([[0]], [1.0], [max(d, 1)]),
        "unsorted_segment_sum": lambda: fe.math.unsorted_segment_sum([1.0], [0], max(d, 1)),
        "bincount": lambda: fe.math.bincount([1], minlength=d),
    }


def _shape_case(rng):
    ops = _ops(rng)
    name = str(rng.choice(sorted(ops)))

    def thunk():
        out = ops[name]()
        arr = np.asarray(out.numpy())
        assert tuple(out.shape) == arr.shape, "%s: shape %s but values of %s" % (
            name, tuple(out.shape), arr.shape)
    return name, thunk


CHILD_TARGETS = {"shape_ops": _shape_case}


def test_shape_producing_ops_with_absurd_sizes():
    n = S.examples(300)
    assert S.run_in_child(__name__, "shape_ops", 20261207, n, timeout=max(120, n // 5),
                          memory_mb=2048) == n


def test_every_op_is_drawn():
    # each op of the table comes up within the default number of cases
    drawn = {_shape_case(np.random.default_rng([20261207, i]))[0]
             for i in range(S.examples(300))}
    assert drawn == set(_ops(np.random.default_rng(0)))
