"""The optional CUDA backend, through PyCUDA.

Layers, bottom up:

- ``context``: the lazy PyCUDA import and the CUDA context, created on first GPU use;
- ``memory``: ``DeviceArray`` (a contiguous device buffer with shape and dtype) and the
  caching allocator that keeps ``cuMemAlloc`` off the hot path;
- ``kernels/*.cu`` and ``kernels.py``: the CUDA C sources (the elementwise ones generated
  from one table of C expressions) compiled with ``SourceModule`` on first use and
  memoised per source, dtype and context;
- ``ops``: the GPU forward of each op, and the documented CPU fallback for the others.

Nothing here touches CUDA at import: ``import fasteager`` works without PyCUDA or a GPU,
and then ``num_gpus()`` is 0 and GPU requests follow soft placement. Nothing below
imports this package either: the package root registers a loader with the placement
layer, which calls it on the first op (``_probe``) or GPU request (``num_gpus``,
``to_gpu``); PyCUDA itself is imported by ``context`` only then.
"""
from .. import _core
from .context import num_gpus


def _gpu_modules():
    """The GPU ops and allocator (``ops`` installs the traces' GPU kernels as it loads),
    loaded where a GPU exists: on a machine without one the first op would otherwise pay
    for importing them for nothing."""
    from . import memory, ops
    return memory, ops


def _probe():
    """Called by the core on the first op: install the GPU hook when a GPU is usable."""
    if num_gpus() == 0:
        _core.set_gpu_backend(0)
        return
    memory, ops = _gpu_modules()
    _core.set_gpu_backend(1, ops.execute, memory.DeviceArray)


def to_gpu(tensor, index=0):
    """``t.gpu(index)`` when a GPU exists (the placement layer calls it)."""
    return _gpu_modules()[1].to_gpu(tensor, index)


__all__ = ["num_gpus"]
