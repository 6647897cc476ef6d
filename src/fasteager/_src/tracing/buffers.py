"""Buffer reuse across calls of an ``fe.function`` graph.

``plan(steps, ...)`` gives some steps of a replay list a buffer: an array the
ConcreteFunction allocates once and keeps, into which the step's ``into`` kernel writes
its result on every call (``_graph.run``). Steps whose lifetimes do not overlap share a
buffer of the same dtype and shape, so a replay allocates no intermediates at all once
warm.

Which results may live in a kept buffer is decided from the trace-time values, which
the trace holds:

* Aliases. A step whose result shares memory with an input (``reshape``, ``transpose``,
  a slice, an identity) extends that input's buffer: the two registers form one alias
  group, which lives until its last member is read. ``np.may_share_memory`` on the
  trace-time values finds these (a kernel returns a view for the same dtypes, shapes
  and layouts on every call, and a kept buffer has the layout of the fresh result).
* Escapes. A group is never given a kept buffer when a member is a graph output (the
  caller holds it after the call), a captured constant, an input or variable value, or
  is read by an effect step recorded with ``retains_inputs`` (one that keeps references
  to its arrays; assignments, prints and optimizer updates only read them).
* Kernels. The group's one allocating step must be a single-output op with an ``into``
  kernel (``ops.registry.INTO``) or a fused chain, and its trace-time result an exact
  C-contiguous ndarray.

A buffer is only reused by a group that starts after the previous one's last read (the
step reading a buffer never writes into it, so kernels never see overlapping operands).
"""
import numpy as np

from ..._graph import KIND_EFFECT, KIND_FUSED, KIND_OP, KIND_READ
from ...ops.registry import INTO


def _outs(step):
    return step.out if step.multi else (step.out,)


class _Groups:
    """Union-find over registers."""

    def __init__(self):
        self.parent = {}

    def find(self, r):
        p = self.parent.get(r, r)
        if p == r:
            return r
        root = self.find(p)
        self.parent[r] = root
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def plan(steps, values, protected):
    """Give steps of ``steps`` (final replay order) a ``buf`` and ``into``.

    ``values``: trace-time value of every register; ``protected``: registers that must
    never live in a kept buffer (outputs, constants, inputs, variable values).
    Returns the buffer specs, a list of (shape, dtype); sets ``step.buf``/``step.into``.
    """
    groups = _Groups()
    produced_at = {}
    for i, s in enumerate(steps):
        if s.kind == KIND_EFFECT:
            continue
        for o in _outs(s):
            produced_at[o] = i
            vo = values[o]
            if not isinstance(vo, np.ndarray):
                continue
            for r in s.ins:
                vi = values[r]
                if isinstance(vi, np.ndarray) and np.may_share_memory(vo, vi):
                    groups.union(o, r)
    # per group: members, the steps reading it, whether it escapes
    members = {}
    for r in produced_at:
        members.setdefault(groups.find(r), []).append(r)
    for r in protected:
        members.setdefault(groups.find(r), []).append(r)
    last_read = {}
    escapes = set()
    for i, s in enumerate(steps):
        for r in s.ins:
            g = groups.find(r)
            last_read[g] = i
            if s.kind == KIND_EFFECT and s.attrs and s.attrs.get("retains_inputs"):
                escapes.add(g)
    for r in protected:
        escapes.add(groups.find(r))
    # candidate groups: one allocating step with an ``into`` kernel
    intervals = []
    for g, regs in members.items():
        if g in escapes or g not in last_read:
            continue
        allocating = [r for r in regs if not _is_view(steps[produced_at[r]], r, groups)]
        if len(allocating) != 1:
            continue
        r = allocating[0]
        s = steps[produced_at[r]]
        if s.multi or s.kind not in (KIND_OP, KIND_FUSED):
            continue
        into = None
        if s.kind == KIND_OP:
            into = INTO.get(s.name)
            if into is None or s.op is None or s.fn is not s.op.forward:
                continue
        v = values[r]
        if type(v) is not np.ndarray or not v.flags.c_contiguous or v.size == 0:
            continue
        intervals.append((produced_at[r], last_read[g], s, into, v.shape, v.dtype))
    # greedy interval assignment, per (dtype, shape)
    intervals.sort(key=lambda x: x[0])
    specs = []
    free_at = {}          # (dtype, shape) -> [(end, buffer index)]
    for start, end, s, into, shape, dtype in intervals:
        pool = free_at.setdefault((dtype.str, shape), [])
        k = next((j for j, (e, _) in enumerate(pool) if e < start), None)
        if k is None:
            index = len(specs)
            specs.append((shape, dtype))
        else:
            index = pool.pop(k)[1]
        pool.append((end, index))
        s.buf = index
        s.into = into
    return specs


def _is_view(step, r, groups):
    """Whether register ``r`` (an output of ``step``) aliases one of the step's inputs."""
    g = groups.find(r)
    return step.kind != KIND_READ and any(groups.find(x) == g for x in step.ins)


def allocate(specs):
    """The kept buffers of a ConcreteFunction."""
    return [np.empty(shape, dtype) for shape, dtype in specs]
