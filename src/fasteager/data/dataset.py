"""``fe.data.Dataset``: lazy input pipelines with ``tf.data``'s semantics.

Each dataset is a node over its input; iterating builds a fresh chain of Python
iterators that pass elements (structures of NumPy arrays) up the chain, and the user
sees them as tensors.

Fast path. A pipeline that starts at ``from_tensor_slices`` and only reorders or selects
elements (``shuffle``, ``take``, ``skip``, ``repeat``, ``cache``) has an *index plan*:
a stream of int64 index arrays into the source arrays. ``batch`` over such a pipeline
cuts the stream into batches and gathers each with one NumPy fancy-indexing call per
component (a plain slice when the indices are a contiguous run), so no per-element
Python runs; ``shuffle`` runs its buffer algorithm over indices in a tight loop.
"""
import collections
import dis
import itertools
import secrets
import sys
import threading

import numpy as np

from .. import _core
from .._src.state.variables import Variable
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError, OutOfRangeError
from ..ops import random_ops as _random
from . import structure as S
from .._src.composite.leaves import LEAVES, row_spec

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2
_CHUNK = 4096   # elements per list in the generic shuffle


class _Kinds:
    """The dataset kinds ``Dataset``'s methods make (``Batch``, ``Map``, ``FromGenerator``,
    ...). They subclass ``Dataset``, so they live in the modules above this one
    (transforms, sampling, windowing, sources), and each registers itself here with
    ``@register`` when its module is imported (``fe.data`` imports them all); this module
    imports none of them."""


_kinds = _Kinds()


def register(kind):
    """Decorator: ``Dataset``'s methods may make ``kind`` (a Dataset subclass, or a
    function returning one) as ``_kinds.<its name>``."""
    setattr(_kinds, kind.__name__, kind)
    return kind


class _Plan:
    """An index plan: ``stream()`` yields int64 index arrays into ``source.arrays``.

    ``runs``: every array is a contiguous ascending run (gathers can slice);
    ``random``: the order changes between iterations (cache cannot pass it through).
    """

    __slots__ = ("random", "runs", "source", "stream")

    def __init__(self, source, stream, runs, random):
        self.source, self.stream, self.runs, self.random = source, stream, runs, random


