"""fe.data.Dataset: element lists, shuffle buffer semantics and seeds, prefetch threads,
cardinality, and what a batched MNIST-sized epoch yields."""
import gc
import threading

import numpy as np
import pytest

import fasteager as fe
import fasteager.data as fdata
from fasteager.data import Dataset
from fasteager.errors import InvalidArgumentError, OutOfRangeError


def elems(ds):
    return [_plain(e) for e in ds.as_numpy_iterator()]


def _plain(e):
    if isinstance(e, tuple):
        return tuple(_plain(x) for x in e)
    if isinstance(e, dict):
        return {k: _plain(v) for k, v in e.items()}
    return np.asarray(e).tolist()


def test_from_tensor_slices_structures_and_tensors():
    ds = Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0]))
    assert elems(ds) == [(1, 4.0), (2, 5.0), (3, 6.0)]
    x, y = next(iter(ds))
    assert isinstance(x, fe.Tensor) and x.dtype == fe.int32 and y.dtype == fe.float32
    d = Dataset.from_tensor_slices({"a": [1, 2], "b": [[1, 1], [2, 2]]})
    assert elems(d) == [{"a": 1, "b": [1, 1]}, {"a": 2, "b": [2, 2]}]
    # a list is one tensor, not a structure
    assert elems(Dataset.from_tensor_slices([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match="0th dimension"):
        Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_source_not_aliased():
    a = np.arange(4)
    ds = Dataset.from_tensor_slices(a)
    a[0] = 100
    assert elems(ds) == [0, 1, 2, 3]
    out = next(ds.batch(2).as_numpy_iterator())
    with pytest.raises(ValueError):
        out[0] = 5


def test_from_tensors_range_take_skip_repeat():
    assert elems(Dataset.from_tensors([1, 2])) == [[1, 2]]
    assert elems(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert elems(Dataset.range(2, 10, 3)) == [2, 5, 8]
    assert next(iter(Dataset.range(3))).dtype == fe.int64
    r = Dataset.range(5)
    assert elems(r.take(2)) == [0, 1] and elems(r.take(-1)) == [0, 1, 2, 3, 4]
    assert elems(r.skip(3)) == [3, 4] and elems(r.skip(-1)) == []
    assert elems(r.take(2).repeat(3)) == [0, 1] * 3
    assert elems(r.repeat().take(7)) == [0, 1, 2, 3, 4, 0, 1]
    s = Dataset.from_tensor_slices(np.arange(5))
    assert elems(s.skip(1).take(2).repeat(2)) == [1, 2, 1, 2]
    assert elems(s.repeat(2).skip(4).take(3)) == [4, 0, 1]


def test_batch_and_remainder_and_unbatch():
    s = Dataset.from_tensor_slices((np.arange(7), np.arange(7) * 10))
    b = elems(s.batch(3))
    assert b == [([0, 1, 2], [0, 10, 20]), ([3, 4, 5], [30, 40, 50]), ([6], [60])]
    assert len(elems(s.batch(3, drop_remainder=True))) == 2
    # batches cross repeat boundaries, as in tf.data
    assert elems(Dataset.from_tensor_slices(np.arange(3)).repeat(2).batch(4)) == \
        [[0, 1, 2, 0], [1, 2]]
    # generic path (after a map) gives the same
    g = s.map(lambda a, b: (a, b)).batch(3)
    assert elems(g) == b
    assert elems(s.batch(3).unbatch()) == elems(s)
    with pytest.raises(InvalidArgumentError, match="different shapes"):
        list(Dataset.from_generator(lambda: iter([[1], [1, 2]]),
                                    output_signature=fdata.TensorSpec([None], fe.int32))
             .batch(2))


def test_map_unpacks_tuples_and_dicts_filter():
    s = Dataset.from_tensor_slices(([1, 2, 3], [10, 20, 30]))
    assert elems(s.map(lambda a, b: a + b)) == [11, 22, 33]
    assert elems(s.map(lambda a, b: [b, a]).take(1)) == [(10, 1)]
    d = Dataset.from_tensor_slices({"x": [1, 2]})
    assert elems(d.map(lambda e: e["x"] * 2)) == [2, 4]
    assert elems(Dataset.range(10).filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    par = Dataset.range(50).map(lambda x: x * x, num_parallel_calls=fdata.AUTOTUNE)
    assert elems(par) == [i * i for i in range(50)]


def test_zip_concatenate_enumerate_cache():
    a, b = Dataset.range(3), Dataset.range(10, 15)
    assert elems(Dataset.zip((a, b))) == [(0, 10), (1, 11), (2, 12)]
    assert elems(Dataset.zip(a, b)) == [(0, 10), (1, 11), (2, 12)]
    assert elems(Dataset.zip({"p": a, "q": b}).take(1)) == [{"p": 0, "q": 10}]
    assert elems(a.concatenate(Dataset.range(7, 9))) == [0, 1, 2, 7, 8]
    assert elems(b.enumerate(5).take(2)) == [(5, 10), (6, 11)]
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)
    c = Dataset.from_generator(gen, output_signature=fdata.TensorSpec((), fe.int64)).cache()
    assert elems(c) == [0, 1, 2] and elems(c) == [0, 1, 2] and len(calls) == 1
    shuffled = Dataset.range(20).shuffle(20, seed=3).cache()
    assert elems(shuffled) == elems(shuffled)


def test_cardinality_and_len():
    r = Dataset.range(10)
    assert int(r.cardinality()) == 10 and len(r.batch(3)) == 4
    assert len(r.batch(3, drop_remainder=True)) == 3
    assert int(r.repeat().cardinality()) == fdata.INFINITE_CARDINALITY == -1
    assert int(r.filter(lambda x: True).cardinality()) == fdata.UNKNOWN_CARDINALITY == -2
    assert len(r.repeat().take(4)) == 4 and len(r.skip(8)) == 2 and len(r.repeat(3)) == 30
    assert len(Dataset.zip((r, r.take(4)))) == 4
    assert fdata.experimental.cardinality(r).numpy() == 10
    with pytest.raises(TypeError, match="infinite"):
        len(r.repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(r.filter(lambda x: True))
    assert bool(Dataset.range(0))


def test_shuffle_buffer_semantics():
    n, b = 1000, 10
    for seed in range(20):
        out = elems(Dataset.range(n).shuffle(b, seed=seed))
        assert sorted(out) == list(range(n))
        assert out[0] < b                       # first output comes from the first b inputs
        assert all(out[i] < b + i for i in range(n))   # element i drawn from inputs < b + i
    # array-backed (index plan) path obeys the same rule
    arr = Dataset.from_tensor_slices(np.arange(n)).shuffle(b, seed=1)
    out = elems(arr)
    assert sorted(out) == list(range(n)) and all(out[i] < b + i for i in range(n))
    # shuffle(1000) of 60000 is not a full permutation: the head stays near the front
    big = elems(Dataset.from_tensor_slices(np.arange(60000)).shuffle(1000, seed=0).take(100))
    assert max(big) < 1100


def test_shuffle_seeds_and_reshuffle():
    ds = Dataset.range(100).shuffle(100, seed=42)
    e1, e2 = elems(ds), elems(ds)
    assert e1 != e2 and sorted(e1) == sorted(e2)             # reshuffled each iteration
    again = Dataset.range(100).shuffle(100, seed=42)
    assert elems(again) == e1 and elems(again) == e2          # reproducible per seed
    fixed = Dataset.range(100).shuffle(100, seed=42, reshuffle_each_iteration=False)
    assert elems(fixed) == elems(fixed)
    # repeat after shuffle: each epoch a new order
    ep = elems(Dataset.range(50).shuffle(50, seed=1).repeat(2))
    assert sorted(ep[:50]) == sorted(ep[50:]) and ep[:50] != ep[50:]
    # the global seed makes unseeded shuffles reproducible
    fe.random.set_seed(7)
    a = elems(Dataset.from_tensor_slices(np.arange(100)).shuffle(100))
    fe.random.set_seed(7)
    b = elems(Dataset.from_tensor_slices(np.arange(100)).shuffle(100))
    assert a == b
    fe.random.set_seed(None)


def _prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "fe.data.prefetch"]


def _wait_no_prefetch_threads():
    # Joins rather than a short polling budget: returns as soon as the threads are gone,
    # and only a thread still alive after a minute (a hang, not slowness) fails the test.
    for _ in range(60):
        gc.collect()
        threads = _prefetch_threads()
        if not threads:
            return True
        threads[0].join(timeout=1.0)
    return False


def test_prefetch_order_and_thread_cleanup():
    ds = Dataset.range(100).map(lambda x: x + 1).prefetch(3)
    assert elems(ds) == list(range(1, 101))
    assert _wait_no_prefetch_threads()
    it = iter(Dataset.range(10 ** 6).prefetch(2))
    next(it)
    assert _prefetch_threads()
    del it
    assert _wait_no_prefetch_threads()
    for x in Dataset.range(10 ** 6).prefetch(fdata.AUTOTUNE).batch(4):
        break
    del x
    assert _wait_no_prefetch_threads()


def test_prefetch_propagates_errors():
    def gen():
        yield 1
        raise RuntimeError("boom in generator")
    ds = Dataset.from_generator(gen, output_types=fe.int32).prefetch(2)
    it = iter(ds)
    assert int(next(it)) == 1
    with pytest.raises(RuntimeError, match="boom"):
        next(it)
    del it
    assert _wait_no_prefetch_threads()


def test_from_generator_signatures():
    def gen():
        for i in range(3):
            yield i, [float(i)] * 2
    ds = Dataset.from_generator(gen, output_signature=(
        fdata.TensorSpec((), fe.int64), fdata.TensorSpec((2,), fe.float32)))
    out = list(ds)
    assert out[2][0].dtype == fe.int64 and out[2][1].numpy().tolist() == [2.0, 2.0]
    old = Dataset.from_generator(gen, output_types=(fe.int32, fe.float32),
                                 output_shapes=((), (2,)))
    assert elems(old.batch(3)) == [([0, 1, 2], [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])]
    bad = Dataset.from_generator(gen, output_signature=(
        fdata.TensorSpec((), fe.int64), fdata.TensorSpec((3,), fe.float32)))
    with pytest.raises(InvalidArgumentError, match="shape"):
        list(bad)
    with pytest.raises(TypeError, match="declared"):
        Dataset.from_generator(gen)


def test_iterators_and_element_spec():
    import fasteager.contrib.eager as tfe
    ds = Dataset.from_tensor_slices((np.zeros((4, 2), np.float32), np.arange(4)))
    it = tfe.Iterator(ds)
    x, y = it.next()
    assert x.shape == (2,) and int(y) == 0
    assert [int(b) for _, b in it] == [1, 2, 3]
    with pytest.raises(OutOfRangeError):
        it.get_next()
    spec = ds.batch(2).element_spec
    assert spec[0].shape == (None, 2) and spec[0].dtype == fe.float32
    assert ds.batch(2, drop_remainder=True).element_spec[0].shape == (2, 2)


def test_mnist_style_pipeline_epoch():
    # What one epoch yields; its speed (it used to be asserted here as "under 1 s") is
    # the benchmark workload dataset_shuffle_batch_epoch: python -m fasteager.bench.
    rng = np.random.default_rng(0)
    images = rng.random((60000, 28, 28, 1), dtype=np.float32)
    labels = rng.integers(0, 10, 60000).astype(np.int64)
    ds = Dataset.from_tensor_slices((fe.constant(images), fe.constant(labels)))
    ds = ds.shuffle(1000, seed=0).batch(32)
    seen, count = 0, 0
    for x, y in ds:
        seen += int(y.shape[0])
        count += 1
    assert (seen, count, tuple(x.shape)) == (60000, 1875, (32, 28, 28, 1))
    # the batches hold whole rows of the source
    first = next(iter(ds))
    i = int(np.flatnonzero((images.reshape(60000, -1) == first[0].numpy()[0].ravel()).all(1))[0])
    assert int(first[1].numpy()[0]) == labels[i]
