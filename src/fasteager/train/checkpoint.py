"""Object-graph checkpoints (``fe.train.Checkpoint``) in safetensors files.

A checkpoint saves every variable reachable from its root objects, keyed by the path of
attribute names that leads to it (``model/_layers/0/kernel``), with the object graph as
JSON in the file's metadata. Restoring walks the *current* objects the same way and
matches by path, so renaming a variable does not matter but moving it in the object
graph does (as TensorFlow's object-based checkpoints).

Optimizer slots are saved under ``<optimizer path>/slots/<variable path>/<slot name>``,
so they follow their variable; the name TensorFlow's reader shows for one is Keras 3's
``<optimizer path>/_variables/<index>`` (see ``_slot_tf_name``). A variable that does not
exist yet when ``restore`` runs (a layer that builds lazily, an optimizer slot created at
the first step) takes its saved value when it is created: the pending values wait on the
parent object.

Crash safety: the data file is written to a temporary file, fsynced and renamed; the
``checkpoint`` state file beside it is updated (the same way) only afterwards.

Integrity: a restore validates every entry it can match (shape, dtype, optimizer slot
names, shapes and dtypes) before assigning anything, so an error changes no variable and
no slot; values that wait for a variable are validated, all of one object's together,
when it is created. Files are read into memory the values own (never memory-mapped), and
every sign of a corrupt file is a DataLossError naming the file and the entry.
"""
import collections
import json
import os
import re
import weakref

import numpy as np

from .._src.io import atomic as _atomic
from .._src.state import replicas
from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from .._src.state import module as _module
from .._src.state.variables import Variable
from . import _safetensors

FORMAT = "fasteager-checkpoint-1"
SUFFIX = ".safetensors"
STATE_FILE = "checkpoint"

# attributes never followed when walking an object (caches, back-references)
_SKIP = {"_inbound_nodes", "_outbound_nodes", "_parent", "_call_fn_args", "_self_tracked",
         "_deferred_restore", "_output_shape_cache", "__wrapped__", "_checkpoint",
         "_tracking_cache"}


# ---- walking the object graph -----------------------------------------------------------------

def _is_optimizer(obj):
    return hasattr(obj, "_restore_slot") and hasattr(obj, "_slots")


def _is_trackable(v):
    if isinstance(v, Variable):
        return True
    if isinstance(v, Checkpoint) or _is_optimizer(v):
        return True
    cls = type(v)
    for base in cls.__mro__:
        if base.__module__.startswith("fasteager.keras") and base.__name__ in (
                "Layer", "Model", "Metric", "Optimizer"):
            return True
    return hasattr(v, "_checkpoint_dependencies")


def _children(obj):
    """(name, child) pairs of a trackable object, in a stable order."""
    if isinstance(obj, Checkpoint):
        return list(obj._deps.items())
    if hasattr(obj, "_checkpoint_dependencies"):
        return list(obj._checkpoint_dependencies())
    if _is_optimizer(obj):
        # only the optimizer's own variables (iterations, learning rate...): its slots are
        # saved by variable path (_slot_entries), never by position in ``variables``
        return [(k, v) for k, v in obj.__dict__.items()
                if isinstance(v, Variable) and k not in _SKIP]
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _is_trackable(v) or _container(v)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if _is_trackable(v) or _container(v)]
    out = []
    for k, v in getattr(obj, "__dict__", {}).items():
        if k in _SKIP:
            continue
        if _is_trackable(v) or _container(v):
            out.append((k, v))
    return out


def _container(v):
    if isinstance(v, (list, tuple)):
        return any(_is_trackable(x) or _container(x) for x in v)
    if isinstance(v, dict):
        return any(_is_trackable(x) or _container(x) for x in v.values())
    return False


def _walk(roots, aliases=None):
    """Variables by path, optimizers by path, and each object's path (first seen wins).

    ``aliases``: a dict to fill with every other path that reaches a variable -> the path
    it is saved under (restoring through either path finds the value)."""
    variables = {}
    optimizers = []
    paths = {}
    stack = [(name, obj) for name, obj in reversed(list(roots.items()))]
    while stack:
        path, obj = stack.pop()
        if id(obj) in paths and not isinstance(obj, (list, tuple, dict)):
            if aliases is not None and isinstance(obj, Variable) and paths[id(obj)] != path:
                aliases[path] = paths[id(obj)]
            continue
        paths[id(obj)] = path
        if isinstance(obj, Variable):
            variables[path] = obj
            continue
        if _is_optimizer(obj):
            optimizers.append((path, obj))
        for name, child in reversed(_children(obj)):
            stack.append((path + "/" + name, child))
    return variables, optimizers, paths


