"""The transformations of ``fe.data.Dataset`` (shuffle, batch, map, prefetch, ...).

Each class keeps a reference to its input and builds a fresh iterator per iteration;
those with an index-plan form (see ``dataset.py``) also transform index streams.
"""
import itertools
import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from ..tensor_shape import TensorShape
from . import structure as S
from .._src.composite.leaves import LEAVES, RaggedLeaf, batched_spec, stack_column
from .dataset import (_CHUNK, AUTOTUNE, INFINITE, UNKNOWN, Dataset, RandomDataset, _advanced,
                      _drop_indices, _Plan, chunked, register)


def _count(name, value):
    try:
        return int(S.to_array(value))
    except (TypeError, ValueError):
        raise TypeError("%s: expected an integer (got %r)" % (name, value)) from None


# -- shuffle ------------------------------------------------------------------------------
def shuffle_lists(chunks, size, rng):
    """tf.data's buffer shuffle over a stream of lists: fill a buffer of ``size`` items;
    then each new item replaces a uniformly drawn buffer item, which is emitted; at the
    end the buffer drains in random order. Yields lists."""
    buf = []
    for chunk in chunks:
        start = 0
        if len(buf) < size:
            start = size - len(buf)
            buf.extend(chunk[:start])
        rest = chunk[start:]
        if not rest:
            continue
        draws = rng.integers(0, size, len(rest)).tolist()
        out = []
        append = out.append
        for j, x in zip(draws, rest):
            append(buf[j])
            buf[j] = x
        yield out
    if buf:
        order = rng.permutation(len(buf)).tolist()
        yield [buf[i] for i in order]


@register
class Shuffle(RandomDataset):
    def __init__(self, input, buffer_size, seed, reshuffle_each_iteration):
        size = _count("shuffle: buffer_size", buffer_size)
        if size == AUTOTUNE or size <= 0:
            raise InvalidArgumentError("shuffle: buffer_size must be positive (expected > 0, "
                                       "got %d)" % size)
        self._input, self._size = input, size
        self._init_random(seed, reshuffle_each_iteration)

    def _plan(self):
        plan = self._input._plan()
        if plan is None:
            return None
        size = self._size

        def stream():
            lists = (c.tolist() for c in plan.stream())
            for out in shuffle_lists(lists, size, self._rng()):
                yield np.asarray(out, dtype=np.int64)
        return _Plan(plan.source, stream, False, True)

    def _iter(self):
        plan = self._plan()
        if plan is not None:
            return super()._iter()
        return self._generic()

    def _generic(self):
        for out in shuffle_lists(chunked(self._input._iter(), _CHUNK), self._size,
                                 self._rng()):
            yield from out

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        return self._input._element_spec()


# -- batch / unbatch ----------------------------------------------------------------------
def _batch_indices(stream, n, drop_remainder):
    rest = None
    for chunk in stream:
        if rest is not None and len(rest):
            chunk = np.concatenate([rest, chunk])
        m = len(chunk) - len(chunk) % n
        for s in range(0, m, n):
            yield chunk[s:s + n]
        rest = chunk[m:]
    if rest is not None and len(rest) and not drop_remainder:
        yield rest


def _stack(elements):
    first = elements[0]
    columns = zip(*(S.flatten(e) for e in elements))
    out = []
    for i, col in enumerate(columns):
        if isinstance(col[0], Dataset):
            raise TypeError("batch: component %d is a dataset (a window?), which cannot be "
                            "batched (expected tensors; flat_map(lambda w: w.batch(n)) "
                            "batches a window)" % i)
        composite = stack_column(col)
        if composite is not None:
            out.append(composite)
            continue
        try:
            out.append(np.stack(col))
        except ValueError:
            shapes = [np.shape(c) for c in col]
            bad = next(k for k, s in enumerate(shapes) if s != shapes[0])
            raise InvalidArgumentError(
                "batch: cannot batch tensors with different shapes in component %d (expected "
                "%s like element 0, got %s in element %d)"
                % (i, list(shapes[0]), list(shapes[bad]), bad)) from None
    return S.pack(first, out)


