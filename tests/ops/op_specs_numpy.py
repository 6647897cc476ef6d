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
from fasteager.ops import math_ops as m
from fasteager.ops import special_ops as sp

from tests.ops.op_specs_base import BINARY, UNARY, Spec, in_open_unit, positive


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
    "sinh": Spec(sp.sinh, np.sinh),
    "cosh": Spec(sp.cosh, np.cosh),
    "asinh": Spec(sp.asinh, np.arcsinh),
    "acosh": Spec(sp.acosh, np.arccosh, domain=_greater_than_one),
    "atanh": Spec(sp.atanh, np.arctanh, domain=in_open_unit),
    "asin": Spec(sp.asin, np.arcsin, domain=in_open_unit),
    "acos": Spec(sp.acos, np.arccos, domain=in_open_unit),
    "atan": Spec(sp.atan, np.arctan),
    "atan2": Spec(sp.atan2, np.arctan2, BINARY, domain=positive),
    "hypot": Spec(sp.hypot, np.hypot, BINARY, domain=positive),
    "exp2": Spec(sp.exp2, np.exp2),
    # ---- the gamma family (SciPy as the reference)
    "lgamma": Spec(sp.lgamma, _scipy("gammaln"), domain=positive, rtol=1e-5),
    "digamma": Spec(sp.digamma, _scipy("digamma"), domain=positive, rtol=1e-5),
    "polygamma": Spec(lambda x: [sp.polygamma(1, x), sp.polygamma(2, x)],
                      lambda x: [_scipy("polygamma")(1, x), _scipy("polygamma")(2, x)],
                      domain=positive, rtol=1e-5),
    # ---- complex parts (math_ops): real functions of real inputs through complex values
    "conj": Spec(lambda x, y: m.imag(m.conj(_cplx(x, y)) * _cplx(y, x)),
                 lambda x, y: np.imag(np.conj(_np_cplx(x, y)) * _np_cplx(y, x)), BINARY),
    "real": Spec(lambda x, y: m.real(fe.exp(_cplx(x, y))),
                 lambda x, y: np.real(np.exp(_np_cplx(x, y))), BINARY),
    "imag": Spec(lambda x, y: m.imag(fe.exp(_cplx(x, y))),
                 lambda x, y: np.imag(np.exp(_np_cplx(x, y))), BINARY),
}