def _slot_pairs(optimizers, variables):
    """(optimizer path, optimizer, variable path, variable) for every variable an
    optimizer may hold slots for: all but the optimizer's own."""
    return [(opt_path, opt, var_path, var)
            for opt_path, opt in optimizers for var_path, var in variables.items()
            if not var_path.startswith(opt_path + "/")]


def _slot_key(opt_path, var_path, slot_name):
    return "%s/slots/%s/%s" % (opt_path, var_path, slot_name)


def _slot_names(opt):
    """The slot names ``opt`` uses; only an optimizer without ``get_slot_names`` has none
    (any error of the method itself propagates: saving without slots would lose them)."""
    get = getattr(opt, "get_slot_names", None)
    return list(get()) if get is not None else []


def _existing_slots(opt, var, names):
    """name -> slot variable, for the slots ``opt`` has already created for ``var``."""
    found = {}
    for n in names:
        try:
            found[n] = opt.get_slot(var, n)
        except KeyError:          # not created yet (before the optimizer's first step)
            pass
    return found


def _slot_entries(optimizers, variables):
    """Slot variables keyed by <optimizer path>/slots/<variable path>/<slot name>."""
    out = {}
    for opt_path, opt, var_path, var in _slot_pairs(optimizers, variables):
        for slot_name, slot in _existing_slots(opt, var, _slot_names(opt)).items():
            out[_slot_key(opt_path, var_path, slot_name)] = slot
    return out


# ---- the state file ---------------------------------------------------------------------------
# TensorFlow's CheckpointState in protobuf text format: one `key: "value"` a line, strings
# C-escaped. TF's CheckpointManager adds timestamp lines, accepted and ignored.

_PATH_KEYS = ("model_checkpoint_path", "all_model_checkpoint_paths")
_NUMBER_KEYS = ("all_model_checkpoint_timestamps", "last_preserved_timestamp")
_LINE = re.compile(r'\s*(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+0-9.eE]+))\s*$')
_ESCAPE = re.compile(rb'\\([0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)', re.S)
_SIMPLE = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"\\": b"\\", b'"': b'"', b"'": b"'"}