@register
class Batch(Dataset):
    def __init__(self, input, batch_size, drop_remainder):
        n = _count("batch: batch_size", batch_size)
        if n <= 0:
            raise InvalidArgumentError("batch: batch_size must be positive (expected > 0, got "
                                       "%d)" % n)
        self._input, self._n, self._drop = input, n, bool(drop_remainder)

    def _iter(self):
        plan = self._input._plan()
        if plan is not None:
            return self._gather(plan)
        return self._generic()

    def _gather(self, plan):
        arrays, template = plan.source.arrays, plan.source.template
        for idx in _batch_indices(plan.stream(), self._n, self._drop):
            if plan.runs and idx[-1] - idx[0] == len(idx) - 1:
                lo, hi = int(idx[0]), int(idx[-1]) + 1
                yield S.pack(template, [a[lo:hi] for a in arrays])
            else:
                yield S.pack(template, [a[idx] for a in arrays])

    def _generic(self):
        yield from self._stacked(self._input._iter())

    def _stacked(self, elements):
        for group in chunked(elements, self._n):
            if len(group) < self._n and self._drop:
                return
            yield _stack(group)

    def _skip_ahead(self, n):
        # every batch before the position was full
        skip = n * self._n
        inner = self._input._plan()
        if inner is not None:
            return self._gather(_Plan(inner.source, lambda: _drop_indices(inner.stream(), skip),
                                      inner.runs, inner.random))
        return self._stacked(_advanced(self._input, skip))

    def _cardinality(self):
        c = self._input._cardinality()
        if c < 0:
            return c
        return c // self._n if self._drop else -(-c // self._n)

    def _element_spec(self):
        inner = self._input._element_spec()
        lead = self._n if self._drop else None
        return S.map_structure(
            lambda s: batched_spec(s, lead) if not isinstance(s, S.TensorSpec) else
            S.TensorSpec(None if s.shape is None else (lead,) + tuple(s.shape), s.dtype), inner)


def _leaves_up_to(template, value, what, broadcast, out=None):
    """The parts of ``value`` for the components of ``template``, in ``S.flatten`` order:
    ``value`` follows ``template``'s structure down to its components (whatever a
    component's part is, e.g. a shape tuple); a non-structure ``value`` is given to every
    component when ``broadcast``."""
    out = [] if out is None else out
    if isinstance(template, dict):
        if broadcast and not isinstance(value, dict):
            value = dict.fromkeys(template, value)
        if not isinstance(value, dict) or set(value) != set(template):
            raise ValueError("padded_batch: %s must match the element structure (expected a "
                             "dict with keys %s, got %r)" % (what, sorted(template), value))
        for k in sorted(template, key=S._key):
            _leaves_up_to(template[k], value[k], what, broadcast, out)
    elif isinstance(template, tuple):
        if broadcast and not isinstance(value, (tuple, list)):
            value = [value] * len(template)
        if not isinstance(value, (tuple, list)) or len(value) != len(template):
            raise ValueError("padded_batch: %s must match the element structure (expected %d "
                             "components, got %r)" % (what, len(template), value))
        for t, v in zip(template, value):
            _leaves_up_to(t, v, what, broadcast, out)
    else:
        out.append(value)
    return out


def _padded_shape(value):
    """A padded shape as a list of int-or-None (None: the batch's largest), or None for
    an unknown rank."""
    if value is None:
        return None
    if isinstance(value, TensorShape):
        return value.as_list() if value.rank is not None else None
    if isinstance(value, (list, tuple)):
        dims = list(value)
    else:
        arr = np.asarray(S.to_array(value))
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise ValueError("padded_batch: a padded shape must be a TensorShape or an integer "
                             "vector (got %r)" % (value,))
        dims = arr.tolist()
    out = []
    for d in dims:
        d = getattr(d, "value", d)      # a Dimension
        d = None if d is None else int(d)
        out.append(None if d is None or d == -1 else d)
        if out[-1] is not None and out[-1] < 0:
            raise ValueError("padded_batch: padded shape dimensions must be >= 0 or -1 (got "
                             "%r)" % (value,))
    return out


