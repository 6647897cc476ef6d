"""``fe.ragged``: ragged tensors (``tf.ragged``), rows of different lengths.

The implementation lives in ``fasteager._src.composite`` (``ragged``, and ``ragged_ops``
for TensorFlow's ops on ragged tensors: importing this module registers them).
"""
from ._src.composite import ragged_ops as _ragged_ops  # noqa: F401 - registers the handlers
from ._src.composite.embedding import embedding_lookup  # noqa: F401
from ._src.composite.ragged import (RaggedTensor, RaggedTensorSpec, boolean_mask,  # noqa: F401
                                    constant, map_flat_values, range,
                                    reduce_max, reduce_mean, reduce_min, reduce_prod,
                                    reduce_sum, row_splits_to_segment_ids,
                                    segment_ids_to_row_splits, stack)

__all__ = ["RaggedTensor", "constant", "embedding_lookup", "map_flat_values", "range",
           "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum",
           "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack", "boolean_mask",
           "RaggedTensorSpec"]