def _quote(s):
    for a, b in (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")):
        s = s.replace(a, b)
    return '"%s"' % s


def _unescape(raw, file, lineno):
    def one(m):
        e = m.group(1)
        if e[:1].isdigit():
            value = int(e, 8)
        elif e[:1] == b"x" and len(e) > 1:
            value = int(e[1:], 16)
        elif e in _SIMPLE:
            return _SIMPLE[e]
        else:
            raise DataLossError("Checkpoint state: %s: line %d: unknown escape (expected one "
                                "of \\n \\t \\\" \\\\ \\ooo \\xHH, got \\%s)"
                                % (file, lineno, e.decode("latin-1")))
        if value > 255:
            raise DataLossError("Checkpoint state: %s: line %d: octal escape out of range "
                                "(expected <= \\377, got \\%s)" % (file, lineno, e.decode()))
        return bytes([value])
    try:
        return _ESCAPE.sub(one, raw.encode("utf-8")).decode("utf-8")
    except UnicodeDecodeError:
        raise DataLossError("Checkpoint state: %s: line %d: a path is not valid UTF-8"
                            % (file, lineno)) from None


def _write_state(directory, latest, all_paths):
    if not replicas.should_write():   # multi-worker: only the chief writes
        return
    lines = ["model_checkpoint_path: " + _quote(latest)]
    lines += ["all_model_checkpoint_paths: " + _quote(p) for p in all_paths]
    _atomic.atomic_write(os.path.join(directory, STATE_FILE),
                         ("\n".join(lines) + "\n").encode())


def _read_state(directory):
    """(latest path, all paths) from ``directory``'s state file; (None, []) without one.

    A state file that cannot be read or parsed raises DataLossError naming it."""
    file = os.path.join(directory, STATE_FILE)
    try:
        with open(file, "rb") as f:
            raw = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None, []
    except OSError as e:
        raise _safetensors.os_error("Checkpoint state", file, e) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataLossError("Checkpoint state: %s: not a text file (expected UTF-8, got byte "
                            "0x%02x at %d)" % (file, raw[e.start], e.start)) from None
    latest, all_paths = None, []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        key = m and m.group(1)
        if not m or key not in _PATH_KEYS + _NUMBER_KEYS or (m.group(2) is None) != (
                key in _NUMBER_KEYS):
            raise DataLossError("Checkpoint state: %s: line %d is not a checkpoint state entry "
                                "(expected 'model_checkpoint_path: \"<path>\"' or "
                                "'all_model_checkpoint_paths: \"<path>\"', got %.80r)"
                                % (file, lineno, line))
        if key in _NUMBER_KEYS:
            continue
        value = _unescape(m.group(2), file, lineno)
        if "\0" in value:
            raise DataLossError("Checkpoint state: %s: line %d: a path holds a NUL byte"
                                % (file, lineno))
        if key == "model_checkpoint_path":
            latest = value
        else:
            all_paths.append(value)
    return latest, all_paths


def _resolve(directory, p):
    return p if os.path.isabs(p) else os.path.join(directory, p)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint's path in ``checkpoint_dir``, or None when there is none.

    Raises DataLossError when the directory's ``checkpoint`` state file is corrupt.
    """
    directory = os.fspath(checkpoint_dir)
    if not os.path.isdir(directory):
        return None
    latest, _ = _read_state(directory)
    if not latest:
        return None
    path = _resolve(directory, latest)
    return path if os.path.isfile(path + SUFFIX) else None


# ---- save -------------------------------------------------------------------------------------

# TensorFlow's names for the saved values (what tf.train.list_variables shows): a variable's
# attribute path plus this suffix; an optimizer slot under its variable's path.
ATTRIBUTES = "/.ATTRIBUTES/VARIABLE_VALUE"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _gather(roots):
    """Key -> variable of everything under ``roots`` (optimizer slots included)."""
    return _gather_named(roots)[0]


def _gather_named(roots):
    """(key -> variable, key -> TensorFlow's name for it, alias path -> key) of everything
    under ``roots``."""
    aliases = {}
    variables, optimizers, _ = _walk(roots, aliases)
    entries = dict(variables)
    tf_names = {k: k + ATTRIBUTES for k in variables}
    positions = {}
    for opt_path, opt, var_path, var in _slot_pairs(optimizers, variables):
        if id(opt) not in positions:
            positions[id(opt)] = {id(v): i for i, v in enumerate(
                getattr(opt, "variables", None) or ())}
        for slot_name, slot in _existing_slots(opt, var, _slot_names(opt)).items():
            key = _slot_key(opt_path, var_path, slot_name)
            entries[key] = slot
            tf_names[key] = _slot_tf_name(opt_path, var_path, slot_name,
                                          positions[id(opt)].get(id(slot)))
    return entries, tf_names, aliases


def _slot_tf_name(opt_path, var_path, slot_name, position):
    """TensorFlow's name for a slot: Keras 3's optimizer keeps its slots in the list
    ``_variables`` (after ``iterations`` and the learning rate), so TensorFlow 2.21 names
    one ``<optimizer>/_variables/<index>``; a slot outside that list keeps the Keras 2
    name ``<variable>/.OPTIMIZER_SLOT/<optimizer>/<slot>`` (files written before this
    used it for every slot, and restore by their stored keys either way)."""
    if position is None:
        return "%s/.OPTIMIZER_SLOT/%s/%s" % (var_path, opt_path, slot_name)
    return "%s/_variables/%d%s" % (opt_path, position, ATTRIBUTES)


def write_file(path, roots):
    """Write every variable reachable from ``roots`` to ``path`` (atomically)."""
    if not replicas.should_write():   # multi-worker: only the chief writes
        return
    entries, tf_names, aliases = _gather_named(roots)
    tensors = {}
    graph = {}
    for key, var in entries.items():
        arr = var._tensor._value
        tensors[key] = np.asarray(arr, order="C")   # (ascontiguousarray would make 0-d 1-d)
        # a Keras 3 weight's TensorFlow variable is named by its path ('dense/kernel:0')
        name = var.path + ":0" if hasattr(var, "path") else var.name
        graph[key] = {"name": name, "trainable": bool(var.trainable),
                      "tf_name": tf_names[key]}
    metadata = {"format": FORMAT, "object_graph": json.dumps(graph, sort_keys=True)}
    if aliases:
        metadata["aliases"] = json.dumps(aliases, sort_keys=True)
    _safetensors.save_file(tensors, path, metadata=metadata)
    return path


def _read(path, opname="Checkpoint.restore", with_metadata=False):
    """(file, tensors) of the checkpoint at ``path`` (with or without its suffix).

    The file is read once into memory the arrays own (never memory-mapped: a value parked
    for a variable created later must survive the file being replaced or truncated)."""
    file = os.fspath(path)
    # the argument is a prefix, as in TensorFlow: "<prefix>.safetensors" first, even when a
    # file named like the prefix exists (a directory's "checkpoint" state file, for one)
    if not file.endswith(SUFFIX) and os.path.exists(file + SUFFIX):
        file = file + SUFFIX
    if not os.path.exists(file):
        raise NotFoundError("%s: no checkpoint at %r (expected the file %r)"
                            % (opname, os.fspath(path), os.fspath(path) + SUFFIX))
    try:
        tensors, metadata = _safetensors.load_file(file)
    except OSError as e:              # NotFoundError, PermissionDeniedError
        raise type(e)("%s: %s" % (opname, e)) from None
    except ValueError as e:           # DataLossError
        raise DataLossError("%s: %s" % (opname, e)) from None
    if metadata.get("format") != FORMAT:
        raise DataLossError("%s: %s is not a fasteager checkpoint (expected metadata format "
                            "%r, got %.80r)" % (opname, file, FORMAT, metadata.get("format")))
    return (file, tensors, metadata) if with_metadata else (file, tensors)


def object_graph(file, metadata, opname):
    """The object graph a checkpoint's metadata records, checked: key -> {"name": str,
    "trainable": bool, "tf_name": str} (each field optional; files written before names
    were recorded have none). Anything else (not JSON, nested too deep, another shape, two
    keys with one TensorFlow name) is a DataLossError naming the file."""
    text = metadata.get("object_graph")
    if text is None:
        return {}
    try:
        graph = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise DataLossError("%s: %s: the object graph metadata is not JSON (%s)"
                            % (opname, file, str(e)[:200])) from None
    if not isinstance(graph, dict):
        raise DataLossError("%s: %s: the object graph metadata is not a JSON object (got %s)"
                            % (opname, file, type(graph).__name__))
    tf_names = set()
    for key, entry in graph.items():
        ok = isinstance(entry, dict) and set(entry) <= {"name", "trainable", "tf_name"} and \
            isinstance(entry.get("name", ""), str) and \
            isinstance(entry.get("trainable", False), bool) and \
            isinstance(entry.get("tf_name", ""), str)
        if not ok:
            raise DataLossError("%s: %s: bad object graph entry for %.80r (expected "
                                "{name, trainable, tf_name}, got %.80r)"
                                % (opname, file, key, entry))
        tf_name = entry.get("tf_name")
        if tf_name is not None:
            if tf_name in tf_names or tf_name == OBJECT_GRAPH_KEY:
                raise DataLossError("%s: %s: the object graph names two values %.80r"
                                    % (opname, file, tf_name))
            tf_names.add(tf_name)
    return graph


def _aliases(file, metadata):
    """The alias paths a checkpoint records (none in files written before they were)."""
    try:
        aliases = json.loads(metadata.get("aliases") or "{}")
    except ValueError:
        raise DataLossError("Checkpoint.restore: %s: the aliases metadata is not JSON"
                            % file) from None
    if not isinstance(aliases, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in aliases.items()):
        raise DataLossError("Checkpoint.restore: %s: the aliases metadata is not a mapping of "
                            "paths" % file)
    return aliases


# ---- restore ----------------------------------------------------------------------------------
# Every loader ends in restore_tensors: it matches the saved values to the variables and
# optimizer slots that exist, validates every match (shape, dtype, slot name), and only
# then assigns; values for objects that do not exist yet wait on their nearest existing
# parent (restore_deferred) and are validated, all together, when they are created.

def _check_entry(opname, file, key, what, want, arr):
    """Raise unless saved ``arr`` fits ``want`` (the array of ``what``, a variable name)."""
    if not isinstance(arr, np.ndarray):
        raise DataLossError("%s: %s: entry %r is not an array (expected an array for %s, got "
                            "%s)" % (opname, file, key, what, type(arr).__name__))
    if arr.shape != want.shape:
        raise InvalidArgumentError(
            "%s: %s: entry %r has shape %s (expected %s, the shape of %s)"
            % (opname, file, key, list(arr.shape), list(want.shape), what))
    if arr.dtype != want.dtype:
        raise InvalidArgumentError(
            "%s: %s: entry %r has dtype %s (expected %s, the dtype of %s)"
            % (opname, file, key, arr.dtype, want.dtype, what))


def _check_slot(opname, file, key, opt, var, slot_name, arr):
    """A saved slot must fit the slot that exists or, before the optimizer's first step,
    the one it will create (slots take their variable's shape and dtype)."""
    existing = _existing_slots(opt, var, [slot_name]).get(slot_name)
    if existing is not None:
        want = existing._tensor._value
    elif hasattr(opt, "_slot_initial_value"):
        # the slot the optimizer will create (Adafactor's factored slots differ in shape)
        want = np.asarray(opt._slot_initial_value(slot_name, var._tensor._value))
    else:
        want = var._tensor._value
    _check_entry(opname, file, key, "slot %r of %s" % (slot_name, var.name), want, arr)


_pending_by_object = weakref.WeakKeyDictionary()


# A saved value waiting for its variable: ``slots`` are (optimizer, slot name, value,
# saved key) for that variable's optimizer slots; ``restore`` is the token of the restore
# that parked it (its load status asks only about its own values).
_Waiting = collections.namedtuple("_Waiting", "arr file key slots opname restore")


def _defer(parent, rel_path, waiting):
    """Park ``waiting`` on ``parent`` for its future variable at ``rel_path``."""
    try:
        pending = _pending_by_object.setdefault(parent, {})
    except TypeError:
        return False
    pending[rel_path] = waiting
    return True


def _pending_of(obj):
    """The values waiting on ``obj`` (None when none can: lists are not weak keys)."""
    try:
        return _pending_by_object.get(obj)
    except TypeError:
        return None


def has_pending(obj):
    """True when a restore left values waiting for variables under ``obj``."""
    return bool(_pending_of(obj))


def _restore_if_pending(obj):
    if has_pending(obj):
        restore_deferred(obj)


def _module_edge(name, value):
    return name not in _SKIP and (_is_trackable(value) or _container(value))


def restore_deferred(obj):
    """Give variables created since ``restore`` (under ``obj``) their saved values.

    Called by layers after they create variables; cheap when nothing is pending. Every
    value that now has its variable is validated before any is assigned.
    """
    if not _pending_of(obj):
        return
    hits = []                                  # (pending dict, rel path, variable, entry)
    _collect(obj, hits)
    for _, rel, var, w in hits:
        _check_entry(w.opname, w.file, w.key, var.name, var._tensor._value, w.arr)
        for opt, slot_name, value, slot_key in w.slots:
            _check_slot(w.opname, w.file, slot_key, opt, var, slot_name, value)
    for pending, rel, var, w in hits:
        var.assign(w.arr)
        for opt, slot_name, value, _ in w.slots:
            # the optimizer keeps it until the slot is created (its first step)
            opt._restore_slot(var, slot_name, value)
        del pending[rel]
        w.restore._restored.update([w.key] + [slot[3] for slot in w.slots])
    _move_down(obj)


def _collect(obj, hits):
    """The pending values under ``obj`` whose variables now exist (nothing is changed)."""
    pending = _pending_of(obj)
    if not pending:
        return
    variables, _, _ = _walk({"": obj})
    for full, var in variables.items():
        hit = pending.get(full[1:])
        if hit is not None:
            hits.append((pending, full[1:], var, hit))


def _move_down(obj):
    """Hand the values still waiting on ``obj`` to the deepest child that now exists."""
    pending = _pending_of(obj)
    if pending is None:
        return
    for name, child in _children(obj):
        if isinstance(child, Variable):
            continue
        prefix = name + "/"
        moved = [k for k in pending if k.startswith(prefix)]
        for k in moved:
            if _defer(child, k[len(prefix):], pending[k]):
                del pending[k]
        if moved:
            _move_down(child)
    if not pending:
        _pending_by_object.pop(obj, None)


class CheckpointLoadStatus:
    """What a restore matched; the assert methods raise when something did not.

    Optimizer slots count as objects: a slot the optimizer has (or will create for a
    variable the file has slots for) but the file lacks is missing, and a saved slot the
    optimizer does not use is unmatched.
    """

    def __init__(self, file, unused_keys, missing, deferred, missing_later=()):
        self._file = file
        self._unused = unused_keys      # saved entries matched to no object
        self._missing = missing         # current variables and slots absent from the file
        self._deferred = deferred       # saved entries waiting for their variable
        self._missing_later = list(missing_later)   # slots of those the file lacks
        self._restored = set()          # deferred entries assigned since

    def assert_consumed(self):
        """Every saved value went to an object and every object got a value."""
        # (a value whose waiting object was garbage-collected never found its variable)
        still = [k for k in self._deferred if k not in self._restored]
        missing = self._missing + self._missing_later
        if self._unused or still or missing:
            raise AssertionError(
                "Checkpoint.restore: %s was not fully consumed: unmatched saved entries %s; "
                "variables and slots missing from the file %s"
                % (self._file, sorted(self._unused + still), sorted(missing)))
        return self

    def assert_existing_objects_matched(self):
        """Every variable and optimizer slot that exists now got its value from the file."""
        if self._missing:
            raise AssertionError("Checkpoint.restore: variables and slots missing from %s: %s"
                                 % (self._file, sorted(self._missing)))
        return self

    def assert_nontrivial_match(self):
        return self

    def expect_partial(self):
        """Silence warnings about unmatched values (nothing is printed either way)."""
        return self

    def run_restore_ops(self, session=None):
        return None


class _NoopStatus(CheckpointLoadStatus):
    def __init__(self):
        super().__init__(None, [], [], [])


def restore_file(path, roots, opname="Checkpoint.restore"):
    """Restore every variable reachable from ``roots`` from the checkpoint at ``path``."""
    file, tensors = _read(path, opname)
    return restore_tensors(file, tensors, roots, opname)


def restore_tensors(file, tensors, roots, opname="Checkpoint.restore", aliases=None,
                    owner=None):
    """Match saved ``tensors`` (path -> array) to the variables under ``roots``: validate
    all, then assign; values for variables that do not exist yet are deferred.

    On any error nothing has changed: no variable, no slot, no pending value."""
    for key in tensors:
        if not isinstance(key, str):
            raise DataLossError("%s: %s: entry name %.80r is not text (expected str, got %s)"
                                % (opname, file, key, type(key).__name__))
    variables, optimizers, _ = _walk(roots)
    plan, used = [], set()
    aliases = aliases or {}
    saved_as = {k: k if k in tensors else aliases.get(k) for k in variables}
    missing = [k for k in variables if saved_as[k] not in tensors]
    for key, var in variables.items():
        saved = saved_as[key]
        if saved in tensors:
            _check_entry(opname, file, saved, var.name, var._tensor._value, tensors[saved])
            plan.append((var, tensors[saved]))
            used.add(saved)
    slot_plan = []                     # (optimizer, variable, slot name, value)
    for opt_path, opt, var_path, var in _slot_pairs(optimizers, variables):
        names = _slot_names(opt)
        saved = {n: _slot_key(opt_path, var_path, n) for n in names}
        saved = {n: k for n, k in saved.items() if k in tensors}
        if saved or _existing_slots(opt, var, names):
            missing += [_slot_key(opt_path, var_path, n) for n in names if n not in saved]
        for n, key in saved.items():
            _check_slot(opname, file, key, opt, var, n, tensors[key])
            slot_plan.append((opt, var, n, tensors[key]))
            used.add(key)
    # slots of variables that do not exist yet travel with their variable's pending value
    slots_of, missing_later = {}, []
    for opt_path, opt in optimizers:
        prefix = opt_path + "/slots/"
        names = _slot_names(opt)
        for key in tensors:
            if key in used or not key.startswith(prefix):
                continue
            var_path, _, slot_name = key[len(prefix):].rpartition("/")
            if (slot_name in names and var_path in tensors and var_path not in variables
                    and not var_path.startswith(opt_path + "/")):
                slots_of.setdefault(var_path, []).append((opt, slot_name, tensors[key], key))
        for var_path, lst in slots_of.items():
            have = {s[1] for s in lst if s[0] is opt}
            if have:
                missing_later += [_slot_key(opt_path, var_path, n) for n in names
                                  if n not in have]
    # everything is validated: now assign
    for var, arr in plan:
        var.assign(arr)
    for opt, var, slot_name, arr in slot_plan:
        opt._restore_slot(var, slot_name, arr)
    slot_parked = {s[3] for lst in slots_of.values() for s in lst}
    unused, deferred = [], []
    status = CheckpointLoadStatus(file, unused, missing, deferred, missing_later)
    for key in tensors:
        if key in used or key in slot_parked:
            continue
        slots = slots_of.get(key, ())
        waiting = _Waiting(tensors[key], file, key, slots, opname, status)
        if _defer_to_nearest(key, waiting, roots, owner):
            deferred.append(key)
            deferred.extend(s[3] for s in slots)
        else:
            unused.append(key)
            unused.extend(s[3] for s in slots)
    return status


def _defer_to_nearest(key, waiting, roots, owner=None):
    """Park a value on the deepest existing object along its path (on ``owner``, the
    Checkpoint restoring, when even the first object does not exist yet)."""
    parts = key.split("/")
    obj = roots.get(parts[0])
    if obj is None:
        return owner is not None and _defer(owner, key, waiting)
    depth = 1
    while depth < len(parts):
        nxt = dict(_children(obj)).get(parts[depth])
        if nxt is None or isinstance(nxt, Variable):
            break
        obj = nxt
        depth += 1
    if isinstance(obj, Variable) or depth >= len(parts):
        return False
    return _defer(obj, "/".join(parts[depth:]), waiting)


# ---- the public classes -----------------------------------------------------------------------

def _restoring_mutator(base, name):
    def method(self, *args, **kwargs):
        result = getattr(base, name)(self, *args, **kwargs)
        owner = self._owner()
        if owner is not None and has_pending(owner):
            restore_deferred(owner)
        return result
    method.__name__ = name
    return method


class ListWrapper(list):
    """A list attribute of a Checkpoint: variables added to it later take the values a
    restore left waiting for them (as TensorFlow's ListWrapper)."""

    def __init__(self, items, owner):
        super().__init__(items)
        self._owner = weakref.ref(owner)

    for _n in ("append", "extend", "insert", "__setitem__", "__iadd__"):
        locals()[_n] = _restoring_mutator(list, _n)
    del _n

    def __repr__(self):
        return "ListWrapper(%s)" % list.__repr__(self)


class DictWrapper(dict):
    """A dict attribute of a Checkpoint (see ListWrapper)."""

    def __init__(self, items, owner):
        super().__init__(items)
        self._owner = weakref.ref(owner)

    for _n in ("__setitem__", "update", "setdefault"):
        locals()[_n] = _restoring_mutator(dict, _n)
    del _n

    def __repr__(self):
        return "DictWrapper(%s)" % dict.__repr__(self)


class Checkpoint:
    """Save and restore variables, layers, models, optimizers (and nested checkpoints).

    >>> ckpt = fe.train.Checkpoint(model=model, optimizer=optimizer)
    >>> path = ckpt.save("/tmp/ckpt/ckpt")      # '/tmp/ckpt/ckpt-1'
    >>> ckpt.restore(fe.train.latest_checkpoint("/tmp/ckpt"))
    """

    def __init__(self, root=None, **kwargs):
        deps = {}
        if root is not None:
            deps["root"] = root
        for name, value in kwargs.items():
            if not (_is_trackable(value) or _container(value)):
                raise ValueError("Checkpoint: %r is not trackable (expected a Variable, layer, "
                                 "model, optimizer or checkpoint; got %s)"
                                 % (name, type(value).__name__))
            deps[name] = value
        self._deps = deps
        self._save_counter = None
        for name, value in deps.items():        # ckpt.step, ckpt.model, as in TensorFlow
            object.__setattr__(self, name, value)

    @property
    def save_counter(self):
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name="save_counter")
        return self._save_counter

    def __setattr__(self, name, value):
        if not name.startswith("_"):
            if type(value) is list:
                value = ListWrapper(value, self)
            elif type(value) is dict:
                value = DictWrapper(value, self)
            if isinstance(value, (ListWrapper, DictWrapper)) or _is_trackable(value) or \
                    _container(value):
                self._deps[name] = value
        object.__setattr__(self, name, value)
        if has_pending(self):    # a value a restore left waiting may have its variable now
            restore_deferred(self)

    def _roots(self, with_counter=True):
        """The root objects; the save counter only once it exists (``write`` before any
        ``save`` stores none, as TensorFlow's) unless ``with_counter``."""
        roots = dict(self._deps)
        if with_counter or self._save_counter is not None:
            roots["save_counter"] = self.save_counter
        return roots

    def write(self, file_prefix, options=None):
        """Write a checkpoint to ``file_prefix`` (no counter, no state file). Returns the path."""
        prefix = os.fspath(file_prefix)
        directory = os.path.dirname(prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        write_file(prefix + SUFFIX, self._roots(with_counter=False))
        return prefix

    def save(self, file_prefix, options=None):
        """Write ``<file_prefix>-<n>`` and record it in the ``checkpoint`` state file."""
        prefix = os.fspath(file_prefix)
        directory = os.path.dirname(prefix) or "."
        os.makedirs(directory, exist_ok=True)
        n = int(self.save_counter.numpy()) + 1
        self.save_counter.assign(np.int64(n))
        path = "%s-%d" % (prefix, n)
        try:
            write_file(path + SUFFIX, self._roots())
        except BaseException:
            self.save_counter.assign(np.int64(n - 1))
            raise
        try:
            _, all_paths = _read_state(directory)
        except DataLossError:
            # the state file is only an index: a corrupt one is replaced by a valid one
            all_paths = []
        name = os.path.basename(path)
        all_paths = [p for p in all_paths if p != name] + [name]
        _write_state(directory, name, all_paths)
        return path

    def read(self, save_path, options=None):
        return self.restore(save_path)

    def restore(self, save_path, options=None):
        """Restore from ``save_path`` (None does nothing). Returns a load status."""
        if save_path is None:
            return _NoopStatus()
        file, tensors, metadata = _read(save_path, "Checkpoint.restore", with_metadata=True)
        roots = self._roots(with_counter="save_counter" in tensors)
        return restore_tensors(file, tensors, roots, "Checkpoint.restore",
                               _aliases(file, metadata), owner=self)


class CheckpointManager:
    """Keeps the ``max_to_keep`` newest checkpoints of one ``Checkpoint`` in a directory."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        self._checkpoint = checkpoint
        self.directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._name = checkpoint_name
        os.makedirs(self.directory, exist_ok=True)
        _, all_paths = _read_state(self.directory)
        self._checkpoints = [_resolve(self.directory, p) for p in all_paths
                             if os.path.exists(_resolve(self.directory, p) + SUFFIX)]

    @property
    def checkpoints(self):
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self):
        return self._checkpoints[-1] if self._checkpoints else None

    @property
    def checkpoint(self):
        return self._checkpoint

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        prefix = os.path.join(self.directory, self._name)
        if checkpoint_number is not None:
            self._checkpoint.save_counter.assign(np.int64(int(checkpoint_number) - 1))
        path = self._checkpoint.save(prefix)
        self._checkpoints = [p for p in self._checkpoints if p != path] + [path]
        if self._max_to_keep is not None:
            while len(self._checkpoints) > self._max_to_keep:
                old = self._checkpoints.pop(0)
                _write_state(self.directory, os.path.basename(path),
                             [os.path.basename(p) for p in self._checkpoints])
                try:
                    os.remove(old + SUFFIX)
                except FileNotFoundError:
                    pass
        _write_state(self.directory, os.path.basename(path),
                     [os.path.basename(p) for p in self._checkpoints])
        return path

    def restore_or_initialize(self):
        if self.latest_checkpoint:
            self._checkpoint.restore(self.latest_checkpoint)
            return self.latest_checkpoint
        return None


# fe.Module (a layer below) asks these through its hooks: its checkpoint edges, and the
# deferred restore after an attribute is set.
_module.set_checkpoint_hooks(_module_edge, _restore_if_pending)
