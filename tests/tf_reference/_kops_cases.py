"""Shared runner of the keras.ops cases (record_kops_core/math/linalg.py): one case runs the
same way on TensorFlow + Keras (the recorder) and on fasteager (the tests), since both
expose constant / GradientTape / nest / reduce_sum under the same names.

A case is ``(name, case_id, fn, inputs, opts)``: ``fn(ops, *args)`` calls ``ops.<name>``;
``inputs`` are NumPy arrays (made into tensors with ``tfm.constant`` unless
``opts["raw"]``: then passed as they are) or Python values; ``opts["grad"]`` asks for the
gradient of the sum of the float outputs with respect to the float tensor inputs;
``opts["post"](out, to_numpy)`` maps the output to a sign/order-free NumPy view before it is
recorded (decompositions); ``opts["tol"]`` scales the test's float tolerance.
Only NumPy is imported here.
"""
import numpy as np

FLOATS = ("float16", "bfloat16", "float32", "float64")


def _dtype_name(d):
    name = getattr(d, "name", None) or str(d)
    return "bool" if name == "bool_" else name


def _values(a):
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return [_values(a.real), _values(a.imag)]
    if a.dtype.kind == "f":
        flat = [v if np.isfinite(v) else str(v) for v in a.astype(np.float64).ravel().tolist()]
        return flat
    return a.ravel().tolist()


def encode(tfm, out):
    """A JSON-able form of ``out``: tensors as dtype/shape/flat values, nesting kept."""
    if out is None:
        return None
    if isinstance(out, (bool, int, float, str)) and not hasattr(out, "dtype"):
        return {"py": out if not isinstance(out, float) or np.isfinite(out) else str(out)}
    if isinstance(out, dict):
        return {"map": {str(k): encode(tfm, v) for k, v in out.items()}}
    if isinstance(out, (tuple, list)):
        return {"seq": [encode(tfm, v) for v in out]}
    if tfm.is_tensor(out) or isinstance(out, (np.ndarray, np.generic)) or hasattr(out, "numpy"):
        arr = np.asarray(out.numpy() if hasattr(out, "numpy") else out)
        kind = "tensor" if tfm.is_tensor(out) else "array"
        return {kind: _values(arr), "dtype": _dtype_name(out.dtype), "shape": list(arr.shape)}
    return {"py": repr(out)}


def _to_numpy(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def _float_leaves(tfm, out):
    leaves = []
    for leaf in tfm.nest.flatten(out):
        if tfm.is_tensor(leaf) and _dtype_name(leaf.dtype) in FLOATS:
            leaves.append(leaf)
    return leaves


def evaluate(tfm, ops, case):
    """Run one case on ``tfm`` (tensorflow or fasteager) with ``ops`` (its keras.ops)."""
    name, _, fn, inputs, opts = case
    raw = opts.get("raw", False)
    args, watched = [], []
    for v in inputs:
        if isinstance(v, np.ndarray) and not raw:
            t = tfm.constant(v)
            if v.dtype.kind == "f":
                watched.append(t)
            args.append(t)
        else:
            args.append(v)
    record = {"name": name}
    try:
        if opts.get("grad") and watched:
            with tfm.GradientTape(persistent=False) as tape:
                for t in watched:
                    tape.watch(t)
                out = fn(ops, *args)
                leaves = _float_leaves(tfm, out)
                target = None
                for leaf in leaves:
                    s = tfm.reduce_sum(tfm.cast(leaf, "float64"))
                    target = s if target is None else target + s
            if target is not None:
                grads = tape.gradient(target, watched)
                record["grad"] = [encode(tfm, g) for g in grads]
        else:
            out = fn(ops, *args)
        if opts.get("post"):
            # Sign/order-free views of decompositions (eigenvectors, Q, U, V), in NumPy.
            out = opts["post"](out, _to_numpy)
        record["out"] = encode(tfm, out)
    except Exception as e:  # noqa: BLE001 - the class is the recorded result
        record["error"] = type(e).__name__
    return record
