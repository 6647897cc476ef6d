"""``keras.ops`` array functions (creation, shapes, indexing, sorting/sets, products,
windows) against values recorded from Keras 3.15.1 on TensorFlow
(tests/tf_reference/record_kops_arrays.py): values, dtypes, shapes, the gradient of
sum(output) with respect to each float input, and the error class for bad input.
One test id per function name; each runs every recorded case of that function."""
import json

import numpy as np
import pytest

import fasteager as fe
from fasteager.keras import ops
from fasteager.keras.ops import arrays as arrays_module
from tests.tf_reference import load

REF = load("kops_arrays")["cases"]
SPLIT = ["append", "arange", "argpartition", "argsort", "array", "array_split", "bartlett",
         "bincount", "blackman", "broadcast_to", "concatenate", "copy", "cross", "diag",
         "diagflat", "diagonal", "diff", "digitize", "dot", "dsplit", "dstack", "einsum",
         "empty", "empty_like", "expand_dims", "eye", "flip", "fliplr", "flipud", "full",
         "full_like", "geomspace", "get_item", "hamming", "hanning", "hsplit", "hstack",
         "identity", "inner", "isin", "kaiser", "kron", "linspace", "logspace", "matmul",
         "meshgrid", "moveaxis", "ndim", "nonzero", "ones", "ones_like", "outer", "pad",
         "ravel", "repeat", "reshape", "roll", "rot90", "searchsorted", "select", "size",
         "slogdet", "sort", "split", "squeeze", "stack", "swapaxes", "take",
         "take_along_axis", "tensordot", "tile", "trace", "transpose", "trapezoid", "tri",
         "tril", "triu", "unique", "unravel_index", "vander", "vdot", "vectorize", "view",
         "vsplit", "vstack", "where", "zeros", "zeros_like"]

# keras.ops names whose bad input is caught by the fasteager op they are built on
ALIASES = {"concatenate": ["concat"], "get_item": ["getitem"], "take": ["gather"],
           "take_along_axis": ["gather"], "trapezoid": ["diff"],
           "geomspace": ["multiply"]}

PYFUNCS = {
    "affine": lambda a, b: a * b + 1.0,
    "rowsum": lambda a: fe.reduce_sum(a),
    "rowdot": lambda a, b: fe.reduce_sum(a * b),
}


