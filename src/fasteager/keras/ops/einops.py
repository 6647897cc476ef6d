"""``keras.ops.rearrange``: einops-style axis rearrangement (Keras 3.15's
``keras.src.ops.einops``): split grouped input axes, transpose, merge output groups —
one reshape, one transpose, one reshape, so gradients flow as through those ops."""
import re

import fasteager as fe

from .core import convert_to_tensor

__all__ = ["rearrange"]

_AXES = re.compile(r"\w+|\(.*?\)")
_GROUP = re.compile(r"\(([\w\s]+)\)")


def _groups(axes):
    out = []
    for axis in axes:
        m = _GROUP.match(axis)
        out.append(m.group(1).split() if m else [axis])
    return out


def rearrange(tensor, pattern, **axes_lengths):
    """Rearrange ``tensor``'s axes by an einops pattern.

    >>> rearrange(images, "b h w c -> b c h w")           # transpose
    >>> rearrange(images, "b (h1 h) w c -> (b h1) h w c", h1=2)  # split and merge
    """
    tensor = convert_to_tensor(tensor)
    if not isinstance(pattern, str) or "->" not in pattern:
        raise ValueError("rearrange: `pattern` must be a string 'input axes -> output axes' "
                         "(got %r)" % (pattern,))
    in_pattern, out_pattern = re.split(r"\s*->\s*", pattern)
    in_axes = _AXES.findall(in_pattern)
    out_axes = _AXES.findall(out_pattern)
    shape = tuple(tensor.shape)
    if len(in_axes) != len(shape):
        raise ValueError("rearrange: the input pattern names %d axes but the tensor has rank "
                         "%d (pattern %r, shape %s)" % (len(in_axes), len(shape), pattern,
                                                        shape))
    lengths = dict(axes_lengths)
    sizes = {}
    for axis, dim in zip(in_axes, shape):
        m = _GROUP.match(axis)
        if m:
            inner = m.group(1).split()
            known = 1
            for a in inner:
                if a in lengths:
                    known *= lengths[a]
            unknown = [a for a in inner if a not in lengths]
            if unknown:
                # One unnamed length per group is inferred from the dimension.
                lengths[unknown[0]] = dim // known
            sizes.update({a: lengths[a] for a in inner})
        else:
            sizes[axis] = dim
    in_flat = [a for g in _groups(in_axes) for a in g]
    out_groups = _groups(out_axes)
    out_flat = [a for g in out_groups for a in g]
    missing = [a for a in out_flat if a not in in_flat]
    if missing:
        raise ValueError("rearrange: output axes %s do not appear in the input pattern %r"
                         % (missing, pattern))
    split_shape = [sizes[a] for a in in_flat]
    if tuple(split_shape) != shape:
        tensor = fe.reshape(tensor, split_shape)
    tensor = fe.transpose(tensor, [in_flat.index(a) for a in out_flat])
    out_shape = []
    for group in out_groups:
        size = 1
        for a in group:
            size *= sizes[a]
        out_shape.append(size)
    return fe.reshape(tensor, out_shape)
