"""``fe.linalg``: matrix products, decompositions, solves and norms (TensorFlow's names)."""
from .ops.array_ops import eye  # noqa: F401
from .ops.decomposition_ops import (cholesky, det, eig, eigh, eigvals, eigvalsh, inv,  # noqa: F401
                                    logdet, pinv, qr, slogdet, solve, svd, triangular_solve)
from .ops.linalg_ops import (diag, diag_part, einsum, matmul, matrix_transpose, norm,  # noqa: F401
                             tensordot, trace)
from .ops.matrix_ops import (Lu, adjoint, band_part, banded_triangular_solve,  # noqa: F401
                             cholesky_solve, cross, eigh_tridiagonal, expm, global_norm, logm,
                             lstsq, lu, lu_matrix_inverse, lu_op, lu_reconstruct, lu_solve,
                             matrix_rank, matvec, normalize, set_diag, sqrtm, tensor_diag,
                             tensor_diag_part, tridiagonal_matmul, tridiagonal_solve)
from .ops.nn_ops import l2_normalize  # noqa: F401

transpose = matrix_transpose
matrix_inverse = inv
matrix_determinant = det
