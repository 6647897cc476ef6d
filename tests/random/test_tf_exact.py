"""fe.random gives TensorFlow 2.21's numbers: the literal values below were printed by real
TensorFlow (CPU, Linux) for the same calls; samples are compared bit for bit."""
import hashlib

import numpy as np
import pytest

import fasteager as tf

F32 = np.float32


def _same(got, want, dtype):
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    want = np.array(want, dtype=np.dtype(dtype)).reshape(got.shape)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


def _digest(t):
    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:16]


def test_guide_generator_values():
    g = tf.random.Generator.from_seed(1)
    _same(g.normal(shape=[2, 3]), [0.43842274, -0.53439844, -0.07710262,
                                   1.5658046, -0.1012345, -0.2744976], F32)
    np.testing.assert_array_equal(g.state.numpy(), [1 + 6 * 256, 0, 0])
    g = tf.random.Generator.from_seed(1)
    _same(g.normal([]), [0.43842274], F32)
    _same(g.normal([]), [1.6272374], F32)
    g.reset_from_seed(1)
    _same(g.normal([]), [0.43842274], F32)
    g = tf.random.Generator.from_seed(1, alg="philox")
    g.normal([])
    new_gs = g.split(3)
    for new_g, want in zip(new_gs, [2.536413, 0.33186463, -0.07144657]):
        _same(new_g.normal([]), [want], F32)
    _same(g.normal([]), [-0.79253083], F32)


def test_guide_stateless_values():
    _same(tf.random.stateless_normal(shape=[2, 3], seed=[1, 2]),
          [0.5441101, 0.20738031, 0.07356432, 0.04643455, -1.3015898, -0.9538565], F32)


GEN7 = [
    ("normal", {"shape": [5], "dtype": "float16"}, [-1.324, 0.2878, -0.876, -0.08856, 0.692]),
    ("normal", {"shape": [3], "mean": 0.5, "stddev": 2.0, "dtype": "float64"},
     [-1.4669317140932956, 0.03917311403730245, -2.2424232681193517]),
    ("uniform", {"shape": [2, 2], "minval": -1.0, "maxval": 3.0},
     [0.056495667, 1.8174496, 1.4213629, 0.7303972]),
    ("uniform", {"shape": [3], "dtype": "float64"},
     [0.5877065087483153, 0.3107588992557264, 0.889591660719073]),
    ("uniform", {"shape": [4], "dtype": "float16"}, [0.2666, 0.543, 0.3135, 0.4922]),
    ("uniform", {"shape": [6], "minval": -3, "maxval": 100, "dtype": "int32"},
     [34, 24, 49, 19, 70, 57]),
    ("uniform", {"shape": [3], "minval": 0, "maxval": 10 ** 15, "dtype": "int64"},
     [75839086552626, 495936658682294, 742752430676434]),
    ("uniform_full_int", {"shape": [3], "dtype": "int32"}, [699838857, 1332940415, 754175957]),
    ("uniform_full_int", {"shape": [2]}, [10977502775822245454, 15641374424387276517]),
    ("truncated_normal", {"shape": [5], "mean": 1.0, "stddev": 0.5},
     [0.34972554, 0.80543035, 1.4246086, 0.90213716, 0.7478466]),
    ("truncated_normal", {"shape": [3], "dtype": "float64"},
     [-0.37149623111031504, 0.14702438852489957, -0.4941866538729556]),
]


def test_successive_generator_draws_of_every_kind():
    g = tf.random.Generator.from_seed(7)
    for method, kwargs, want in GEN7:
        kwargs = dict(kwargs)
        dtype = kwargs.pop("dtype", None)
        if dtype is not None:
            kwargs["dtype"] = getattr(tf, dtype)
        got = getattr(g, method)(**kwargs)
        default = "uint64" if method == "uniform_full_int" else "float32"
        _same(got, want, dtype or default)
    # each draw of n values moves the counter 256 * n steps, as in TensorFlow
    np.testing.assert_array_equal(g.state.numpy(), [10503, 0, 0])