def decode(spec):
    if isinstance(spec, dict):
        if "T" in spec:
            return fe.constant(np.asarray(spec["T"], dtype=spec["dtype"]))
        if "SP" in spec:
            return fe.sparse.from_dense(fe.constant(np.asarray(spec["SP"], spec["dtype"])))
        if "L" in spec:
            return [decode(s) for s in spec["L"]]
        if "TUP" in spec:
            return tuple(decode(s) for s in spec["TUP"])
        if "S" in spec:
            return slice(*spec["S"])
        if "E" in spec:
            return Ellipsis
        if "NEW" in spec:
            return None
        if "F" in spec:
            return PYFUNCS[spec["F"]]
        return {k: decode(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [decode(s) for s in spec]
    return spec


def float_inputs(args):
    found = []

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)
        elif isinstance(x, fe.Tensor) and x.dtype.is_floating:
            found.append(x)
    walk(args)
    return found


def check_out(cid, got, ref):
    if "sparse" in ref:
        assert isinstance(got, fe.sparse.SparseTensor), "%s: expected a SparseTensor" % cid
        check_out(cid, fe.sparse.to_dense(got), ref["sparse"])
        return
    if "seq" in ref:
        assert isinstance(got, (tuple, list)), "%s: expected a sequence, got %r" % (cid, got)
        assert len(got) == len(ref["seq"]), cid
        for g, r in zip(got, ref["seq"]):
            check_out(cid, g, r)
        return
    if "py" in ref:
        assert not isinstance(got, fe.Tensor) and got == ref["py"], (cid, got, ref)
        return
    assert isinstance(got, fe.Tensor), "%s: expected a Tensor, got %r" % (cid, type(got))
    assert got.dtype.name == ref["dtype"], "%s: dtype %s, Keras %s" % (
        cid, got.dtype.name, ref["dtype"])
    assert list(got.shape) == ref["shape"], "%s: shape %s, Keras %s" % (
        cid, list(got.shape), ref["shape"])
    want = np.asarray(ref["v"]).reshape(ref["shape"])
    have = got.numpy()
    if ref["dtype"].startswith("float"):
        tol = 1e-2 if ref["dtype"] == "float16" else 1e-5
        np.testing.assert_allclose(have.astype(np.float64), want.astype(np.float64),
                                   rtol=tol, atol=tol, err_msg=cid)
    else:
        np.testing.assert_array_equal(have, want.astype(have.dtype), err_msg=cid)


def total(out):
    outs = out if isinstance(out, (tuple, list)) else [out]
    parts = [fe.reduce_sum(fe.cast(o, "float64")) for o in outs
             if isinstance(o, fe.Tensor) and o.dtype.is_floating]
    return fe.add_n(parts) if parts else None


def run_case(cid, entry):
    args = decode(entry["args"])
    kwargs = decode(entry["kwargs"])
    fname = entry["fn"]

    def call():
        if fname == "vectorize":
            return ops.vectorize(args[0], **kwargs)(*args[1:])
        return getattr(ops, fname)(*args, **kwargs)

    if "error" in entry:
        with pytest.raises(Exception) as info:
            call()
        assert type(info.value).__name__ == entry["error"], (
            "%s: raised %r, Keras raises %s" % (cid, info.value, entry["error"]))
        # the message names the op, or the fasteager op it is built on
        named = [fname] + ALIASES.get(fname, [])
        assert any(n in str(info.value) for n in named), (
            "%s: the message names none of %s: %s" % (cid, named, info.value))
        return
    with fe.GradientTape(persistent=True) as tape:
        watched = float_inputs([args, kwargs])
        for w in watched:
            tape.watch(w)
        out = call()
        tot = total(out)
    check_out(cid, out, entry["out"])
    if "grads" in entry:
        grads = tape.gradient(tot, watched)
        assert len(grads) == len(entry["grads"]), cid
        for k, (g, r) in enumerate(zip(grads, entry["grads"])):
            if r is None:
                assert g is None or not np.any(fe.convert_to_tensor(g).numpy()), (cid, k)
                continue
            assert g is not None, "%s: no gradient for input %d" % (cid, k)
            np.testing.assert_allclose(np.asarray(fe.convert_to_tensor(g).numpy(),
                                                  np.float64), np.asarray(r, np.float64),
                                       rtol=1e-4, atol=1e-4, err_msg="%s grad %d" % (cid, k))


BY_NAME = {}
for _cid, _entry in REF.items():
    BY_NAME.setdefault(_entry["fn"], []).append(_cid)


def test_every_name_recorded():
    assert sorted(BY_NAME) == sorted(SPLIT)


@pytest.mark.parametrize("name", sorted(SPLIT))
def test_against_keras(name):
    failures = []
    for cid in BY_NAME[name]:
        try:
            run_case(cid, REF[cid])
        except AssertionError as e:
            failures.append("%s: %s" % (cid, str(e)[:400]))
        except Exception as e:  # noqa: BLE001 - an unexpected error fails that case
            failures.append("%s: raised %s: %s" % (cid, type(e).__name__, str(e)[:300]))
    assert not failures, "\n".join(failures)


def test_names_in_namespaces():
    assert fe.keras.ops is ops and fe.keras.ops.numpy is ops.numpy
    assert sorted(arrays_module.__all__) == sorted(SPLIT)
    assert set(SPLIT) <= set(ops.numpy.__all__)
    for name in SPLIT:
        fn = getattr(arrays_module, name)
        assert getattr(ops, name) is fn, name
        assert getattr(ops.numpy, name) is fn, name
    assert set(dir(arrays_module)) >= set(SPLIT)
    # nothing public beyond the split
    public = {n for n, v in vars(arrays_module).items()
              if callable(v) and not n.startswith("_")
              and getattr(v, "__module__", None) == arrays_module.__name__}
    assert public == set(SPLIT), sorted(public ^ set(SPLIT))


def test_vectorize_differentiates():
    x = fe.constant([[1.0, 2.0], [3.0, 4.0]])
    f = ops.vectorize(lambda a: fe.reduce_sum(a * a), signature="(n)->()")
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(f(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * x.numpy())


def test_record_is_json():
    # the record carries the Keras version it was made with
    data = load("kops_arrays")
    assert data["keras"].startswith("3.")
    json.dumps(data)