class Dataset:
    """A sequence of elements, each a tensor or a tuple/dict of them.

    >>> ds = fe.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000).batch(32)
    >>> for x, y in ds.take(1):
    ...     print(x.shape, y.shape)
    (32, 28, 28, 1) (32,)
    """

    # -- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per row of the leading dimension of ``tensors`` (all components
        must share it)."""
        return _TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of exactly one element, ``tensors``."""
        return _FromTensors(tensors)

    @staticmethod
    def range(*args, **kwargs):
        """``range(stop)``, ``range(start, stop[, step])``: int64 scalars (``dtype=``)."""
        return _Range(*args, **kwargs)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """Elements from ``generator(*args)``, called afresh for every iteration."""
        return _kinds.FromGenerator(generator, output_types, output_shapes, args,
                                    output_signature)

    @staticmethod
    def counter(start=0, step=1, dtype="int64", name=None):
        """``start, start + step, ...`` forever (``tf.data.Dataset.counter``)."""
        return _Counter(start, step, dtype)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The names of the files matching ``file_pattern`` (a glob pattern or a list of
        them), as string scalars; shuffled (``shuffle=None`` means True), with the file
        names matched when this is called. No match raises ``InvalidArgumentError``."""
        return _kinds.list_files(file_pattern, shuffle, seed)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Each element from one of ``datasets``, drawn at random with probabilities
        ``weights`` (uniform by default; a list, a tensor or a dataset of weight vectors).
        An exhausted dataset is no longer drawn (the others' weights are renormalised),
        unless ``stop_on_empty_dataset``, which ends the dataset then."""
        return _kinds.SampleFromDatasets(datasets, weights, seed, stop_on_empty_dataset,
                                  rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """The next element of ``datasets[i]`` for each int64 scalar ``i`` of
        ``choice_dataset``."""
        return _kinds.ChooseFromDatasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def zip(*datasets, name=None):
        """Elements are tuples (or the given structure) of the datasets' elements."""
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        return _kinds.Zip(datasets)

    # -- transformations ------------------------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Randomly shuffle with a buffer of ``buffer_size`` elements, as tf.data does."""
        return _kinds.Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stack ``batch_size`` consecutive elements (the last batch may be smaller)."""
        return _kinds.Batch(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batch ``batch_size`` consecutive elements, padding every component to a common
        shape: ``padded_shapes`` (per component; ``None``/-1 dimensions, or all of them by
        default, become the largest in the batch), padded with ``padding_values`` (0, or
        ``b''`` for strings, by default; one scalar pads every component)."""
        return _kinds.PaddedBatch(self, batch_size, padded_shapes, padding_values,
                                  drop_remainder)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows: each window is a dataset (a structure of datasets, one
        per component) of ``size`` elements taken every ``stride``-th, windows starting
        every ``shift`` (``size`` by default) elements. The last windows may be smaller
        unless ``drop_remainder``."""
        return _kinds.Window(self, size, shift, stride, drop_remainder)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func(element)`` returns, one after another."""
        return _kinds.FlatMap(self, map_func)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """The elements of the datasets ``map_func`` makes from ``cycle_length`` input
        elements at a time, ``block_length`` from each in turn (in tf.data's order)."""
        return _kinds.Interleave(self, map_func, cycle_length, block_length)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):
        """Elements ``(class_func(element), element)`` resampled (by rejection) so that
        the classes follow ``target_dist``; ``initial_dist`` is the classes' distribution
        in this dataset, estimated while iterating when not given."""
        return _kinds.RejectionResample(self, class_func, target_dist, initial_dist, seed)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype="int64",
                     name=None):
        """Batch ``batch_size`` consecutive elements; components whose shapes differ
        between elements become RaggedTensors (``tf.data.Dataset.ragged_batch``)."""
        return _kinds.RaggedBatch(self, batch_size, drop_remainder, row_splits_dtype)

    def unbatch(self, name=None):
        """Split every element along its first dimension."""
        return _kinds.Unbatch(self)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Apply ``map_func`` to every element (a tuple element is passed unpacked)."""
        return _kinds.Map(self, map_func, num_parallel_calls)

    def filter(self, predicate, name=None):
        """Keep the elements for which ``predicate`` is true."""
        return _kinds.Filter(self, predicate)

    def take(self, count, name=None):
        """The first ``count`` elements (all of them for -1)."""
        return _kinds.Take(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none of them for -1)."""
        return _kinds.Skip(self, count)

    def repeat(self, count=None, name=None):
        """Iterate ``count`` times (forever for None or -1)."""
        return _kinds.Repeat(self, count)

    def prefetch(self, buffer_size, name=None):
        """Produce up to ``buffer_size`` elements ahead on a background thread."""
        return _kinds.Prefetch(self, buffer_size)

    def cache(self, filename="", name=None):
        """Keep the elements of the first complete iteration in memory and replay them."""
        return _kinds.Cache(self, filename)

    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by ``dataset``'s."""
        return _kinds.Concatenate(self, dataset)

    def enumerate(self, start=0, name=None):
        """Elements ``(index, element)`` with an int64 index counting from ``start``."""
        return _kinds.Enumerate(self, start)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``."""
        return _kinds.Shard(self, num_shards, index)

    def apply(self, transformation_func):
        return transformation_func(self)

    def reduce(self, initial_state, reduce_func, name=None):
        """Fold the elements: ``state = reduce_func(state, element)``."""
        state = S.to_tensors(S.to_arrays(initial_state))
        for element in self:
            state = reduce_func(state, element)
        return state

    # -- inspection -----------------------------------------------------------------------
    def cardinality(self):
        """Number of elements as an int64 tensor; ``fe.data.INFINITE_CARDINALITY`` (-1)
        or ``fe.data.UNKNOWN_CARDINALITY`` (-2) when not finite or not known."""
        return _core.wrap(np.asarray(self._cardinality(), np.int64))

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("Dataset.__len__: the dataset is infinite (expected a finite "
                            "dataset, got cardinality INFINITE)")
        if n == UNKNOWN:
            raise TypeError("Dataset.__len__: the dataset length is unknown (expected a "
                            "known cardinality; filter and from_generator hide it)")
        return n

    def __bool__(self):
        return True

    @property
    def element_spec(self):
        """The structure of ``TensorSpec`` of one element (an extension value's ``Spec``)."""
        return S.public_spec(self._element_spec())

    def _element_spec(self):
        for element in self._iter():
            return S.spec_of(element)
        raise InvalidArgumentError("Dataset.element_spec: the dataset is empty, its element "
                                   "structure cannot be inspected (expected an element)")

    def __iter__(self):
        return OwnedIterator(self)

    def as_numpy_iterator(self):
        """Iterate elements as NumPy arrays (scalars for rank 0)."""
        return NumpyIterator(self)

    def __repr__(self):
        return "<%s element_spec=%r>" % (type(self).__name__, self.element_spec)

    # -- the pipeline contract ------------------------------------------------------------
    def _plan(self):
        """An index plan (see the module docstring), or None."""
        return

    def _iter(self):
        """A fresh iterator of elements (structures of ndarrays)."""
        plan = self._plan()
        if plan is None:
            raise NotImplementedError("%s._iter" % type(self).__name__)
        return _iter_plan(plan)

    def _cardinality(self):
        return UNKNOWN

    def _skip_ahead(self, n):
        """A fresh element iterator after the first ``n`` (> 0) elements, for a dataset
        without an index plan (see "iterator positions" below): by default the elements
        are produced and dropped; a kind that can pass the skip to its input overrides
        this."""
        it = self._iter()
        collections.deque(itertools.islice(it, n), maxlen=0)
        return it


def _iter_plan(plan):
    arrays, template = plan.source.arrays, plan.source.template
    for chunk in plan.stream():
        for i in chunk.tolist():
            yield S.pack(template, [a[i] for a in arrays])


class _SharedIterator:
    """Pulls elements from ``self._it`` under a lock, so that several threads may share
    one iterator as in tf.data: each element goes to one thread, and once the end is
    reached every later pull ends too (none blocks on a prefetch queue that will never
    fill, none reenters a running generator). Subclasses set ``_it`` and call
    ``_init_shared``."""

    def _init_shared(self):
        # reentrant: a pull made from inside the pipeline on the same thread reaches the
        # generator and fails there ("already executing") instead of deadlocking
        self._lock = threading.RLock()
        self._exhausted = False

    def _pull(self):
        """The next element of ``_it`` (StopIteration at the end); the caller holds the
        lock."""
        if self._exhausted:
            raise StopIteration
        try:
            return next(self._it)
        except StopIteration:
            self._exhausted = True
            raise


class NumpyIterator(_SharedIterator):
    """The iterator ``Dataset.as_numpy_iterator()`` returns: elements as NumPy arrays."""

    def __init__(self, dataset):
        self._it = dataset._iter()
        self._init_shared()

    def __iter__(self):
        return self

    def __next__(self):
        with self._lock:
            element = self._pull()
        return S.to_numpy(element)

    def next(self):
        return self.__next__()


class OwnedIterator(_SharedIterator):
    """The iterator ``iter(dataset)`` returns: elements as tensors.

    Checkpointable (``fe.train.Checkpoint(iterator=it)``): its saved state is how many
    elements it has returned plus the seeds and epoch of every ``shuffle`` in the pipeline
    when it started, and restoring rebuilds the iteration and moves it to that position
    (see ``_advanced`` for what runs again on the way).
    """

    def __init__(self, dataset):
        self._dataset = dataset
        self._start = _shuffle_states(dataset)
        self._it = dataset._iter()
        self._init_shared()
        self._position = 0
        self._state_var = None
        self._pending = collections.deque()   # elements given back (see _give_back)
        tracer = _core.get_tracer()
        if tracer is not None:
            tracer.iterator_created(self)

    def __iter__(self):
        return self

    def __next__(self):
        tracer = _core.get_tracer()
        if tracer is not None:
            # inside fe.function: the graph pulls the next element on every call
            return tracer.iterator_next(self, _called_by_for_statement())
        return S.to_tensors(self._next_element())

    def _next_element(self):
        """The next element as a structure of arrays (StopIteration at the end)."""
        with self._lock:
            element = self._pending.popleft() if self._pending else self._pull()
            self._position += 1
            return element

    def _give_back(self, element):
        """Make ``element`` (the last one taken) the next one again: a graph that pulled
        elements it cannot run on (a new shape) gives them back before tracing again."""
        with self._lock:
            self._pending.appendleft(element)
            self._position -= 1

    # -- checkpoint state -----------------------------------------------------------------
    def _state_array(self):
        values = [self._position]
        for _, seed, epoch in self._start:
            values += [seed[0], seed[1], epoch]
        return np.array(values, np.int64)

    def _checkpoint_dependencies(self):
        if self._state_var is None:
            self._state_var = IteratorState(self)
        else:
            self._state_var._sync()
        return [("_iterator_state", self._state_var)]

    def _restore_state(self, state):
        with self._lock:
            self._restore_locked(state)

    def _restore_locked(self, state):
        values = [int(v) for v in np.asarray(state).tolist()]
        # end the current iteration first: a prefetch thread of it that runs ahead would
        # otherwise start new epochs of the shuffles whose epochs are reset below
        _end_iteration(self._it)
        self._it = iter(())
        for k, (shuffle, _, _) in enumerate(self._start):
            with shuffle._lock:
                shuffle._seed = values[1 + 3 * k:3 + 3 * k]
                shuffle._epoch = values[3 + 3 * k]
        self._start = _shuffle_states(self._dataset)
        self._it = _advanced(self._dataset, values[0])
        self._exhausted = False
        self._pending.clear()
        self._position = values[0]

    def next(self):
        return self.__next__()

    def get_next(self):
        """The next element; raises ``fe.errors.OutOfRangeError`` at the end."""
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError("Iterator.get_next: end of sequence") from None

    def get_next_as_optional(self):
        raise NotImplementedError("Iterator.get_next_as_optional is not supported")

    @property
    def element_spec(self):
        return self._dataset.element_spec


def _end_iteration(it):
    """Close an element iterator; dropping the last reference to it (on return) stops the
    prefetch threads inside it."""
    close = getattr(it, "close", None)
    if close is not None:
        close()


def _called_by_for_statement():
    """Whether the iterator's ``__next__`` was called by a ``for`` statement (not by
    ``next()``): inside fe.function the end of the data ends such a loop, as in Python,
    where ``next()`` raises OutOfRangeError, as in TensorFlow."""
    frame = sys._getframe(2)
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _FOR_ITER


_FOR_ITER = dis.opmap["FOR_ITER"]


# -- iterator positions (checkpoints) -----------------------------------------------------
# Restoring an iterator re-creates its iteration from the saved shuffle seeds and epochs and
# moves it past the elements it had returned, doing as little work for them as the pipeline
# allows: index plans (from_tensor_slices with shuffle/take/skip/repeat, and batch over
# them) skip indices without gathering anything; map, batch, take, skip, enumerate, zip and
# prefetch pass the skip to their input (map functions do not run for skipped elements).
# Other datasets (filter, shuffle over a non-plan input, unbatch, cache, concatenate,
# from_generator, ...) produce the skipped elements again and drop them, so functions
# upstream of them run again for those elements.

def _nodes(dataset, out=None, seen=None):
    """Every dataset in ``dataset``'s pipeline, each once, ``dataset`` first."""
    out = [] if out is None else out
    seen = set() if seen is None else seen
    if id(dataset) in seen:
        return out
    seen.add(id(dataset))
    out.append(dataset)
    for value in vars(dataset).values():
        for child in (value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(child, Dataset):
                _nodes(child, out, seen)
    return out


def _shuffle_states(dataset):
    """(node, seed, epoch) of every random node (shuffle, sampling) in the pipeline."""
    out = []
    for node in _nodes(dataset):
        if isinstance(node, RandomDataset):
            with node._lock:
                out.append((node, list(node._seed), node._epoch))
    return out


def _drop_indices(stream, n):
    """An index stream without its first ``n`` indices."""
    for chunk in stream:
        if n >= len(chunk):
            n -= len(chunk)
            continue
        yield chunk[n:] if n else chunk
        n = 0


def _advanced(dataset, n):
    """A fresh element iterator of ``dataset`` positioned after its first ``n`` elements."""
    if n <= 0:
        return dataset._iter()
    plan = dataset._plan()
    if plan is not None:
        return _iter_plan(_Plan(plan.source, lambda: _drop_indices(plan.stream(), n),
                                plan.runs, plan.random))
    return dataset._skip_ahead(n)


class IteratorState(Variable):
    """An iterator's position as a checkpoint value: a Variable whose assignment (what a
    restore does) moves the iterator there."""

    def __init__(self, iterator):
        super().__init__(iterator._state_array(), trainable=False, name="iterator_state")
        self._iterator = iterator

    def _sync(self):
        Variable.assign(self, self._iterator._state_array())

    def assign(self, value, use_locking=False, name=None, read_value=True):
        Variable.assign(self, value)        # validates the shape and dtype first
        self._iterator._restore_state(self.numpy())
        return self


# -- sources ------------------------------------------------------------------------------
class _TensorSlices(Dataset):
    def __init__(self, tensors):
        value = S.to_arrays(tensors)
        flat = S.flatten(value)
        if not flat:
            raise ValueError("from_tensor_slices: no components (expected a tensor or a "
                             "tuple/dict of tensors, got %r)" % (tensors,))
        for a in flat:
            if a.ndim == 0:
                raise ValueError("from_tensor_slices: components must have a leading "
                                 "dimension to slice (expected rank >= 1, got a scalar)")
        n = flat[0].shape[0]
        for i, a in enumerate(flat):
            if a.shape[0] != n:
                raise ValueError("from_tensor_slices: all components must have the same size "
                                 "in the 0th dimension (expected %d, got %d in component %d)"
                                 % (n, a.shape[0], i))
        # the structure of one row (an extension value's batch shape is then a row's)
        self.template = S.pack(value, [a[0] for a in flat]) if n else value
        self.arrays = [S.readonly(a) for a in flat]
        self.n = n

    def _plan(self):
        n = self.n
        return _Plan(self, lambda: iter((np.arange(n, dtype=np.int64),)), True, False)

    def _cardinality(self):
        return self.n

    def _element_spec(self):
        return S.pack(self.template, [
            (row_spec(a) or S.TensorSpec([None] + list(a.values.shape[1:]), a.dtype))
            if isinstance(a, LEAVES) else S.TensorSpec(a.shape[1:], a.dtype)
            for a in self.arrays])


class _FromTensors(Dataset):
    def __init__(self, tensors):
        self._element = S.map_structure(S.readonly, S.to_arrays(tensors))

    def _iter(self):
        return iter((self._element,))

    def _cardinality(self):
        return 1


class RandomDataset(Dataset):
    """A dataset drawing random numbers (shuffle, sampling): its generator is seeded by
    ``_seed`` (see ``random_seeds``) and the iteration count ``_epoch``, which iterator
    checkpoints save and restore."""

    def _init_random(self, seed, reshuffle_each_iteration):
        self._seed, _ = random_seeds(seed)
        self._reshuffle = bool(reshuffle_each_iteration)
        self._epoch = 0
        self._lock = threading.Lock()

    def _rng(self):
        """The generator of a new iteration."""
        with self._lock:
            epoch = self._epoch
            if self._reshuffle:
                self._epoch += 1
        return np.random.default_rng(self._seed + [epoch])


class _Counter(Dataset):
    def __init__(self, start, step, dtype):
        self._dtype = as_dtype(dtype)._np
        self._start, self._step = S.to_array(start).item(), S.to_array(step).item()

    def _iter(self):
        t = self._dtype.type
        return (np.asarray(t(i)) for i in itertools.count(self._start, self._step))

    def _cardinality(self):
        return INFINITE

    def _element_spec(self):
        return S.TensorSpec((), self._dtype)


class _Range(Dataset):
    def __init__(self, *args, dtype=None, name=None):
        if not 1 <= len(args) <= 3:
            raise TypeError("Dataset.range: expected 1 to 3 arguments (start, stop, step), "
                            "got %d" % len(args))
        r = range(*(int(S.to_array(a)) for a in args))
        if r.step == 0:
            raise InvalidArgumentError("Dataset.range: step must not be 0 (expected a non-zero "
                                       "step, got 0)")
        self._range = r
        self._dtype = as_dtype("int64" if dtype is None else dtype)._np

    def _iter(self):
        t = self._dtype.type
        return (np.asarray(t(i)) for i in self._range)

    def _cardinality(self):
        return len(self._range)

    def _element_spec(self):
        return S.TensorSpec((), self._dtype)


def random_seeds(seed):
    """(seed parts, seeded?) for a random dataset op, following ``fe.random`` rules:
    with a global or op seed the op's stream is reproducible, else fresh entropy."""
    g = _random.get_global_seed()
    if g is None and seed is None:
        return [secrets.randbits(63), secrets.randbits(63)], False
    if seed is None:
        with _random._lock:
            _random._op_counter += 1
            seed = _random._op_counter
    if g is None:
        g = _random._DEFAULT_GLOBAL_SEED
    return [int(g) & (2 ** 63 - 1), int(seed) & (2 ** 63 - 1)], True


def chunked(iterator, size):
    while True:
        chunk = list(itertools.islice(iterator, size))
        if not chunk:
            return
        yield chunk


# Constants as tf.data names them.
INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


S.register_dataset_type(Dataset)   # the composite layer's specs know datasets through this
