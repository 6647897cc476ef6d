"""``fe.math``: elementwise math, reductions, scans, sorting and matmul under TF's names."""
from .ops.segment_ops import segment_sum, unsorted_segment_sum  # noqa: F401
from .ops.linalg_ops import einsum, norm, tensordot  # noqa: F401
from .ops.elementwise_ops import (abs, add, add_n, ceil, cos, divide, equal, exp,  # noqa: F401
                                  expm1, floor, floordiv, floormod, greater, greater_equal,
                                  is_finite, is_inf, is_nan, less, less_equal, log, log1p,
                                  logical_and, logical_not, logical_or, logical_xor, maximum,
                                  minimum, mod, multiply, negative, not_equal, pow, reciprocal,
                                  round, rsqrt, sigmoid, sign, sin, sqrt, square,
                                  squared_difference, subtract, tan, tanh, truediv)
from .ops.reduction_ops import (argmax, argmin, reduce_all, reduce_any, reduce_max,  # noqa: F401
                                reduce_mean, reduce_min, reduce_sum)
from .ops.linalg_ops import matmul  # noqa: F401
from .ops.elementwise_ops import divide_no_nan, floor_div, multiply_no_nan, neg  # noqa: F401
from .ops.reduction_ops import (cumprod, cumsum, reduce_logsumexp, reduce_prod,  # noqa: F401
                                reduce_std, reduce_variance)
from .ops.nn_ops import log_sigmoid  # noqa: F401
from .ops.elementwise_ops import angle, conj, imag, real  # noqa: F401
from .ops.elementwise_ops import (acos, acosh, asin, asinh, atan, atan2, atanh, cosh,  # noqa: F401
                                  sinh)
from .ops.sort_ops import argsort, sort, top_k  # noqa: F401
from .ops.special_ops import digamma, erf, erfc, lgamma, polygamma  # noqa: F401
from .ops.nn_ops import l2_normalize, log_softmax, softmax, softplus, softsign  # noqa: F401
from .ops.elementwise_ops import (accumulate_n, nextafter, reciprocal_no_nan, rint,  # noqa: F401
                                  scalar_mul)
from .ops.sort_ops import approx_max_k, approx_min_k, in_top_k  # noqa: F401
from .ops.segment_ops import (bincount, confusion_matrix, segment_max, segment_mean,  # noqa: F401
                              segment_min, segment_prod, unsorted_segment_max,
                              unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod,
                              unsorted_segment_sqrt_n)
from .ops.reduction_ops import (count_nonzero, cumulative_logsumexp,  # noqa: F401
                                is_non_decreasing, is_strictly_increasing, reduce_euclidean_norm,
                                zero_fraction)
from .ops.indexing_ops import invert_permutation  # noqa: F401
from .ops.special_ops import lbeta, polyval, xdivy, xlog1py, xlogy  # noqa: F401
from .ops.special_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, betainc,  # noqa: F401
                              erfcinv, erfinv, igamma, igammac, ndtri, zeta)

import types as _types  # noqa: E402

# tf.math.special: the functions of it fasteager has (TF's also holds Bessel J/K/Y,
# dawsn, expint, fresnel_cos/sin, spence)
special = _types.SimpleNamespace(bessel_i0=bessel_i0, bessel_i0e=bessel_i0e,
                                 bessel_i1=bessel_i1, bessel_i1e=bessel_i1e)
