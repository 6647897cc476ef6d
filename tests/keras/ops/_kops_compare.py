"""Compare one keras.ops case run on fasteager with the record of the same case on Keras 3.15.1
(tests/tf_reference/_kops_cases.py runs both): values (with a tolerance for floats), dtypes,
shapes, Python results, error classes and gradients."""
import numpy as np

import fasteager as fe
from tests.tf_reference._kops_cases import evaluate

TOL = {"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (2e-5, 2e-5),
       "float64": (1e-9, 1e-10), "complex64": (2e-5, 2e-5), "complex128": (1e-9, 1e-10)}


def _decode(values, dtype, shape):
    if dtype.startswith("complex"):
        re, im = (_decode(v, "float64", shape) for v in values)
        return re + 1j * im
    if dtype in ("bool",) or "int" in dtype:
        return np.asarray(values, dtype=dtype).reshape(shape)
    return np.asarray([float(v) for v in values], np.float64).reshape(shape)


def _same(ref, got, where, scale):
    assert (ref is None) == (got is None), "%s: expected %r, got %r" % (where, ref, got)
    if ref is None:
        return
    if "py" in ref:
        assert "py" in got and got["py"] == ref["py"], "%s: %r != %r" % (where, got, ref)
        return
    for key in ("seq", "map"):
        if key in ref:
            assert key in got, "%s: expected a %s, got %r" % (where, key, got)
            a, b = ref[key], got[key]
            if key == "map":
                assert sorted(a) == sorted(b), where
                for k in a:
                    _same(a[k], b[k], "%s[%s]" % (where, k), scale)
            else:
                assert len(a) == len(b), "%s: %d items, got %d" % (where, len(a), len(b))
                for i, (x, y) in enumerate(zip(a, b)):
                    _same(x, y, "%s[%d]" % (where, i), scale)
            return
    kind = "tensor" if "tensor" in ref else "array"
    assert kind in got, "%s: expected a %s, got %r" % (where, kind, got)
    assert got["dtype"] == ref["dtype"], "%s: dtype %s, expected %s" % (where, got["dtype"],
                                                                        ref["dtype"])
    assert got["shape"] == ref["shape"], "%s: shape %s, expected %s" % (where, got["shape"],
                                                                        ref["shape"])
    want = _decode(ref[kind], ref["dtype"], ref["shape"])
    have = _decode(got[kind], got["dtype"], got["shape"])
    if ref["dtype"] in TOL:
        rtol, atol = TOL[ref["dtype"]]
        np.testing.assert_allclose(have, want, rtol=rtol * scale, atol=atol * scale,
                                   equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(have, want, err_msg=where)


def _error_names(exc_name):
    return {exc_name}


def check(case, ref):
    """Run ``case`` on fasteager and compare with ``ref`` (its Keras record)."""
    got = evaluate(fe, fe.keras.ops, case)
    cid = case[1]
    scale = case[4].get("tol", 1.0)
    if "error" in ref:
        assert "error" in got, "%s: Keras raises %s, fasteager gave %r" % (
            cid, ref["error"], got.get("out"))
        assert got["error"] == ref["error"], "%s: error %s, expected %s" % (
            cid, got["error"], ref["error"])
        return
    assert "error" not in got, "%s: fasteager raised %s" % (cid, got["error"])
    _same(ref["out"], got["out"], cid, scale)
    if "grad" in ref:
        assert "grad" in got, "%s: no gradient" % cid
        for i, (r, g) in enumerate(zip(ref["grad"], got["grad"])):
            if r is None:
                # TF gives None for unconnected inputs; zeros are the same gradient.
                if g is not None:
                    np.testing.assert_allclose(_decode(g["tensor"], g["dtype"], g["shape"]), 0)
                continue
            _same(r, g, "%s grad[%d]" % (cid, i), scale * 10)
