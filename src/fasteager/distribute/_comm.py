"""The communicator under ``fe.distribute``: mpi4py when the process was started by
``mpirun`` with more than one rank, else a single-process stand-in.

mpi4py is imported lazily and only when the launcher's environment says there are
several ranks (``OMPI_COMM_WORLD_SIZE``, ``PMI_SIZE``, ``PMIX_SIZE``...) or
``FASTEAGER_MPI=1`` forces it, so a plain ``python train.py`` never initialises MPI.
"""
import os
import sys
import time
import traceback
import warnings

import numpy as np

# gradients are all-reduced in chunks of at most this many bytes (one Allreduce each)
BUCKET_BYTES = 32 * 1024 * 1024

_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS",
              "SLURM_NTASKS")
_REDUCIBLE = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64,
                                    np.uint8, np.int8, np.int16, np.uint32, np.uint64,
                                    np.complex64, np.complex128)}


def _launched_size():
    for name in _SIZE_VARS:
        value = os.environ.get(name)
        if value and value.isdigit():
            return int(value)
    return 1


class LocalComm:
    """One process: every collective is the identity."""

    rank = 0
    size = 1
    is_mpi = False

    def allreduce_(self, buf, op="sum"):
        return buf

    def bcast_(self, buf, root=0):
        return buf

    def allgather(self, obj):
        return [obj]

    def bcast_obj(self, obj, root=0):
        return obj

    def barrier(self):
        pass

    def abort(self, code=1):
        os._exit(code)

    def with_timeout(self, timeout):
        return self


class MPIComm:
    """``MPI.COMM_WORLD`` with in-place, bucketed numpy collectives.

    With ``timeout`` (seconds) every collective is started non-blocking and polled: a
    peer that never arrives (hung, stopped, or gone where the launcher does not notice)
    makes this rank print which collective timed out and ``MPI_Abort`` the whole job,
    instead of waiting forever. Without it the collectives block, and a rank that dies
    is handled by the launcher (Open MPI's mpirun ends the job when a rank is killed).
    """

    is_mpi = True

    def __init__(self, MPI, timeout=None):
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.timeout = timeout

    def with_timeout(self, timeout):
        """The same communicator whose collectives abort the job after ``timeout`` s."""
        if timeout == self.timeout:
            return self
        return MPIComm(self.MPI, timeout)

    def _op(self, op):
        return {"sum": self.MPI.SUM, "max": self.MPI.MAX, "min": self.MPI.MIN}[op]

    def _wait(self, request, what):
        """Poll ``request`` until it completes; abort the job past the deadline."""
        deadline = time.monotonic() + self.timeout
        pause = 1e-5
        while not request.Test():
            if time.monotonic() > deadline:
                sys.stderr.write(
                    "fe.distribute: rank %d of %d: %s did not complete within %g s (a peer "
                    "is gone or hung); aborting the job\n"
                    % (self.rank, self.size, what, self.timeout))
                sys.stderr.flush()
                self.abort(1)
            time.sleep(pause)
            pause = min(pause * 2, 0.01)   # short collectives stay fast, long ones idle

    def _arrive(self, what):
        """A timed barrier before a collective that has no non-blocking form."""
        if self.timeout is not None:
            self._wait(self.comm.Ibarrier(), what)

    def allreduce_(self, buf, op="sum"):
        """Reduce a C-contiguous 1-D (or any contiguous) array in place; returns it."""
        flat = buf.reshape(-1)
        if flat.size == 0:
            return buf
        mop = self._op(op)
        step = max(1, BUCKET_BYTES // flat.itemsize)
        for lo in range(0, flat.size, step):
            if self.timeout is None:
                self.comm.Allreduce(self.MPI.IN_PLACE, flat[lo:lo + step], op=mop)
            else:
                self._wait(self.comm.Iallreduce(self.MPI.IN_PLACE, flat[lo:lo + step],
                                                op=mop), "all-reduce")
        return buf

    def bcast_(self, buf, root=0):
        flat = buf.reshape(-1)
        step = max(1, BUCKET_BYTES // max(flat.itemsize, 1))
        for lo in range(0, flat.size, step):
            if self.timeout is None:
                self.comm.Bcast(flat[lo:lo + step], root=root)
            else:
                self._wait(self.comm.Ibcast(flat[lo:lo + step], root=root), "broadcast")
        return buf

    def allgather(self, obj):
        self._arrive("all-gather")
        return self.comm.allgather(obj)

    def bcast_obj(self, obj, root=0):
        self._arrive("broadcast")
        return self.comm.bcast(obj, root=root)

    def barrier(self):
        if self.timeout is None:
            self.comm.Barrier()
        else:
            self._wait(self.comm.Ibarrier(), "barrier")

    def abort(self, code=1):
        self.comm.Abort(code)


_world = None


def world():
    """The process-wide communicator (created on first use)."""
    global _world
    if _world is None:
        _world = _make()
    return _world


def _make():
    size = _launched_size()
    if size <= 1 and os.environ.get("FASTEAGER_MPI") != "1":
        return LocalComm()
    try:
        from mpi4py import MPI
    except ImportError:
        warnings.warn("fe.distribute: this process was launched with %d ranks but mpi4py is "
                      "not installed (pip install 'fasteager[mpi]'); every rank trains alone "
                      "as a single replica" % size, RuntimeWarning, stacklevel=4)
        return LocalComm()
    comm = MPIComm(MPI)
    if comm.size > 1:
        _install_excepthook(comm)
    return comm


def _install_excepthook(comm):
    """An uncaught exception on any rank prints its traceback and aborts the whole job,
    so the other ranks never wait forever in a collective."""
    previous = sys.excepthook

    def hook(etype, value, tb):
        try:
            sys.stderr.write("fe.distribute: rank %d of %d failed; aborting the job\n"
                             % (comm.rank, comm.size))
            if previous is not None and previous is not hook:
                previous(etype, value, tb)
            else:
                traceback.print_exception(etype, value, tb)
            sys.stderr.flush()
            sys.stdout.flush()
        finally:
            comm.abort(1)

    sys.excepthook = hook


def reducible(arr):
    """``arr`` in a dtype MPI can reduce (float16/bfloat16/bool go through float32/int)."""
    if arr.dtype in _REDUCIBLE:
        return arr
    if arr.dtype == np.bool_:
        return arr.astype(np.int32)
    return arr.astype(np.float32)
