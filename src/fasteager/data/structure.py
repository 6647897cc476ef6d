"""``fe.data``'s element structures and specs (``tf.data``'s): the implementation is in the
composite layer (``fasteager._src.composite.elements`` and ``.structure``)."""
from .._src.composite.elements import (_is_dataset, _key, _numpy_leaf,  # noqa: F401
                                       _string_scalar, _wrap_leaf, flatten, from_function,
                                       is_structure, map_structure, pack, public_spec,
                                       readonly, spec_of, to_arrays, to_numpy, to_tensors)
from .._src.composite.structure import (DatasetSpec, TensorSpec, dtype_name,  # noqa: F401
                                        register_dataset_type, to_array)