SL = [
    ("normal", [1, 2], {"shape": [5]}, [0.5441101, 0.20738031, 0.07356432, 0.04643455,
                                        -1.3015898]),
    ("normal", [-1, -2147483648], {"shape": [3]}, [0.43380916, 0.40111926, 0.8999194]),
    ("normal", [1099511627776, -5], {"shape": [3], "dtype": "float64"},
     [1.3646509842939227, 0.44887886149874345, 0.3856029861261617]),
    ("uniform", [3, 4], {"shape": [4], "minval": 1.0, "maxval": 3.0},
     [1.4865749, 2.9670126, 1.4408345, 1.9358404]),
    ("uniform", [3, 4], {"shape": [4], "minval": -3, "maxval": 7, "dtype": "int32"},
     [0, 4, -1, 6]),
    ("uniform", [3, 4], {"shape": [2], "minval": None, "maxval": None, "dtype": "int64"},
     [-2882898006462487541, 4520458231610095266]),
    ("truncated_normal", [3, 4], {"shape": [5], "mean": 1.0, "stddev": 2.0},
     [0.65213233, 4.3447094, 1.6963403, -2.4077814, 2.277038]),
    ("truncated_normal", [9, 9], {"shape": [3], "dtype": "float16"}, [0.388, 0.8423, 1.334]),
]


@pytest.mark.parametrize("fn, seed, kwargs, want", SL)
def test_stateless_ops(fn, seed, kwargs, want):
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", "float32")
    seed = tf.constant(seed, tf.int64) if any(abs(s) >= 2 ** 31 for s in seed) else seed
    for alg in ("auto_select", "philox"):    # the same scrambling of the seed on CPU
        got = getattr(tf.random, "stateless_" + fn)(seed=seed, dtype=getattr(tf, dtype),
                                                    alg=alg, **kwargs)
        _same(got, want, dtype)


def test_stateless_categorical():
    # TensorFlow's CPU kernel: inverse CDF of float64 uniforms (one shard for small draws)
    _same(tf.random.stateless_categorical(tf.math.log([[0.1, 0.2, 0.7]]), 20, [1, 2]),
          [2, 2, 1, 2, 2, 2, 2, 1, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2], np.int64)
    logits = tf.constant([[1.0, 2.0, -np.inf, 0.5], [0.0, 0.0, 0.0, 0.0]])
    _same(tf.random.stateless_categorical(logits, 7, [3, 4], dtype=tf.int32),
          [3, 1, 0, 1, 3, 1, 0, 0, 2, 1, 0, 2, 3, 0], np.int32)
    logits = tf.constant([[1.0, 2.0], [3.0, 0.0], [0.5, 0.5]], tf.float64)
    _same(tf.random.stateless_categorical(logits, 5, [5, 6]),
          [0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1], np.int64)


def test_binomial():
    # inversion (count * prob < 10) and BTRS rejection, each output on its own counter
    # range; the state moves 256 * 50 * batch * (samples + 3) steps, as TensorFlow's
    g = tf.random.Generator.from_seed(1)
    _same(g.binomial([4], counts=10.0, probs=0.3), [2, 3, 4, 2], np.int32)
    np.testing.assert_array_equal(g.state.numpy(), [89601, 0, 0])
    _same(g.binomial([8], counts=100.0, probs=0.3), [33, 29, 32, 25, 28, 30, 32, 34],
          np.int32)
    _same(g.binomial([2, 3], counts=[[5.0], [80.0]], probs=[0.7, 0.95, 0.2],
                     dtype=tf.float32), [3.0, 4.0, 1.0, 58.0, 75.0, 21.0], F32)
    np.testing.assert_array_equal(g.state.numpy(), [537601, 0, 0])
    _same(tf.random.stateless_binomial([6], [1, 2], counts=20, probs=0.25),
          [6, 6, 9, 7, 7, 5], np.int32)
    many = tf.random.stateless_binomial([3000, 4], [3, 4], counts=[3.0, 40.0, 1e6, 7.0],
                                        probs=[0.5, 0.3, 0.4, 0.9])
    assert _digest(many) == "24847f8a3d839fe8"
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with"):
        g.binomial([3], counts=[1.0, 2.0], probs=0.5)


