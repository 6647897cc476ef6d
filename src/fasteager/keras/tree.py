"""``fe.keras.tree``: Keras 3's nested-structure utilities.

Keras 3's rules, which differ from ``tf.nest``'s (``fe.nest``) in places: ``None`` is a
leaf; a ``dict`` flattens in sorted-key order but an ``OrderedDict`` in insertion order;
structures that should match are checked (node types and lengths), and a mismatch is a
``ValueError``. Lists, tuples, namedtuples and dicts are the nodes; strings are leaves.
"""
import collections

from .._src.nest import _sort_key


class MAP_TO_NONE:
    """A ``traverse`` function returns this class to put ``None`` in the node's place."""


def _is_node(x):
    return isinstance(x, (list, tuple, dict))


def _children(s):
    """(keys, children) of a node, in Keras 3's order."""
    if isinstance(s, dict):
        keys = list(s) if isinstance(s, collections.OrderedDict) else \
            sorted(s, key=_sort_key)
        return keys, [s[k] for k in keys]
    return list(range(len(s))), list(s)


def _rebuild(s, keys, values):
    if isinstance(s, dict):
        packed = dict(zip(keys, values))
        if isinstance(s, collections.defaultdict):
            out = type(s)(s.default_factory)
            for k in s:
                out[k] = packed[k]
            return out
        return type(s)((k, packed[k]) for k in s)     # the user's key order
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s)(*values)
    return type(s)(values)


def _node_kind(s):
    if isinstance(s, dict):
        return ("ordered" if isinstance(s, collections.OrderedDict) else "dict",
                frozenset(s))
    return type(s), len(s)


def is_nested(structure):
    """Whether ``structure`` is a list, tuple or dict (not a leaf)."""
    return _is_node(structure)


def flatten(structure):
    """The leaves, depth first (a leaf alone gives ``[leaf]``, ``None`` gives ``[None]``)."""
    return [leaf for _, leaf in flatten_with_path(structure)]


def flatten_with_path(structure):
    """``[(path, leaf), ...]``: each path the tuple of keys/indices down to the leaf."""
    out = []

    def walk(s, path):
        if _is_node(s):
            keys, kids = _children(s)
            for k, c in zip(keys, kids):
                walk(c, path + (k,))
        else:
            out.append((path, s))
    walk(structure, ())
    return out


def _mismatch(a, b):
    raise ValueError("Structures don't have the same nested structure: %r and %r"
                     % (a, b))


def _zip_nodes(structs):
    """The children lists of nodes that must have the same kind, keys and length."""
    first = structs[0]
    kind = _node_kind(first)
    for other in structs[1:]:
        if not _is_node(other):
            _mismatch(first, other)
        okind = _node_kind(other)
        if isinstance(first, dict):
            if not isinstance(other, dict) or okind[1] != kind[1]:
                _mismatch(first, other)
        elif okind != kind:
            _mismatch(first, other)
    keys, _ = _children(first)
    return keys, [[s[k] for k in keys] for s in structs]


def assert_same_structure(a, b, check_types=None):
    """``ValueError`` unless ``a`` and ``b`` have the same nodes (types, keys, lengths)."""
    def walk(x, y):
        if _is_node(x) != _is_node(y):
            _mismatch(x, y)
        if _is_node(x):
            _, (xs, ys) = _zip_nodes([x, y])
            for cx, cy in zip(xs, ys):
                walk(cx, cy)
    walk(a, b)


def assert_same_paths(a, b):
    """``ValueError`` unless ``a`` and ``b`` have the same set of leaf paths."""
    pa = set(p for p, _ in flatten_with_path(a))
    pb = set(p for p, _ in flatten_with_path(b))
    if pa != pb:
        msg = "`a` and `b` don't have the same paths."
        if pa - pb:
            msg += "\nPaths in `a` missing in `b`:\n%s" % (pa - pb,)
        if pb - pa:
            msg += "\nPaths in `b` missing in `a`:\n%s" % (pb - pa,)
        raise ValueError(msg)


def map_structure(func, *structures, none_is_leaf=True):
    """``func`` of the leaves at the same place in each structure, in the first one's
    shape; with ``none_is_leaf=False`` a ``None`` stays ``None`` and ``func`` skips it."""
    if not callable(func):
        raise TypeError("`func` must be callable, got %r" % (func,))
    if not structures:
        raise ValueError("Must provide at least one structure")

    def walk(ss):
        first = ss[0]
        if not none_is_leaf and first is None:
            for other in ss[1:]:
                if other is not None:
                    _mismatch(first, other)
            return None
        if not _is_node(first):
            for other in ss[1:]:
                if _is_node(other):
                    _mismatch(first, other)
            return func(*ss)
        keys, kids = _zip_nodes(ss)
        return _rebuild(first, keys, [walk(list(c)) for c in zip(*kids)])
    return walk(list(structures))


def map_structure_up_to(shallow_structure, func, *structures):
    """``func`` of the subtrees of ``structures`` found at the leaves of
    ``shallow_structure`` (each structure must have it as a prefix)."""
    if not structures:
        raise ValueError("Must provide at least one structure")

    def walk(shallow, ss):
        if not _is_node(shallow):
            return func(*ss)
        keys, kids = _zip_nodes([shallow] + list(ss))
        return _rebuild(shallow, keys, [walk(c[0], list(c[1:])) for c in zip(*kids)])
    return walk(shallow_structure, list(structures))


def pack_sequence_as(structure, flat_sequence):
    """``structure`` with its leaves replaced, in order, by ``flat_sequence``'s items."""
    flat = list(flat_sequence)
    n = len(flatten(structure))
    if len(flat) != n:
        raise ValueError("The target structure has %d leaves but flat_sequence has %d "
                         "items (expected the same number)" % (n, len(flat)))
    it = iter(flat)

    def walk(s):
        if not _is_node(s):
            return next(it)
        keys, kids = _children(s)
        return _rebuild(s, keys, [walk(c) for c in kids])
    return walk(structure)


def traverse(func, structure, top_down=True):
    """Apply ``func`` to every node and leaf. Top down, a ``None`` result goes on into the
    children and any other result replaces the subtree; bottom up, ``func`` sees the node
    with its children done and ``None`` keeps it. ``MAP_TO_NONE`` puts ``None``."""
    def children_done(s):
        if not _is_node(s):
            return s
        keys, kids = _children(s)
        return _rebuild(s, keys, [traverse(func, c, top_down) for c in kids])

    if top_down:
        ret = func(structure)
        if ret is None:
            return children_done(structure)
    else:
        done = children_done(structure)
        ret = func(done)
        if ret is None:
            return done
    if ret is MAP_TO_NONE:
        return None
    return ret


def lists_to_tuples(structure):
    """``structure`` with every list (at any depth) made a tuple."""
    def walk(s):
        if not _is_node(s):
            return s
        keys, kids = _children(s)
        values = [walk(c) for c in kids]
        if isinstance(s, list):
            return tuple(values)
        return _rebuild(s, keys, values)
    return walk(structure)


def map_shape_structure(func, structure):
    """``map_structure`` where a list/tuple of ints and ``None``s (a shape) is a leaf."""
    def is_shape(x):
        return isinstance(x, (list, tuple)) and all(
            isinstance(e, (int, type(None))) for e in x)

    def walk(s):
        if is_shape(s) or not _is_node(s):
            return func(s)
        keys, kids = _children(s)
        return _rebuild(s, keys, [walk(c) for c in kids])
    return walk(structure)
