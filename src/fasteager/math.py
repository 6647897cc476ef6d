"""``fe.math``: elementwise math, reductions, scans, sorting and matmul under TF's names."""
import types as _types

from .ops.elementwise_ops import (abs, accumulate_n, acos, acosh, add, add_n, angle,  # noqa: F401
                                  asin, asinh, atan, atan2, atanh, ceil, conj, cos, cosh, divide,
                                  divide_no_nan, equal, exp, expm1, floor, floor_div, floordiv,
                                  floormod, greater, greater_equal, imag, is_finite, is_inf,
                                  is_nan, less, less_equal, log, log1p, logical_and, logical_not,
                                  logical_or, logical_xor, maximum, minimum, mod, multiply,
                                  multiply_no_nan, neg, negative, nextafter, not_equal, pow, real,
                                  reciprocal, reciprocal_no_nan, rint, round, rsqrt, scalar_mul,
                                  sigmoid, sign, sin, sinh, sqrt, square, squared_difference,
                                  subtract, tan, tanh, truediv)
from .ops.indexing_ops import invert_permutation  # noqa: F401
from .ops.linalg_ops import einsum, matmul, norm, tensordot  # noqa: F401
from .ops.nn_ops import (l2_normalize, log_sigmoid, log_softmax, softmax, softplus,  # noqa: F401
                         softsign)
from .ops.reduction_ops import (argmax, argmin, count_nonzero, cumprod, cumsum,  # noqa: F401
                                cumulative_logsumexp, is_non_decreasing, is_strictly_increasing,
                                reduce_all, reduce_any, reduce_euclidean_norm, reduce_logsumexp,
                                reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_std,
                                reduce_sum, reduce_variance, zero_fraction)
from .ops.segment_ops import (bincount, confusion_matrix, segment_max, segment_mean,  # noqa: F401
                              segment_min, segment_prod, segment_sum, unsorted_segment_max,
                              unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod,
                              unsorted_segment_sqrt_n, unsorted_segment_sum)
from .ops.sort_ops import approx_max_k, approx_min_k, argsort, in_top_k, sort, top_k  # noqa: F401
from .ops.special_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, betainc,  # noqa: F401
                              digamma, erf, erfc, erfcinv, erfinv, igamma, igammac, lbeta, lgamma,
                              ndtri, polygamma, polyval, xdivy, xlog1py, xlogy, zeta)

# tf.math.special: the functions of it fasteager has (TF's also holds Bessel J/K/Y,
# dawsn, expint, fresnel_cos/sin, spence)
special = _types.SimpleNamespace(bessel_i0=bessel_i0, bessel_i0e=bessel_i0e,
                                 bessel_i1=bessel_i1, bessel_i1e=bessel_i1e)
