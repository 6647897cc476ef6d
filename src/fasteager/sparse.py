"""``fe.sparse``: sparse tensors (``tf.sparse``), ``values`` at ``indices`` and zeros
elsewhere.

The implementation lives in ``fasteager._src.composite`` (``sparse``: the type, its functions
and TensorFlow's ops on sparse tensors).
"""
from ._src.composite.embedding import embedding_lookup_sparse  # noqa: F401
from ._src.composite.sparse import (SparseTensor, SparseTensorSpec, add, concat,  # noqa: F401
                                    from_dense, map_values, matmul, reduce_max, reduce_sum,
                                    reorder, slice, sparse_dense_matmul, to_dense, transpose)

__all__ = ["SparseTensor", "SparseTensorSpec", "add", "concat", "embedding_lookup_sparse",
           "from_dense", "map_values", "reduce_max", "reduce_sum", "reorder", "slice",
           "sparse_dense_matmul", "matmul", "to_dense", "transpose"]
