"""Data-parallel training (``fe.distribute``): ``MirroredStrategy`` on this machine's
devices (one thread per replica), ``MultiWorkerMirroredStrategy`` across processes on MPI.

``MultiWorkerMirroredStrategy`` runs one worker per MPI rank (``mpirun -n N python
train.py``); without mpirun or mpi4py it is a single replica and everything is plain
eager. See README.md, "Training across processes and machines (MPI)".
"""
from .mirrored import (
    CrossDeviceOps,
    DistributedDataset,
    HierarchicalCopyAllReduce,
    MirroredStrategy,
    NcclAllReduce,
    PerReplica,
    ReductionToOneDevice,
    ReplicaContext,
    get_replica_context,
    in_cross_replica_context,
)
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

experimental = None  # placeholder namespace filled below


class _Experimental:
    CommunicationOptions = CommunicationOptions
    MultiWorkerMirroredStrategy = MultiWorkerMirroredStrategy


experimental = _Experimental()

__all__ = ["CrossDeviceOps", "DistributedDataset", "HierarchicalCopyAllReduce",
           "MirroredStrategy", "MultiWorkerMirroredStrategy", "NcclAllReduce", "PerReplica",
           "ReduceOp", "ReductionToOneDevice", "ReplicaContext", "current_strategy",
           "experimental", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context", "should_write", "strategy_for"]
