"""``fe.linalg``: matrix products, decompositions, solves and norms (TensorFlow's names)."""
from .ops.array_ops import eye  # noqa: F401
from .ops.linalg_ops import (cholesky, det, diag, diag_part, einsum, inv, logdet,  # noqa: F401
                             matrix_transpose, norm, qr, slogdet, solve, svd, tensordot, trace)
from .ops.math_ops import matmul  # noqa: F401

transpose = matrix_transpose
adjoint = matrix_transpose          # real dtypes: the adjoint is the transpose
matrix_inverse = inv
matrix_determinant = det
