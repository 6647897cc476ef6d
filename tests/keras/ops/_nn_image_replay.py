"""Replays the cases that tests/tf_reference/record_kops_nn.py and record_kops_image.py
recorded from Keras 3.15.1 against fasteager: same inputs, then values, dtypes, shapes,
gradients of sum(output) and error classes compared with what Keras gave."""
import numpy as np

import fasteager as fe
from fasteager import errors

# Keras's error class name -> the fasteager classes that count as the same
_ERRORS = {"ValueError": (ValueError,), "TypeError": (TypeError,),
           "InvalidArgumentError": (errors.InvalidArgumentError,),
           "UnimplementedError": (errors.UnimplementedError,),
           "NotImplementedError": (NotImplementedError,)}


def decode(arg):
    if isinstance(arg, dict) and "tensor" in arg:
        return fe.constant(np.asarray(arg["tensor"], dtype=arg["dtype"]))
    if isinstance(arg, dict) and "tuple" in arg:
        return tuple(decode(a) for a in arg["tuple"])
    if isinstance(arg, list):
        return [decode(a) for a in arg]
    return arg


def _tol(dtype, rtol, atol, f64_like_f32=False):
    if dtype in ("float16", "bfloat16"):
        return 2e-2, 2e-2
    if dtype == "float64" and not f64_like_f32:
        return min(rtol, 1e-7), min(atol, 1e-9)
    return rtol, atol


def _check_out(got, want, where, rtol, atol, f64_like_f32=False):
    if "seq" in want:
        assert isinstance(got, (tuple, list)), "%s: expected a tuple, got %r" % (where, got)
        assert len(got) == len(want["seq"]), where
        for i, (g, w) in enumerate(zip(got, want["seq"])):
            _check_out(g, w, "%s[%d]" % (where, i), rtol, atol, f64_like_f32)
        return
    if want.get("sparse"):
        assert isinstance(got, fe.sparse.SparseTensor), "%s: expected a SparseTensor" % where
        got = fe.sparse.to_dense(got)
    assert got.dtype.name == want["dtype"], "%s: dtype %s, Keras %s" % (
        where, got.dtype.name, want["dtype"])
    assert list(got.shape) == want["shape"], "%s: shape %s, Keras %s" % (
        where, list(got.shape), want["shape"])
    a = got.numpy()
    r, t = _tol(want["dtype"], rtol, atol, f64_like_f32)
    if "real" in want:
        np.testing.assert_allclose(a.real, want["real"], rtol=r, atol=t, err_msg=where)
        np.testing.assert_allclose(a.imag, want["imag"], rtol=r, atol=t, err_msg=where)
    elif a.dtype.kind == "f":
        np.testing.assert_allclose(a.astype(np.float64), np.asarray(want["value"], np.float64),
                                   rtol=r, atol=t, err_msg=where)
    else:
        np.testing.assert_array_equal(a, np.asarray(want["value"]).astype(a.dtype),
                                      err_msg=where)


def _loss(out):
    if isinstance(out, (tuple, list)):
        parts = [p for p in (_loss(o) for o in out) if p is not None]
        return fe.add_n(parts) if parts else None
    if isinstance(out, fe.sparse.SparseTensor):
        return None
    if out.dtype.is_complex:
        return fe.cast(fe.reduce_sum(fe.math.real(out)) + fe.reduce_sum(fe.math.imag(out)),
                       fe.float64)
    if out.dtype.is_floating:
        return fe.cast(fe.reduce_sum(out), fe.float64)
    return None


def check_case(fn, rec, where, rtol=2e-5, atol=2e-5, grad_rtol=None, grad_atol=None,
               f64_like_f32=False):
    """Run ``fn`` on the recorded inputs and compare everything Keras recorded;
    ``f64_like_f32``: Keras computes this function's float64 in float32 (ctc_loss), so
    its float64 results carry float32's rounding."""
    args = [decode(a) for a in rec["args"]]
    kwargs = {k: decode(v) for k, v in rec["kwargs"].items()}
    if "error" in rec:
        classes = _ERRORS.get(rec["error"], (Exception,))
        try:
            fn(*args, **kwargs)
        except classes:
            return
        except Exception as e:  # noqa: BLE001 - report the wrong class
            raise AssertionError("%s: raised %s (%s), Keras raised %s: %s"
                                 % (where, type(e).__name__, e, rec["error"], rec["message"]))
        raise AssertionError("%s: no error, Keras raised %s: %s"
                             % (where, rec["error"], rec["message"]))
    with fe.GradientTape(persistent=True) as tape:
        watched = []
        for i, a in enumerate(args):
            if isinstance(a, fe.Tensor) and a.dtype.is_floating:
                tape.watch(a)
                watched.append(i)
        out = fn(*args, **kwargs)
        loss = _loss(out) if rec.get("grads") else None
    _check_out(out, rec["out"], where, rtol, atol, f64_like_f32)
    for i, want in (rec.get("grads") or {}).items():
        g = tape.gradient(loss, args[int(i)])
        assert g is not None, "%s: no gradient for argument %s" % (where, i)
        r, t = _tol(args[int(i)].dtype.name, grad_rtol or rtol * 10, grad_atol or atol * 10,
                    f64_like_f32)
        np.testing.assert_allclose(np.asarray(g.numpy(), np.float64), np.asarray(want),
                                   rtol=r, atol=t, err_msg="%s: gradient %s" % (where, i))


def check_all(fn, records, name, known=None, **tol):
    """Every recorded case of one function; the failures of all of them in one message.
    ``known``: {case index: reason} of cases known not to match yet; each must still fail
    (one that passes is reported, so that its entry is removed)."""
    known = known or {}
    failures = []
    for n, rec in enumerate(records):
        where = "%s case %d %s" % (name, n, rec["kwargs"])
        try:
            check_case(fn, rec, where, **tol)
        except Exception as e:  # noqa: BLE001 - collected, reported together
            if n not in known:
                failures.append("%s: %s: %s" % (where, type(e).__name__, str(e)[:600]))
        else:
            if n in known:
                failures.append("%s: passes now; remove it from the known failures (%s)"
                                % (where, known[n]))
    assert not failures, "\n".join(failures)
