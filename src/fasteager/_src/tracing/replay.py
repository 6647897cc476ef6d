"""How a trace is replayed: its plan (dead-code removal, fusion of elementwise chains,
the register each step frees: ``_plan``), the planned replay with the buffers it keeps
between calls (``_Replay``), and the first-order gradient path replaying a traced
backward on the intermediates the forward kept (``_Saving``)."""
import threading

import numpy as np

from ... import _core, _graph
from ..._graph import KIND_EFFECT
from . import buffers as _buffers
from . import fusion as _fusion


class _Replay:
    """A planned replay list and the buffers it keeps between calls (one caller at a
    time uses them: another thread, or a re-entrant call, allocates its own)."""

    def __init__(self, steps, values, protected, reuse_buffers, quiet):
        self.steps = steps
        self.specs = _buffers.plan(steps, values, protected) if reuse_buffers else []
        self.buffers = None                      # allocated on the first replay
        self.lock = threading.Lock()
        self.quiet = quiet

    @property
    def buffer_bytes(self):
        return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize
                   for shape, dtype in self.specs)

    def run(self, regs):
        owner = self.specs and self.lock.acquire(False)
        try:
            if owner and self.buffers is None:
                self.buffers = _buffers.allocate(self.specs)
            bufs = self.buffers if owner else None
            if self.quiet:
                token = _core.quiet_enter()
                try:
                    _graph.run(self.steps, regs, bufs)
                finally:
                    _core.quiet_exit(token)
            else:
                _graph.run(self.steps, regs, bufs)
        finally:
            if owner:
                self.lock.release()


class _Saving:
    """The first-order gradient path of a ConcreteFunction: ``replay`` runs the forward
    and keeps registers ``saved``; ``backward(gs, saved arrays)`` replays the traced
    backward graph on them (the forward is not run again)."""

    def __init__(self, replay, saved, graph, float_outs, float_ins):
        self.replay = replay
        self.saved = saved
        self.graph = graph
        self.float_outs = float_outs
        self.float_ins = float_ins

    def backward(self, gs, saved):
        wrap = _core.wrap
        args = [g for g, f in zip(gs, self.float_outs) if f] + [wrap(a) for a in saved]
        grads = iter(self.graph._call_flat(args))
        return [next(grads) if f else None for f in self.float_ins]


def _plan(steps, out_regs, consts, n_regs, values=None):
    """Dead-code removal, fusion, and the register-freeing plan of a replay list.

    ``consts``: register -> captured constant; ``values``: trace-time value of every
    register (fusion reads dtypes and shapes from them)."""
    live = set(out_regs)
    keep = []
    for s in reversed(steps):
        outs = s.out if s.multi else (s.out,)
        if s.kind == KIND_EFFECT or any(r in live for r in outs):
            keep.append(s)
            live.update(s.ins)
    keep.reverse()
    keep = _fusion.fuse(keep, set(out_regs), values, consts)
    # free each register after its last reader (never constants or outputs)
    last = {}
    for i, s in enumerate(keep):
        for r in s.ins:
            last[r] = i
    frees = [[] for _ in keep]
    protected = set(out_regs) | set(consts)
    for r, i in last.items():
        if r not in protected:
            frees[i].append(r)
    out = []
    for s, f in zip(keep, frees):
        s = _graph.Step(s.kind, s.fn, s.ins, s.attrs, s.out, s.multi, s.name, s.op)
        s.frees = tuple(f)
        out.append(s)
    return out
