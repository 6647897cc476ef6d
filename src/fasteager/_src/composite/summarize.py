"""How TensorFlow writes a tensor's value as text (its SummarizeValue): what ``tf.print``
prints and ``tf.strings.format`` inserts, one formatter for both."""
import numpy as np


def summarize_value(arr, edge, quote_scalar=False):
    """A tensor's value as ``tf.print`` writes it: numbers in their shortest round-trip
    form at 6 (float32) or 15 (float64) digits, else 9 or 17; bools as 1/0; strings
    quoted in arrays (and as scalars when ``quote_scalar``: ``tf.strings.format``);
    dimensions longer than ``2 * edge`` elided (none when ``edge`` < 0)."""
    if arr.ndim == 0:
        return _print_scalar(arr[()], arr.dtype, quote=quote_scalar)

    def rows(a, depth):
        n = a.shape[0]
        cut = edge >= 0 and n > 2 * edge
        index = list(range(edge)) + [None] + list(range(n - edge, n)) if cut else range(n)
        if a.ndim == 1:
            items = ["..." if i is None else _print_scalar(a[i], a.dtype, quote=True)
                     for i in index]
            return "[" + " ".join(items) + "]"
        sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
        return "[" + sep.join("..." if i is None else rows(a[i], depth + 1)
                              for i in index) + "]"
    if arr.size == 0:
        return "[]"
    return rows(arr, 0)


def _print_scalar(x, dtype, quote):
    kind = dtype.kind
    if kind == "b":
        return "1" if x else "0"
    if kind == "f":
        short, full, cast = (15, 17, np.float64) if dtype.itemsize == 8 else \
            (6, 9, np.float32)
        text = "%.*g" % (short, x)
        if not np.isfinite(x) or cast(text) == x:
            return text
        return "%.*g" % (full, x)
    if kind in "OSU":
        text = x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
        return '"%s"' % text if quote else text
    return str(x)
