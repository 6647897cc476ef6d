"""Structure-aware mutation fuzzing of SavedModel loading (issue 31).

Real SavedModels are saved once per child process with fasteager: a Keras Dense model
(a shape-generic graph with size polynomials), a Module whose function runs LSTM, GRU
and SimpleRNN layers and takes their gradient inside (the fused ``*_backprop`` steps), and
a Keras conv net (fused conv2d, batch norm, max pooling). Each case copies one and
changes its JSON description the way a corrupt or hostile file would, keeping the rest
valid: an op swapped for another real op, inputs added or dropped, register indices out
of range or pointing elsewhere, ``multi`` flipped, attribute values replaced (ints huge or
negative, floats, strings, dtypes fasteager has and has not, shapes, nested values),
attributes renamed, steps dropped, duplicated or reordered, size polynomials altered,
object paths renamed to names the loaded class uses, variables listed twice or under
other paths, the variables file's shapes and dtypes disagreeing with its data. Then the
case loads the copy and calls every function and signature it finds (forward and a
gradient through the tape), and reads the outputs (``repr``, ``dtype``, ``numpy``).

Everything runs in a child (``run_in_child``) with a timeout and a 2 GiB address-space
limit: a crash, hang or allocation out of proportion to the file fails the test; an
untyped error (not fasteager's, a TypeError or a ValueError fasteager raises) is
reported with its case.
"""
import atexit
import copy
import json
import os
import shutil
import struct
import tempfile

import numpy as np

from tests.fuzz import _support as S

GRAPH_FILE = "fasteager_saved_model.json"
VARIABLES_FILE = "variables.safetensors"

X_DENSE = np.linspace(-1, 1, 2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2)
X_RNN = np.linspace(-1, 1, 2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)
X_CONV = np.linspace(-1, 1, 2 * 6 * 6 * 3, dtype=np.float32).reshape(2, 6, 6, 3)

_BASES = {}


def _save_bases():
    """The SavedModels every case starts from (saved once per child)."""
    import fasteager as fe
    root = tempfile.mkdtemp(prefix="fe_sm_fuzz_")
    atexit.register(shutil.rmtree, root, True)

    dense = fe.keras.Sequential([fe.keras.layers.Flatten(), fe.keras.layers.Dense(
        3, activation="relu"), fe.keras.layers.Dense(2)])
    dense(X_DENSE)
    fe.saved_model.save(dense, os.path.join(root, "dense"))

    class Recurrent(fe.Module):
        def __init__(self):
            super().__init__()
            self.v = fe.Variable(np.ones((3,), np.float32))
            self.lstm = fe.keras.layers.LSTM(4, return_sequences=True)
            self.gru = fe.keras.layers.GRU(3)
            self.simple = fe.keras.layers.SimpleRNN(2)

        @fe.function(input_signature=[fe.TensorSpec([2, 4, 3], fe.float32)])
        def f(self, x):
            with fe.GradientTape() as tape:
                tape.watch(x)
                y = (fe.reduce_sum(self.gru(self.lstm(x * self.v))) +
                     fe.reduce_sum(self.simple(x)))
            return {"y": y, "dx": tape.gradient(y, x), "i": fe.cast(x, fe.int32)}

    rnn = Recurrent()
    fe.saved_model.save(rnn, os.path.join(root, "rnn"), signatures=rnn.f)

    conv = fe.keras.Sequential([
        fe.keras.layers.Conv2D(4, 3, activation="relu"),
        fe.keras.layers.BatchNormalization(),
        fe.keras.layers.MaxPooling2D(2), fe.keras.layers.Flatten(),
        fe.keras.layers.Dense(2)])
    conv(X_CONV)
    fe.saved_model.save(conv, os.path.join(root, "conv"))
    for name in ("dense", "rnn", "conv"):
        with open(os.path.join(root, name, GRAPH_FILE)) as f:
            _BASES[name] = (os.path.join(root, name), json.load(f))
    _BASES["root"] = root


def _base(name):
    if not _BASES:
        _save_bases()
    return _BASES[name]


