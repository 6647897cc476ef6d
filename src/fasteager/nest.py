"""Flatten and rebuild nested structures (lists, tuples, dicts), as ``tf.nest`` does.

Composite values (``RaggedTensor``, ``SparseTensor``) flatten to their component tensors
when ``expand_composites=True``, as in TensorFlow; ``fe.function`` flattens its results so,
which lets a traced function return them.
"""


def flatten(structure, expand_composites=False):
    """Leaves of a nested list/tuple/dict, dicts in sorted-key order."""
    out = []
    _flatten(structure, out, expand_composites)
    return out


def _flatten(s, out, composites=False):
    if isinstance(s, dict):
        for k in sorted(s, key=_sort_key):
            _flatten(s[k], out, composites)
    elif isinstance(s, (list, tuple)) and not _is_namedtuple_leaf(s):
        for x in s:
            _flatten(x, out, composites)
    elif composites and hasattr(s, "_to_components"):
        for x in s._to_components():
            _flatten(x, out, composites)
    else:
        out.append(s)


def _sort_key(k):
    return (str(type(k)), k)


def _is_namedtuple_leaf(s):
    return False


def pack_sequence_as(structure, flat, expand_composites=False):
    """Rebuild ``structure`` with the leaves taken in order from ``flat``."""
    it = iter(flat)
    result = _pack(structure, it, expand_composites)
    return result


def _pack(s, it, composites=False):
    if isinstance(s, dict):
        keys = sorted(s, key=_sort_key)
        packed = {k: _pack(s[k], it, composites) for k in keys}
        return type(s)((k, packed[k]) for k in s) if type(s) is not dict else \
            {k: packed[k] for k in s}
    if composites and hasattr(s, "_to_components"):
        return s._from_components([_pack(x, it, composites) for x in s._to_components()])
    if isinstance(s, (list, tuple)):
        items = [_pack(x, it, composites) for x in s]
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*items)
        return type(s)(items)
    return next(it)


def map_structure(fn, *structures):
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])


def is_nested(x):
    return isinstance(x, (list, tuple, dict))
