"""Iterators shared between threads, as tf.data allows: every element is handed out once,
every thread sees the end (StopIteration / OutOfRangeError), nothing hangs; and an
abandoned iterator leaks no thread and does not hang interpreter exit. Every wait here is
bounded, so a hang fails the test instead of stalling the run."""
import collections
import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import fasteager as fe
from fasteager.data import Dataset
from fasteager.errors import OutOfRangeError

JOIN_S = 60      # a hang, not slowness, outlives this


def _gen():
    for i in range(30):
        yield i, float(i) / 2


PIPELINES = {
    "range": lambda: Dataset.range(50),
    "from_tensor_slices": lambda: Dataset.from_tensor_slices(
        (np.arange(40), np.arange(40) * 2.0)),
    "map": lambda: Dataset.range(40).map(lambda x: x * 3),
    "map_parallel": lambda: Dataset.range(60).map(lambda x: x * 3, num_parallel_calls=4),
    "map_autotune": lambda: Dataset.range(60).map(lambda x: x + 1,
                                                  num_parallel_calls=fe.data.AUTOTUNE),
    "filter": lambda: Dataset.range(60).filter(lambda x: x % 3 == 0),
    "shuffle": lambda: Dataset.range(50).shuffle(10, seed=3),
    "shuffle_generic": lambda: Dataset.range(50).map(lambda x: x + 1).shuffle(7, seed=1),
    "batch": lambda: Dataset.range(47).batch(5),
    "batch_plan": lambda: Dataset.from_tensor_slices(np.arange(47)).batch(5),
    "unbatch": lambda: Dataset.range(48).batch(6).unbatch(),
    "prefetch": lambda: Dataset.range(10).prefetch(1),
    "prefetch_map": lambda: Dataset.range(40).map(lambda x: x * 2).prefetch(3),
    "interleave": lambda: Dataset.range(4).interleave(
        lambda x: Dataset.range(10).map(lambda y: y + 100 * x), cycle_length=2),
    "zip": lambda: Dataset.zip((Dataset.range(30), Dataset.range(30).map(lambda x: -x))),
    "repeat_take": lambda: Dataset.range(7).repeat().take(45),
    "from_generator": lambda: Dataset.from_generator(
        _gen, output_signature=(fe.TensorSpec([], fe.int64), fe.TensorSpec([], fe.float64))),
    "generator_parallel_map_prefetch": lambda: Dataset.from_generator(
        _gen, output_types=(fe.int64, fe.float64)).map(
            lambda a, b: (a + 1, b), num_parallel_calls=3).prefetch(2),
}


def _key(element):
    return repr(fe.nest.map_structure(lambda t: np.asarray(t).tolist(), element))


def _run_threads(pull, n_threads=4):
    """Each thread calls ``pull()`` until the end; returns (elements per thread, how each
    thread ended). Fails if a thread is still running after JOIN_S."""
    got = [[] for _ in range(n_threads)]
    ends = [None] * n_threads
    start = threading.Barrier(n_threads)

    def work(k):
        start.wait(timeout=JOIN_S)
        try:
            while True:
                got[k].append(_key(pull(k)))
        except (StopIteration, OutOfRangeError) as e:
            ends[k] = type(e).__name__
        except BaseException as e:      # reported below
            ends[k] = repr(e)

    threads = [threading.Thread(target=work, args=(k,), daemon=True)
               for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=JOIN_S)
    hung = [k for k, t in enumerate(threads) if t.is_alive()]
    assert not hung, "threads %s never saw the end of the iterator" % hung
    return got, ends


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_shared_iterator_hands_out_each_element_once(name):
    expected = [_key(e) for e in PIPELINES[name]()]
    it = iter(PIPELINES[name]())

    # half the threads use next() (StopIteration), half get_next() (OutOfRangeError)
    def pull(k):
        return next(it) if k % 2 else it.get_next()
    got, ends = _run_threads(pull)
    assert ends == ["OutOfRangeError", "StopIteration"] * 2
    together = [e for part in got for e in part]
    assert collections.Counter(together) == collections.Counter(expected)
    # the end stays the end
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(OutOfRangeError):
        it.get_next()


@pytest.mark.parametrize("name", ["map_parallel", "shuffle", "unbatch", "prefetch"])
def test_shared_numpy_iterator(name):
    expected = [_key(e) for e in PIPELINES[name]().as_numpy_iterator()]
    it = PIPELINES[name]().as_numpy_iterator()
    got, ends = _run_threads(lambda k: next(it))
    assert ends == ["StopIteration"] * 4
    assert collections.Counter(e for part in got for e in part) == \
        collections.Counter(expected)


def _data_threads():
    return [t for t in threading.enumerate() if t.name.startswith("fe.data")]


@pytest.mark.parametrize("name", ["prefetch", "prefetch_map", "map_parallel",
                                  "generator_parallel_map_prefetch"])
def test_abandoned_iterator_leaks_no_thread(name):
    before = set(_data_threads())
    it = iter(PIPELINES[name]().repeat())
    next(it)
    next(it)
    del it
    gc.collect()
    for t in set(_data_threads()) - before:
        t.join(timeout=JOIN_S)
        assert not t.is_alive(), "%s still runs after its iterator was dropped" % t.name


def test_abandoned_iterators_do_not_hang_interpreter_exit():
    # iterators left running (one element taken, still referenced) when the program ends
    code = textwrap.dedent("""
        import fasteager as fe
        from fasteager.data import Dataset
        slow = lambda x: x + 1
        kept = []
        for ds in [Dataset.range(10 ** 9).prefetch(2),
                   Dataset.range(10 ** 9).map(slow, num_parallel_calls=4),
                   Dataset.range(10 ** 9).map(slow, num_parallel_calls=4).prefetch(3),
                   Dataset.range(10 ** 9).map(slow).prefetch(1).batch(2).prefetch(1)]:
            it = iter(ds)
            next(it)
            kept.append(it)
        print("ok")
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=JOIN_S, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
