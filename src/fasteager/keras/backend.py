"""Keras backend utilities: unique layer names, ``clear_session``, ``epsilon``, ``floatx``,
``image_data_format`` (the settings ``keras.config`` reads and sets), and Keras's dtype
promotion (``result_type``, ``standardize_dtype``), which every ``keras.ops`` function follows."""
import collections
import functools
import threading

import numpy as np

from ..dtypes import DType

_lock = threading.Lock()
_name_counts = collections.defaultdict(int)
_EPSILON = 1e-7
_FLOATX = "float32"
_IMAGE_DATA_FORMAT = "channels_last"
# (process-wide, as Keras 3 keeps them: one setting for every thread)


def unique_name(base):
    """'dense', then 'dense_1', 'dense_2' ... as Keras names layers."""
    with _lock:
        n = _name_counts[base]
        _name_counts[base] += 1
    return base if n == 0 else "%s_%d" % (base, n)


def clear_session(free_memory=True):
    """Reset the layer-name counters (the next Dense is 'dense' again). ``free_memory``
    is accepted as Keras has it (NumPy frees what nothing references)."""
    with _lock:
        _name_counts.clear()


def get_uid(prefix=""):
    """1, 2, 3 ... per ``prefix``: the counter layer names are made from ('dense' is uid 1,
    'dense_1' uid 2)."""
    with _lock:
        _name_counts[prefix] += 1
        return _name_counts[prefix]


_keras_tensor_class = []     # layers/base.py registers KerasTensor (it imports this module)


def is_keras_tensor(x):
    """Whether ``x`` is a symbolic ``KerasTensor`` (from ``keras.Input`` or a layer call on
    one)."""
    return bool(_keras_tensor_class) and isinstance(x, _keras_tensor_class[0])


def reset_uids():
    clear_session()


def epsilon():
    """The fuzz factor used by losses and metrics (1e-7)."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def floatx():
    """The default float dtype of layers' weights and Keras variables ('float32')."""
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    accepted = {"bfloat16", "float16", "float32", "float64"}
    if value not in accepted:
        raise ValueError("Unknown `floatx` value: %s. Expected one of %s" % (value, accepted))
    _FLOATX = str(value)


def image_data_format():
    """The default layout of image layers and utilities ('channels_last')."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', "
                         "'channels_last'}. Received: data_format=%s" % (data_format,))
    _IMAGE_DATA_FORMAT = value


def backend():
    """The name of the backend Keras runs on: fasteager stands for TensorFlow's."""
    return "tensorflow"


def get_value(x):
    """The NumPy value of a tensor, variable or Python number."""
    if hasattr(x, "numpy"):
        return x.numpy()
    return np.asarray(x)


def set_value(x, value):
    x.assign(value)



# ---- Keras 3's dtype promotion (keras.backend.result_type), used by every keras.ops file ----
# Keras 3's dtype promotion (``keras.backend.result_type``), shared by every ``keras.ops`` file.
# 
# Keras adopts JAX's promotion lattice: bool < weak int < {uint8.., int8..} < weak float <
# {bfloat16, float16} < float32 < float64 < complex128, with float32 -> complex64. Python
# ``int``/``float`` are *weak*: they take the other operand's kind and width
# (``int8 + 1 -> int8``, ``float16 + 1.0 -> float16``), and a weak result alone resolves to
# the width of ``floatx()``. On the TensorFlow backend 64-bit ints and floats stay 64-bit;
# ``uint64`` narrows to ``uint32`` and ``complex128`` to ``complex64`` (Keras's
# ``BIT64_TO_BIT32_DTYPE``).
# 
# ``result_type`` takes dtypes (names, fasteager/NumPy dtypes, Python types) as Keras's does,
# and also values: a tensor or array counts as its dtype, a Python scalar as its (weak) type.


_BOOL = "bool"
_INTS = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
_FLOATS = ("bfloat16", "float16", "float32", "float64")
_COMPLEX = ("complex64", "complex128")
_FLOAT8 = ("float8_e4m3fn", "float8_e5m2")
ALLOWED_DTYPES = (_BOOL,) + _INTS + _FLOATS + _COMPLEX + ("string",) + _FLOAT8

# Python types as the TensorFlow backend reads them (int is int64 there, complex complex128).
_PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float32", str: "string",
                  complex: "complex128", "int": "int64"}

# Each node and the nodes directly above it ("int"/"float" are the weak Python kinds).
_LATTICE = {
    "bool": ["int"],
    "int": ["uint8", "int8", "complex64"],
    "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"], "uint64": ["float"],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["float"],
    "float": ["bfloat16", "float16"],
    "bfloat16": ["float32"], "float16": ["float32"],
    "float32": ["float64", "complex64"], "float64": ["complex128"],
    "complex64": ["complex128"], "complex128": [],
}


def _upper_bounds():
    # Transitive closure: every node reachable upward from each node (itself included).
    bounds = {}
    for node in _LATTICE:
        seen, todo = {node}, [node]
        while todo:
            for up in _LATTICE[todo.pop()]:
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        bounds[node] = seen
    return bounds


