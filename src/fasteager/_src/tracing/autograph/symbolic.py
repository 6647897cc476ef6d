"""Graph names of traced tensors, for Python's ``print`` while tracing.

TensorFlow names a graph tensor after the operation that made it and its output index:
an argument ``x`` is ``x:0``, ``x + y`` is ``add:0``, the next addition ``add_1:0``,
``tf.reduce_sum`` ``Sum:0``. The trace recorder knows which step made each register; this
module gives the steps TensorFlow's operation names (the Python operators' lower-case
names, the generated ops' CamelCase ones) and numbers repeats as TensorFlow does.
"""
__all__ = ["graph_name"]

# fasteager op name -> TensorFlow's operation name where they differ beyond CamelCase
_TF_NAMES = {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "truediv",
    "truediv": "truediv", "floordiv": "floordiv", "floormod": "mod", "mod": "mod",
    "pow": "pow", "negative": "Neg", "matmul": "MatMul", "greater": "Greater",
    "greater_equal": "GreaterEqual", "less": "Less", "less_equal": "LessEqual",
    "equal": "Equal", "not_equal": "NotEqual", "reduce_sum": "Sum", "reduce_mean": "Mean",
    "reduce_max": "Max", "reduce_min": "Min", "reduce_prod": "Prod", "reduce_any": "Any",
    "reduce_all": "All", "logical_and": "LogicalAnd", "logical_or": "LogicalOr",
    "logical_not": "LogicalNot", "where": "SelectV2", "concat": "concat",
    "transpose": "transpose", "range": "range", "abs": "Abs", "cast": "Cast",
    "read_variable": "ReadVariableOp", "cond": "cond", "while_loop": "while",
    "zeros_like": "zeros_like", "ones_like": "ones_like",
}


def _op_name(name):
    tf = _TF_NAMES.get(name)
    if tf is not None:
        return tf
    return "".join(part.capitalize() for part in name.split("_")) or "Op"


def _names(tracer):
    """register -> graph name, for the registers recorded so far (extended lazily)."""
    cache = getattr(tracer, "_graph_names", None)
    if cache is None:
        names, counts = {}, {}
        input_names = getattr(tracer, "input_names", None) or []
        captured = set(getattr(tracer, "captures", ()) and tracer.inputs[-len(tracer.captures):])
        for i, r in enumerate(tracer.inputs):
            if r in captured:
                continue
            base = input_names[i] if i < len(input_names) else "Placeholder"
            names[r] = _unique(base, counts) + ":0"
        for _, r in tracer.var_inputs:
            names[r] = _unique("ReadVariableOp", counts) + ":0"
        cache = tracer._graph_names = [names, counts, 0]
    names, counts, done = cache
    steps = tracer.steps
    for s in steps[done:]:
        outs = s.out if s.multi else (s.out,)
        if isinstance(outs, int) or not outs or outs == (-1,):
            continue
        base = _unique(_op_name(s.name or "Op"), counts)
        for k, r in enumerate(outs):
            names.setdefault(r, "%s:%d" % (base, k))
    cache[2] = len(steps)
    for _, r in tracer.var_inputs:      # variables first read after the cache was made
        if r not in names:
            names[r] = _unique("ReadVariableOp", counts) + ":0"
    return names


def _unique(base, counts):
    n = counts.get(base, 0)
    counts[base] = n + 1
    return base if n == 0 else "%s_%d" % (base, n)


def graph_name(tracer, t):
    """(name, shape text) of tensor ``t`` in ``tracer``'s graph."""
    r = tracer.find(t)
    # (an input of a relaxed trace shows its None dimensions, as TensorFlow's symbolic
    # shapes do; see relax.py)
    shape = getattr(tracer, "relaxed", {}).get(r) or tuple(t._value.shape)
    text = "(%s,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))
    name = _names(tracer).get(r) if r is not None else None
    if name is None and r is not None and tracer.parent is not None and \
            r in tracer.inputs and tracer.captures:
        k = tracer.inputs.index(r) - (len(tracer.inputs) - len(tracer.captures))
        if k >= 0:
            name, _ = graph_name(tracer.parent, tracer.capture_tensors[k])
    return name or "Placeholder:0", text