# ---- walking and mutating the description -------------------------------------------------

def _graphs(node, out=None):
    """Every graph in a description (traces, shape-generic graphs, control sub-graphs,
    custom gradients): the dicts holding ``steps``."""
    out = [] if out is None else out
    if isinstance(node, dict):
        if isinstance(node.get("steps"), list):
            out.append(node)
        for v in node.values():
            _graphs(v, out)
    elif isinstance(node, list):
        for v in node:
            _graphs(v, out)
    return out


def _op_steps(desc):
    return [s for g in _graphs(desc) for s in g["steps"] if isinstance(s, dict) and "op" in s]


def _real_ops():
    from fasteager.ops.registry import OPS
    return sorted(OPS)


_DTYPES = ["<f4", "<f8", "<f2", "<i4", "<i8", "|u1", "|b1", "<c8", "<U5", "V8", "M8[s]",
           "S3", "|O", "<m8[D]", ">f4", "<i2"]


def _attr_value(rng):
    """A value for an attribute: plausible ones, and the values a hostile file holds."""
    pick = rng.integers(0, 16)
    if pick == 0:
        return int(rng.choice([0, 1, -1, 2, 3, 7, 2 ** 31, 2 ** 63, -(2 ** 63) - 1, 10 ** 30]))
    if pick == 1:
        return float(rng.choice([0.0, -1.5, 1e300, 0.5]))
    if pick == 2:
        return str(rng.choice(["VALID", "SAME", "tanh", "relu", "sigmoid", "softmax", "",
                               "float32", "<U5", "x" * 50]))
    if pick == 3:
        return None
    if pick == 4:
        return bool(rng.integers(0, 2))
    if pick == 5:
        return {"__npdtype__": str(rng.choice(_DTYPES))}
    if pick == 6:
        return {"__dtype__": str(rng.choice(["float32", "int64", "string", "bogus"]))}
    if pick == 7:
        n = int(rng.integers(0, 5))
        return {"__tuple__": [int(rng.choice([0, 1, 2, 3, -1, -7, 2 ** 20, 2 ** 40]))
                              for _ in range(n)]}
    if pick == 8:
        return [int(rng.integers(-2, 6)) for _ in range(int(rng.integers(0, 4)))]
    if pick == 9:
        return {"__sym__": [[int(rng.choice([1, 2, 10 ** 20])), [int(rng.integers(0, 3))]]]}
    if pick == 10:
        return {"__np__": str(rng.choice(_DTYPES)), "value": int(rng.integers(-3, 3))}
    if pick == 11:
        return {"__array__": [[1, 2], [3, 4]], "dtype": str(rng.choice(_DTYPES))}
    if pick == 12:
        return {"__slice__": [None, int(rng.integers(-3, 3)), int(rng.choice([1, 0, -1]))]}
    if pick == 13:
        return {"__spec__": [[2, 3], "float32", None]}
    if pick == 14:
        return {"__tuple__": [{"__tuple__": [0, 0]}, {"__tuple__": [1, 2 ** 33]}]}
    return {"__dict__": [[1, 2]]}


def _attrs_of(step):
    attrs = step.get("attrs")
    if isinstance(attrs, dict) and isinstance(attrs.get("__dict__"), list):
        return attrs["__dict__"]
    return None


def _choose(rng, items):
    return items[int(rng.integers(0, len(items)))] if items else None


