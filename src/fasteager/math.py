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
from .ops.nn_ops import l2_normalize, log_softmax, softmax, softplus, softsign  # noqa: F401
from .ops.more_math_ops import (accumulate_n, approx_max_k, approx_min_k,  # noqa: F401
                                bincount, confusion_matrix,
                                count_nonzero, cumulative_logsumexp, in_top_k,
                                invert_permutation, is_non_decreasing, is_strictly_increasing,
                                lbeta, nextafter, polyval, reciprocal_no_nan,
                                reduce_euclidean_norm, rint, scalar_mul, segment_max,
                                segment_mean, segment_min, segment_prod, unsorted_segment_max,
                                unsorted_segment_mean, unsorted_segment_min,
                                unsorted_segment_prod, unsorted_segment_sqrt_n, xdivy, xlog1py,
                                xlogy, zero_fraction)
from .ops.more_special_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e,  # noqa: F401
                                   betainc, erfcinv, erfinv, igamma, igammac, ndtri, zeta)

import types as _types  # noqa: E402

# tf.math.special: the functions of it fasteager has (TF's also holds Bessel J/K/Y,
# dawsn, expint, fresnel_cos/sin, spence)
special = _types.SimpleNamespace(bessel_i0=bessel_i0, bessel_i0e=bessel_i0e,
                                 bessel_i1=bessel_i1, bessel_i1e=bessel_i1e)
