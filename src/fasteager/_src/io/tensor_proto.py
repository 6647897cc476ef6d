"""``TensorProto`` and ``TensorShapeProto`` (tensorflow/core/framework/tensor.proto,
tensor_shape.proto, types.proto) in protobuf's wire format: the tensors of TensorBoard
summaries and the attribute values of graph views are written with these."""
import numpy as np

from .protobuf import field_bytes, field_varint

__all__ = ["DTYPE_ENUM", "DT_STRING", "string_tensor_proto", "tensor_proto",
           "tensor_shape_proto"]

# DataType enum (types.proto) for the NumPy dtypes a TensorProto here may carry.
DTYPE_ENUM = {
    np.dtype(np.float32): 1,   # DT_FLOAT
    np.dtype(np.float64): 2,   # DT_DOUBLE
    np.dtype(np.int32): 3,     # DT_INT32
    np.dtype(np.uint8): 4,     # DT_UINT8
    np.dtype(np.int16): 5,     # DT_INT16
    np.dtype(np.int8): 6,      # DT_INT8
    np.dtype(np.int64): 9,     # DT_INT64
    np.dtype(np.bool_): 10,    # DT_BOOL
    np.dtype(np.uint16): 17,   # DT_UINT16
    np.dtype(np.float16): 19,  # DT_HALF
    np.dtype(np.uint32): 22,   # DT_UINT32
    np.dtype(np.uint64): 23,   # DT_UINT64
}
DT_STRING = 7


def tensor_shape_proto(shape):
    """A TensorShapeProto of known dimensions (dim = 2, Dim.size = 1; an empty message is a
    scalar)."""
    return b"".join(field_bytes(2, field_varint(1, int(d))) for d in shape)


def tensor_proto(array):
    """Serialize a numeric NumPy array as a TensorProto using ``tensor_content``."""
    array = np.asarray(array)
    dtype = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    try:
        enum = DTYPE_ENUM[np.dtype(dtype.newbyteorder("="))]
    except KeyError:
        raise TypeError(f"summary: unsupported tensor dtype (expected one of "
                        f"{sorted(str(d) for d in DTYPE_ENUM)}, got {array.dtype})") from None
    content = np.ascontiguousarray(array, dtype=dtype.newbyteorder("<")).tobytes()
    return b"".join((
        field_varint(1, enum),                             # dtype
        field_bytes(2, tensor_shape_proto(array.shape)),   # tensor_shape
        field_bytes(4, content),                           # tensor_content (little-endian)
    ))


def string_tensor_proto(items, shape):
    """Serialize a DT_STRING TensorProto from a flat sequence of bytes and a shape."""
    parts = [field_varint(1, DT_STRING), field_bytes(2, tensor_shape_proto(shape))]
    parts.extend(field_bytes(8, item) for item in items)  # string_val
    return b"".join(parts)