def test_seed_helpers():
    _same(tf.random.experimental.stateless_split([1, 2], 3),
          [1105988140, 1738052849, -335576002, 370444179, 10670227, -246211131], np.int32)
    _same(tf.random.experimental.stateless_split(tf.constant([1, 2], tf.int64), 2),
          [7464880146280614444, 1591045637757961278, -1057468755545501549,
           2524363516007002203], np.int64)
    _same(tf.random.experimental.stateless_fold_in([5, 6], 7), [-180254357, 7], np.int32)
    _same(tf.random.experimental.stateless_fold_in([5, 6], tf.constant(7, tf.int64)),
          [-8166752306318964373, 7], np.int64)
    g = tf.random.Generator.from_seed(3)
    _same(g.make_seeds(2), [7657373526131797801, 7872641813117997903, 0, 0], np.int64)
    children = g.split(2)
    assert [int(c.state.numpy()[2]) for c in children] == [-6490470067629401058,
                                                           -8182959903992508267]
    _same(children[1].normal([2]), [0.32732692, 0.25350407], F32)
    np.testing.assert_array_equal(g.state.numpy(), [1027, 0, 0])
    g.skip(10)
    np.testing.assert_array_equal(g.state.numpy(), [1027 + 2560, 0, 0])


def test_state_from_seed_as_tensorflow():
    np.testing.assert_array_equal(tf.random.create_rng_state(1, "philox").numpy(), [1, 0, 0])
    for seed, state in [([1, 2], [0, 1, 2]), (-1, [-1, -1, -1]), (2 ** 70 + 5, [5, 64, 0]),
                        ([1, 2, 3, 4], [1, 2, 3])]:
        np.testing.assert_array_equal(tf.random.Generator.from_seed(seed).state.numpy(), state)


def test_large_draws_bit_for_bit():
    # SHA-256 prefixes of the bytes TensorFlow produced: every value of long draws, whose
    # float32 normals go through every branch of the C library's logf and sincosf
    g = tf.random.Generator.from_seed(1)
    assert _digest(g.normal([100001])) == "97e158321eafc10f"
    assert _digest(g.normal([30001], dtype=tf.float64)) == "5cdb49332042ad20"
    assert _digest(g.normal([30001], dtype=tf.float16)) == "95ff8a59c986035b"
    assert _digest(g.truncated_normal([50001])) == "3d3c9b82e0538fe5"
    assert _digest(g.truncated_normal([20001], dtype=tf.float64)) == "950b48207c2acc3f"
    assert _digest(g.uniform([50001])) == "22922e01170770b3"
    assert _digest(g.uniform([20001], -7, 2 ** 40, dtype=tf.int64)) == "6ceafce69a6cd533"
    np.testing.assert_array_equal(g.state.numpy(), [76801793, 0, 0])
    assert _digest(tf.random.stateless_normal([100001], [11, 12])) == "26515495bd0bc723"


def test_guide_replica_streams():
    strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strat.scope():
        g = tf.random.Generator.from_seed(1)
        first = strat.run(lambda: g.normal([]))
        second = strat.run(lambda: g.normal([]))
    values = [[v.numpy() for v in r.values] for r in (first, second)]
    _same(np.array(values), [-0.87930447, 0.020661574, -1.5822568, 0.77539235], F32)
    np.testing.assert_array_equal(g.state.numpy(), [1 + 512, 0, 0])


def test_seeded_initializers():
    _same(tf.random_normal_initializer(0.0, 0.5, seed=3)([2, 2]),
          [-0.3357924, 0.8380252, -0.47212273, 0.30396947], F32)
    _same(tf.random_uniform_initializer(-1.0, 1.0, seed=3)([3]),
          [-0.6081743, 0.8786905, 0.0645504], F32)


def test_threefry_is_not_available_outside_xla():
    with pytest.raises(tf.errors.InvalidArgumentError, match="ThreeFry"):
        tf.random.stateless_normal([2], [1, 2], alg="threefry")
    g = tf.random.Generator.from_seed(1, alg="threefry")
    with pytest.raises(tf.errors.UnimplementedError, match="ThreeFry"):
        g.normal([2])


def test_draws_in_a_function_continue_the_stream():
    g = tf.random.Generator.from_seed(3)

    @tf.function
    def seeds():
        return g.make_seeds(2)   # a graph op on the state: no eager fallback
    _same(seeds(), [7657373526131797801, 7872641813117997903, 0, 0], np.int64)
    third_and_fourth = seeds().numpy()[0]
    h = tf.random.Generator.from_seed(3)
    h.make_seeds(2)
    np.testing.assert_array_equal(third_and_fourth, h.make_seeds(2).numpy()[0])
    np.testing.assert_array_equal(g.state.numpy(), [3 + 4 * 256, 0, 0])