def _mutate_step(rng, desc):
    steps = _op_steps(desc)
    s = _choose(rng, steps)
    if s is None:
        return "no op step"
    kind = int(rng.integers(0, 9))
    if kind == 0:
        other = _choose(rng, [t["op"] for t in steps] + _real_ops())
        s["op"] = other
        return "op -> %s" % other
    if kind == 1:
        if rng.integers(0, 2) and s["ins"]:
            s["ins"].pop(int(rng.integers(0, len(s["ins"]))))
            return "drop an input"
        s["ins"].append(_choose(rng, s["ins"] or [0]))
        return "add an input"
    if kind == 2:
        i = int(rng.integers(0, max(len(s["ins"]), 1)))
        value = int(rng.choice([-1, 0, 1, 3, 10 ** 6, 2 ** 62]))
        if s["ins"]:
            s["ins"][i] = value
        return "input %d -> %d" % (i, value)
    if kind == 3:
        s["multi"] = not s["multi"]
        return "multi flipped"
    if kind == 4:
        if isinstance(s["out"], list) and s["out"] and rng.integers(0, 2):
            s["out"].pop()
            return "drop an output"
        s["out"] = _choose(rng, [[0, 1], 1, -1, "x", [10 ** 7] * 3])
        return "out -> %r" % (s["out"],)
    attrs = _attrs_of(s)
    if attrs is None:
        s["attrs"] = _attr_value(rng)
        return "attrs -> %r" % (s["attrs"],)
    if kind == 5 and attrs:
        pair = _choose(rng, attrs)
        pair[1] = _attr_value(rng)
        return "attr %s -> %r" % (pair[0], pair[1])
    if kind == 6 and attrs:
        pair = _choose(rng, attrs)
        pair[0] = str(_choose(rng, ["dtype", "shape", "axis", "bogus", "given", "key",
                                    "activation", "strides"]))
        return "attr renamed %s" % pair[0]
    if kind == 7:
        name = str(_choose(rng, ["dtype", "shape", "axis", "given", "activation", "perm",
                                 "multiples", "input_shape", "paddings"]))
        attrs.append([name, _attr_value(rng)])
        return "attr added %s" % name
    s["attrs"] = _attr_value(rng)
    return "attrs replaced"


def _mutate_graph(rng, desc):
    g = _choose(rng, _graphs(desc))
    kind = int(rng.integers(0, 6))
    steps = g["steps"]
    if kind == 0 and steps:
        steps.pop(int(rng.integers(0, len(steps))))
        return "drop a step"
    if kind == 1 and steps:
        i = int(rng.integers(0, len(steps)))
        steps.insert(i, copy.deepcopy(steps[i]))
        return "duplicate step %d" % i
    if kind == 2 and len(steps) > 1:
        i, j = rng.integers(0, len(steps), size=2)
        steps[i], steps[j] = steps[j], steps[i]
        return "swap steps %d, %d" % (i, j)
    if kind == 3:
        g["inputs"] = _choose(rng, [[], g["inputs"] * 2, [-1], [10 ** 6]])
        return "graph inputs -> %r" % (g["inputs"],)
    if kind == 4 and g.get("variables"):
        pair = _choose(rng, g["variables"])
        pair[0] = _choose(rng, ["root/nope", "root", pair[0] + "x", 5])
        return "graph variable -> %r" % (pair[0],)
    if g.get("outputs"):
        out = _choose(rng, g["outputs"])
        out.clear()
        out.update(_choose(rng, [{"reg": 10 ** 5}, {"py": _attr_value(rng)}, {"x": 1},
                                 {"reg": -1}]))
        return "output -> %r" % (out,)
    return "nothing"


_RESERVED = ["__class__", "__dict__", "variables", "trainable_variables", "name_scope",
             "__weakref__", "_flatten", "_saved_variable_lists", "signatures", "__call__",
             "v", "0", "_layers", "lstm", "f", ""]


def _mutate_paths(rng, desc):
    kind = int(rng.integers(0, 4))
    name = str(_choose(rng, _RESERVED))
    if kind == 0 and desc["functions"]:
        old = _choose(rng, sorted(desc["functions"]))
        new = _choose(rng, [name, name + "/" + old, old + "/" + name])
        desc["functions"][new] = desc["functions"].pop(old)
        return "function %s -> %s" % (old, new)
    if kind == 1 and desc["variables"]:
        i = int(rng.integers(0, len(desc["variables"])))
        parts = desc["variables"][i].split("/")
        parts[int(rng.integers(0, len(parts)))] = name
        desc["variables"][i] = "/".join(parts)
        return "variable path -> %s" % desc["variables"][i]
    if kind == 2 and desc["variables"]:
        desc["variables"].append(_choose(rng, desc["variables"]))
        return "variable listed twice"
    lists = desc.get("variable_lists")
    if lists:
        key = _choose(rng, sorted(lists))
        lists[key] = _choose(rng, [[], ["root/none"], lists[key] * 2, 5, [1]])
        return "variable list %s -> %r" % (key, lists[key])
    desc["trainable"] = _choose(rng, [[], {"x": 1}, None])
    return "trainable -> %r" % (desc["trainable"],)


