"""``fe.distribute.MirroredStrategy``: synchronous data parallelism on this machine's devices.

``strategy.run(fn)`` calls ``fn`` once per replica, each in its own thread (as TensorFlow
does), so every replica has its own tape and trace state. Variables are shared by the
replicas (a mirrored variable has one value, the same on every replica); an optimizer's
``apply_gradients`` called from the replicas sums their gradients and updates once.
"""
import contextlib
import threading

import numpy as np

from .. import _core, dtypes
from .._src import nest
from .._src.state import devices as _devices
from .._src.autodiff import tape as autodiff
from .._src.state import placement
from .._src.state import replicas
# (defined there, with fe.nn's public names; kept here for code that imported them here)
from .._src.state.replicas import compute_average_loss, scale_regularization_loss  # noqa: F401
from ..ops import _philox, array_ops, random_ops
from . import _comm
from . import strategy as _strategy
from .strategy import ReduceOp, _InputContext, _merging, _replica
# (the optimizer hooks live in strategy now; kept here for code that used them from here)
from .strategy import in_replica_thread, merged_apply  # noqa: F401
from .strategy import _replica_context as _context


class PerReplica:
    """One value per replica (what ``strategy.run`` returns when the replicas differ)."""

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    def _show(self, fmt):
        lines = ["  %d: %s" % (i, fmt(v)) for i, v in enumerate(self._values)]
        return "PerReplica:{\n" + ",\n".join(lines) + "\n}"

    def __repr__(self):
        return self._show(repr)

    def __str__(self):
        return self._show(str)


def _component(value, replica_id):
    """``value`` as replica ``replica_id`` sees it (its part of a PerReplica)."""
    return nest.map_structure(
        lambda v: v._values[replica_id] if isinstance(v, PerReplica) else v, value)


def _regroup(values):
    """The replicas' results as one value: itself where every replica returned the same
    object, else a PerReplica (at the leaves of a common structure)."""
    first = values[0]
    if all(v is first for v in values):
        return first
    try:
        flat = [nest.flatten(v) for v in values]
        if all(len(f) == len(flat[0]) for f in flat) and not (
                len(flat[0]) == 1 and flat[0][0] is first):
            leaves = [f[0] if all(x is f[0] for x in f) else PerReplica(f)
                      for f in zip(*flat)]
            return nest.pack_sequence_as(first, leaves)
    except (TypeError, ValueError):
        pass
    return PerReplica(values)


