"""Flatten and rebuild nested structures, as ``tf.nest`` does: fasteager's one nest.

Two views of a structure use it:

* ``tf.nest``'s (``flatten``, ``pack_sequence_as``, ``map_structure``): lists, tuples and
  dicts nest. Composite values (``RaggedTensor``, ``SparseTensor``, extension values)
  flatten to their component tensors when ``expand_composites=True``, as in TensorFlow;
  ``fe.function`` flattens its results so, which lets a traced function return them.
* ``tf.data``'s element view (``flatten_element``, ``pack_element``, ``map_element``):
  only tuples (namedtuples included) and dicts nest (a list is a *value*, one tensor),
  values ``expand`` picks (extension values) always flatten to their components, and
  rebuilt containers are plain dicts and tuples.

Dicts flatten in sorted-key order in both views; each view keeps the key order it has
always had for keys of mixed types.
"""

__all__ = ["flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _sort_key(k):
    return (str(type(k)), k)


def _element_key(k):
    return (type(k).__name__, k)


def _has_components(s):
    return hasattr(s, "_to_components")


class _View:
    """What nests (``sequences``), how dict keys sort, which leaves expand into their
    components, and whether rebuilt containers keep their type (``plain``: dict, tuple)."""
    __slots__ = ("sequences", "key", "expand", "plain")

    def __init__(self, sequences, key, expand, plain):
        self.sequences, self.key, self.expand, self.plain = sequences, key, expand, plain


_NEST = _View((list, tuple), _sort_key, None, False)
_NEST_COMPOSITES = _View((list, tuple), _sort_key, _has_components, False)


def _element_view(expand):
    return _View((tuple,), _element_key, expand, True)


def _flatten(s, out, view):
    if isinstance(s, dict):
        for k in sorted(s, key=view.key):
            _flatten(s[k], out, view)
    elif isinstance(s, view.sequences):
        for x in s:
            _flatten(x, out, view)
    elif view.expand is not None and view.expand(s):
        for x in s._to_components():
            _flatten(x, out, view)
    else:
        out.append(s)


def _rebuild_sequence(s, items, view):
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s)(*items)
    if view.plain:
        return tuple(items)
    return type(s)(items)


def _pack(s, it, view):
    if isinstance(s, dict):
        packed = {k: _pack(s[k], it, view) for k in sorted(s, key=view.key)}
        if view.plain or type(s) is dict:
            return {k: packed[k] for k in s}
        return type(s)((k, packed[k]) for k in s)
    if view.expand is not None and view.expand(s):
        return s._from_components([_pack(x, it, view) for x in s._to_components()])
    if isinstance(s, view.sequences):
        return _rebuild_sequence(s, [_pack(x, it, view) for x in s], view)
    return next(it)


# ---- tf.nest ------------------------------------------------------------------------------------

def flatten(structure, expand_composites=False):
    """Leaves of a nested list/tuple/dict, dicts in sorted-key order."""
    out = []
    _flatten(structure, out, _NEST_COMPOSITES if expand_composites else _NEST)
    return out


def pack_sequence_as(structure, flat, expand_composites=False):
    """Rebuild ``structure`` with the leaves taken in order from ``flat``."""
    return _pack(structure, iter(flat), _NEST_COMPOSITES if expand_composites else _NEST)


def map_structure(fn, *structures):
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])


def is_nested(x):
    return isinstance(x, (list, tuple, dict))


# ---- tf.data elements ---------------------------------------------------------------------------

def flatten_element(s, expand):
    """The leaves of a dataset element: tuples in order, dicts in sorted-key order, the
    components of values ``expand(value)`` picks."""
    out = []
    _flatten(s, out, _element_view(expand))
    return out


def pack_element(template, flat, expand):
    """Rebuild ``template``'s element structure from the leaves ``flat``."""
    return _pack(template, iter(flat), _element_view(expand))


def map_element(fn, s, expand):
    """``fn`` applied to each leaf of an element, in the element's own order (dict
    insertion order), rebuilt as plain dicts and tuples."""
    if expand(s):
        return s._from_components([map_element(fn, x, expand) for x in s._to_components()])
    if isinstance(s, dict):
        return {k: map_element(fn, v, expand) for k, v in s.items()}
    if isinstance(s, tuple):
        items = [map_element(fn, x, expand) for x in s]
        return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
    return fn(s)
