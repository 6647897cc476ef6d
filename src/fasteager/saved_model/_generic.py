"""Shape-generic saved graphs: one graph for every size of an input_signature's None
dimensions.

fasteager traces concrete shapes, and an op's attributes may hold numbers computed from
them (a reshape target ``(batch, 784)``, a slice bound). To save a function for all sizes,
it is traced at several sizes of its None dimensions and the traces are compared:

* each None dimension is a *symbol*, except that the leading None dimensions of all the
  inputs are one symbol (the batch, as Keras and TensorFlow assume);
* with ``k`` symbols the function is traced at the ``2**k`` corners where every symbol
  is 2 or 3; the traces must have the same ops, registers and variables; where an
  attribute's integer (or an integer constant's element) differs between them, it is
  fitted exactly by the multilinear polynomial in the sizes through those corners (the
  traced targets ``(2, 784)`` and ``(3, 784)`` become ``(batch, 784)``; ``h * w * 8`` is
  found too); a captured constant holding one value everywhere whose shape follows the
  sizes (an RNN's zero initial state ``(batch, units)``) is saved as that value and
  a size polynomial per axis;
* the fit is checked against one more trace at other sizes (5, 7, 11, ...): any
  difference there, another float attribute or constant that changes, or a change of
  the ops themselves means the graph depends on the sizes in a way this cannot express,
  and saving raises, naming the op.

What tracing cannot see: Python code that branches on a None dimension's size only
beyond the sizes traced (``if x.shape[0] > 100``). Sizes 0 and 1 are never traced (NumPy
broadcasts size-1 dimensions, which would change the graph's meaning).
"""
import numpy as np

from .. import _core
from .._src import nest
from .._src.composite.ragged import RaggedTensor
from .._src.composite.sparse import SparseTensor
from .._src.composite.structure import TensorSpec
from ..dtypes import as_dtype
from ..errors import DataLossError, InvalidArgumentError, UnimplementedError
from ._encoding import decode, encode, evaluate, is_symbolic

BASE, ALT = 2, 3
VERIFY = (5, 7, 11, 13, 17, 19)
MAX_SYMBOLS = 4               # 2**4 = 16 traces at most
MAX_CONSTANT_SIZE = 4096      # elements of an integer constant fitted element by element


class NotGeneric(Exception):
    """The traces differ in a way a size polynomial cannot express."""


def symbols_of(specs):
    """The symbols of flat TensorSpecs ``specs``: a list of [(leaf, axis), ...] (the batch
    symbol first), or None when a spec has an unknown rank."""
    batch, others = [], []
    for i, s in enumerate(specs):
        if s.shape is None:
            return None
        for axis, d in enumerate(s.shape.as_list()):
            if d is None:
                if axis == 0:
                    batch.append((i, axis))
                else:
                    others.append([(i, axis)])
    return ([batch] if batch else []) + others


def component_specs(spec):
    """The TensorSpecs of the component tensors a spec's value passes to a function (in
    the order ``_to_components`` gives them), or None for a leaf that is not a spec: a
    TensorSpec is itself; a RaggedTensorSpec, its flat values and the row splits of each
    ragged axis; a SparseTensorSpec, its indices, values and dense shape."""
    if isinstance(spec, TensorSpec):
        return [spec]
    kind = type(spec).__name__
    if kind == "RaggedTensorSpec":
        dims = spec.shape.as_list() if spec.shape.rank is not None else None
        if dims is None:
            return None
        rr = spec.ragged_rank
        splits = [TensorSpec([None if dims[0] is None else dims[0] + 1],
                             spec.row_splits_dtype)]
        splits += [TensorSpec([None], spec.row_splits_dtype) for _ in range(rr - 1)]
        return [TensorSpec([None] + dims[rr + 1:], spec.dtype)] + splits
    if kind == "SparseTensorSpec":
        if spec.shape.rank is None:
            return None
        rank = spec.shape.rank
        return [TensorSpec([None, rank], as_dtype("int64")), TensorSpec([None], spec.dtype),
                TensorSpec([rank], as_dtype("int64"))]
    return None