_UPPER = _upper_bounds()
_NARROW = {"uint64": "uint32", "complex128": "complex64"}


def standardize_dtype(dtype):
    """The Keras name of ``dtype`` ('float32', 'int64', ...); ``None`` is ``floatx()``.

    Accepts names, fasteager and NumPy dtypes, NumPy scalar types and Python types
    (``int`` -> 'int64', ``float`` -> 'float32', as on Keras's TensorFlow backend).
    """
    if dtype is None:
        return floatx()
    if isinstance(dtype, (type, str)):
        dtype = _PYTHON_DTYPES.get(dtype, dtype)
    if hasattr(dtype, "name") and not isinstance(dtype, str):
        dtype = dtype.name
    elif hasattr(dtype, "__name__"):
        dtype = dtype.__name__
    if dtype == "bool_":  # NumPy 1's name of its bool scalar type
        dtype = "bool"
    if not isinstance(dtype, str) or dtype not in ALLOWED_DTYPES:
        raise ValueError("Invalid dtype: %s" % (dtype,))
    return dtype


def _least_upper_bound(nodes):
    try:
        bounds = [_UPPER[n] for n in nodes]
    except KeyError:
        bad = next(n for n in nodes if n not in _UPPER)
        raise ValueError("dtype=%r is not a valid dtype for Keras type promotion." % (bad,))
    common = set.intersection(*bounds)
    least = (common & set(nodes)) or {c for c in common if common <= _UPPER[c]}
    if len(least) != 1:
        raise ValueError(
            "Input dtypes %s have no available implicit dtype promotion path. Try explicitly "
            "casting inputs to the desired output type." % (tuple(str(n) for n in nodes),))
    return least.pop()


def _weak_kind(dtype):
    if dtype == "bool":
        return dtype
    for kind in ("float", "int", "complex"):
        if kind in dtype:
            return kind
    raise ValueError("Invalid value for argument `dtype`. Expected one of %s. Received: "
                     "dtype=%s" % (ALLOWED_DTYPES, dtype))


def _resolve_weak(kind, precision):
    # A weak result alone takes floatx()'s width: "int" -> int32 under float32, etc.
    lead = "f" if kind == "bfloat16" else kind[:1]
    if lead == "b":
        return "bool"
    if lead == "i":
        return "int" + precision
    if lead == "u":
        return "uint" + precision
    return "float" + precision


@functools.lru_cache(maxsize=1024)
def _promote(entries, precision):
    # entries: tuple of (standardized dtype, is_weak) pairs.
    dtypes = [d for d, _ in entries]
    weak = [w for _, w in entries]
    if len(entries) == 1:
        out, out_weak = dtypes[0], weak[0]
    elif len(set(dtypes)) == 1 and not all(weak):
        out, out_weak = dtypes[0], False
    elif all(weak):
        out, out_weak = _least_upper_bound(set(dtypes)), True
    else:
        out = _least_upper_bound({_weak_kind(d) if w else d for d, w in entries})
        out_weak = out in ("int", "float")
    if out_weak and out != "bool":
        out = _resolve_weak(out, precision)
    return _NARROW.get(out, out)


def _entry(arg):
    """(dtype name, weak) of one argument: a dtype, a Python type, or a value."""
    if arg is None:
        return floatx(), False
    if arg is int or arg is float:
        return standardize_dtype(arg), True
    if isinstance(arg, bool):
        return "bool", False
    if isinstance(arg, (int, float)) and not hasattr(arg, "dtype"):
        return standardize_dtype(type(arg)), True
    if isinstance(arg, complex) and not hasattr(arg, "dtype"):
        return "complex128", False
    if hasattr(arg, "dtype") and not isinstance(arg, type) and not _is_dtype_object(arg):
        return standardize_dtype(arg.dtype), False
    return standardize_dtype(arg), False


def _is_dtype_object(arg):
    # fasteager DType and NumPy dtype objects carry a .dtype attribute of their own.
    return isinstance(arg, (DType, np.dtype))


def result_type(*dtypes):
    """The dtype Keras's promotion rules give for ``dtypes`` (Keras 3's ``result_type``).

    >>> result_type("int32", "float32")
    'float32'
    >>> result_type("int8", int)      # Python int is weak
    'int8'
    >>> result_type("int32", float)   # ints meeting a Python float give floatx()
    'float32'
    """
    if not dtypes:
        return floatx()
    for d in dtypes:
        if isinstance(d, str) and d in _FLOAT8:
            raise ValueError("There is no implicit conversions from float8 dtypes to others. "
                             "You must cast it internally. Received: %s" % (dtypes,))
    entries = tuple(_entry(d) for d in dtypes)
    return _promote(entries, floatx()[-2:])


def is_float_dtype(dtype):
    """Whether ``dtype`` (any spelling ``standardize_dtype`` reads) is a float type."""
    dtype = standardize_dtype(dtype)
    return dtype.startswith(("float", "bfloat"))


def is_int_dtype(dtype):
    """Whether ``dtype`` is a signed or unsigned integer type."""
    dtype = standardize_dtype(dtype)
    return dtype.startswith(("int", "uint"))