def _as_array(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


class _Run:
    """What the replica threads of one ``strategy.run`` call share: the barrier of their
    collectives and the generators' per-replica states."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.n = strategy.num_replicas_in_sync
        self._barrier = threading.Barrier(self.n)
        self._slots = [None] * self.n
        self._result = None
        self.lock = threading.Lock()
        self.streams = {}      # id(generator) -> (generator, start counter, {replica: counter})
        # set when replica 0 reaches its first collective (or ends): the other replicas
        # start then, so layers built lazily on the first call are built once, by it
        self.first_ready = threading.Event()

    def exchange(self, replica_id, value, combine):
        """Every replica gives ``value``; ``combine(values)`` runs once, in one of the
        replica threads, and its result comes back to every replica."""
        self._slots[replica_id] = value
        if replica_id == 0:
            self.first_ready.set()
        if self._barrier.wait() == 0:
            previous = _replica.merging
            _replica.merging = True
            try:
                self._result = combine(list(self._slots))
            except BaseException as exc:   # the others must not wait forever
                self._result = exc
            finally:
                _replica.merging = previous
        self._barrier.wait()
        result = self._result
        self._barrier.wait()   # nobody starts the next exchange before all have read
        if isinstance(result, BaseException):
            raise result
        return result

    def abort(self):
        self._barrier.abort()

    def finish(self):
        """Write each strategy generator's advanced state back (the first replica's: every
        replica advanced it the same way)."""
        for gen, start, per_replica in self.streams.values():
            counter = per_replica[min(per_replica)] if per_replica else start
            gen._write_counter(counter)


class ReplicaContext:
    """What ``fe.distribute.get_replica_context()`` returns inside ``strategy.run``."""

    def __init__(self, strategy, replica_id, run):
        self._strategy = strategy
        self._replica_id = replica_id
        self._run = run

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        return array_ops.constant(self._replica_id, dtypes.int32)

    @property
    def devices(self):
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Call ``merge_fn(strategy, *args, **kwargs)`` once for all replicas, in
        cross-replica context; each argument is the replicas' values (a PerReplica where
        they differ). Every replica gets its result."""
        kwargs = kwargs or {}

        def combine(parts):
            merged_args = tuple(_regroup([p[0][i] for p in parts]) for i in range(len(args)))
            merged_kwargs = {k: _regroup([p[1][k] for p in parts]) for k in kwargs}
            return merge_fn(self._strategy, *merged_args, **merged_kwargs)
        return self._run.exchange(self._replica_id, (tuple(args), dict(kwargs)), combine)

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` (a nest of tensors) summed (``"SUM"``) or averaged (``"MEAN"``) over
        the replicas; every replica gets its own copy of the result. Differentiable: the
        gradient is the same reduction of the replicas' upstream gradients (so every
        replica must compute its gradient, as in TensorFlow)."""
        op = _reduce_op(reduce_op, "ReplicaContext.all_reduce")
        flat = [_core.convert_to_tensor(x) for x in nest.flatten(value)]
        if any(t.dtype.is_floating for t in flat):
            @autodiff.custom_gradient
            def reduced(*xs):
                out = self._all_reduce_flat(op, list(xs))

                def grad(*upstream):
                    return self._all_reduce_flat(op, list(upstream))
                return out, grad
            result = reduced(*flat)
            result = list(result) if isinstance(result, (list, tuple)) else [result]
        else:
            result = self._all_reduce_flat(op, flat)
        return nest.pack_sequence_as(value, result)

    def _all_reduce_flat(self, op, flat):
        def combine(parts):
            out = []
            for leaves in zip(*parts):
                arrays = [_as_array(x) for x in leaves]
                total = np.sum(np.stack(arrays), axis=0).astype(arrays[0].dtype)
                if op is ReduceOp.MEAN:
                    total = (total / len(arrays)).astype(arrays[0].dtype)
                out.append(total)
            return out
        reduced = self._run.exchange(self._replica_id, flat, combine)
        return [array_ops.constant(np.array(a, copy=True)) for a in reduced]

    def __repr__(self):
        return "<fe.distribute.ReplicaContext replica_id_in_sync_group=%d " \
               "num_replicas_in_sync=%d>" % (self._replica_id, self.num_replicas_in_sync)


class _DefaultReplicaContext:
    """The replica context outside any strategy: one replica, id 0."""
    num_replicas_in_sync = 1
    strategy = property(lambda self: _strategy.get_strategy())

    @property
    def replica_id_in_sync_group(self):
        return array_ops.constant(0, dtypes.int32)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        return merge_fn(self.strategy, *args, **(kwargs or {}))

    def all_reduce(self, reduce_op, value, options=None):
        _reduce_op(reduce_op, "ReplicaContext.all_reduce")
        return value


_default_replica_context = _DefaultReplicaContext()


def get_replica_context():
    """This replica's context inside ``strategy.run``; None in cross-replica context
    (inside a scope, or a ``merge_call``); a one-replica context outside any strategy."""
    ctx = _context()
    if ctx is not None and not _merging():
        return ctx
    if ctx is not None or _strategy.current_strategy() is not None:
        return None
    return _default_replica_context


def in_cross_replica_context():
    return get_replica_context() is None


def _reduce_op(reduce_op, opname):
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    try:
        return ReduceOp(str(reduce_op).upper())
    except ValueError:
        raise ValueError("%s: reduce_op must be fe.distribute.ReduceOp.SUM or MEAN (or "
                         "'SUM'/'MEAN', got %r)" % (opname, reduce_op)) from None


class CrossDeviceOps:
    """How the replicas' values are combined (``cross_device_ops=``). The replicas share
    this process's memory, so every choice sums the same arrays in replica order; the
    subclasses exist so that TensorFlow programs naming one run unchanged."""

    def __repr__(self):
        return "<fe.distribute.%s>" % type(self).__name__


class ReductionToOneDevice(CrossDeviceOps):
    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class HierarchicalCopyAllReduce(CrossDeviceOps):
    def __init__(self, num_packs=1):
        self.num_packs = num_packs


class NcclAllReduce(CrossDeviceOps):
    def __init__(self, num_packs=1):
        self.num_packs = num_packs


class _MirroredExtended:
    def __init__(self, devices):
        self.worker_devices = tuple(devices)
        self.parameter_devices = self.worker_devices
        self.should_checkpoint = True
        self.should_save_summary = True
        self._in_multi_worker_mode = False


def _canonical_device(name):
    kind, index = placement.parse_device(name)
    return "/job:localhost/replica:0/task:0/device:%s:%d" % (kind, index)


def _default_devices():
    gpus = _devices.list_logical_devices("GPU")
    return [d.name for d in gpus] if gpus else ["/device:CPU:0"]


class MirroredStrategy:
    """Synchronous training on several devices of this machine, one replica per device.

    >>> fe.config.set_logical_device_configuration(
    ...     fe.config.list_physical_devices("CPU")[0],
    ...     [fe.config.LogicalDeviceConfiguration()] * 2)
    >>> strategy = fe.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    >>> strategy.num_replicas_in_sync
    2
    """

    def __init__(self, devices=None, cross_device_ops=None):
        _devices._mark_initialized()
        if devices is None:
            devices = _default_devices()
        if isinstance(devices, str) or not hasattr(devices, "__iter__"):
            raise TypeError("MirroredStrategy: devices must be a list of device names such "
                            "as ['/cpu:0', '/cpu:1'] (got %r)" % (devices,))
        names = [_canonical_device(d) for d in devices]
        if not names:
            raise ValueError("MirroredStrategy: devices must not be empty")
        if len(set(names)) != len(names):
            raise ValueError("MirroredStrategy: no duplicates allowed in `devices` (got %s)"
                             % list(devices))
        if cross_device_ops is not None and not isinstance(cross_device_ops, CrossDeviceOps):
            raise TypeError("MirroredStrategy: cross_device_ops must be None or a "
                            "fe.distribute.CrossDeviceOps such as "
                            "fe.distribute.HierarchicalCopyAllReduce() (got %s)"
                            % type(cross_device_ops).__name__)
        self.extended = _MirroredExtended(names)
        self.cross_device_ops = cross_device_ops
        self._comm = _comm.LocalComm()   # the MPI hooks see one process
        self._owned = set()

    @property
    def num_replicas_in_sync(self):
        return len(self.extended.worker_devices)

    def __repr__(self):
        return "<fe.distribute.MirroredStrategy devices=%s>" % (list(self.extended.worker_devices),)

    @contextlib.contextmanager
    def scope(self):
        """Variables, layers, optimizers and generators made inside belong to the strategy."""
        stack = _strategy._stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    # -- running --------------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` once per replica, each in its own thread, with the
        replica's part of every PerReplica argument. Returns the replicas' results: the
        value itself where they all returned the same object, else PerReplica values.

        The first replica runs alone until its first collective (an all-reduce, a
        merge_call, an optimizer update) or its end, so what it creates on a first call
        (a layer's weights) exists once, shared, when the others reach that code."""
        if _context() is not None and not _merging():
            raise RuntimeError("MirroredStrategy.run: cannot be called inside a replica "
                               "function (it is already running on every replica)")
        tracer = _core.get_tracer()
        if tracer is not None and tracer.escaped is None:
            # the replicas' ops happen in their threads, outside this trace: a replay could
            # not redo them, so the enclosing fe.function runs eagerly on every call
            tracer.escaped = "MirroredStrategy.run (its replicas run in their own threads)"
        kwargs = kwargs or {}
        run = _Run(self)
        results = [None] * run.n
        errors = [None] * run.n
        devices = self.extended.worker_devices

        def replica(rid):
            _replica.context = ReplicaContext(self, rid, run)
            _replica.merging = False
            try:
                with self.scope(), placement.device(devices[rid]):
                    results[rid] = fn(*_component(tuple(args), rid),
                                      **_component(dict(kwargs), rid))
            except BaseException as exc:
                errors[rid] = exc
                run.abort()
            finally:
                _replica.context = None
                if rid == 0:
                    run.first_ready.set()

        threads = [threading.Thread(target=replica, args=(rid,), daemon=True,
                                    name="replica-%d" % rid) for rid in range(run.n)]
        threads[0].start()
        run.first_ready.wait()
        for t in threads[1:]:
            t.start()
        for t in threads:
            t.join()
        run.finish()
        real = [e for e in errors if e is not None
                and not isinstance(e, threading.BrokenBarrierError)]
        if real or any(errors):
            raise (real or [e for e in errors if e is not None])[0]
        return _regroup(results)

    def experimental_local_results(self, value):
        """The replicas' values as a tuple (one entry per replica)."""
        if isinstance(value, PerReplica):
            return value.values
        leaves = nest.flatten(value)
        if any(isinstance(v, PerReplica) for v in leaves):
            return tuple(_component(value, r) for r in range(self.num_replicas_in_sync))
        return (value,)

    def _parts(self, value):
        if isinstance(value, PerReplica):
            return list(value.values)
        return [value] * self.num_replicas_in_sync   # the same on every replica

    def reduce(self, reduce_op, value, axis=None):
        """``value`` combined over the replicas (``ReduceOp.SUM`` or ``MEAN``); with
        ``axis``, also over that axis of each replica's value (a mean over all examples)."""
        op = _reduce_op(reduce_op, "MirroredStrategy.reduce")
        if value is None:
            return None
        arrays = [_as_array(v) for v in self._parts(value)]
        dtype = arrays[0].dtype
        count = len(arrays)
        if axis is not None:
            axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
            count = sum(int(np.prod([a.shape[x] for x in axes])) for a in arrays)
            arrays = [a.sum(axis=axes) for a in arrays]
        total = np.sum(np.stack(arrays), axis=0)
        if op is ReduceOp.MEAN:
            total = total / count
        return array_ops.constant(np.asarray(total).astype(dtype))

    def gather(self, value, axis):
        """The replicas' values concatenated along ``axis``."""
        return array_ops.concat([_core.convert_to_tensor(v) for v in self._parts(value)],
                                axis=axis)

    # -- input ----------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """Each global batch of ``dataset`` split between the replicas (consecutive parts
        of ceil(batch / replicas) examples, as TensorFlow splits it)."""
        return DistributedDataset(self, dataset, split=True)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(input_context)`` makes the input (batched per replica); the
        replicas take its consecutive elements in turn."""
        ctx = _InputContext(1, 0, self.num_replicas_in_sync)
        return DistributedDataset(self, dataset_fn(ctx), split=False)

    def experimental_distribute_values_from_function(self, value_fn):
        return PerReplica([value_fn(_ValueContext(r, self.num_replicas_in_sync))
                           for r in range(self.num_replicas_in_sync)])