def _example(spec, shapes):
    """A value of ``spec`` whose component tensors have ``shapes`` (zeros; valid row
    splits and sparse indices)."""
    if isinstance(spec, TensorSpec):
        return _core.wrap(np.zeros(shapes[0], spec.dtype._np))
    if type(spec).__name__ == "RaggedTensorSpec":
        flat = np.zeros(shapes[0], spec.dtype._np)
        rows_below = shapes[0][0]         # what the innermost splits partition
        splits = []
        for shape in reversed(shapes[1:]):
            rows = max(shape[0] - 1, 0)
            cuts = [0] * (rows + 1) if rows == 0 else \
                [i * rows_below // rows for i in range(rows + 1)]
            splits.insert(0, np.asarray(cuts, spec.row_splits_dtype._np))
            rows_below = rows
        return RaggedTensor.from_nested_row_splits(
            _core.wrap(flat), [_core.wrap(a) for a in splits], validate=False)
    n = shapes[0][0]
    dense = [max(n, 1) if d is None else d for d in spec.shape.as_list()]
    indices = np.zeros((n, len(dense)), np.int64)
    if dense:
        indices[:, 0] = np.arange(n) % max(dense[0], 1)
    return SparseTensor(indices, np.zeros(n, spec.dtype._np), np.asarray(dense, np.int64))


class Template:
    """A function's arguments as a structure holding TensorSpecs, RaggedTensorSpecs or
    SparseTensorSpecs (its input_signature, or what ``get_concrete_function`` was given),
    traced at chosen sizes of their None dimensions. ``specs``: one TensorSpec per tensor
    input, in the trace's input order (a composite spec gives one per component)."""

    def __init__(self, fn, args, kwargs):
        self.fn = fn
        self.structure = (tuple(args), dict(kwargs))
        self.leaves = nest.flatten(self.structure)
        self.components = [component_specs(leaf) for leaf in self.leaves]
        tensors, self.order = self._tensors()
        self.specs = []
        for t, (pos, k) in zip(tensors, self.order):
            parts = self.components[pos]
            self.specs.append(parts[k] if parts is not None else
                              TensorSpec(t._value.shape, t._value.dtype))
        self.symbols = self._symbols()

    def _symbols(self):
        """``symbols_of`` the TensorSpec inputs (their leading None dimensions are the
        batch); each None dimension of a composite's components is a symbol of its own,
        but the number of a sparse tensor's entries, shared by its indices and values."""
        plain = [i for i, (pos, _) in enumerate(self.order)
                 if isinstance(self.leaves[pos], TensorSpec)]
        symbols = symbols_of([self.specs[i] for i in plain])
        if symbols is None:
            return None
        symbols = [[(plain[leaf], axis) for leaf, axis in sym] for sym in symbols]
        first = {}
        for i, (pos, k) in enumerate(self.order):
            if self.components[pos] is None or isinstance(self.leaves[pos], TensorSpec):
                continue
            sparse = type(self.leaves[pos]).__name__ == "SparseTensorSpec"
            for axis, d in enumerate(self.specs[i].shape.as_list()):
                if d is None:
                    if sparse and axis == 0 and pos in first:
                        symbols[first[pos]].append((i, 0))
                        continue
                    if sparse and axis == 0:
                        first[pos] = len(symbols)
                    symbols.append([(i, axis)])
        return symbols

    def _arrays(self, shapes_by_pos):
        out = list(self.leaves)
        for pos, leaf in enumerate(self.leaves):
            if self.components[pos] is not None:
                out[pos] = _example(leaf, shapes_by_pos[pos])
        return out

    def _canonical(self, shapes_by_pos):
        args, kwargs = nest.pack_sequence_as(self.structure, self._arrays(shapes_by_pos))
        return self.fn._canonicalize(tuple(args), kwargs)

    def _tensors(self):
        """The trace's input tensors at the base sizes, and the (leaf, component) each
        comes from."""
        shapes = {}
        for pos, parts in enumerate(self.components):
            if parts is not None:
                shapes[pos] = [tuple(BASE if d is None else d for d in
                                     (p.shape.as_list() if p.shape is not None else []))
                               for p in parts]
        args, kwargs, _, _, tensors = self._canonical(shapes)
        where = {}
        for pos, x in enumerate(nest.flatten((tuple(args), kwargs))):
            if isinstance(x, _core.Tensor):
                where.setdefault(x._id, (pos, 0))
            elif hasattr(x, "_to_components"):
                for k, c in enumerate(x._to_components()):
                    if isinstance(c, _core.Tensor):
                        where.setdefault(c._id, (pos, k))
        return tensors, [where.get(t._id, (i, 0)) for i, t in enumerate(tensors)]

    def trace(self, sizes):
        """The ConcreteFunction at ``sizes`` of the symbols (inputs are zeros), leaving
        the function's own cache and trace count as they were."""
        shapes = {}
        for (pos, k), shape in zip(self.order, shapes_at(self.specs, self.symbols, sizes)):
            if self.components[pos] is not None:
                shapes.setdefault(pos, [None] * len(self.components[pos]))[k] = shape
        args, kwargs, sig_key, key, tensors = self._canonical(shapes)
        fn = self.fn
        with fn._lock:
            cf = fn._cache.get(key)
            if cf is not None:
                return cf
            count, signatures = fn._tracing_count, set(fn._signatures)
            try:
                cf = fn._trace(args, kwargs, sig_key, key, tensors, run=False)
            finally:
                fn._cache.pop(key, None)
                fn._tracing_count, fn._signatures = count, signatures
        return cf


def shapes_at(specs, symbols, sizes):
    shapes = [list(s.shape.as_list()) for s in specs]
    for sym, size in zip(symbols, sizes):
        for leaf, axis in sym:
            shapes[leaf][axis] = size
    return [tuple(s) for s in shapes]


def corner_sizes(k):
    """Sizes of the ``2**k`` corners, by bit mask (bit i set: symbol i is ALT)."""
    return [[ALT if m >> i & 1 else BASE for i in range(k)] for m in range(2 ** k)]


def verify_sizes(k):
    return list(VERIFY[:k])


# ---- fitting --------------------------------------------------------------------------------

def _poly(values, k):
    """Integer monomial coefficients {frozenset(symbols): c} of the multilinear polynomial
    through ``values`` (one per corner mask). Works elementwise on int64 arrays too."""
    # differences over the corners: e_S = sum over T in S of (-1)^(|S|-|T|) v_T, in the
    # variables d_i - BASE (0 or 1 at the corners)
    e = {}
    for s in range(2 ** k):
        total = 0
        t = s
        while True:
            sign = -1 if bin(s ^ t).count("1") % 2 else 1
            total = total + sign * values[t]
            if t == 0:
                break
            t = (t - 1) & s
        e[s] = total
    # expand prod(d_i - BASE) over S into monomials of the d_i
    coef = {}
    for s, es in e.items():
        u = s
        while True:
            extra = bin(s ^ u).count("1")
            coef[u] = coef.get(u, 0) + es * (-BASE) ** extra
            if u == 0:
                break
            u = (u - 1) & s
    return {frozenset(i for i in range(k) if u >> i & 1): c for u, c in coef.items()}


def _terms(poly):
    return [[int(c), sorted(syms)] for syms, c in sorted(poly.items(), key=lambda p: (
        len(p[0]), sorted(p[0]))) if c != 0]


def _fittable(path):
    # (a loop's maximum_iterations may be a size too: ``x.shape[0]``)
    return "attrs" in path or "py" in path or bool(path) and path[-1] == "maximum_iterations"


def _merge(nodes, k, path, strict=False):
    """One tree for the corner trees ``nodes``: integers that differ where attributes
    and returned Python values are become size polynomials (never when ``strict``)."""
    first = nodes[0]
    if all(n == first and type(n) is type(first) for n in nodes[1:]):
        return first
    if not strict and _fittable(path) and all(type(n) is int for n in nodes):
        return {"__sym__": _terms(_poly(nodes, k))}
    if all(isinstance(n, dict) for n in nodes) and \
            all(n.keys() == first.keys() for n in nodes[1:]):
        return {key: _merge([n[key] for n in nodes], k, path + (key,), strict)
                for key in first}
    if all(isinstance(n, list) for n in nodes) and \
            all(len(n) == len(first) for n in nodes[1:]):
        return [_merge([n[i] for n in nodes], k, path + (i,), strict)
                for i in range(len(first))]
    raise NotGeneric(path)


def instantiate(node, dims):
    """``node`` with every size polynomial replaced by its value at ``dims``."""
    if is_symbolic(node):
        return evaluate(node["__sym__"], dims)
    if isinstance(node, dict):
        return {key: instantiate(v, dims) for key, v in node.items()}
    if isinstance(node, list):
        return [instantiate(v, dims) for v in node]
    return node


def _where(graph, path):
    """Words for the place ``path`` points to in a graph: the op and its attribute."""
    node, words = graph, []
    for i, p in enumerate(path):
        if isinstance(node, dict) and node.get("op") and p == "attrs":
            words.append("op %r (step %s)" % (node["op"], path[i - 1]))
        if p == "grad":
            words.append("the gradient of custom_gradient call %s" % path[i - 1])
        if p == "py":
            words.append("a Python value it returns")
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
    attr = None
    if "attrs" in path:
        j = path.index("attrs")
        if len(path) > j + 2 and path[j + 1] == "__dict__":
            try:
                node = graph
                for p in path[:j + 3]:
                    node = node[p]
                attr = node[0]
            except (KeyError, IndexError, TypeError):
                attr = None
    where = ", ".join(reversed(words)) or "its graph (the ops it runs)"
    return where + (" attribute %r" % attr if attr is not None else "")


def fit(fname, graphs, constants, verify_graph, verify_constants, k):
    """The shape-generic graph of ``fname`` from its traces at the corners (``graphs``,
    ``constants``: one per corner mask) and the check trace; returns (graph, symbolic
    constants {key: {dtype, shape, terms}}, constants that do not change)."""
    try:
        graph = _merge(graphs, k, ())
    except NotGeneric as e:
        raise _refuse(fname, graphs[0], e.args[0], "at sizes %s and %s of its None "
                      "dimensions" % (BASE, ALT)) from None
    check = instantiate(graph, verify_sizes(k))
    try:
        _merge([check, verify_graph], 0, (), strict=True)
    except NotGeneric as e:
        raise _refuse(fname, verify_graph, e.args[0], "at sizes %s, beyond the "
                      "multilinear fit of sizes %s and %s"
                      % (verify_sizes(k), BASE, ALT)) from None
    if any(c.keys() != constants[0].keys() for c in constants) or \
            verify_constants.keys() != constants[0].keys():
        raise _refuse(fname, graphs[0], (), "(its captured constants)")
    fixed, symbolic = {}, {}
    for key, base in constants[0].items():
        arrays = [c[key] for c in constants]
        if all(a.dtype == base.dtype and a.shape == base.shape and
               a.tobytes() == base.tobytes() for a in arrays + [verify_constants[key]]):
            fixed[key] = base
            continue
        fill = _fill_entry(arrays, verify_constants[key], k)
        if fill is not None:                   # e.g. a zero initial state (batch, units)
            symbolic[key] = fill
            continue
        if base.dtype.kind not in "iu" or base.size > MAX_CONSTANT_SIZE or \
                any(a.dtype != base.dtype or a.shape != base.shape for a in arrays):
            raise UnimplementedError(
                "saved_model.save: fe.function %s cannot be saved for every size of its "
                "None dimensions: a constant it captured (%s, %s %s) changes with them; "
                "give its input_signature fully defined shapes"
                % (fname, key, base.dtype, list(base.shape)))
        poly = _poly([a.astype(np.int64) for a in arrays], k)
        terms = [[c.reshape(-1).tolist(), sorted(syms)] for syms, c in poly.items()
                 if np.any(c != 0)]
        entry = {"dtype": base.dtype.str, "shape": list(base.shape), "terms": terms}
        if not np.array_equal(symbolic_constant(entry, verify_sizes(k)), verify_constants[key]):
            raise UnimplementedError(
                "saved_model.save: fe.function %s cannot be saved for every size of its "
                "None dimensions: a constant it captured (%s) is not a multilinear function "
                "of them; give its input_signature fully defined shapes" % (fname, key))
        symbolic[key] = entry
    return graph, symbolic, fixed


def _uniform(a):
    flat = a.reshape(-1)
    return flat.size == 0 or bool(np.all(flat == flat[0]))


def _fill_entry(arrays, verify, k):
    """A constant holding one value everywhere, whose shape follows the sizes: its value
    and a size polynomial per axis; None when the arrays are not such a fill."""
    base = arrays[0]
    everything = arrays + [verify]
    if base.dtype.kind not in "biuf" or not all(
            a.dtype == base.dtype and a.ndim == base.ndim and _uniform(a) for a in everything):
        return None
    values = {a.reshape(-1)[0].item() for a in everything if a.size}
    if len(values) > 1:
        return None
    value = values.pop() if values else 0
    shape_terms = [_terms(_poly([a.shape[axis] for a in arrays], k))
                   for axis in range(base.ndim)]
    if [evaluate(t, verify_sizes(k)) for t in shape_terms] != list(verify.shape):
        return None
    return {"dtype": base.dtype.str, "fill": encode(value, "a constant"),
            "shape_terms": shape_terms}


MAX_FILL_SIZE = 1 << 28       # elements of a fill constant a loaded graph may make


def symbolic_constant(entry, dims):
    """The array a fitted constant takes at sizes ``dims``."""
    if isinstance(entry, dict) and "fill" in entry:
        try:
            dtype = np.dtype(entry["dtype"])
            shape = tuple(evaluate(t, dims) for t in entry["shape_terms"])
            value = decode(entry["fill"])
            if dtype.kind not in "biuf" or any(d < 0 for d in shape) or \
                    int(np.prod(shape, dtype=np.float64)) > MAX_FILL_SIZE or \
                    not isinstance(value, (bool, int, float)):
                raise ValueError("dtype %s shape %s value %.40r" % (dtype, shape, value))
            return np.full(shape, value, dtype)
        except (TypeError, ValueError, KeyError, OverflowError) as e:
            raise DataLossError("saved_model.load: bad size-dependent constant (%s)"
                                % e) from None
    try:
        dtype = np.dtype(entry["dtype"])
        shape = tuple(int(d) for d in entry["shape"])
        if dtype.kind not in "iu" or any(d < 0 for d in shape) or \
                int(np.prod(shape)) > MAX_CONSTANT_SIZE:
            raise ValueError("dtype %s shape %s" % (dtype, shape))
        total = np.zeros(int(np.prod(shape)), np.int64)
        for coefs, syms in entry["terms"]:
            product = 1
            for s in syms:
                product *= dims[s]
            total += np.asarray(coefs, dtype=np.int64).reshape(total.shape) * product
        return total.astype(dtype).reshape(shape)
    except (TypeError, ValueError, KeyError, IndexError, OverflowError) as e:
        raise DataLossError("saved_model.load: bad size-dependent constant (%s)" % e) from None


def _refuse(fname, graph, path, when):
    return UnimplementedError(
        "saved_model.save: fe.function %s cannot be saved for every size of its None "
        "dimensions: %s differs %s; give its input_signature fully defined shapes"
        % (fname, _where(graph, path), when))


def used_symbols(node, found=None):
    """The symbols a graph's size polynomials use."""
    found = set() if found is None else found
    if is_symbolic(node):
        terms = node["__sym__"]
        for term in terms if isinstance(terms, list) else ():   # (bad ones: evaluate raises)
            if isinstance(term, list) and len(term) == 2 and isinstance(term[1], list):
                found.update(s for s in term[1] if type(s) is int)
    elif isinstance(node, dict):
        for v in node.values():
            used_symbols(v, found)
    elif isinstance(node, list):
        for v in node:
            used_symbols(v, found)
    return found


def bind(symbols, used, tensors, fname):
    """The sizes of the symbols in a call with ``tensors``."""
    dims = []
    for i, sym in enumerate(symbols):
        sizes = sorted({tensors[leaf]._value.shape[axis] for leaf, axis in sym})
        if len(sizes) > 1 and i in used:
            raise InvalidArgumentError(
                "saved_model: function %s was saved for inputs whose leading None dimensions "
                "are one size (the batch), and its graph depends on it (got sizes %s)"
                % (fname, sizes))
        dims.append(sizes[0] if sizes else 0)
    return dims
