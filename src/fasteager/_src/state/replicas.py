"""What the layers below ``fe.distribute`` ask about data parallelism.

Summaries, checkpoints, random generators, Keras optimizers and ``fe.nn``'s loss helpers
must behave differently inside a strategy (only the chief writes; the replicas' gradients
are merged or all-reduced before one update; a loss is scaled by the replica count), but
nothing below ``fe.distribute`` may import it. So they ask here: each question has the
answer of a single replica in plain eager, and ``fe.distribute`` installs its own answers
when it is imported (``install``). Until then there is no strategy, so the defaults are
exact, not approximations.
"""
import numpy as np

from ... import _core
from ...ops import array_ops, elementwise_ops, reduction_ops


def _true():
    return True


def _one():
    return 1


def _apply_directly(owner, arrays, variables, apply, skip_aggregation=False):
    return apply(arrays)


def _nothing(owner):
    return ()


_should_write = _true
_replica_count = _one
_aggregate = _apply_directly
_written_by_update = _nothing


def install(should_write, replica_count, aggregate_gradients, written_by_update):
    """``fe.distribute`` answers the questions below from now on (called at its import)."""
    global _should_write, _replica_count, _aggregate, _written_by_update
    _should_write = should_write
    _replica_count = replica_count
    _aggregate = aggregate_gradients
    _written_by_update = written_by_update


def should_write():
    """False on the non-chief workers of a multi-worker job: checkpoints, summaries and
    ModelCheckpoint files are written by rank 0 only."""
    return _should_write()


def replica_count():
    """The replicas in sync in this thread's replica context (1 in cross-replica context
    and outside any strategy)."""
    return _replica_count()


def aggregate_gradients(owner, arrays, variables, apply, skip_aggregation=False):
    """``apply(arrays)`` once the gradient ``arrays`` of ``variables`` are combined over the
    replicas of ``owner``'s strategy (an optimizer): summed over a MirroredStrategy's
    replica threads (one update for all), averaged over the workers of a multi-worker
    strategy. ``skip_aggregation`` (Keras's ``skip_gradients_aggregation``) applies them
    as they are. Returns what ``apply`` returns."""
    return _aggregate(owner, arrays, variables, apply, skip_aggregation)


def written_by_update(owner):
    """Variables an update of ``owner`` (an optimizer) writes besides its own: the ON_READ
    statistics a multi-worker step averages (what a traced step must list as mutated)."""
    return _written_by_update(owner)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of the (weighted) per-example losses divided by the global batch size (by
    default: this replica's batch times the number of replicas), so that summing the
    replicas' gradients gives the gradient of the mean loss over the global batch."""
    loss = _core.convert_to_tensor(per_example_loss)
    if sample_weight is not None:
        loss = loss * elementwise_ops.cast(sample_weight, loss.dtype)
    if global_batch_size is None:
        n = replica_count()
        global_batch_size = elementwise_ops.cast(array_ops.shape(loss)[0] if loss.shape.rank else 1,
                                          loss.dtype) * n
    elif isinstance(global_batch_size, bool) or not isinstance(
            global_batch_size, (int, np.integer)) and not hasattr(global_batch_size, "dtype"):
        raise TypeError("compute_average_loss: global_batch_size must be an integer (got %r)"
                        % (global_batch_size,))
    return reduction_ops.reduce_sum(loss) / elementwise_ops.cast(global_batch_size, loss.dtype)


def scale_regularization_loss(regularization_loss):
    """``regularization_loss`` divided by the number of replicas in sync (inside
    ``strategy.run``), so that summing the replicas' gradients counts it once."""
    loss = _core.convert_to_tensor(regularization_loss)
    return loss / elementwise_ops.cast(replica_count(), loss.dtype)