def _mutate_symbols(rng, desc):
    generic = [fn["generic"] for fn in list(desc["functions"].values()) +
               list(desc.get("signatures", {}).values())
               if isinstance(fn, dict) and isinstance(fn.get("generic"), dict)]
    g = _choose(rng, generic)
    if g is None:
        return _mutate_step(rng, desc)
    kind = int(rng.integers(0, 3))
    if kind == 0:
        g["symbols"] = _choose(rng, [[], [[[0, 5]]], [[[7, 0]]], [[[0, 0], [0, 1]]], 3])
        return "symbols -> %r" % (g["symbols"],)
    if kind == 1 and g.get("sym_constants"):
        key = _choose(rng, sorted(g["sym_constants"]))
        entry = g["sym_constants"][key]
        if isinstance(entry, dict) and "shape_terms" in entry:
            entry["shape_terms"] = [[[10 ** 9, [0]]], [[10 ** 9, [0]]]]
        else:
            entry["shape"] = [2 ** 40]
        return "symbolic constant %s made huge" % key
    steps = _op_steps(g)
    for s in steps:
        for pair in _attrs_of(s) or []:
            if "__sym__" in json.dumps(pair[1]):
                pair[1] = {"__sym__": [[int(rng.choice([10 ** 12, -5, 3])), [0]]]}
                return "size polynomial of %s" % s["op"]
    return _mutate_step(rng, desc)


def _written_before(g, step):
    """The registers written in graph ``g`` before ``step`` (inputs, constants, variables,
    earlier outputs): rewiring to them keeps the graph loadable, only wrong."""
    regs = list(g["inputs"]) + [int(r) for r in g.get("consts", {})] + \
        [r for _, r in g.get("variables", [])]
    for s in g["steps"]:
        if s is step:
            break
        out = s.get("out")
        regs += out if isinstance(out, list) else [out] if out is not None else []
    return [r for r in regs if type(r) is int]


def _rewire(rng, desc):
    """Loadable but wrong: an op reads another register written before it, or another
    real op of the same arity, outputs and attribute names runs in its place (the kernels
    then see arrays of other ranks, shapes and dtypes than they were saved with)."""
    from fasteager.ops.registry import OPS
    pairs = [(g, s) for g in _graphs(desc) for s in g["steps"]
             if isinstance(s, dict) and "op" in s and s.get("ins")]
    g, s = _choose(rng, pairs)
    if rng.integers(0, 2):
        i = int(rng.integers(0, len(s["ins"])))
        s["ins"][i] = _choose(rng, _written_before(g, s))
        return "%s input %d rewired" % (s["op"], i)
    names = {p[0] for p in _attrs_of(s) or []}
    op = OPS[s["op"]]
    same = [n for n, o in OPS.items() if o.nin == op.nin and o.multi == op.multi and
            names <= o.attrs and n != s["op"]]
    if not same:
        return "no op like %s" % s["op"]
    old, s["op"] = s["op"], _choose(rng, sorted(same))
    return "op %s -> %s" % (old, s["op"])


_MUTATIONS = (_mutate_step, _mutate_step, _rewire, _rewire, _rewire, _mutate_graph,
              _mutate_paths, _mutate_symbols)


