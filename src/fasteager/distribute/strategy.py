"""``fe.distribute.MultiWorkerMirroredStrategy``: data-parallel training on MPI.

One process per worker, started by ``mpirun -n N python train.py``. Inside
``strategy.scope()`` trainable variables are broadcast from rank 0 as they are created,
so every worker starts identical; ``optimizer.apply_gradients`` all-reduces the
gradients (one fused buffer per dtype, in 32 MB chunks) and divides by N, so N workers
on batch B/N take the same step as one worker on batch B; ``Model.fit``/``evaluate``
split the data and reduce losses and metrics across workers. Only the chief (rank 0)
writes checkpoints and summaries. With one process, or without mpi4py, the strategy is
a single replica and everything is plain eager.
"""
import contextlib
import enum
import functools
import threading
import weakref

import numpy as np

from .. import _core
from .._src import nest
from .._src.autodiff import tape as autodiff
from .._src.state import variables
from ..ops import array_ops
from . import _comm

_local = threading.local()         # .stack: this thread's strategies whose scope is active
_strategies = weakref.WeakSet()    # every multi-replica strategy made in this process
# .context: this MirroredStrategy replica thread's ReplicaContext (None: not one);
# .merging: True while a merge_call / collective's combine runs in this thread
_replica = threading.local()


def _replica_context():
    return getattr(_replica, "context", None)


def _merging():
    return getattr(_replica, "merging", False)


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


class ReduceOp(enum.Enum):
    """How ``strategy.reduce`` combines the workers' values."""
    SUM = "SUM"
    MEAN = "MEAN"


class CommunicationOptions:
    """How the workers' collectives run (``fe.distribute.experimental.CommunicationOptions``).

    ``timeout_seconds``: a collective (all-reduce, broadcast, barrier) that has not
    completed after this long aborts the whole job (``MPI_Abort``) with a message, so a
    hung or vanished peer never leaves the others waiting forever. ``None`` (the
    default) waits without limit; a killed rank still ends the job through mpirun.
    ``bytes_per_pack`` and ``implementation`` are accepted for TensorFlow compatibility
    (gradients are packed in 32 MB buckets over MPI).
    """

    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=None):
        if timeout_seconds is not None:
            if isinstance(timeout_seconds, bool) or not isinstance(timeout_seconds,
                                                                   (int, float)):
                raise TypeError("CommunicationOptions: timeout_seconds must be a number "
                                "or None (got %r)" % (timeout_seconds,))
            if not timeout_seconds > 0:
                raise ValueError("CommunicationOptions: timeout_seconds must be positive "
                                 "(got %r)" % (timeout_seconds,))
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


class _ClusterResolver:
    def __init__(self, comm):
        self.task_type = "worker"
        self.task_id = comm.rank
        self.num_workers = comm.size
        self.rpc_layer = "mpi"

    def cluster_spec(self):
        return {"worker": ["rank-%d" % i for i in range(self.num_workers)]}

    def __repr__(self):
        return "<MPIClusterResolver task_type='worker' task_id=%d num_workers=%d>" % (
            self.task_id, self.num_workers)


class _Extended:
    def __init__(self, strategy):
        self._strategy = strategy

    @property
    def should_checkpoint(self):
        return self._strategy._comm.rank == 0

    should_save_summary = should_checkpoint

    @property
    def _in_multi_worker_mode(self):
        return self._strategy._comm.size > 1


class _InputContext:
    """What ``distribute_datasets_from_function`` passes to the dataset function."""

    def __init__(self, num_input_pipelines, input_pipeline_id, num_replicas_in_sync):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError("get_per_replica_batch_size: the global batch size %d is not "
                             "divisible by num_replicas_in_sync %d"
                             % (global_batch_size, self.num_replicas_in_sync))
        return global_batch_size // self.num_replicas_in_sync


def _np(value):
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return np.asarray(value)


