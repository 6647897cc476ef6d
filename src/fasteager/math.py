"""``fe.math``: elementwise math, reductions, scans, sorting and matmul under TF's names."""
from .ops.array_ops import segment_sum, unsorted_segment_sum  # noqa: F401
from .ops.linalg_ops import einsum, norm, tensordot  # noqa: F401
from .ops.math_ops import (abs, add, add_n, argmax, argmin, ceil, cos, divide, equal,  # noqa: F401
                           exp, expm1, floor, floordiv, floormod, greater, greater_equal,
                           is_finite, is_inf, is_nan, less, less_equal, log, log1p,
                           logical_and, logical_not, logical_or, logical_xor, matmul, maximum,
                           minimum, mod, multiply, negative, not_equal, pow, reciprocal,
                           reduce_all, reduce_any, reduce_max, reduce_mean, reduce_min,
                           reduce_sum, round, rsqrt, sigmoid, sign, sin, sqrt, square,
                           squared_difference, subtract, tan, tanh, truediv)
from .ops.math_ops import divide_no_nan, floor_div, multiply_no_nan, neg  # noqa: F401
from .ops.math_ops import (cumprod, cumsum, log_sigmoid, reduce_logsumexp,  # noqa: F401
                           reduce_prod, reduce_std, reduce_variance)
from .ops.math_ops import angle, conj, imag, real  # noqa: F401
from .ops.special_ops import (acos, acosh, argsort, asin, asinh, atan, atan2, atanh,  # noqa: F401
                              cosh, digamma, erf, erfc, lgamma, polygamma, sinh, sort, top_k)
