"""``fe.print``: tensors and Python values printed as ``tf.print`` prints them, on every
call of a traced function (a graph effect)."""
import sys

import numpy as np

from ... import _core
from .. import nest
from ..composite.summarize import summarize_value
from ..composite.ragged import RaggedTensor
from ..composite.sparse import SparseTensor

Tensor = _core.Tensor
VariableBase = _core.VariableBase


def print_(*args, sep=" ", end="\n", output_stream=None, summarize=None, name=None):
    """Print tensors and Python values as ``tf.print`` does (to ``sys.stderr`` unless
    ``output_stream`` says otherwise); inside ``fe.function`` it prints on every call.

    ``summarize``: the first and last elements of each dimension shown (3 when None;
    -1 shows all).

    >>> fe.print("loss:", fe.constant(1.5), output_stream=sys.stdout)
    loss: 1.5
    """
    edge = 3 if summarize is None else int(summarize)
    leaves = [nest.flatten(a) if nest.is_nested(a) else [a] for a in args]
    flat = [x._read() if isinstance(x, VariableBase) else x for xs in leaves for x in xs]
    # every tensor leaf, ragged and sparse ones as their component tensors (so a trace
    # prints their values at run time): (flat index, kind, number of components)
    shown, tensors = [], []
    for i, x in enumerate(flat):
        if isinstance(x, Tensor):
            parts = [x]
        elif isinstance(x, RaggedTensor):
            parts = [x.flat_values] + list(x.nested_row_splits)
        elif isinstance(x, SparseTensor):
            parts = [x.indices, x.values, x.dense_shape]
        else:
            continue
        shown.append((i, type(x), len(parts)))
        tensors += parts
    for t in tensors:
        _core.check_usable(t)

    def show(*arrays):
        now = _core.get_tracer()
        if now is not None and now.parent is not None:
            # a branch or loop body being traced (or run to continue that trace): its
            # prints happen when the enclosing step runs, once, for the branch it takes
            return
        parts = list(flat)
        k = 0
        for i, kind, n in shown:
            comps = [np.asarray(a) for a in arrays[k:k + n]]
            k += n
            if kind is RaggedTensor:
                parts[i] = _Printed(_ragged_text(comps[0], comps[1:], edge))
            elif kind is SparseTensor:
                # TF prints it as a quoted Python string
                parts[i] = _Printed("'SparseTensor(indices=%s, values=%s, shape=%s)'"
                                    % tuple(summarize_value(c, edge) for c in comps))
            else:
                parts[i] = _Printed(summarize_value(comps[0], edge))
        it = iter(parts)
        texts = []
        for a, xs in zip(args, leaves):
            value = nest.pack_sequence_as(a, [next(it) for _ in xs]) if nest.is_nested(a) \
                else next(it)
            texts.append(str(value))
        stream = sys.stderr if output_stream is None else output_stream
        print(*texts, sep=sep, end=end, file=stream)
    tracer = _core.get_tracer()
    if tracer is not None:
        tracer.effect(show, tensors, (), "print")
        root = tracer
        while root.parent is not None:
            root = root.parent
        if root.dry:        # the check trace of a first call prints nothing: the call did
            return
    show(*[t._value for t in tensors])


def _ragged_text(values, splits, edge):
    """A ragged tensor as ``tf.print`` writes it (through tf.strings.as_string): nested
    lists joined by ', ', floats as %f, bools true/false, strings in single quotes; lists
    longer than ``2 * edge`` elided."""
    def item(v):
        if np.ndim(v):
            return elided([item(u) for u in v])
        if values.dtype.kind == "b":
            return "true" if v else "false"
        if values.dtype.kind == "f":
            return "%f" % v
        if values.dtype.kind in "OSU":
            return "'%s'" % (v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
        return str(v)

    def elided(items):
        if 0 <= edge and len(items) > 2 * edge:
            items = items[:edge] + ["..."] + items[-edge:]
        return "[" + ", ".join(items) + "]"

    def rows(level, lo, hi):
        if level == len(splits):
            return [item(v) for v in values[lo:hi]]
        s = splits[level]
        return [elided(rows(level + 1, s[r], s[r + 1])) for r in range(lo, hi)]
    return elided(rows(0, 0, len(splits[0]) - 1))


class _Printed:
    """Text that prints bare inside a printed structure (``{'k': 1}``, not ``{'k': '1'}``)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    __repr__ = __str__