@register
class PaddedBatch(Batch):
    """``padded_batch``: batches whose components are padded to one shape per batch."""

    def __init__(self, input, batch_size, padded_shapes, padding_values, drop_remainder):
        Batch.__init__(self, input, batch_size, drop_remainder)
        self._shapes_arg, self._values_arg = padded_shapes, padding_values

    def _iter(self):
        return self._batches(self._input._iter())

    def _skip_ahead(self, n):   # every batch before the position was full
        return self._batches(_advanced(self._input, n * self._n))

    def _batches(self, elements):
        for group in chunked(elements, self._n):
            if len(group) < self._n and self._drop:
                return
            yield self._pad(group)

    def _per_component(self, template):
        """(padded shapes, padding values) as flat lists, one per component."""
        n = len(S.flatten(template))
        if self._shapes_arg is None:
            shapes = [None] * n
        else:
            shapes = [_padded_shape(v) for v in _leaves_up_to(
                template, self._shapes_arg, "padded_shapes", False)]
        if self._values_arg is None:
            values = [None] * n
        else:
            values = _leaves_up_to(template, self._values_arg, "padding_values", True)
        return shapes, values

    def _pad(self, elements):
        first = elements[0]
        shapes, values = self._per_component(first)
        columns = list(zip(*(S.flatten(e) for e in elements)))
        return S.pack(first, [_pad_column(i, col, shape, value) for i, (col, shape, value)
                              in enumerate(zip(columns, shapes, values))])

    def _element_spec(self):
        inner = self._input._element_spec()
        shapes, _ = self._per_component(inner)
        lead = self._n if self._drop else None
        specs = []
        for spec, shape in zip(S.flatten(inner), shapes):
            if not isinstance(spec, S.TensorSpec):
                raise TypeError("padded_batch: only tensor components can be padded (got %r)"
                                % (spec,))
            if shape is None:
                shape = None if spec.shape is None else spec.shape.as_list()
            specs.append(S.TensorSpec(None if shape is None else [lead] + shape, spec.dtype))
        return S.pack(inner, specs)


def _padding_value(value, dtype, i):
    if value is None:
        return b"" if dtype == object else dtype.type(0)
    arr = S.to_array(value)
    if arr.shape != ():
        raise ValueError("padded_batch: padding values must be scalars (expected shape (), "
                         "got %s for component %d)" % (list(arr.shape), i))
    if arr.dtype != dtype:
        raise TypeError("padded_batch: the padding value of component %d has dtype %s (expected "
                        "%s, the component's dtype)" % (i, S.dtype_name(arr.dtype),
                                                       S.dtype_name(dtype)))
    return arr[()]


def _pad_column(i, col, shape, value):
    if any(isinstance(a, (*LEAVES, Dataset)) for a in col):
        raise TypeError("padded_batch: only tensor components can be padded (component %d "
                        "holds %s)" % (i, type(next(a for a in col if not isinstance(
                            a, np.ndarray))).__name__))
    arrays = [np.asarray(a) for a in col]
    rank = arrays[0].ndim
    for k, a in enumerate(arrays):
        if a.ndim != rank:
            raise InvalidArgumentError("padded_batch: component %d has different ranks in one "
                                       "batch (expected rank %d like element 0, got %d in "
                                       "element %d)" % (i, rank, a.ndim, k))
    if shape is not None and len(shape) != rank:
        raise ValueError("padded_batch: the padded shape %s of component %d is not compatible "
                         "with its shape (expected rank %d, got rank %d)"
                         % (shape, i, rank, len(shape)))
    largest = np.max(np.array([a.shape for a in arrays], np.int64).reshape(len(arrays), rank),
                     axis=0).tolist() if rank else []
    target = list(largest)
    for d, want in enumerate(shape or ()):
        if want is None:
            continue
        if largest[d] > want:
            raise InvalidArgumentError(
                "padded_batch: attempted to pad to a smaller size than the input element "
                "(component %d, dimension %d: expected at most %d, got %d)"
                % (i, d, want, largest[d]))
        target[d] = want
    dtype = arrays[0].dtype
    out = np.full([len(arrays)] + target, _padding_value(value, dtype, i), dtype=dtype)
    for k, a in enumerate(arrays):
        out[(k,) + tuple(slice(0, n) for n in a.shape)] = a
    return out


@register
class RaggedBatch(Batch):
    """``ragged_batch`` / ``dense_to_ragged_batch``: as ``batch``, but components whose
    rows may differ in shape are stacked as RaggedTensors (ragged in the first axis of the
    rows). Slices of one array (a ``from_tensor_slices`` pipeline) have one shape, so
    they stay dense, as TensorFlow keeps components of a fully known shape dense."""

    _skip_ahead = Dataset._skip_ahead   # its batches are made again and dropped

    def __init__(self, input, batch_size, drop_remainder, row_splits_dtype):
        super().__init__(input, batch_size, drop_remainder)
        self._splits = as_dtype(row_splits_dtype)._np
        if self._splits not in (np.int32, np.int64):
            raise InvalidArgumentError("ragged_batch: row_splits_dtype must be int32 or int64 "
                                       "(got %s)" % self._splits)

    def _generic(self):
        for elements in chunked(self._input._iter(), self._n):
            if len(elements) < self._n and self._drop:
                return
            yield _stack([S.map_structure(self._as_ragged, e) for e in elements])

    def _as_ragged(self, a):
        if isinstance(a, RaggedLeaf):
            return RaggedLeaf(a.values, [s.astype(self._splits) for s in a.splits],
                              self._splits)
        if isinstance(a, np.ndarray) and a.ndim >= 1:
            return RaggedLeaf(a, (), self._splits)
        return a

    def _element_spec(self):
        for element in self._iter():
            return S.spec_of(element)
        raise InvalidArgumentError("ragged_batch: the dataset is empty, its element structure "
                                   "cannot be inspected (expected an element)")


