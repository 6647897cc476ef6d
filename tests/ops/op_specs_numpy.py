"""Op-table specs for the ops behind ``fasteager.numpy``/``fasteager.scipy`` names:
hyperbolic and inverse trigonometric functions, the gamma family, complex parts, FFTs and
the extra linear algebra. The shared test (test_op_table.py) checks each forward against
NumPy (or SciPy) and its gradients against finite differences at orders 1 and 2.

Complex ops are checked through real functions of real inputs: a spec builds complex
values from real arrays with ``fe.complex`` and returns real parts, so finite differences
of real inputs test the complex VJPs (TensorFlow's convention) end to end.
"""
import numpy as np

import fasteager as fe
from fasteager.ops import elementwise_ops as ew_ops
from fasteager.ops import special_ops as sp

from tests.ops.op_specs_base import BINARY, Spec, in_open_unit, positive


def _greater_than_one(x):
    return np.abs(x) + 1.2


def _scipy(name):
    def ref(*xs):
        import scipy.special
        return getattr(scipy.special, name)(*xs).astype(xs[-1].dtype)
    return ref


def _cplx(x, y):
    return fe.complex(x, y)


def _np_cplx(x, y):
    return x + 1j * y


AREA_SPECS = {
    # ---- hyperbolic and inverse trigonometric functions (special_ops)
    "sinh": Spec(ew_ops.sinh, np.sinh),
    "cosh": Spec(ew_ops.cosh, np.cosh),
    "asinh": Spec(ew_ops.asinh, np.arcsinh),
    "acosh": Spec(ew_ops.acosh, np.arccosh, domain=_greater_than_one),
    "atanh": Spec(ew_ops.atanh, np.arctanh, domain=in_open_unit),
    "asin": Spec(ew_ops.asin, np.arcsin, domain=in_open_unit),
    "acos": Spec(ew_ops.acos, np.arccos, domain=in_open_unit),
    "atan": Spec(ew_ops.atan, np.arctan),
    "atan2": Spec(ew_ops.atan2, np.arctan2, BINARY, domain=positive),
    "hypot": Spec(ew_ops.hypot, np.hypot, BINARY, domain=positive),
    "exp2": Spec(ew_ops.exp2, np.exp2),
    # ---- the gamma family (SciPy as the reference)
    "erfc": Spec(sp.erfc, _scipy("erfc")),
    "lgamma": Spec(sp.lgamma, _scipy("gammaln"), domain=positive, rtol=1e-5),
    "digamma": Spec(sp.digamma, _scipy("digamma"), domain=positive, rtol=1e-5),
    "polygamma": Spec(lambda x: [sp.polygamma(1, x), sp.polygamma(2, x)],
                      lambda x: [_scipy("polygamma")(1, x), _scipy("polygamma")(2, x)],
                      domain=positive, rtol=1e-5),
    # ---- complex parts (elementwise_ops): real functions of real inputs through complex values
    "conj": Spec(lambda x, y: ew_ops.imag(ew_ops.conj(_cplx(x, y)) * _cplx(y, x)),
                 lambda x, y: np.imag(np.conj(_np_cplx(x, y)) * _np_cplx(y, x)), BINARY),
    "real": Spec(lambda x, y: ew_ops.real(fe.exp(_cplx(x, y))),
                 lambda x, y: np.real(np.exp(_np_cplx(x, y))), BINARY),
    "imag": Spec(lambda x, y: ew_ops.imag(fe.exp(_cplx(x, y))),
                 lambda x, y: np.imag(np.exp(_np_cplx(x, y))), BINARY),
}


# ---- linear algebra (linalg_ops) -------------------------------------------------------------

def _sym(mat, xp):
    # symmetric inputs built with the library's own ops, so perturbations stay symmetric
    if xp is np:
        return (mat + np.swapaxes(mat, -1, -2)) / 2
    return (mat + fe.linalg.matrix_transpose(mat)) / 2


def _eigh_invariants(a, xp):
    """Sign-invariant functions of eigh(sym(a)): the eigenvalues, v * v, and
    v diag(weights) v^T."""
    s = _sym(a, xp)
    w, v = (np.linalg.eigh(s) if xp is np else fe.linalg.eigh(s))
    dtype = np.dtype(getattr(a.dtype, "as_numpy_dtype", a.dtype))   # ndarray or Tensor
    weights = np.arange(1.0, w.shape[-1] + 1).astype(dtype)
    vt = np.swapaxes(v, -1, -2) if xp is np else fe.linalg.matrix_transpose(v)
    return [w, v * v, xp.matmul(v * weights, vt)]


