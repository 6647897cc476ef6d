"""Shared pieces of the op-table test table (see op_specs.py)."""
import numpy as np

UNARY = [((),), ((3,),), ((2, 3),), ((0,),)]
BINARY = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
          ((0,), (0,))]
FLOATS = (np.float32, np.float64)


class Spec:
    def __init__(self, fn, ref, cases=UNARY, domain=None, grad=True, order=2, dtypes=FLOATS,
                 rtol=None, int_inputs=False):
        self.fn = fn
        self.ref = ref
        self.cases = cases
        self.domain = domain
        self.grad = grad
        self.order = order
        self.dtypes = dtypes
        self.rtol = rtol
        self.int_inputs = int_inputs


def positive(x):
    return np.abs(x) + 0.5


def away_from_zero(x):
    return np.sign(x) * (np.abs(x) + 0.3) + (x == 0) * 0.7


def in_open_unit(x):
    return np.tanh(x) * 0.9


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