class _ValueContext:
    def __init__(self, replica_id, num_replicas):
        self.replica_id_in_sync_group = replica_id
        self.num_replicas_in_sync = num_replicas


class DistributedDataset:
    """What ``experimental_distribute_dataset`` returns: iterating gives, for each global
    batch, the same structure with a PerReplica at each leaf."""

    def __init__(self, strategy, dataset, split):
        self._strategy = strategy
        self._dataset = dataset
        self._split = split

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return _DistributedIterator(self._strategy, iter(self._dataset), self._split)

    def __repr__(self):
        return "<fe.distribute.DistributedDataset num_replicas=%d>" % (
            self._strategy.num_replicas_in_sync)


class _DistributedIterator:
    def __init__(self, strategy, iterator, split):
        self._n = strategy.num_replicas_in_sync
        self._it = iterator
        self._split = split

    def __iter__(self):
        return self

    def __next__(self):
        if self._split:
            element = next(self._it)
            flat = nest.flatten(element)
            parts = []
            for t in flat:
                if not t.shape.rank:
                    raise ValueError("experimental_distribute_dataset: each element must be "
                                     "a batch (rank >= 1) to split between the replicas "
                                     "(got a tensor of shape %s; call dataset.batch first)"
                                     % (list(t.shape),))
                size = t.shape[0]
                per = -(-size // self._n)   # ceil
                parts.append(PerReplica([t[min(r * per, size):min((r + 1) * per, size)]
                                         for r in range(self._n)]))
            return nest.pack_sequence_as(element, parts)
        elements = [next(self._it)]
        for _ in range(self._n - 1):
            try:
                elements.append(next(self._it))
            except StopIteration:   # the last replicas get empty batches
                elements.append(nest.map_structure(lambda t: t[:0], elements[0]))
        flat = [nest.flatten(e) for e in elements]
        return nest.pack_sequence_as(elements[0], [PerReplica(f) for f in zip(*flat)])

    def get_next(self):
        return next(self)


def _replica_count():
    """``replicas.replica_count``: the replicas in sync in this thread's replica context
    (1 in cross-replica context, where there is none)."""
    ctx = get_replica_context()
    return ctx.num_replicas_in_sync if ctx is not None else 1


# -- hooks: the random generators' replica streams ----------------------------------------
def creating_strategy():
    """The MirroredStrategy a new generator belongs to (its scope or run is active)."""
    s = _strategy.current_strategy()
    return s if isinstance(s, MirroredStrategy) else None


def replica_key(key, replica_id):
    """The Philox key of replica ``replica_id``'s stream, as TensorFlow derives it: one
    64-bit draw of the generator's ``key`` at counter ``replica_id``."""
    key &= (1 << 64) - 1
    return int(_philox.full_int((key & 0xFFFFFFFF, key >> 32), (replica_id, 0, 0, 0), 1,
                                np.uint64)[0])


class _ReplicaStream:
    """A strategy generator as one replica of a ``run`` sees it: every replica starts from
    the generator's state and advances its own copy of the counter."""

    def __init__(self, run, gen, replica_id, traced):
        self._run, self._gen, self._rid = run, gen, replica_id
        # a traced draw's graph writes the state variable itself (every replica the same)
        self.traced = traced

    def read(self, state):
        """(counter low, counter high, key) for this replica; ``state`` is the
        generator's stored (low, high, key)."""
        with self._run.lock:
            entry = self._run.streams.get(id(self._gen))
            if entry is None:
                entry = self._run.streams[id(self._gen)] = (self._gen, state[:2], {})
            lo, hi = entry[2].get(self._rid, entry[1])
        return lo, hi, replica_key(state[2], self._rid)

    def write(self, lo, hi):
        with self._run.lock:
            self._run.streams[id(self._gen)][2][self._rid] = (lo, hi)


def replica_stream(gen, traced=False):
    """How generator ``gen`` draws in this thread: None (from its own state) unless it
    belongs to a MirroredStrategy and this is a replica of a ``run``."""
    if getattr(gen, "_strategy", None) is None:
        return None
    ctx = _context()
    if ctx is None or _merging():
        return None
    return _ReplicaStream(ctx._run, gen, ctx._replica_id, traced)


# fe.distribute answers the layers below it from now on (they never import it)
random_ops.set_replica_hooks(creating_strategy, replica_stream)
replicas.install(should_write=_strategy.should_write, replica_count=_replica_count,
                 aggregate_gradients=_strategy.aggregate_gradients,
                 written_by_update=_strategy.written_by_update)
