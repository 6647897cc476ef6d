"""Record Keras 3.15.1's ``keras.ops`` array functions (K2 of issue 34: creation, shapes,
indexing, sorting/sets, products, windows) on the TensorFlow backend: for each case the
output values, dtypes and shapes, the gradient of sum(output) with respect to every float
input tensor, and for bad input the class of the error raised.

Arguments are stored as JSON specs that tests/keras/ops/test_arrays.py decodes the same
way: {"T": values, "dtype": d} a tensor, {"L": [...]} a list, {"TUP": [...]} a tuple,
{"S": [start, stop, step]} a slice, {"E": 0} Ellipsis, {"NEW": 0} None inside a key,
{"F": name} one of the pyfuncs below (for vectorize).

Run from the repository root: /path/to/tf-venv/bin/python tests/tf_reference/record_kops_arrays.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

ops = keras.ops


def T(values, dtype="float32"):
    return {"T": np.asarray(values).tolist(), "dtype": dtype}


def L(*items):
    return {"L": list(items)}


def TUP(*items):
    return {"TUP": list(items)}


def S(start=None, stop=None, step=None):
    return {"S": [start, stop, step]}


E = {"E": 0}
NEW = {"NEW": 0}

# pyfuncs for vectorize: operators only, so they mean the same on both sides
PYFUNCS = {
    "affine": lambda a, b: a * b + 1.0,
    "rowsum": lambda a: ops.sum(a),
    "rowdot": lambda a, b: ops.sum(a * b),
}
NUMPY_PYFUNCS = {"affine": PYFUNCS["affine"], "rowsum": np.sum,
                 "rowdot": lambda a, b: np.sum(a * b)}

rng = np.random.default_rng(34)
A = [[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]                  # 2x3
A3 = rng.normal(size=(2, 3, 4)).round(3).tolist()           # 2x3x4
SQ = [[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.25, 1.0, 4.0]]  # 3x3
I = [[1, -2, 3], [0, 4, -1]]
B = [[True, False, True], [False, False, True]]
V = [3.0, -1.0, 2.0, 0.5]
VI = [3, 1, 2, 1]
BATCH = rng.normal(size=(2, 3, 3)).round(3).tolist()

# (case id, function name, args, kwargs)
CASES = []


def case(cid, fname, *args, **kwargs):
    CASES.append((cid, fname, list(args), kwargs))


for d in ("float32", "int32", "bool", "float64"):
    src = B if d == "bool" else A
    case("array_%s" % d, "array", T(src, d))
case("array_cast", "array", T(A), dtype="int32")
case("array_list", "array", [1, 2, 3])
case("array_float_list", "array", [1.0, 2.5])
for name in ("zeros", "ones", "empty"):
    case(name, name, [2, 3])
    case(name + "_int", name, (3,), dtype="int32")
for name in ("zeros_like", "ones_like", "empty_like"):
    case(name, name, T(A))
    case(name + "_int", name, T(I, "int32"))
    case(name + "_dtype", name, T(A), dtype="int32")
case("full", "full", [2, 3], 1.5)
case("full_int", "full", [2, 2], 3, dtype="int32")
case("full_tensor_fill", "full", [2, 3], T([1.0, 2.0, 3.0]))
case("full_like", "full_like", T(A), 2.5)
case("full_like_int", "full_like", T(I, "int32"), 2.5)
case("full_like_dtype", "full_like", T(A), 2, dtype="int32")
case("eye", "eye", 3)
case("eye_rect", "eye", 3, 4)
case("eye_k", "eye", 3, 4, k=1)
case("eye_kneg", "eye", 4, 3, k=-2)
case("eye_int", "eye", 2, dtype="int32")
case("identity", "identity", 3)
case("identity_int", "identity", 2, dtype="int32")
case("tri", "tri", 3)
case("tri_k", "tri", 3, 4, k=1)
case("tri_kneg", "tri", 4, 3, k=-1)
case("tri_int", "tri", 3, dtype="int32")
case("arange_int", "arange", 5)
case("arange_float", "arange", 0.5, 3.0, 0.5)
case("arange_mixed", "arange", 1, 4.0)
case("arange_step", "arange", 10, 0, -3)
case("arange_dtype", "arange", 0, 5, dtype="float32")
case("arange_tensor", "arange", T(4, "int32"))
case("linspace", "linspace", 0.0, 1.0, 5)
case("linspace_noend", "linspace", 0.0, 1.0, 4, endpoint=False)
case("linspace_int", "linspace", 0, 10, 4, dtype="int32")
case("linspace_intargs", "linspace", 0, 10, 4)
case("linspace_vec", "linspace", T([0.0, 1.0]), T([1.0, 3.0]), 3)
case("linspace_vec_axis", "linspace", T([0.0, 1.0]), T([1.0, 3.0]), 3, axis=1)
case("linspace_one", "linspace", 2.0, 5.0, 1)
case("linspace_retstep", "linspace", 0.0, 2.0, 5, retstep=True)
case("linspace_negnum", "linspace", 0.0, 1.0, -1)
case("logspace", "logspace", 0.0, 2.0, 3)
case("logspace_base", "logspace", 0.0, 3.0, 4, base=2)
case("logspace_noend", "logspace", 0.0, 2.0, 4, endpoint=False)
case("geomspace", "geomspace", 1.0, 1000.0, 4)
case("geomspace_neg", "geomspace", -1.0, -16.0, 5)
case("geomspace_noend", "geomspace", 1.0, 16.0, 4, endpoint=False)
case("meshgrid", "meshgrid", T([1.0, 2.0, 3.0]), T([4.0, 5.0]))
case("meshgrid_ij", "meshgrid", T([1.0, 2.0, 3.0]), T([4.0, 5.0]), indexing="ij")
case("meshgrid_int", "meshgrid", T([1, 2], "int32"), T([4, 5, 6], "int32"))
case("vander", "vander", T([1.0, 2.0, 3.0]))
case("vander_N", "vander", T([1.0, 2.0, 3.0]), N=2)
case("vander_inc", "vander", T([1.0, -2.0, 0.5]), increasing=True)
case("vander_int", "vander", T([1, 2, 3], "int32"))
for name in ("bartlett", "blackman", "hamming", "hanning"):
    case(name, name, 5)
    case(name + "_1", name, 1)
case("bartlett_0", "bartlett", 0)
case("bartlett_even", "bartlett", 6)
case("blackman_even", "blackman", 6)
case("kaiser", "kaiser", 5, 3.0)
case("kaiser_beta0", "kaiser", 4, 0.0)

# shapes
case("ndim", "ndim", T(A3))
case("ndim_scalar", "ndim", T(1.0))
case("size", "size", T(A3))
case("size_int", "size", T(I, "int32"))
case("reshape", "reshape", T(A), (3, 2))
case("reshape_neg", "reshape", T(A3), (-1, 4))
case("reshape_int", "reshape", T(I, "int32"), 6)
case("ravel", "ravel", T(A3))
case("ravel_bool", "ravel", T(B, "bool"))
case("broadcast_to", "broadcast_to", T([1.0, 2.0, 3.0]), (2, 3))
case("broadcast_to_int", "broadcast_to", T([[1], [2]], "int32"), (2, 3))
case("expand_dims", "expand_dims", T(A), 0)
case("expand_dims_neg", "expand_dims", T(A), -1)
case("expand_dims_multi", "expand_dims", T(A), (0, 2))
case("squeeze", "squeeze", T([[[1.0], [2.0]]]))
case("squeeze_axis", "squeeze", T([[[1.0], [2.0]]]), axis=-1)
case("squeeze_axes", "squeeze", T([[[1.0], [2.0]]]), axis=(0, 2))
case("squeeze_bad", "squeeze", T(A), axis=0)
case("transpose", "transpose", T(A3))
case("transpose_axes", "transpose", T(A3), axes=(1, 0, 2))
case("transpose_neg", "transpose", T(A3), axes=(-1, 0, 1))
case("transpose_dup", "transpose", T(A3), axes=(0, 0, 1))
case("transpose_bool", "transpose", T(B, "bool"))
case("swapaxes", "swapaxes", T(A3), 0, 2)
case("swapaxes_neg", "swapaxes", T(A3), -1, 1)
case("swapaxes_same", "swapaxes", T(A), 1, 1)
case("moveaxis", "moveaxis", T(A3), 0, -1)
case("moveaxis_multi", "moveaxis", T(A3), (0, 1), (2, 0))
case("moveaxis_bad", "moveaxis", T(A3), (0, 1), (2,))
case("flip", "flip", T(A3))
case("flip_axis", "flip", T(A3), axis=1)
case("flip_axes", "flip", T(A3), axis=(0, -1))
case("flip_int", "flip", T(I, "int32"), axis=0)
case("fliplr", "fliplr", T(A))
case("flipud", "flipud", T(A3))
case("rot90", "rot90", T(A))
case("rot90_k2", "rot90", T(A), k=2)
case("rot90_k3", "rot90", T(A3), k=3)
case("rot90_kneg", "rot90", T(A), k=-1)
case("rot90_k4", "rot90", T(A), k=4)
case("rot90_axes", "rot90", T(A3), axes=(1, 2))
case("rot90_axes_neg", "rot90", T(A3), k=1, axes=(-1, 0))
case("rot90_1d", "rot90", T(V))
case("rot90_badaxes", "rot90", T(A), axes=(0, 0))
case("roll", "roll", T(A), 1)
case("roll_axis", "roll", T(A), -1, axis=1)
case("roll_axes", "roll", T(A3), (1, 2), axis=(0, 2))
case("roll_int", "roll", T(I, "int32"), 2, axis=0)
case("tile", "tile", T(A), 2)
case("tile_list", "tile", T(A), (2, 1))
case("tile_more", "tile", T([1.0, 2.0]), (2, 2))
case("tile_int", "tile", T(I, "int32"), (1, 2))
case("repeat", "repeat", T(A), 2)
case("repeat_axis", "repeat", T(A), 2, axis=1)
case("repeat_list", "repeat", T(A), [1, 2], axis=0)
case("repeat_bool", "repeat", T(B, "bool"), 2, axis=0)
case("pad", "pad", T(A), ((1, 0), (0, 2)))
case("pad_const", "pad", T(A), ((1, 1), (1, 1)), constant_values=9.0)
case("pad_reflect", "pad", T(A), ((1, 1), (2, 1)), mode="reflect")
case("pad_symmetric", "pad", T(A), ((1, 1), (2, 1)), mode="symmetric")
case("pad_int", "pad", T(I, "int32"), ((0, 1), (1, 0)))
case("pad_bad", "pad", T(A), ((1, 1), (1, 1)), mode="reflect", constant_values=1.0)
case("concatenate", "concatenate", L(T(A), T([[7.0, 8.0, 9.0]])))
case("concatenate_axis", "concatenate", L(T(A), T([[7.0], [8.0]])), axis=1)
case("concatenate_mixed", "concatenate", L(T(A), T(I, "int32")))
case("concatenate_bool_int", "concatenate", L(T(B, "bool"), T(I, "int8")))
case("append", "append", T(A), T([1.0, 2.0]))
case("append_axis", "append", T(A), T(A), axis=0)
case("append_mixed", "append", T(I, "int32"), T(A, "float64"))
case("stack", "stack", L(T(V), T(V)))
case("stack_axis", "stack", L(T(A), T(A)), axis=-1)
case("stack_mixed", "stack", L(T(A), T(I, "int32")), axis=1)
case("hstack", "hstack", L(T(A), T(A)))
case("hstack_1d", "hstack", L(T(V), T([1.0])))
case("hstack_mixed", "hstack", L(T(A), T(I, "int32")))
case("vstack", "vstack", L(T(A), T([[7.0, 8.0, 9.0]])))
case("vstack_mixed", "vstack", L(T(A), T(I, "int32")))
case("dstack", "dstack", L(T(A), T(A)))
case("dstack_1d", "dstack", L(T(V), T(V)))
case("dstack_mixed", "dstack", L(T(A), T(I, "int32")))
case("split", "split", T(A3), 2)
case("split_indices", "split", T(A3), [1, 3], axis=2)
case("split_axis", "split", T(A3), 3, axis=1)
case("split_int", "split", T(I, "int32"), 3, axis=1)
case("array_split", "array_split", T(A3), 3, axis=2)
case("array_split_even", "array_split", T(A3), 2)
case("hsplit", "hsplit", T(A3), 3)
case("hsplit_1d", "hsplit", T(V), 2)
case("vsplit", "vsplit", T(A3), 2)
case("dsplit", "dsplit", T(A3), 2)
case("dsplit_indices", "dsplit", T(A3), [1])

# diagonals, triangles, diff
case("diag", "diag", T(V))
case("diag_k", "diag", T([1.0, 2.0]), k=1)
case("diag_kneg", "diag", T([1.0, 2.0]), k=-2)
case("diag_2d", "diag", T(SQ))
case("diag_2d_k", "diag", T(A), k=1)
case("diag_2d_kneg", "diag", T(A), k=-1)
case("diag_int", "diag", T(VI, "int32"))
case("diag_3d", "diag", T(A3))
case("diagflat", "diagflat", T(A))
case("diagflat_k", "diagflat", T([[1.0, 2.0]]), k=-1)
case("diagonal", "diagonal", T(SQ))
case("diagonal_offset", "diagonal", T(A3), offset=1)
case("diagonal_axes", "diagonal", T(A3), offset=-1, axis1=1, axis2=2)
case("diagonal_far", "diagonal", T(A), offset=5)
case("diagonal_int", "diagonal", T(I, "int32"), offset=1)
case("tril", "tril", T(SQ))
case("tril_k", "tril", T(A3), k=1)
case("tril_kneg", "tril", T(SQ), k=-1)
case("tril_int", "tril", T(I, "int32"))
case("triu", "triu", T(SQ))
case("triu_k", "triu", T(A3), k=1)
case("triu_kneg", "triu", T(SQ), k=-1)
case("triu_bool", "triu", T(B, "bool"))
case("trace", "trace", T(SQ))
case("trace_offset", "trace", T(A), offset=1)
case("trace_3d", "trace", T(A3), offset=-1, axis1=1, axis2=2)
case("trace_int", "trace", T(I, "int32"))
case("trace_bool", "trace", T(B, "bool"))
case("trace_int8", "trace", T(I, "int8"))
case("diff", "diff", T(V))
case("diff_n2", "diff", T(V), n=2)
case("diff_axis", "diff", T(A3), axis=1)
case("diff_n0", "diff", T(A), n=0)
case("diff_int", "diff", T(I, "int32"))
case("diff_bool", "diff", T(B, "bool"))
case("diff_negn", "diff", T(A), n=-1)
case("diff_scalar", "diff", T(1.0))

# products
case("matmul", "matmul", T(A), T(SQ))
case("matmul_vec", "matmul", T(SQ), T([1.0, 2.0, 3.0]))
case("matmul_vecmat", "matmul", T([1.0, 2.0]), T(A))
case("matmul_batch", "matmul", T(BATCH), T(SQ))
case("matmul_batch2", "matmul", T(BATCH), T(BATCH))
case("matmul_int", "matmul", T(I, "int32"), T([[1, 2], [3, 4], [5, 6]], "int32"))
case("matmul_int8", "matmul", T(I, "int8"), T([[1, 2], [3, 4], [5, 6]], "int8"))
case("matmul_mixed", "matmul", T(I, "int32"), T(SQ))
case("matmul_f64", "matmul", T(A, "float64"), T(SQ, "float32"))
case("dot", "dot", T(A), T(SQ))
case("dot_vec", "dot", T(V), T(V))
case("dot_scalar", "dot", T(A), T(2.0))
case("dot_nd", "dot", T(A3), T([[1.0], [2.0], [3.0], [4.0]]))
case("dot_int", "dot", T(VI, "int32"), T(VI, "int32"))
case("dot_mixed", "dot", T(VI, "int32"), T(V))
case("vdot", "vdot", T(A), T(A))
case("vdot_int", "vdot", T(I, "int32"), T(I, "int32"))
case("inner", "inner", T(A), T(A))
case("inner_vec", "inner", T(V), T(V))
case("inner_scalar", "inner", T(A), T(3.0))
case("inner_int", "inner", T(VI, "int32"), T(V))
case("outer", "outer", T(V), T([1.0, 2.0]))
case("outer_2d", "outer", T(A), T([1.0, -1.0]))
case("outer_int", "outer", T(VI, "int32"), T([1, 2], "int32"))
case("outer_mixed", "outer", T(VI, "int32"), T([0.5, 2.0]))
case("tensordot", "tensordot", T(A3), T(rng.normal(size=(3, 4, 2)).round(3).tolist()))
case("tensordot_1", "tensordot", T(A), T(SQ), axes=1)
case("tensordot_pairs", "tensordot", T(A3), T(A), axes=([0, 1], [0, 1]))
case("tensordot_int", "tensordot", T(I, "int32"), T(I, "int32"), axes=([1], [1]))
case("tensordot_int8", "tensordot", T(I, "int8"), T(I, "int8"), axes=([1], [1]))
case("kron", "kron", T([[1.0, 2.0], [3.0, 4.0]]), T([[0.0, 1.0], [1.0, 0.5]]))
case("kron_vec", "kron", T([1.0, 2.0]), T(A))
case("kron_int", "kron", T([1, 2], "int32"), T([3, 4, 5], "int32"))
case("kron_mixed", "kron", T([1, 2], "int32"), T([0.5, 1.5]))
case("cross", "cross", T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), T([[0.5, -1.0, 2.0],
                                                                   [1.0, 1.0, 1.0]]))
case("cross_2d", "cross", T([[1.0, 2.0], [3.0, 4.0]]), T([[5.0, 6.0], [7.0, 8.0]]))
case("cross_mixed_dims", "cross", T([1.0, 2.0]), T([3.0, 4.0, 5.0]))
case("cross_axis", "cross", T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
     T([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), axis=0)
case("cross_axisc", "cross", T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
     T([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]]), axisc=0)
case("cross_int", "cross", T([1, 2, 3], "int32"), T([4, 5, 6], "int32"))
case("cross_broadcast", "cross", T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), T([0.0, 0.0, 1.0]))
case("einsum", "einsum", "ij,jk->ik", T(A), T(SQ))
case("einsum_trace", "einsum", "ii->", T(SQ))
case("einsum_batch", "einsum", "bij,bjk->bik", T(BATCH), T(BATCH))
case("einsum_outer", "einsum", "i,j->ij", T(V), T([1.0, 2.0]))
case("einsum_ellipsis", "einsum", "...j,j->...", T(A3), T([1.0, 2.0, 3.0, 4.0]))
case("einsum_three", "einsum", "ij,jk,kl->il", T(A), T(SQ), T(SQ))
case("einsum_int", "einsum", "ij,jk->ik", T(I, "int32"), T([[1], [2], [3]], "int32"))
case("einsum_int8", "einsum", "ij,kj->ik", T(I, "int8"), T(I, "int8"))
case("einsum_mixed", "einsum", "ij,jk->ik", T(I, "int32"), T(SQ))
case("slogdet", "slogdet", T(SQ))
case("slogdet_batch", "slogdet", T(BATCH))
case("slogdet_f64", "slogdet", T(SQ, "float64"))
case("trapezoid", "trapezoid", T(V))
case("trapezoid_x", "trapezoid", T(V), x=T([0.0, 0.5, 2.0, 3.0]))
case("trapezoid_dx", "trapezoid", T(A), dx=0.5)
case("trapezoid_axis", "trapezoid", T(A3), axis=1)
case("trapezoid_int", "trapezoid", T(I, "int32"))

# indexing
case("get_item_int", "get_item", T(A3), 1)
case("get_item_slice", "get_item", T(A3), TUP(S(None, None, -1), 1))
case("get_item_ellipsis", "get_item", T(A3), TUP(E, S(1, 3)))
case("get_item_newaxis", "get_item", T(A), TUP(NEW, S(), -1))
case("get_item_step", "get_item", T(A3), TUP(S(), S(None, None, 2), S(1, None)))
case("get_item_int32", "get_item", T(I, "int32"), TUP(1, 2))
case("take", "take", T(A), T([0, 2, -1], "int32"))
case("take_axis", "take", T(A), T([2, 0, 0], "int32"), axis=1)
case("take_axis_neg", "take", T(A3), T([[0, 1], [-1, 3]], "int32"), axis=-1)
case("take_int", "take", T(I, "int32"), T([1, 0], "int32"), axis=0)
case("take_list", "take", T(V), [3, 0])
case("take_along_axis", "take_along_axis", T(A), T([[0, 2], [1, 0]], "int32"), axis=1)
case("take_along_axis_0", "take_along_axis", T(A), T([[1, 0, 1]], "int32"), axis=0)
case("take_along_axis_none", "take_along_axis", T(A), T([5, 0, -1], "int32"))
case("take_along_axis_neg", "take_along_axis", T(A3),
     T(np.zeros((2, 3, 1), dtype=np.int32) - 1, "int32"), axis=-1)
case("take_along_axis_bcast", "take_along_axis", T(A3),
     T([[[0, 3]]], "int32"), axis=2)
case("take_along_axis_rank", "take_along_axis", T(A), T([0, 1], "int32"), axis=1)
case("nonzero", "nonzero", T([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]))
case("nonzero_int", "nonzero", T(VI, "int32"))
case("nonzero_bool", "nonzero", T(B, "bool"))
case("where", "where", T(B, "bool"), T(A), T(I, "float32"))
case("where_scalars", "where", T(B, "bool"), 1.0, 0)
case("where_mixed", "where", T(B, "bool"), T(I, "int32"), 0.5)
case("where_int_weak", "where", T(B, "bool"), T(I, "int8"), 2)
case("where_cond_float", "where", T(A), T(A), T(I, "int32"))
case("where_one", "where", T(B, "bool"))
case("where_bad", "where", T(B, "bool"), T(A))
case("select", "select", L(T([True, False, False]), T([False, True, False])),
     L(T([1.0, 2.0, 3.0]), T([4.0, 5.0, 6.0])))
case("select_default", "select", L(T([True, False, False]), T([True, True, False])),
     L(T([1.0, 2.0, 3.0]), T([4.0, 5.0, 6.0])), default=-1.0)
case("select_int", "select", L(T([True, False]), T([False, True])),
     L(T([1, 2], "int32"), T([3, 4], "int32")))
case("select_bcast", "select", L(T(B, "bool")), L(T(A)), default=7.0)
case("unravel_index", "unravel_index", T([22, 41, 37], "int32"), (7, 6))
case("unravel_index_scalar", "unravel_index", T(5, "int32"), (2, 3))
case("unravel_index_2d", "unravel_index", T([[1, 5], [3, 4]], "int32"), (2, 3))
case("unravel_index_int64", "unravel_index", T([7, 11], "int64"), (3, 4))

# sorting, searching, sets
case("sort", "sort", T(A))
case("sort_axis0", "sort", T(A), axis=0)
case("sort_none", "sort", T(A3), axis=None)
case("sort_int", "sort", T(I, "int32"))
case("sort_bool", "sort", T(B, "bool"))
case("argsort", "argsort", T(A))
case("argsort_axis0", "argsort", T(A3), axis=0)
case("argsort_none", "argsort", T(A), axis=None)
case("argsort_int", "argsort", T(VI, "int32"))
case("argsort_bool", "argsort", T([True, False, True, False], "bool"))
case("argsort_scalar", "argsort", T(2.0))
case("argpartition", "argpartition", T([3, 1, 4, 1, 5, 9, 2, 6], "int32"), 3)
case("argpartition_float", "argpartition", T([3.5, 1.2, 4.0, 0.1, 2.2]), 1)
case("argpartition_last", "argpartition", T([5, 4, 3, 2, 1], "int32"), 4)
case("argpartition_none", "argpartition", T([[9, 1], [7, 3]], "int32"), 2, axis=None)
case("searchsorted", "searchsorted", T([1.0, 2.0, 3.0, 4.0]), T([0.5, 2.0, 3.5, 5.0]))
case("searchsorted_right", "searchsorted", T([1.0, 2.0, 2.0, 4.0]), T([2.0, 4.0]),
     side="right")
case("searchsorted_int", "searchsorted", T([1, 3, 5], "int32"), T([[0, 3], [5, 6]], "int32"))
case("searchsorted_2d", "searchsorted", T(A), T([1.0]))
case("digitize", "digitize", T([0.2, 6.4, 3.0, 1.6, -1.0]), [0.0, 1.0, 2.5, 4.0, 10.0])
case("digitize_int", "digitize", T(VI, "int32"), [1, 2, 3])
case("digitize_edges", "digitize", T([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
case("digitize_2d", "digitize", T(A), [0.0, 2.0])
case("isin", "isin", T(A), T([3.0, -1.0, 7.0]))
case("isin_invert", "isin", T(A), T([3.0, -1.0]), invert=True)
case("isin_int", "isin", T(I, "int32"), T([0, 4, 4], "int32"))
case("isin_mixed", "isin", T(I, "int32"), T([3.0, 0.5]))
case("isin_empty", "isin", T(A), T(np.zeros((0,)), "float32"))
case("unique", "unique", T([3.0, 1.0, 3.0, 2.0, 1.0]))
case("unique_all", "unique", T([3, 1, 3, 2, 1, 5], "int32"), return_index=True,
     return_inverse=True, return_counts=True)
case("unique_unsorted", "unique", T([3, 1, 3, 2, 1], "int32"), sorted=False,
     return_inverse=True)
case("unique_2d_flat", "unique", T([[1.0, 2.0], [2.0, 0.5]]), return_inverse=True)
case("unique_axis", "unique", T([[1, 2], [0, 5], [1, 2], [0, 1]], "int32"), axis=0,
     return_counts=True, return_inverse=True)
case("unique_axis1", "unique", T([[1.0, 0.0, 1.0], [2.0, 3.0, 2.0]]), axis=1,
     return_index=True)
case("unique_size_pad", "unique", T([3, 1, 3], "int32"), size=4, fill_value=-1,
     return_counts=True, return_index=True)
case("unique_size_cut", "unique", T([3, 1, 3, 2, 5], "int32"), size=2)
case("unique_bool", "unique", T([True, False, True], "bool"))
case("bincount", "bincount", T([0, 1, 1, 3, 2, 1], "int32"))
case("bincount_minlength", "bincount", T([0, 1, 1], "int32"), minlength=5)
case("bincount_weights", "bincount", T([0, 1, 1, 3], "int32"), weights=T([0.5, 1.0, 2.0, 4.0]))
case("bincount_int_weights", "bincount", T([0, 1, 1], "int32"), weights=T([2, 3, 4], "int32"))
case("bincount_2d", "bincount", T([[0, 1, 1], [2, 2, 0]], "int32"))
case("bincount_int8", "bincount", T([0, 2, 2], "int8"))
case("bincount_f16_weights", "bincount", T([0, 1, 1], "int32"),
     weights=T([0.5, 1.0, 2.0], "float16"))

# others
case("copy", "copy", T(A))
case("copy_int", "copy", T(I, "int32"))
case("view", "view", T([1.0, -2.0]), dtype="int32")
case("view_same", "view", T([1, 2], "int32"))
case("view_narrow", "view", T([1, 256], "int32"), dtype="uint8")
case("view_wide", "view", T([[1, 0, 0, 0, 2, 0, 0, 0]], "uint8"), dtype="int32")
case("view_f16", "view", T([1.0, 2.0], "float32"), dtype="float16")
case("view_bad", "view", T([1, 2, 3], "int16"), dtype="int32")
case("vectorize", "vectorize", {"F": "affine"}, T(A), T([1.0, 2.0, 3.0]))
case("vectorize_sig", "vectorize", {"F": "rowsum"}, T(A3), signature="(n)->()")
case("vectorize_scalar", "vectorize", {"F": "affine"}, T(2.0), T(3.0))
case("vectorize_sig2", "vectorize", {"F": "rowdot"}, T(A), T(A), signature="(n),(n)->()")


# edge cases, Python-scalar mixes and bad input
case("pad_int_width", "pad", T(V), 1)
case("pad_pair", "pad", T(V), (1, 2))
case("pad_int_width_2d", "pad", T(A), 1)
case("pad_short_pairs", "pad", T(A), [(1,), (2,)])
case("pad_rank_mismatch", "pad", T(A3), ((1, 1), (1, 1)))
case("pad_ragged", "pad", T(A), [(1,), (2, 1)])
case("reshape_two_unknown", "reshape", T(A), (-1, -1))
case("reshape_neg2", "reshape", T(A), (-2, 3))
case("reshape_size", "reshape", T(A), (4, 2))
case("diagonal_same_axes", "diagonal", T(A3), axis1=0, axis2=-3)
case("eye_float", "eye", 2.0)
case("eye_float_M", "eye", 2, 3.0)
case("eye_zero", "eye", 0)
case("vander_2d", "vander", T(A))
case("vander_N_float", "vander", T(V), N=2.0)
case("vander_N_neg", "vander", T(V), N=-1)
case("vander_increasing_int", "vander", T(V), increasing=1)
case("select_empty", "select", L(), L())
case("select_not_list", "select", T([True]), L(T([1.0])))
case("select_weak_default", "select", L(T([True, False])), L(T([1, 2], "int8")), default=5)
case("array_split_list", "array_split", T(A3), [1, 2])
case("array_split_zero", "array_split", T(A3), 0)
case("array_split_axis_float", "array_split", T(A3), 2, axis=1.0)
case("vectorize_not_callable", "vectorize", 3)
case("take_out_of_range", "take", T(A), T([7], "int32"))
case("take_along_axis_out_of_range", "take_along_axis", T(A), T([[5], [0]], "int32"), axis=1)
case("concatenate_int8_uint8", "concatenate", L(T([1, 2], "int8"), T([3], "uint8")))
case("concatenate_f16_f32", "concatenate", L(T([1.0], "float16"), T([2.0], "float32")))
case("concatenate_bad_shape", "concatenate", L(T(A), T(SQ)), axis=1)
case("append_int8_f16", "append", T([1, 2], "int8"), T([0.5], "float16"))
case("append_bool", "append", T([True], "bool"), T([False, True], "bool"))
case("stack_f16", "stack", L(T([1.0], "float16"), T([2.0], "float16")))
case("stack_bad_shape", "stack", L(T(A), T(SQ)))
case("hstack_weak", "hstack", L(T([1, 2], "int8"), T([3, 4], "int16")))
case("vstack_f64_i32", "vstack", L(T(A, "float64"), T(I, "int32")))
case("where_int8_float", "where", T(B, "bool"), T(I, "int8"), 2.5)
case("where_f16_int", "where", T(B, "bool"), T(A, "float16"), 2)
case("where_cond_int", "where", T(I, "int32"), 1.0, -1.0)
case("where_bool_values", "where", T(B, "bool"), T(B, "bool"), False)
case("full_bool_fill", "full", [2], True)
case("full_like_bool", "full_like", T(B, "bool"), 1)
case("full_f16", "full", [2, 2], 0.1, dtype="float16")
case("arange_f16", "arange", 0, 3, dtype="float16")
case("arange_f64_tensor", "arange", T(2.0, "float64"), 5)
case("arange_int8", "arange", 1, 7, 2, dtype="int8")
case("linspace_int_tensors", "linspace", T(0, "int32"), T(5, "int32"), 3)
case("linspace_f64", "linspace", 0, 1, 3, dtype="float64")
case("linspace_zero", "linspace", 0.0, 1.0, 0)
case("linspace_noend_int", "linspace", 0, 7, 3, endpoint=False, dtype="int32")
case("linspace_retstep_noend", "linspace", 1.0, 2.0, 4, endpoint=False, retstep=True)
case("get_item_tensor_index", "get_item", T(A3), T(1, "int32"))
case("get_item_mask", "get_item", T(A), T(B, "bool"))
case("get_item_negative", "get_item", T(A3), TUP(-1, -2))
case("get_item_list", "get_item", T(A3), [0, 1])
case("get_item_list_one", "get_item", T(A), [1])
case("get_item_out_of_range", "get_item", T(A), 5)
case("split_uneven", "split", T(A3), 3, axis=2)
case("tile_zero", "tile", T(A), (0, 2))
case("roll_big", "roll", T(V), 9)
case("sort_nan", "sort", T([3.0, float("nan"), 1.0, -1.0]))
case("argsort_ties", "argsort", T([1.0, 1.0, 0.0, 1.0, 0.0]))
case("argsort_ties_int", "argsort", T([[2, 1, 2, 1]], "int32"))
case("isin_assume_unique", "isin", T(A), T([3.0, -1.0]), assume_unique=True)
case("isin_bool", "isin", T(B, "bool"), T([True], "bool"))
case("bincount_sparse", "bincount", T([0, 1, 1, 3], "int32"), sparse=True)
case("matmul_bool", "matmul", T(B, "bool"), T([[True], [False], [True]], "bool"))
case("matmul_f16", "matmul", T(A, "float16"), T(SQ, "float16"))
case("matmul_bad_shape", "matmul", T(A), T(A))
case("dot_f16", "dot", T(V, "float16"), T(V, "float16"))
case("cross_bad_dim", "cross", T([1.0, 2.0, 3.0, 4.0]), T([1.0, 2.0, 3.0, 4.0]))
case("expand_dims_out_of_range", "expand_dims", T(A), 4)
case("moveaxis_out_of_range", "moveaxis", T(A), 3, 0)
case("transpose_short_perm", "transpose", T(A3), axes=(1, 0))
case("tri_far", "tri", 3, k=-5)
case("tri_wide_k", "tri", 2, 3, k=7)
case("trace_far", "trace", T(A), offset=5)
case("diag_far", "diag", T(A), k=4)
case("diag_vec_far", "diag", T([1.0]), k=-2)
case("unravel_index_int", "unravel_index", 5, (2, 3))
case("zeros_empty", "zeros", (0, 3))
case("ones_like_empty", "ones_like", T(np.zeros((0, 2)), "float32"))
case("hamming_0", "hamming", 0)
case("hanning_2", "hanning", 2)
case("blackman_2", "blackman", 2)
case("kaiser_tensor", "kaiser", T(6, "int32"), 5.0)
case("size_scalar", "size", T(3.0))
case("ndim_list", "ndim", [[1, 2]])
case("searchsorted_lists", "searchsorted", [1.0, 2.0, 4.0], [3.0, 0.0])
case("broadcast_to_bad", "broadcast_to", T([1.0, 2.0, 3.0]), (2, 2))
case("flip_scalar_none", "flip", T(V, "float64"))
case("nonzero_empty", "nonzero", T(np.zeros((2, 2)), "float32"))
case("digitize_f16", "digitize", T([0.5, 1.5, 2.5], "float16"), [1.0, 2.0])
case("digitize_bool", "digitize", T([True, False], "bool"), [0.5])
case("trapezoid_x_axis", "trapezoid", T(A3), x=T(np.arange(3.0) ** 2), axis=1)
case("trapezoid_f64", "trapezoid", T(V, "float64"))
case("slogdet_singular", "slogdet", T([[1.0, 2.0], [2.0, 4.0]]))
case("slogdet_negative", "slogdet", T([[0.0, 1.0], [1.0, 0.0]]))
case("kron_3d", "kron", T(A3), T([[1.0, -1.0]]))
case("kron_bool", "kron", T([True, False], "bool"), T([True], "bool"))
case("outer_bool", "outer", T([True, False], "bool"), T([True], "bool"))
case("einsum_f16", "einsum", "i,i->", T(V, "float16"), T(V, "float16"))
case("tensordot_axes0", "tensordot", T([1.0, 2.0]), T([3.0, 4.0, 5.0]), axes=0)
case("inner_f16", "inner", T(V, "float16"), T(V, "float16"))
case("vdot_mixed", "vdot", T(VI, "int32"), T(V))
case("take_bool", "take", T(B, "bool"), T([0, 4], "int32"))
case("take_along_axis_int64", "take_along_axis", T(I, "int32"), T([[2], [1]], "int64"), axis=1)
case("unique_f64_all", "unique", T([2.5, -1.0, 2.5, 0.0], "float64"), return_index=True,
     return_inverse=True, return_counts=True)
case("unique_size_axis", "unique", T([[1, 2], [1, 2], [0, 0]], "int32"), axis=0, size=3,
     fill_value=9)
case("argpartition_2d", "argpartition", T([[3, 1, 2], [9, 8, 7]], "int32"), 1)
case("argpartition_axis0", "argpartition", T([[3, 1, 2], [9, 8, 7], [0, 5, 1]], "int32"),
     1, axis=0)
case("isin_nan", "isin", T([1.0, 2.0, 3.0, float("nan"), 5.0, -0.0]),
     T([3.0, float("nan"), 1.0, 2.0, float("nan"), 0.0]))
case("isin_empty_invert", "isin", T(A), T(np.zeros((0,)), "float32"), invert=True)
case("isin_2d_x2", "isin", T(VI, "int32"), T([[1, 9], [2, 8]], "int32"))
# more dtypes through the promotion paths
U8 = [[1, 2, 3], [4, 5, 250]]
case("matmul_uint8", "matmul", T(U8, "uint8"), T([[1], [2], [3]], "uint8"))
case("matmul_int16_int64", "matmul", T(I, "int16"), T([[1], [2], [3]], "int64"))
case("matmul_f64_int64", "matmul", T(A, "float64"), T([[1], [2], [3]], "int64"))
case("einsum_int16", "einsum", "ij->j", T(I, "int16"))
case("einsum_uint8_int8", "einsum", "ij,ij->i", T(U8, "uint8"), T(I, "int8"))
case("tensordot_int64", "tensordot", T(I, "int64"), T(I, "int64"), axes=([0], [0]))
case("tensordot_uint8", "tensordot", T(U8, "uint8"), T(U8, "uint8"), axes=([1], [1]))
case("dot_f64_int64", "dot", T(V, "float64"), T(VI, "int64"))
case("outer_uint8_int8", "outer", T([1, 2], "uint8"), T([-1, 3], "int8"))
case("kron_int8_f16", "kron", T([1, 2], "int8"), T([0.5], "float16"))
case("cross_f64", "cross", T([1.0, 2.0, 3.0], "float64"), T([3.0, 2.0, 1.0], "float32"))
case("sort_uint8", "sort", T(U8, "uint8"), axis=0)
case("argsort_int64", "argsort", T(I, "int64"), axis=0)
case("concatenate_int16_f16", "concatenate", L(T([1], "int16"), T([0.5], "float16")))
case("append_uint8_int8", "append", T([1], "uint8"), T([-1], "int8"))
case("where_uint8_int64", "where", T([True, False], "bool"), T([1, 2], "uint8"),
     T([3, 4], "int64"))
case("trace_uint8", "trace", T(U8[:2], "uint8"))
case("trace_int64", "trace", T(I, "int64"))
case("take_f64_int64_idx", "take", T(A, "float64"), T([[0], [5]], "int64"))
case("repeat_int64", "repeat", T([1, 2], "int64"), 3)
case("tile_uint8", "tile", T([1, 2], "uint8"), 2)
case("pad_uint8", "pad", T([1, 2], "uint8"), ((1, 1),), constant_values=7)
case("flip_f64", "flip", T(A, "float64"), axis=-1)
case("vander_int64", "vander", T([2, 3], "int64"), N=3)
case("vander_f64", "vander", T([0.5, 3.0], "float64"))
case("diff_uint8", "diff", T([5, 3, 9], "uint8"))
case("linspace_f16", "linspace", 0.0, 1.0, 3, dtype="float16")
case("eye_bool", "eye", 2, 3, k=1, dtype="bool")
case("tri_bool", "tri", 2, dtype="bool")
case("full_int8_weak", "full_like", T([1, 2], "int8"), 300)
case("unique_uint8", "unique", T([3, 3, 1], "uint8"), return_counts=True)
case("searchsorted_f64", "searchsorted", T([0.5, 1.5], "float64"), T([1.0, 2.0], "float64"))
case("digitize_int64", "digitize", T([1, 5, 9], "int64"), [2.0, 6.0])
case("bincount_int64", "bincount", T([1, 1, 2], "int64"), weights=T([1.0, 2.0, 3.0],
                                                                 "float64"))
case("stack_python_scalars", "stack", [1.0, 2.0, T(3.0, "float16")])
case("hstack_python_scalar_lists", "hstack", [T([1, 2], "int8"), T([3], "int8")])
case("fliplr_int", "fliplr", T(A3, "float64"))
case("fliplr_1d", "fliplr", T(V))
case("flipud_bool", "flipud", T(B, "bool"))
case("vsplit_indices", "vsplit", T(A3), [1])
case("vsplit_int", "vsplit", T(I, "int32"), 2)
case("diagflat_int", "diagflat", T(VI, "int32"), k=1)
case("ravel_scalar", "ravel", T(2.0))
case("ones_bool", "ones", (2,), dtype="bool")
case("empty_f64", "empty", [1, 2], dtype="float64")
case("identity_bool", "identity", 2, dtype="bool")
case("searchsorted_mixed_dtypes", "searchsorted", T([1.0, 2.0]), T([1], "int32"))
case("digitize_tensor_bins", "digitize", T(V), T([0.0, 1.0, 2.5]))
case("where_list_cond", "where", [True, False, True], T([1.0, 2.0, 3.0]), T([4.0, 5.0, 6.0]))
case("take_float_indices", "take", T(V), T([0.0, 1.0]))
case("bincount_negative", "bincount", T([0, -1, 2], "int32"))
case("split_tensor_indices", "split", T(A3), T([1, 3], "int32"), axis=2)
case("roll_tensor_shift", "roll", T(V), T(1, "int32"))
case("eye_tensor_N", "eye", T(3, "int32"), k=1)
case("meshgrid_mixed", "meshgrid", T([1, 2], "int32"), T([0.5]))
case("reshape_tensor_shape", "reshape", T(A), T([3, 2], "int32"))
case("squeeze_out_of_range", "squeeze", T([[1.0]]), axis=3)
case("squeeze_neg_axis", "squeeze", T([[1.0, 2.0]]), axis=-2)
# SparseTensor inputs ({"SP": dense values, "dtype": d}: the nonzeros of that array)
SPM = [[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]


def SP(values, dtype="float32"):
    return {"SP": np.asarray(values).tolist(), "dtype": dtype}


case("copy_sparse", "copy", SP(SPM))
case("transpose_sparse", "transpose", SP(SPM))
case("transpose_sparse_axes", "transpose", SP(np.arange(24.0).reshape(2, 3, 4) % 5),
     axes=(2, 0, 1))
case("concatenate_sparse", "concatenate", L(SP(SPM), SP([[0.0, 0.0, 3.0]])))
case("concatenate_sparse_axis1", "concatenate", L(SP(SPM), SP(SPM)), axis=1)
case("concatenate_sparse_dense", "concatenate", L(SP(SPM), T([[1.0, 2.0, 3.0]])))
case("expand_dims_sparse", "expand_dims", SP(SPM), 1)
case("expand_dims_sparse_multi", "expand_dims", SP(SPM), (0, -1))
case("squeeze_sparse", "squeeze", SP([[[0.0, 2.0, 0.0]]]))
case("squeeze_sparse_axis", "squeeze", SP([[[0.0, 2.0, 0.0]]]), axis=0)
case("reshape_sparse", "reshape", SP(SPM), (3, 2))
case("reshape_sparse_neg", "reshape", SP(SPM), (-1,))
case("reshape_sparse_int", "reshape", SP([[0, 1], [2, 0]], "int32"), (1, 4))
case("matmul_sparse_dense", "matmul", SP(SPM), T(SQ))
case("matmul_dense_sparse", "matmul", T(SQ), SP([[0.0, 1.0], [2.0, 0.0], [0.0, 0.0]]))
case("matmul_sparse_sparse", "matmul", SP(SPM), SP([[0.0, 1.0], [2.0, 0.0], [0.0, 3.0]]))
case("take_sparse_indices", "take", T(SQ), SP([[0, 2], [1, 0]], "int64"), axis=0)
case("take_sparse_indices_int", "take", T(I, "int32"), SP([[0, 1]], "int64"), axis=1)
case("unique_nan", "unique", T([1.0, float("nan"), 1.0, float("nan")]), return_counts=True)
case("unique_signed_zero", "unique", T([0.0, -0.0, 1.0]), return_inverse=True)
case("linspace_vec_noend_axis", "linspace", T([0.0, 1.0]), T([1.0, 3.0]), 4, endpoint=False,
     axis=-1, retstep=True)
case("logspace_vec", "logspace", T([0.0, 1.0]), T([1.0, 2.0]), 3, base=2.0)
case("bincount_sparse_2d", "bincount", T([[0, 1, 1], [2, 2, 0]], "int32"), sparse=True)
case("copy_bool", "copy", T(B, "bool"))
case("array_int64", "array", T(I, "int64"), dtype="int8")
case("array_bool_to_float", "array", T(B, "bool"), dtype="float32")
case("squeeze_all_ones", "squeeze", T([[[1.0]]]))
case("swapaxes_out_of_range", "swapaxes", T(A), 0, 2)
case("meshgrid_bad_indexing", "meshgrid", T([1.0]), T([2.0]), indexing="xx")
case("meshgrid_three", "meshgrid", T([1.0, 2.0]), T([3.0]), T([4.0, 5.0, 6.0]))
case("repeat_out_of_range", "repeat", T(A), 2, axis=2)
case("geomspace_int", "geomspace", 1, 8, 4, dtype="int32")
case("geomspace_vec", "geomspace", T([1.0, 2.0]), T([8.0, 32.0]), 3, axis=1)
case("logspace_int", "logspace", 0, 2, 3, dtype="int32")


def decode(spec):
    if isinstance(spec, dict):
        if "T" in spec:
            return tf.constant(np.asarray(spec["T"], dtype=spec["dtype"]))
        if "SP" in spec:
            return tf.sparse.from_dense(tf.constant(np.asarray(spec["SP"], spec["dtype"])))
        if "L" in spec:
            return [decode(s) for s in spec["L"]]
        if "TUP" in spec:
            return tuple(decode(s) for s in spec["TUP"])
        if "S" in spec:
            return slice(*spec["S"])
        if "E" in spec:
            return Ellipsis
        if "NEW" in spec:
            return None
        if "F" in spec:
            return PYFUNCS[spec["F"]]
        return {k: decode(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [decode(s) for s in spec]
    if isinstance(spec, tuple):
        return tuple(decode(s) for s in spec)
    return spec


def encode_out(out):
    if isinstance(out, tf.SparseTensor):
        return {"sparse": encode_out(tf.sparse.to_dense(out))}
    if isinstance(out, (tuple, list)):
        return {"seq": [encode_out(o) for o in out]}
    if isinstance(out, (bool, int, float, np.integer)) and not hasattr(out, "shape"):
        return {"py": out, "type": type(out).__name__}
    a = np.asarray(out)
    dtype = keras.backend.standardize_dtype(out.dtype)
    v = a.astype(np.float64) if a.dtype.kind == "f" else a
    return {"v": v.tolist(), "dtype": dtype, "shape": list(a.shape)}


def float_inputs(args):
    found = []

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)
        elif tf.is_tensor(x) and not isinstance(x, tf.SparseTensor) and x.dtype.is_floating:
            found.append(x)
    walk(args)
    return found


def total(out):
    # sum(output) over every float tensor in the output
    outs = out if isinstance(out, (tuple, list)) else [out]
    parts = [tf.reduce_sum(tf.cast(o, tf.float64)) for o in outs
             if tf.is_tensor(o) and not isinstance(o, tf.SparseTensor)
             and o.dtype.is_floating]
    return tf.add_n(parts) if parts else None


def record():
    results = {}
    for cid, fname, args, kwargs in CASES:
        entry = {"fn": fname, "args": args, "kwargs": {k: v for k, v in kwargs.items()}}
        a = decode(args)
        k = decode(kwargs)
        try:
            with tf.GradientTape(persistent=True) as tape:
                watched = float_inputs([a, k])
                for w in watched:
                    tape.watch(w)
                if fname == "vectorize":
                    out = ops.vectorize(a[0], **k)(*a[1:])
                else:
                    out = getattr(ops, fname)(*a, **k)
                tot = total(out)
            entry["out"] = encode_out(out)
        except Exception as e:  # noqa: BLE001 - the error class is what the test checks
            if fname == "vectorize" and "TensorFlow backend" in str(e):
                # Keras's TensorFlow backend maps nothing (tf.vectorized_map only takes
                # in_axes=0); the reference is NumPy's vectorize, as Keras's other backends.
                out = np.vectorize(NUMPY_PYFUNCS[args[0]["F"]], **k)(
                    *[np.asarray(v) for v in a[1:]])
                entry["out"] = encode_out(tf.constant(out))
                entry["reference"] = "numpy.vectorize"
            else:
                entry["error"] = type(e).__name__
            results[cid] = entry
            continue
        if watched and tot is not None:
            try:
                grads = tape.gradient(tot, watched)
            except (LookupError, tf.errors.InvalidArgumentError) as e:
                # no gradient for this op (Unique, Bitcast), or a singular matrix's
                entry["grad_error"] = type(e).__name__
            else:
                entry["grads"] = [None if g is None else
                                  np.asarray(tf.convert_to_tensor(g), np.float64).tolist()
                                  for g in grads]
        results[cid] = entry
    return results


if __name__ == "__main__":
    res = record()
    save("kops_arrays", {"keras": keras.__version__, "tf": tf.__version__, "cases": res})
    errs = {c: e["error"] for c, e in res.items() if "error" in e}
    print(len(res), "cases;", len(errs), "errors:", errs)
