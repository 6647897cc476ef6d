"""Data-parallel training (``fe.distribute``): ``MirroredStrategy`` on this machine's
devices (one thread per replica), ``MultiWorkerMirroredStrategy`` across processes on MPI.

``MultiWorkerMirroredStrategy`` runs one worker per MPI rank (``mpirun -n N python
train.py``); without mpirun or mpi4py it is a single replica and everything is plain
eager. See README.md, "Training across processes and machines (MPI)".
"""
from .strategy import (
    CommunicationOptions,
    MultiWorkerMirroredStrategy,
    ReduceOp,
    current_strategy,
    get_strategy,
    has_strategy,
    should_write,
    strategy_for,
)
from .mirrored import (
    DistributedDataset,
    MirroredStrategy,
    PerReplica,
    ReplicaContext,
    get_replica_context,
    in_cross_replica_context,
)

experimental = None  # placeholder namespace filled below


class _Experimental:
    CommunicationOptions = CommunicationOptions
    MultiWorkerMirroredStrategy = MultiWorkerMirroredStrategy


experimental = _Experimental()

__all__ = ["DistributedDataset", "MirroredStrategy", "MultiWorkerMirroredStrategy", "PerReplica",
           "ReplicaContext", "get_replica_context", "ReduceOp", "current_strategy", "experimental",
           "get_strategy", "has_strategy", "in_cross_replica_context", "should_write",
           "strategy_for"]
