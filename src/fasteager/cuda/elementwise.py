"""The one table of elementwise ops for the GPU: each op's C expression per dtype kind.

``x`` is the operand of a unary op (``p`` its one scalar attribute), ``a`` and ``b`` those
of a binary op, ``T`` the input's C type. ``generate(dtype)`` turns the table into CUDA
source: ``kernels/elementwise.cu`` (the broadcasting index helper and the macros) plus
one macro line per op that accepts ``dtype``; ``kernels.py`` compiles that once per dtype
and context. Entry: name -> (C expression, dtype kinds, output: "same" or "bool").
"""
import numpy as np

from .sources import read_source

F, I, B = "f", "iu", "b"

UNARY = {
    "negative": ("-x", F + I, "same"),
    "abs": ("(x < T(0) ? -x : x)", F + "i", "same"),
    "sign": ("fe_sign(x)", F + I, "same"),
    "square": ("x * x", F + I, "same"),
    "sqrt": ("sqrt(x)", F, "same"),
    "rsqrt": ("rsqrt(x)", F, "same"),
    "reciprocal": ("T(1) / x", F, "same"),
    "exp": ("exp(x)", F, "same"),
    "expm1": ("expm1(x)", F, "same"),
    "log": ("log(x)", F, "same"),
    "log1p": ("log1p(x)", F, "same"),
    "sin": ("sin(x)", F, "same"),
    "cos": ("cos(x)", F, "same"),
    "tan": ("tan(x)", F, "same"),
    "tanh": ("tanh(x)", F, "same"),
    "erf": ("erf(x)", F, "same"),
    # e = exp(-|x|): 1/(1+e), or e/(1+e) for x < 0: no overflow, no cancellation for
    # x < 0 (the CPU kernels' formula; the compiler computes the one exp once)
    "sigmoid": ("((x < T(0) ? exp(-fabs(x)) : T(1)) / (T(1) + exp(-fabs(x))))", F, "same"),
    "floor": ("floor(x)", F, "same"),
    "ceil": ("ceil(x)", F, "same"),
    "round": ("rint(x)", F, "same"),            # half to even, as NumPy
    # NaN propagates, as through NumPy's maximum/minimum
    "relu": ("((x > T(0) || x != x) ? x : T(0))", F + I, "same"),
    "relu6": ("(x != x ? x : (x > T(0) ? (x < T(6) ? x : T(6)) : T(0)))", F + I, "same"),
    "elu": ("(x > T(0) ? x : expm1(x))", F, "same"),
    "selu": ("(x > T(0) ? T(1.0507009873554804934193349852946) * x : "
             "T(1.0507009873554804934193349852946 * 1.6732632423543772848170429916717) * "
             "expm1(x))", F, "same"),
    "leaky_relu": ("(x > T(0) ? x : x * T(p))", F, "same"),
    # log(1 + e^x) = log1p(e^-|x|) + max(x, 0): never overflows
    "softplus": ("log1p(exp(-fabs(x))) + (x > T(0) ? x : T(0))", F, "same"),
    "softsign": ("x / (T(1) + fabs(x))", F, "same"),
    "silu": ("x * ((x * T(p) < T(0) ? exp(-fabs(x * T(p))) : T(1)) "
             "/ (T(1) + exp(-fabs(x * T(p)))))", F, "same"),
    "logical_not": ("!x", B, "same"),
    "invert": ("~x", I, "same"),
    "is_nan": ("isnan(x)", F, "bool"),
    "is_inf": ("isinf(x)", F, "bool"),
    "is_finite": ("isfinite(x)", F, "bool"),
}

BINARY = {
    "add": ("a + b", F + I, "same"),
    "subtract": ("a - b", F + I, "same"),
    "multiply": ("a * b", F + I, "same"),
    "truediv": ("a / b", F, "same"),
    "floordiv": ("floor(a / b)", F, "same"),
    "floordiv@int": ("fe_ifloordiv(a, b)", I, "same"),
    "floormod": ("fe_fmod_floor(a, b)", F, "same"),
    "floormod@int": ("fe_imod(a, b)", I, "same"),
    "pow": ("pow(a, b)", F, "same"),
    "pow@int": ("fe_ipow(a, b)", "i", "same"),
    "maximum": ("((a > b || a != a) ? a : b)", F + I, "same"),   # NaN propagates
    "minimum": ("((a < b || a != a) ? a : b)", F + I, "same"),
    "equal": ("a == b", F + I + B, "bool"),
    "not_equal": ("a != b", F + I + B, "bool"),
    "less": ("a < b", F + I, "bool"),
    "less_equal": ("a <= b", F + I, "bool"),
    "greater": ("a > b", F + I, "bool"),
    "greater_equal": ("a >= b", F + I, "bool"),
    "logical_and": ("a && b", B, "same"),
    "logical_or": ("a || b", B, "same"),
    "logical_xor": ("a != b", B, "same"),
    "bitwise_and": ("a & b", I + B, "same"),
    "bitwise_or": ("a | b", I + B, "same"),
    "bitwise_xor": ("a ^ b", I + B, "same"),
}

# dtype -> (C type, symbol suffix)
CTYPES = {
    np.dtype(np.float32): ("float", "f32"),
    np.dtype(np.float64): ("double", "f64"),
    np.dtype(np.int32): ("int", "i32"),
    np.dtype(np.int64): ("long long", "i64"),
    np.dtype(np.uint8): ("unsigned char", "u8"),
    np.dtype(np.bool_): ("bool", "b8"),
}


def op_name(key):
    """Table key -> op name (``"floordiv@int"`` is floordiv's integer variant)."""
    return key.split("@")[0]


def entry(table, name, dtype):
    """The (key, expression, output) of op ``name`` for ``dtype``, or None."""
    kind = np.dtype(dtype).kind
    for key, (expr, kinds, out) in table.items():
        if op_name(key) == name and kind in kinds:
            return key, expr, out
    return None


def symbol(name, dtype):
    """The CUDA symbol of op ``name`` for ``dtype``: ``fe_exp_f32``."""
    return "fe_%s_%s" % (name, CTYPES[np.dtype(dtype)][1])


def generate(dtype):
    """CUDA source with every table op that accepts ``dtype`` (the header included)."""
    dtype = np.dtype(dtype)
    ctype, sfx = CTYPES[dtype]
    lines = [read_source("elementwise.cu"), "", "// generated: fasteager/cuda/elementwise.py"]
    for macro, table in (("FE_UNARY", UNARY), ("FE_BINARY", BINARY)):
        done = set()
        for key, (expr, kinds, out) in table.items():
            name = op_name(key)
            if dtype.kind not in kinds or name in done:
                continue
            done.add(name)
            tout = "bool" if out == "bool" else ctype
            lines.append("%s(%s, %s, %s, %s, %s)" % (macro, name, ctype, tout, sfx, expr))
    lines.append("FE_SELECT(%s, %s)" % (ctype, sfx))
    return "\n".join(lines) + "\n"