@register
class Unbatch(Dataset):
    def __init__(self, input):
        self._input = input

    def _iter(self):
        for element in self._input._iter():
            flat = S.flatten(element)
            if any(a.ndim == 0 for a in flat):
                raise InvalidArgumentError("unbatch: elements must have a leading dimension "
                                           "(expected rank >= 1, got a scalar)")
            n = flat[0].shape[0]
            if any(a.shape[0] != n for a in flat):
                raise InvalidArgumentError("unbatch: components differ in their first "
                                           "dimension (expected %d, got %s)"
                                           % (n, [a.shape[0] for a in flat]))
            for i in range(n):
                yield S.pack(element, [a[i] for a in flat])

    def _cardinality(self):
        c = self._input._cardinality()
        return INFINITE if c == INFINITE else UNKNOWN

    def _element_spec(self):
        inner = self._input._element_spec()
        if all(isinstance(s, S.TensorSpec) and s.shape is not None and s.shape.rank
               for s in S.flatten(inner)):
            return S.map_structure(lambda s: S.TensorSpec(s.shape.as_list()[1:], s.dtype),
                                   inner)
        return Dataset._element_spec(self)


# -- element functions --------------------------------------------------------------------
def _call(fn, element):
    t = S.to_tensors(element)
    if isinstance(element, tuple):
        return fn(*t)
    return fn(t)


@register
class Map(Dataset):
    def __init__(self, input, fn, num_parallel_calls):
        if not callable(fn):
            raise TypeError("map: map_func must be callable (got %s)" % type(fn).__name__)
        self._input, self._fn = input, fn
        workers = None if num_parallel_calls is None else int(num_parallel_calls)
        if workers == AUTOTUNE:
            workers = os.cpu_count() or 2
        self._workers = workers if workers and workers > 1 else None

    def _apply(self, element):
        return S.from_function(_call(self._fn, element))

    def _iter(self):
        if self._workers is None:
            return map(self._apply, self._input._iter())
        return self._parallel()

    def _parallel(self):
        # Results come back in input order (deterministic), at most 2*workers in flight.
        pool = ThreadPoolExecutor(self._workers, thread_name_prefix="fe.data.map")
        pending = []
        try:
            source = self._input._iter()
            for element in source:
                pending.append(pool.submit(self._apply, element))
                if len(pending) >= 2 * self._workers:
                    yield pending.pop(0).result()
            while pending:
                yield pending.pop(0).result()
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=False)

    def _cardinality(self):
        return self._input._cardinality()

    def _skip_ahead(self, n):   # the map function does not run for skipped elements
        return map(self._apply, _advanced(self._input, n))


@register
class Filter(Dataset):
    def __init__(self, input, predicate):
        if not callable(predicate):
            raise TypeError("filter: predicate must be callable (got %s)"
                            % type(predicate).__name__)
        self._input, self._pred = input, predicate

    def _keep(self, element):
        r = np.asarray(S.to_array(_call(self._pred, element)))
        if r.shape != () or r.dtype != np.bool_:
            raise InvalidArgumentError("filter: predicate must return a scalar bool (expected "
                                       "shape () bool, got shape %s %s)"
                                       % (list(r.shape), r.dtype))
        return bool(r)

    def _iter(self):
        return filter(self._keep, self._input._iter())

    def _cardinality(self):
        c = self._input._cardinality()
        return INFINITE if c == INFINITE else UNKNOWN

    def _element_spec(self):
        return self._input._element_spec()


# -- selection and repetition -------------------------------------------------------------
def _take_stream(stream, n):
    for chunk in stream:
        if n <= 0:
            return
        if len(chunk) > n:
            chunk = chunk[:n]
        n -= len(chunk)
        yield chunk


