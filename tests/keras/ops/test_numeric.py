"""keras.ops's NumPy-style math (fasteager/keras/ops/numeric.py) against Keras 3.15.1.

Every case recorded by tests/tf_reference/record_kops_numeric.py (values, dtype, shape,
the error class where Keras raises, and the gradient of sum(output) for float inputs) is
replayed here; one test per function name.
"""
import collections

import numpy as np
import pytest

import fasteager as fe
import fasteager.errors as fe_errors
from fasteager.keras import ops as kops
from tests.tf_reference import load

REF = load("kops_numeric")
CASES = collections.defaultdict(list)
for _case in REF["cases"]:
    CASES[_case["fn"]].append(_case)

# tolerance by dtype: Keras runs TensorFlow's kernels, fasteager NumPy's
_RTOL = {"float16": 2e-3, "bfloat16": 2e-2, "float32": 2e-5, "complex64": 2e-5,
         "float64": 1e-11, "complex128": 1e-11}


def _decode_array(rec):
    if "re" in rec:
        return np.array(rec["re"]) + 1j * np.array(rec["im"])
    return np.array(rec["values"], dtype=rec["dtype"]).reshape(rec["shape"])


def decode(rec):
    """An input as the recorder gave it to Keras: tensors as fasteager constants."""
    if "dtype" in rec:
        return fe.constant(_decode_array(rec).astype(rec["dtype"]))
    if "tuple" in rec:
        return tuple(decode(e) for e in rec["tuple"])
    if "list" in rec:
        return [decode(e) for e in rec["list"]]
    return rec["py"]


def _compare(got, want, what):
    """A list of mismatch messages between a fasteager result and a recorded one."""
    if got is None:
        return ["%s: got None" % what]
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    exp = _decode_array(want)
    errs = []
    if str(got.dtype) != want["dtype"]:
        errs.append("%s: dtype %s, Keras %s" % (what, got.dtype, want["dtype"]))
    if list(got.shape) != want["shape"]:
        errs.append("%s: shape %s, Keras %s" % (what, list(got.shape), want["shape"]))
        return errs
    if exp.dtype.kind in "fc" or got.dtype.kind in "fc":
        rtol = _RTOL.get(want["dtype"], 1e-6)
        if not np.allclose(got.astype(exp.dtype), exp, rtol=rtol, atol=rtol,
                           equal_nan=True):
            errs.append("%s: values %s, Keras %s" % (what, got.tolist(), exp.tolist()))
    elif not np.array_equal(got.astype(exp.dtype), exp):
        errs.append("%s: values %s, Keras %s" % (what, got.tolist(), exp.tolist()))
    return errs


def _error_matches(exc, name):
    if type(exc).__name__ == name:
        return True
    cls = getattr(fe_errors, name, None) or {"TypeError": TypeError,
                                             "ValueError": ValueError}.get(name)
    return cls is not None and isinstance(exc, cls)


def run_case(case):
    fn = getattr(kops, case["fn"])
    args = [decode(a) for a in case["args"]]
    kwargs = {k: decode(v) for k, v in case["kwargs"].items()}
    label = "%s(%s, %s)" % (case["fn"], [a.get("dtype", a.get("py")) for a in case["args"]],
                            {k: v.get("py", v.get("dtype")) for k, v in case["kwargs"].items()})
    watched = [int(i) for i in case.get("grads", {})]
    try:
        with fe.GradientTape(persistent=True) as tape:
            for i in watched:
                tape.watch(args[i])
            out = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the class is what is checked
        if "error" in case and _error_matches(e, case["error"]):
            return []
        return ["%s: raised %s: %s%s" % (label, type(e).__name__, e,
                                         " (Keras: %s)" % case.get("error", "no error"))]
    if "error" in case:
        return ["%s: no error, Keras raises %s" % (label, case["error"])]
    if isinstance(case["out"], list):
        errs = []
        for k, (o, w) in enumerate(zip(out, case["out"])):
            errs += _compare(o, w, "%s[%d]" % (label, k))
        return errs
    errs = _compare(out, case["out"], label)
    if errs or not watched:
        return errs
    grads = tape.gradient(fe.reduce_sum(out), [args[i] for i in watched])
    for i, g in zip(watched, grads):
        want = case["grads"][str(i)]
        what = "%s grad[%d]" % (label, i)
        if want is None:
            if g is not None and np.any(np.asarray(g.numpy()) != 0):
                errs.append("%s: got %s, Keras None" % (what, g.numpy().tolist()))
            continue
        if g is None:
            g = fe.zeros(want["shape"], want["dtype"])
        errs += _compare(g, want, what)
    return errs


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_keras(name):
    errors = []
    for case in CASES[name]:
        errors += run_case(case)
    assert not errors, "%d of %d cases differ:\n%s" % (
        len(errors), len(CASES[name]), "\n".join(errors[:20]))


def test_every_name_in_keras_namespaces():
    import fasteager.keras.ops.numpy as kops_numpy
    from fasteager.keras.ops import numeric

    assert sorted(numeric.__all__) == sorted(REF["namespaces"])
    for name, spaces in REF["namespaces"].items():
        for space in spaces:
            module = {"ops": kops, "ops.numpy": kops_numpy}[space]
            assert getattr(module, name) is getattr(numeric, name), (space, name)
