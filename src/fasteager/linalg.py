"""``fe.linalg``: matrix products, decompositions, solves and norms (TensorFlow's names)."""
from .ops.array_ops import eye  # noqa: F401
from .ops.linalg_ops import (cholesky, det, diag, diag_part, eig, eigh, eigvals,  # noqa: F401
                             eigvalsh, einsum, inv, logdet, matrix_transpose, norm, pinv, qr,
                             slogdet, solve, svd, tensordot, trace, triangular_solve)
from .ops.math_ops import conj as _conj
from .ops.math_ops import matmul  # noqa: F401

transpose = matrix_transpose
matrix_inverse = inv
matrix_determinant = det


def adjoint(matrix, name=None):
    """The conjugate transpose of each matrix (the transpose for real dtypes)."""
    return _conj(matrix_transpose(matrix))