def _skip_stream(stream, n):
    for chunk in stream:
        if n >= len(chunk):
            n -= len(chunk)
            continue
        yield chunk[n:] if n else chunk
        n = 0


@register
class Take(Dataset):
    def __init__(self, input, count):
        self._input, self._count = input, _count("take: count", count)

    def _plan(self):
        plan = self._input._plan()
        if plan is None or self._count < 0:
            return plan
        return _Plan(plan.source, lambda: _take_stream(plan.stream(), self._count),
                     plan.runs, plan.random)

    def _iter(self):
        if self._input._plan() is not None:
            return super()._iter()
        if self._count < 0:
            return self._input._iter()
        return itertools.islice(self._input._iter(), self._count)

    def _cardinality(self):
        c = self._input._cardinality()
        if self._count < 0:
            return c
        if c == INFINITE:
            return self._count
        return UNKNOWN if c == UNKNOWN else min(c, self._count)

    def _element_spec(self):
        return self._input._element_spec()

    def _skip_ahead(self, n):
        if self._count < 0:
            return _advanced(self._input, n)
        return itertools.islice(_advanced(self._input, min(n, self._count)),
                                max(self._count - n, 0))


@register
class Skip(Dataset):
    def __init__(self, input, count):
        self._input, self._count = input, _count("skip: count", count)

    def _plan(self):
        plan = self._input._plan()
        if plan is None:
            return None
        if self._count < 0:
            return _Plan(plan.source, lambda: iter(()), True, False)
        return _Plan(plan.source, lambda: _skip_stream(plan.stream(), self._count),
                     plan.runs, plan.random)

    def _iter(self):
        if self._input._plan() is not None:
            return super()._iter()
        if self._count < 0:
            return iter(())
        return itertools.islice(self._input._iter(), self._count, None)

    def _cardinality(self):
        c = self._input._cardinality()
        if c < 0:
            return c
        return 0 if self._count < 0 else max(0, c - self._count)

    def _element_spec(self):
        return self._input._element_spec()

    def _skip_ahead(self, n):
        if self._count < 0:
            return Dataset._skip_ahead(self, n)
        return _advanced(self._input, self._count + n)


@register
class Repeat(Dataset):
    def __init__(self, input, count):
        count = -1 if count is None else _count("repeat: count", count)
        self._input, self._count = input, count

    def _epochs(self):
        return itertools.count() if self._count < 0 else range(self._count)

    def _plan(self):
        plan = self._input._plan()
        if plan is None:
            return None

        def stream():
            for _ in self._epochs():
                empty = True
                for chunk in plan.stream():
                    empty = empty and len(chunk) == 0
                    yield chunk
                if empty:   # repeating an empty dataset ends, as in tf.data
                    return
        return _Plan(plan.source, stream, plan.runs, plan.random)

    def _iter(self):
        if self._input._plan() is not None:
            return super()._iter()
        return self._generic()

    def _generic(self):
        for _ in self._epochs():
            empty = True
            for element in self._input._iter():
                empty = False
                yield element
            if empty:
                return

    def _cardinality(self):
        c = self._input._cardinality()
        if self._count == 0 or c == 0:
            return 0
        if self._count < 0:
            return INFINITE if c != UNKNOWN else UNKNOWN
        return c if c < 0 else c * self._count

    def _element_spec(self):
        return self._input._element_spec()