class MultiWorkerMirroredStrategy:
    """Synchronous data-parallel training, one MPI rank per worker.

    >>> strategy = fe.distribute.MultiWorkerMirroredStrategy()
    >>> with strategy.scope():
    ...     model = make_model()          # weights broadcast from rank 0
    ...     model.compile("sgd", "sparse_categorical_crossentropy")
    >>> model.fit(strategy.experimental_distribute_dataset(ds.batch(64)), epochs=2)
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        if communication_options is not None and not isinstance(communication_options,
                                                                CommunicationOptions):
            raise TypeError("MultiWorkerMirroredStrategy: communication_options must be a "
                            "fe.distribute.experimental.CommunicationOptions (got %s)"
                            % type(communication_options).__name__)
        timeout = communication_options.timeout_seconds if communication_options else None
        self._comm = _comm.world().with_timeout(timeout)
        self.cluster_resolver = _ClusterResolver(self._comm)
        self.extended = _Extended(self)
        self._synced = set()        # _var_id of variables already equal on every worker
        self._owned = set()         # _var_id of variables created in this scope
        self._buffers = {}          # dtype -> reusable fused gradient buffer
        self._on_read = []          # ON_READ/MEAN variables (BatchNormalization statistics)
        if self._comm.size > 1:
            _strategies.add(self)
            variables._on_create = _variable_created   # acts inside a scope, per thread

    # -- properties -------------------------------------------------------------------------
    @property
    def num_replicas_in_sync(self):
        return self._comm.size

    @property
    def is_chief(self):
        return self._comm.rank == 0

    def __repr__(self):
        return "<fe.distribute.MultiWorkerMirroredStrategy rank=%d num_replicas=%d%s>" % (
            self._comm.rank, self._comm.size, "" if self._comm.is_mpi else " (no MPI)")

    # -- scope ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self):
        """Variables created inside start equal on every worker (rank 0's values).
        Layers, models, optimizers and metrics made inside belong to the strategy: the
        variables they create later (a lazy build, optimizer slots) are made under it."""
        stack = _stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    def _on_variable_created(self, var):
        key = var._var_id
        self._owned.add(key)
        if var.trainable:   # non-trainable state (slots, metrics, counters) starts equal
            self._comm.bcast_(var._mutable_array())
            self._synced.add(key)

    def _sync_variables(self, variables):
        """Broadcast (fused) every variable in ``variables`` not yet known to be equal."""
        if self._comm.size == 1:
            return
        todo = [v for v in variables if v._var_id not in self._synced]
        if not todo:
            return
        self._broadcast(todo)

    def _broadcast(self, variables):
        """Give every worker rank 0's values of ``variables`` (fused per dtype), e.g. after
        the chief alone restored them from a backup."""
        if self._comm.size == 1:
            return
        todo = list(variables)
        self._fused_in_place(todo, self._comm.bcast_)
        self._synced.update(v._var_id for v in todo)

    @staticmethod
    def _fused_in_place(variables, collective, work_dtype=None):
        """Run ``collective(buffer)`` (in place) once per dtype on the concatenated values
        of ``variables`` (in ``work_dtype`` when given), then assign the results back."""
        by_dtype = {}
        for v in variables:
            by_dtype.setdefault(v._tensor._value.dtype, []).append(v)
        for dt in sorted(by_dtype, key=str):
            vs = by_dtype[dt]
            arrays = [v._tensor._value for v in vs]
            flat = np.concatenate([a.reshape(-1) for a in arrays])
            buf = flat.astype(work_dtype) if work_dtype is not None else _comm.reducible(flat)
            collective(buf)
            off = 0
            for v, a in zip(vs, arrays):
                v.assign(buf[off:off + a.size].reshape(a.shape).astype(a.dtype, copy=False))
                off += a.size

    # -- ON_READ / MEAN variables -----------------------------------------------------------
    def _register_on_read(self, var):
        """``var`` is updated by each worker from its own data and read as the mean over
        the workers (TensorFlow's ``VariableSynchronization.ON_READ`` with
        ``VariableAggregation.MEAN``). Every update is linear in the worker's data from
        a common value (a moving average), so averaging the copies after each training
        step gives exactly the mean of N independent copies while keeping all equal:
        what is read, saved or used in inference on any worker is that mean."""
        if self._comm.size > 1:
            # held strongly: every worker must average the same list in the same order,
            # and weak references could die at different times on different workers
            self._on_read.append(var)

    def _sync_on_read(self):
        """Average the ON_READ variables over the workers (one fused all-reduce per dtype,
        in float64)."""
        if not self._on_read:
            return
        n = self._comm.size

        def mean(buf):
            self._comm.allreduce_(buf)
            buf /= n
        self._fused_in_place(self._on_read, mean, np.float64)

    # -- gradients --------------------------------------------------------------------------
    def _buffer(self, dtype, n):
        buf = self._buffers.get(dtype)
        if buf is None or buf.size < n:
            buf = self._buffers[dtype] = np.empty(max(n, 1), dtype)
        return buf[:n]

    def _all_reduce_gradients(self, arrays, variables):
        """The workers' mean of each gradient: one fused in-place Allreduce per dtype
        (chunked at 32 MB). Also brings variables created outside the scope in sync, and
        averages the ON_READ variables the step updated."""
        self._sync_variables(variables)
        self._sync_on_read()
        n = self._comm.size
        out = list(arrays)
        groups = {}
        for i, g in enumerate(arrays):
            groups.setdefault(_comm.reducible(g[:0] if g.ndim else g.reshape(1)[:0]).dtype,
                              []).append(i)
        for dt in sorted(groups, key=str):
            idx = groups[dt]
            total = sum(arrays[i].size for i in idx)
            buf = self._buffer(dt, total)
            off = 0
            for i in idx:
                a = arrays[i]
                buf[off:off + a.size] = a.reshape(-1)
                off += a.size
            self._comm.allreduce_(buf)
            buf *= dt.type(1.0 / n) if dt.kind in "fc" else 1
            off = 0
            for i in idx:
                a = arrays[i]
                piece = buf[off:off + a.size].reshape(a.shape)
                if dt.kind not in "fc":
                    piece = piece // n
                out[i] = piece.astype(a.dtype, copy=False) if piece.dtype != a.dtype \
                    else piece
                off += a.size
        return out

    # -- running and reducing ---------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Call ``fn(*args, **kwargs)`` on this worker's replica (inside the scope)."""
        with self.scope():
            return fn(*args, **(kwargs or {}))

    def experimental_local_results(self, value):
        return (value,)

    def reduce(self, reduce_op, value, axis=None):
        """Combine ``value`` over the workers: ``ReduceOp.SUM`` or ``ReduceOp.MEAN``;
        with ``axis``, also over that axis of each worker's value (a per-example mean)."""
        op = ReduceOp(reduce_op.value if isinstance(reduce_op, ReduceOp)
                      else str(reduce_op).upper())
        arr = _np(value)
        kind = arr.dtype
        count = 1
        if axis is not None:
            axes = tuple(a % arr.ndim for a in (axis if isinstance(axis, (list, tuple))
                                                   else (axis,)))
            count = int(np.prod([arr.shape[a] for a in axes]))
            arr = arr.sum(axis=axes)
        work = np.array(arr, dtype=np.float64 if kind.kind in "fb" or op is ReduceOp.MEAN
                        else _comm.reducible(arr).dtype, ndmin=1)
        self._comm.allreduce_(work)
        if op is ReduceOp.MEAN:
            if axis is not None:
                total = np.array([count], np.float64)
                self._comm.allreduce_(total)
                work = work / total[0]
            else:
                work = work / self._comm.size
        result = work.reshape(arr.shape)
        if kind.kind == "f" or (kind.kind in "iub" and op is ReduceOp.SUM):
            result = result.astype(kind if kind.kind != "b" else np.int64)
        return array_ops.constant(result)

    def gather(self, value, axis=0):
        """Concatenate the workers' values along ``axis`` (rank order)."""
        parts = self._comm.allgather(_np(value))
        return array_ops.constant(np.concatenate([np.atleast_1d(p) for p in parts], axis=axis))

    def barrier(self):
        """Wait until every worker gets here (e.g. after the chief saved a checkpoint)."""
        self._comm.barrier()

    # -- input ------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """This worker's part of ``dataset``. For a batched dataset (global batch B)
        each worker gets rows ``[rank*B/N, (rank+1)*B/N)`` of every batch, so N workers
        together see exactly one worker's batches; an unbatched dataset is sharded
        element-wise (``dataset.shard(N, rank)``)."""
        n, r = self._comm.size, self._comm.rank
        if n == 1 or getattr(dataset, "_fe_distributed", None) is self:
            return dataset
        leaves = nest.flatten(dataset.element_spec)
        if not leaves or any(getattr(s, "shape", None) is None or s.shape.rank in (None, 0)
                             for s in leaves):
            out = dataset.shard(n, r)
        else:
            def split(*element):
                def part(t):
                    size = t.shape[0]
                    return t[r * size // n:(r + 1) * size // n]
                out = nest.map_structure(part, element)
                return out if len(element) > 1 else out[0]
            out = dataset.map(split)
        out._fe_distributed = self
        return out

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(input_context)`` builds this worker's dataset (per-replica batch)."""
        ctx = _InputContext(self._comm.size, self._comm.rank, self._comm.size)
        ds = dataset_fn(ctx)
        try:
            ds._fe_distributed = self
        except AttributeError:
            pass
        return ds

    # -- Keras hooks ------------------------------------------------------------------------
    def _local_data(self, x, y, sample_weight, batch_size, _data):
        """``fit``/``evaluate`` inputs for this worker: datasets are distributed, arrays
        are split into N equal interleaved shards and ``batch_size`` (global) is divided.
        ``_data`` is Keras's input module (``is_dataset``, ``_length``, ``_take``,
        ``_to_numpy``): Keras is above this package, so it passes its helpers in."""
        n, r = self._comm.size, self._comm.rank
        if n == 1:
            return x, y, sample_weight, batch_size
        if _data.is_dataset(x):
            return self.experimental_distribute_dataset(x), y, sample_weight, batch_size
        if x is None or not hasattr(x, "__len__") and not hasattr(x, "shape"):
            return x, y, sample_weight, batch_size
        length = _data._length(x)
        idx = np.arange(r, (length // n) * n, n)
        take = (lambda a: None if a is None else _data._take(a, idx))
        x, y, sample_weight = take(_data._to_numpy(x)), take(_data._to_numpy(y)), \
            take(_data._to_numpy(sample_weight))
        return x, y, sample_weight, max(1, (batch_size or 32) // n)

    @contextlib.contextmanager
    def _summed_states(self, metrics, extra=()):
        """Inside, each metric's state variables hold their sum over the workers (one
        all-reduce in float64, with the numbers ``extra``, whose sums are yielded); the
        worker's own states come back on exit."""
        states = [v for m in metrics for v in getattr(m, "variables", [])]
        local = [np.array(v._tensor._value, copy=True) for v in states]
        buf = np.concatenate([a.reshape(-1).astype(np.float64) for a in local] +
                             [np.asarray(extra, np.float64).reshape(-1)])
        self._comm.allreduce_(buf)
        off = 0
        try:
            for v, a in zip(states, local):
                v.assign(buf[off:off + a.size].reshape(a.shape).astype(a.dtype))
                off += a.size
            yield buf[off:]
        finally:
            for v, a in zip(states, local):
                v.assign(a)

    def _reduce_logs(self, model, logs):
        """Per-step logs over all workers: metric states are summed (so a Mean or an
        accuracy covers every worker's examples); other values are averaged."""
        if self._comm.size == 1:
            return logs
        # by log key: a weighted metric's key is not its name ('weighted_mae')
        named = [(k, m) for k, m in model._named_metrics() if k in logs]
        names = {k for k, _ in named}
        others = [k for k in logs if k not in names]
        out = dict(logs)
        with self._summed_states([m for _, m in named], [logs[k] for k in others]) as sums:
            for k, m in named:
                out[k] = float(_np(m.result()))
        for k, total in zip(others, sums):
            out[k] = float(total) / self._comm.size
        return out

    def _aggregated_result(self, metric, result):
        """``result(metric)`` over every worker's updates (TensorFlow's metric variables
        are ON_READ with SUM aggregation: read outside ``strategy.run``, they hold the
        workers' sum). A collective: every worker must ask."""
        with self._summed_states([metric]):
            return result(metric)


# -- module-level helpers used by the hooks in keras/, train/, summary/ ------------------------
def current_strategy():
    """The strategy whose ``scope()`` (or ``run``) is active in this thread, else None."""
    stack = _stack()
    return stack[-1] if stack else None


def _variable_created(var):
    """``variables._on_create`` once a multi-replica strategy exists: a variable made
    inside such a strategy's scope (in this thread) starts equal on every worker."""
    s = _active_strategy()
    if s is not None:
        s._on_variable_created(var)


def owner_of(obj):
    """The multi-replica strategy whose scope was active when ``obj`` (a layer, model,
    optimizer or metric) was constructed, else None."""
    s = getattr(obj, "_distribute_strategy", None)
    return s if s is not None and s._comm.size > 1 else None


def owner_scope(obj):
    """A context that creates variables under ``obj``'s strategy (a no-op when it has
    none, or when that strategy's scope is already active)."""
    s = owner_of(obj)
    if s is None or current_strategy() is s:
        return contextlib.nullcontext()
    return s.scope()


def _active_strategy():
    """The active strategy when it has more than one replica (what the hooks act on)."""
    s = current_strategy()
    return s if s is not None and s._comm.size > 1 else None


def get_strategy():
    """The active strategy, or a single-replica default one."""
    s = current_strategy()
    if s is None:
        global _default
        if _default is None:
            _default = _DefaultStrategy()
        s = _default
    return s


def has_strategy():
    return bool(_stack())


def strategy_for(model):
    """The multi-replica strategy a model belongs to: the one it was made under, the
    active one, or the one in whose scope its variables were created."""
    s = owner_of(model) or _active_strategy()
    if s is not None:
        return s
    if not _strategies:
        return None
    try:
        keys = [v._var_id for v in model.variables]
    except (AttributeError, TypeError, ValueError):
        return None
    for s in list(_strategies):
        if any(k in s._owned for k in keys):
            return s
    return None


def all_reduce_sum(strategy, value):
    """``value`` summed over the workers, differentiably: its gradient is the sum over the
    workers of the upstream gradients (each worker's loss depends on every worker's
    ``value``), again an all-reduce, so higher orders work too."""
    if strategy._comm.size == 1:
        return _core.convert_to_tensor(value)

    @autodiff.custom_gradient
    def summed(t):
        dtype = t.dtype.as_numpy_dtype
        buf = np.array(_comm.reducible(_np(t)), order="C", copy=True)
        strategy._comm.allreduce_(buf)

        def grad(upstream):
            return all_reduce_sum(strategy, upstream)
        return array_ops.constant(buf.astype(dtype, copy=False)), grad
    return summed(value)


def should_write():
    """False on non-chief workers of a multi-worker job: checkpoints, summaries and
    ModelCheckpoint files are written by rank 0 only."""
    world = _comm._world
    return world is None or world.rank == 0 or not _strategies


def in_replica_thread():
    """True inside a MirroredStrategy replica's function (outside a merge_call): optimizers
    then merge the replicas' updates (``merged_apply``)."""
    return _replica_context() is not None and not _merging()


def merged_apply(arrays, apply):
    """From every replica: sum the replicas' gradient ``arrays`` (in replica order) and call
    ``apply(summed)`` once; every replica waits for that update and gets its result."""
    ctx = _replica_context()

    def combine(parts):
        summed = [np.sum(np.stack(group), axis=0).astype(group[0].dtype, copy=False)
                  for group in zip(*parts)]
        return apply(summed)
    return ctx._run.exchange(ctx._replica_id, list(arrays), combine)


def aggregate_gradients(owner, arrays, variables, apply, skip_aggregation=False):
    """``replicas.aggregate_gradients`` with strategies: a MirroredStrategy's replicas sum
    their gradients and update once; a multi-worker strategy averages them over the
    workers (one fused all-reduce per dtype); then ``apply(arrays)``."""
    if not skip_aggregation:
        if in_replica_thread():
            return merged_apply(arrays, apply)
        strategy = owner_of(owner) or _active_strategy()
        if strategy is not None:   # the mean over the workers
            arrays = strategy._all_reduce_gradients(arrays, variables)
    return apply(arrays)


def written_by_update(owner):
    """``replicas.written_by_update``: a multi-worker step also averages the strategy's
    ON_READ variables (BatchNormalization's moving statistics)."""
    strategy = owner_of(owner) or _active_strategy()
    return tuple(getattr(strategy, "_on_read", ())) if strategy is not None else ()


def distributed(method):
    """Run a Model method (fit/evaluate) inside the model's strategy scope, after making
    sure the model's variables are equal on every worker."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        s = strategy_for(self)
        if s is None:
            return method(self, *args, **kwargs)
        s._sync_variables(self.variables)
        if current_strategy() is s:
            return method(self, *args, **kwargs)
        with s.scope():
            return method(self, *args, **kwargs)
    return wrapper


_default = None


class _DefaultStrategy(MultiWorkerMirroredStrategy):
    """The strategy outside any scope: one replica, plain eager."""

    def __init__(self):
        self._comm = _comm.LocalComm()
        self.cluster_resolver = _ClusterResolver(self._comm)
        self.extended = _Extended(self)
        self._synced, self._owned, self._buffers, self._on_read = set(), set(), {}, []