def _mutate_variables_file(rng, path):
    """Rewrite the safetensors header of the variables file (its framing kept valid): an
    entry's shape, dtype or offsets no longer agree with its data."""
    raw = bytearray(open(path, "rb").read())
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    keys = [k for k in header if k != "__metadata__"]
    key = _choose(rng, keys)
    entry = header[key]
    kind = int(rng.integers(0, 4))
    if kind == 0:
        entry["shape"] = entry["shape"] + [1] if rng.integers(0, 2) else \
            [d + 1 for d in entry["shape"]] or [2]
    elif kind == 1:
        entry["dtype"] = str(_choose(rng, ["F64", "I32", "BOOL", "F16", "U8", "X9"]))
    elif kind == 2:
        b, e = entry["data_offsets"]
        entry["data_offsets"] = [b, e + int(rng.choice([-4, 4, 10 ** 9]))]
    else:
        entry["shape"] = [2 ** 31, 2 ** 31]
    body = json.dumps(header).encode()
    open(path, "wb").write(struct.pack("<Q", len(body)) + body + raw[8 + n:])
    return "variables file: %s %s" % (key, ["shape", "dtype", "offsets", "huge"][kind])


# ---- running a loaded copy ---------------------------------------------------------------

def _touch(out):
    """Read what a call gave back, as a user would."""
    import fasteager as fe
    for t in fe.nest.flatten(out):
        if isinstance(t, fe.Tensor):
            repr(t)
            t.dtype.name
            t.numpy()


def _exercise(directory, which):
    import fasteager as fe
    loaded = fe.saved_model.load(directory)
    x = {"dense": X_DENSE, "rnn": X_RNN, "conv": X_CONV}[which]
    repr(loaded.variables)
    targets = []
    if which == "rnn":
        f = loaded.__dict__.get("f")
        if callable(f):
            targets.append(lambda: f(fe.constant(x)))
    else:
        call = loaded.__dict__.get("__call__")
        if callable(call):
            targets.append(lambda: call(fe.constant(x)))
    for sig in loaded.signatures.values():
        targets.append(lambda sig=sig: sig(fe.constant(x)))
    for target in targets:
        _touch(target())
        with fe.GradientTape() as tape:
            out = target()
        leaves = [t for t in fe.nest.flatten(out) if isinstance(t, fe.Tensor) and
                  t.dtype.is_floating]
        if leaves:
            tape.gradient(fe.add_n([fe.reduce_sum(t) for t in leaves]),
                          loaded.trainable_variables)


def _case(rng):
    which = str(_choose(rng, ["dense", "rnn", "conv"]))
    src, desc = _base(which)
    desc = copy.deepcopy(desc)
    done = []
    for _ in range(int(rng.choice([1, 1, 1, 2, 2, 3]))):
        done.append(_MUTATIONS[int(rng.integers(0, len(_MUTATIONS)))](rng, desc))
    dst = tempfile.mkdtemp(dir=_BASES["root"])
    for name in os.listdir(src):
        shutil.copy(os.path.join(src, name), os.path.join(dst, name))
    with open(os.path.join(dst, GRAPH_FILE), "w") as f:
        json.dump(desc, f)
    if rng.random() < 0.15:
        done.append(_mutate_variables_file(rng, os.path.join(dst, VARIABLES_FILE)))

    def thunk():
        try:
            _exercise(dst, which)
        finally:
            shutil.rmtree(dst, True)
    return "%s: %s" % (which, "; ".join(done)), thunk


def _unmutated(rng):
    which = str(_choose(rng, ["dense", "rnn", "conv"]))
    src, _ = _base(which)

    def thunk():
        try:
            _exercise(src, which)
        except Exception as e:       # noqa: BLE001 - no error at all is expected here
            raise AssertionError("the unmutated %s model failed: %s" % (
                which, S.describe_error(e))) from None
    return which + " unmutated", thunk


CHILD_TARGETS = {"mutated": _case}
HARNESS_TARGETS = {"unmutated": _unmutated}


def test_mutated_saved_models_load_or_raise_typed_errors():
    n = S.examples(120)
    ran = S.run_in_child(__name__, "mutated", 20261207, n, timeout=max(120, n // 2),
                         memory_mb=2048)
    assert ran == n


def test_unmutated_saved_models_run_in_the_child():
    # the harness itself: the three models load and every call and gradient works
    assert S.run_in_child(__name__, "unmutated", 1, 3, timeout=120, memory_mb=2048) == 3