@register
class Shard(Dataset):
    def __init__(self, input, num_shards, index):
        n, i = _count("shard: num_shards", num_shards), _count("shard: index", index)
        if n <= 0 or not 0 <= i < n:
            raise InvalidArgumentError("shard: index must be in [0, num_shards) (expected 0 <= "
                                       "index < %d, got %d)" % (n, i))
        self._input, self._n, self._i = input, n, i

    def _iter(self):
        return itertools.islice(self._input._iter(), self._i, None, self._n)

    def _cardinality(self):
        c = self._input._cardinality()
        if c < 0:
            return c
        return max(0, -(-(c - self._i) // self._n))

    def _element_spec(self):
        return self._input._element_spec()


# -- caching and prefetching --------------------------------------------------------------
@register
class Cache(Dataset):
    def __init__(self, input, filename):
        if filename:
            raise NotImplementedError("cache: only the in-memory cache is supported (expected "
                                      "filename='', got %r)" % (filename,))
        self._input = input
        self._elements = None
        self._lock = threading.Lock()

    def _plan(self):
        plan = self._input._plan()
        return plan if plan is not None and not plan.random else None

    def _iter(self):
        if self._plan() is not None:
            return super()._iter()
        return self._generic()

    def _generic(self):
        cached = self._elements
        if cached is not None:
            yield from cached
            return
        filled = []
        for element in self._input._iter():
            filled.append(element)
            yield element
        with self._lock:   # a partial iteration caches nothing, as in tf.data
            if self._elements is None:
                self._elements = filled

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        return self._input._element_spec()


_ITEM, _END, _ERROR = 0, 1, 2


def _prefetch_worker(source_dataset, q, stop):
    """Fill ``q`` from a fresh iterator of ``source_dataset`` until the end, an error,
    or ``stop``. Holds no reference to the consumer, so an abandoned consumer is
    collected and its ``__del__`` sets ``stop``."""
    it = None

    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    try:
        it = source_dataset._iter()
        for element in it:
            if not put((_ITEM, element)):
                return
        put((_END, None))
    except BaseException as e:   # handed to the consumer, re-raised there
        put((_ERROR, e))
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass


class _PrefetchIterator:
    def __init__(self, dataset, size):
        self._queue = queue.Queue(size)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=_prefetch_worker,
                                        args=(dataset, self._queue, self._stop),
                                        name="fe.data.prefetch", daemon=True)
        self._done = False
        self._thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        kind, value = self._queue.get()
        if kind == _ITEM:
            return value
        self._done = True
        self._thread.join()
        if kind == _ERROR:
            raise value
        raise StopIteration

    def close(self):
        if self._done and not self._thread.is_alive():
            return
        self._done = True
        self._stop.set()
        try:
            while True:
                self._queue.get_nowait()
        except queue.Empty:
            pass
        self._thread.join(timeout=1.0)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


@register
class Prefetch(Dataset):
    def __init__(self, input, buffer_size):
        n = _count("prefetch: buffer_size", buffer_size)
        if n == AUTOTUNE:
            n = 2
        if n < 0:
            raise InvalidArgumentError("prefetch: buffer_size must be >= 0 or AUTOTUNE "
                                       "(expected >= -1, got %d)" % n)
        self._input, self._n = input, n

    def _iter(self):
        if self._n == 0:
            return self._input._iter()
        return _PrefetchIterator(self._input, self._n)

    def _skip_ahead(self, n):   # (no background thread after a restore)
        return _advanced(self._input, n)

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        return self._input._element_spec()


# -- combining ----------------------------------------------------------------------------
@register
class Zip(Dataset):
    def __init__(self, datasets):
        flat = S.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError("zip: expected datasets, or a tuple/dict of datasets (got %r)"
                            % (datasets,))
        self._template, self._datasets = datasets, flat

    def _iter(self):
        for elements in zip(*(d._iter() for d in self._datasets)):
            yield S.pack(self._template, list(elements))

    def _cardinality(self):
        cs = [d._cardinality() for d in self._datasets]
        finite = [c for c in cs if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in cs else INFINITE

    def _element_spec(self):
        return S.pack(self._template, [d._element_spec() for d in self._datasets])

    def _skip_ahead(self, n):
        parts = [_advanced(d, n) for d in self._datasets]
        return (S.pack(self._template, list(e)) for e in zip(*parts))


@register
class Concatenate(Dataset):
    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError("concatenate: expected a Dataset (got %s)" % type(second).__name__)
        self._a, self._b = first, second

    def _iter(self):
        first = True
        for element in itertools.chain(self._a._iter(), self._b._iter()):
            if first:
                self._check(element)
                first = False
            yield element

    def _check(self, element):
        try:
            a, b = self._a._element_spec(), self._b._element_spec()
        except Exception:
            return
        fa, fb = S.flatten(a), S.flatten(b)
        if len(fa) != len(fb) or any(x.dtype != y.dtype for x, y in zip(fa, fb)):
            raise TypeError("concatenate: the datasets have different element structures "
                            "(expected %r, got %r)" % (a, b))

    def _cardinality(self):
        a, b = self._a._cardinality(), self._b._cardinality()
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b


@register
class Enumerate(Dataset):
    def __init__(self, input, start):
        self._input, self._start = input, _count("enumerate: start", start)

    def _iter(self):
        for i, element in enumerate(self._input._iter(), self._start):
            yield (np.asarray(i, np.int64), element)

    def _skip_ahead(self, n):
        return ((np.asarray(i, np.int64), e)
                for i, e in enumerate(_advanced(self._input, n), self._start + n))

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        return (S.TensorSpec([], "int64"), self._input._element_spec())