def _eig_invariants(a, xp):
    """Real, order- and phase-invariant functions of eig(a) for a with real eigenvalues
    (a similarity transform of a diagonal matrix): sorted-free sums of powers of the
    eigenvalues, and V diag(e) V^-1 rebuilt (that is a itself, through the eigenvectors)."""
    if xp is np:
        e, v = np.linalg.eig(a.astype(np.complex128))
        rebuilt = v @ (e[..., :, None] * np.linalg.inv(v))
        return [np.real(np.sum(e * e, -1)).astype(a.dtype), np.real(rebuilt).astype(a.dtype)]
    e, v = fe.linalg.eig(a)
    inv_v = fe.linalg.inv(v)
    rebuilt = fe.matmul(v, fe.expand_dims(e, -1) * inv_v)
    return [ew_ops.real(fe.reduce_sum(e * e, -1)), ew_ops.real(rebuilt)]


def _distinct_real_spectrum(x):
    # a + diag(0, 3, 6, ...): distinct real eigenvalues, so eig's gradient is defined
    if x.ndim >= 2 and x.shape[-1] == x.shape[-2]:
        return 0.3 * x + np.diag(3.0 * np.arange(x.shape[-1]))
    return x


def _tri(lower, xp):
    def fn(a, b):
        n = a.shape[-1]
        t = a + 3 * (np.eye(n, dtype=a.dtype) if xp is np else fe.eye(n, dtype=a.dtype))
        if xp is np:
            tri = np.tril(t) if lower else np.triu(t)
            return [np.linalg.solve(tri, b), np.linalg.solve(np.swapaxes(tri, -1, -2), b)]
        return [fe.linalg.triangular_solve(t, b, lower=lower),
                fe.linalg.triangular_solve(t, b, lower=lower, adjoint=True)]
    return fn


AREA_SPECS.update({
    "eigh": Spec(lambda a: _eigh_invariants(a, fe), lambda a: _eigh_invariants(a, np),
                 [((3, 3),), ((2, 2, 2),)]),
    "eig": Spec(lambda a: _eig_invariants(a, fe), lambda a: _eig_invariants(a, np),
                [((3, 3),), ((2, 2, 2),)], domain=_distinct_real_spectrum, rtol=1e-4),
    "pinv": Spec(fe.linalg.pinv, np.linalg.pinv, [((3, 3),), ((4, 2),), ((2, 4),),
                                                   ((2, 3, 2),)], rtol=1e-4),
    "triangular_solve": Spec(_tri(True, fe), _tri(True, np),
                             [((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1))]),
})


# ---- FFTs (fft_ops, through fasteager.numpy.fft): real losses of real inputs ----------------

def _fft_parts(xp_fft, real_part, imag_part):
    def fn(x, y):
        if real_part is np.real:
            z = x + 1j * y
        else:
            z = fe.complex(x, y)
        outs = []
        for norm in ("backward", "ortho", "forward"):
            w = xp_fft.fft(z, norm=norm) * xp_fft.ifft(z * z, norm=norm)
            outs += [real_part(w), imag_part(w)]
        outs.append(real_part(xp_fft.fftn(z)))
        return outs
    return fn


def _rfft_parts(xp_fft, real_part, imag_part):
    def fn(x):
        outs = []
        for norm in ("backward", "ortho", "forward"):
            w = xp_fft.rfft(x * x, norm=norm)
            outs += [real_part(w), imag_part(w)]
        return outs
    return fn


def _irfft_parts(xp_fft, real_part):
    def fn(x, y):
        z = x + 1j * y if real_part is np.real else fe.complex(x, y)
        n = x.shape[-1]
        outs = [xp_fft.irfft(z * z, norm=norm) for norm in ("backward", "ortho", "forward")]
        return outs + [xp_fft.irfft(z, n=2 * n - 1)]
    return fn


def _fnp_fft():
    import fasteager.numpy.fft as fnp_fft
    return fnp_fft


_FFT_CASES = [((3,), (3,)), ((2, 4), (2, 4)), ((2, 1), (2, 1))]

AREA_SPECS.update({
    "fft": Spec(_fft_parts(_fnp_fft(), ew_ops.real, ew_ops.imag), _fft_parts(np.fft, np.real, np.imag),
                _FFT_CASES),
    "rfft": Spec(_rfft_parts(_fnp_fft(), ew_ops.real, ew_ops.imag),
                 lambda x: [v.astype(x.dtype) for v in _rfft_parts(np.fft, np.real, np.imag)(x)],
                 [((3,),), ((2, 4),), ((1,),)]),
    "irfft": Spec(_irfft_parts(_fnp_fft(), ew_ops.real),
                  lambda x, y: [v.astype(x.dtype) for v in _irfft_parts(np.fft, np.real)(x, y)],
                  [((3,), (3,)), ((2, 4), (2, 4)), ((2, 2), (2, 2))]),
})
