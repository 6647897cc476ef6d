"""``fe.config.threading`` (TensorFlow's ``tf.config.threading``): the thread counts that
size the kernels' parallel loops and NumPy's OpenBLAS pool."""
from .._src.state.threads import (
                                  blas_threads,
                                  get_inter_op_parallelism_threads,
                                  get_intra_op_parallelism_threads,
                                  kernel_threads,
                                  set_inter_op_parallelism_threads,
                                  set_intra_op_parallelism_threads,
)

__all__ = ["blas_threads", "get_inter_op_parallelism_threads",
           "get_intra_op_parallelism_threads", "kernel_threads",
           "set_inter_op_parallelism_threads", "set_intra_op_parallelism_threads"]
