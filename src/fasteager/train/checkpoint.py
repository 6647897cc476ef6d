"""Object-graph checkpoints (``fe.train.Checkpoint``) in safetensors files.

A checkpoint saves every variable reachable from its root objects, keyed by the path of
attribute names that leads to it (``model/_layers/0/kernel``), with the object graph as
JSON in the file's metadata. Restoring walks the *current* objects the same way and
matches by path, so renaming a variable does not matter but moving it in the object
graph does (as TensorFlow's object-based checkpoints).

Optimizer slots are saved under ``<optimizer path>/slots/<variable path>/<slot name>``,
so they follow their variable. A variable that does not exist yet when ``restore`` runs
(a layer that builds lazily, an optimizer slot created at the first step) takes its
saved value when it is created: the pending values wait on the parent object.

Crash safety: the data file is written to a temporary file, fsynced and renamed; the
``checkpoint`` state file beside it is updated (the same way) only afterwards. A restore
validates every entry (presence, shape, dtype) before assigning anything.
"""
import json
import os
import weakref

import numpy as np

from .. import _atomic
from ..distribute import strategy as _distribute
from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from ..variables import Variable
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


def _walk(roots):
    """Variables by path, optimizers by path, and each object's path (first seen wins)."""
    variables = {}
    optimizers = []
    paths = {}
    stack = [(name, obj) for name, obj in reversed(list(roots.items()))]
    while stack:
        path, obj = stack.pop()
        if id(obj) in paths and not isinstance(obj, (list, tuple, dict)):
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


def _slot_entries(optimizers, variables):
    """Slot variables keyed by <optimizer path>/slots/<variable path>/<slot name>."""
    out = {}
    by_id = {id(v): p for p, v in variables.items()}
    for opt_path, opt in optimizers:
        for var_path, var in variables.items():
            if var_path.startswith(opt_path + "/"):
                continue
            for slot_name in _slot_names(opt, var):
                slot = opt.get_slot(var, slot_name)
                out["%s/slots/%s/%s" % (opt_path, by_id[id(var)], slot_name)] = slot
    return out


def _slot_names(opt, var):
    try:
        names = opt.get_slot_names()
    except Exception:
        return []
    found = []
    for n in names:
        try:
            opt.get_slot(var, n)
            found.append(n)
        except KeyError:
            pass
    return found


# ---- the state file ---------------------------------------------------------------------------

def _write_state(directory, latest, all_paths):
    if not _distribute.should_write():   # multi-worker: only the chief writes
        return
    lines = ['model_checkpoint_path: "%s"' % latest]
    lines += ['all_model_checkpoint_paths: "%s"' % p for p in all_paths]
    _atomic.atomic_write(os.path.join(directory, STATE_FILE),
                         ("\n".join(lines) + "\n").encode())


def _read_state(directory):
    path = os.path.join(directory, STATE_FILE)
    try:
        with open(path, "r") as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None, []
    latest, all_paths = None, []
    for line in text.splitlines():
        key, _, value = line.partition(":")
        value = value.strip().strip('"')
        if key.strip() == "model_checkpoint_path":
            latest = value
        elif key.strip() == "all_model_checkpoint_paths":
            all_paths.append(value)
    return latest, all_paths


def _resolve(directory, p):
    return p if os.path.isabs(p) else os.path.join(directory, p)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint's path in ``checkpoint_dir``, or None when there is none."""
    directory = os.fspath(checkpoint_dir)
    if not os.path.isdir(directory):
        return None
    latest, _ = _read_state(directory)
    if not latest:
        return None
    path = _resolve(directory, latest)
    return path if os.path.exists(path + SUFFIX) else None


# ---- save -------------------------------------------------------------------------------------

def _gather(roots):
    variables, optimizers, _ = _walk(roots)
    entries = dict(variables)
    entries.update(_slot_entries(optimizers, variables))
    return entries


def write_file(path, roots):
    """Write every variable reachable from ``roots`` to ``path`` (atomically)."""
    if not _distribute.should_write():   # multi-worker: only the chief writes
        return
    entries = _gather(roots)
    tensors = {}
    graph = {}
    for key, var in entries.items():
        arr = var._tensor._value
        tensors[key] = np.asarray(arr, order="C")   # (ascontiguousarray would make 0-d 1-d)
        graph[key] = {"name": var.name, "trainable": bool(var.trainable)}
    metadata = {"format": FORMAT, "object_graph": json.dumps(graph, sort_keys=True)}
    _safetensors.save_file(tensors, path, metadata=metadata)
    return path


def _read(path):
    file = os.fspath(path)
    if not os.path.exists(file) and os.path.exists(file + SUFFIX):
        file = file + SUFFIX
    if not os.path.exists(file):
        raise NotFoundError("Checkpoint.restore: no checkpoint at %r (expected the file %r)"
                            % (os.fspath(path), os.fspath(path) + SUFFIX))
    try:
        tensors, metadata = _safetensors.load_file(file, mmap=True)
    except FileNotFoundError:
        raise NotFoundError("Checkpoint.restore: no checkpoint at %r" % file) from None
    except ValueError as e:
        raise DataLossError("Checkpoint.restore: %s" % e) from None
    if metadata.get("format") != FORMAT:
        raise DataLossError("Checkpoint.restore: %s is not a fasteager checkpoint (expected "
                            "metadata format %r, got %r)" % (file, FORMAT, metadata.get("format")))
    return file, tensors


# ---- restore ----------------------------------------------------------------------------------

def _check_entry(file, key, var, arr):
    want = var._tensor._value
    if arr.shape != want.shape:
        raise InvalidArgumentError(
            "Checkpoint.restore: %s: entry %r has shape %s (expected %s, the shape of %s)"
            % (file, key, list(arr.shape), list(want.shape), var.name))
    if arr.dtype != want.dtype:
        raise InvalidArgumentError(
            "Checkpoint.restore: %s: entry %r has dtype %s (expected %s, the dtype of %s)"
            % (file, key, arr.dtype, want.dtype, var.name))


class _Pending:
    """Saved values waiting for variables that do not exist yet (deferred restore)."""

    def __init__(self, file, values):
        self.file = file
        self.values = values     # relative path -> array


_pending_by_object = weakref.WeakKeyDictionary()


def _defer(parent, rel_path, arr, file, key=None, slots=()):
    """Park ``arr`` on ``parent`` for its future variable at ``rel_path``; ``slots`` are
    (optimizer, slot name, value, saved key) for that variable's optimizer slots."""
    try:
        pending = _pending_by_object.setdefault(parent, {})
    except TypeError:
        return False
    pending[rel_path] = (arr, file, key, list(slots))
    return True


def restore_deferred(obj):
    """Give variables created since ``restore`` (under ``obj``) their saved values.

    Called by layers after they create variables; cheap when nothing is pending.
    """
    pending = _pending_by_object.get(obj)
    if not pending:
        return
    variables, optimizers, _ = _walk({"": obj})
    for full, var in variables.items():
        rel = full[1:]
        hit = pending.get(rel)
        if hit is None:
            continue
        arr, file, key, slots = hit
        _check_entry(file, key or rel, var, arr)
        for opt, slot_name, value, slot_key in slots:
            _check_entry(file, slot_key, var, value)
        var.assign(arr)
        for opt, slot_name, value, _ in slots:
            # the optimizer keeps it until the slot is created (its first step)
            opt._restore_slot(var, slot_name, value)
        del pending[rel]
    for _, child in _children(obj):
        # values for deeper objects move down to the child that now exists
        prefix = None
        for name, c in _children(obj):
            if c is child:
                prefix = name + "/"
                break
        moved = {k[len(prefix):]: v for k, v in pending.items() if k.startswith(prefix)}
        if moved and not isinstance(child, Variable):
            for k in moved:
                del pending[prefix + k]
            for k, v in moved.items():
                _defer(child, k, *v)
            restore_deferred(child)
    if not pending:
        _pending_by_object.pop(obj, None)


class CheckpointLoadStatus:
    """What a restore matched; the assert methods raise when something did not."""

    def __init__(self, file, unused_keys, missing, deferred):
        self._file = file
        self._unused = unused_keys      # saved entries matched to no object
        self._missing = missing         # current variables absent from the file
        self._deferred = deferred       # saved entries waiting for their variable

    def assert_consumed(self):
        """Every saved value went to an object and every object got a value."""
        still = [k for k in self._deferred if _still_pending(k)]
        if self._unused or still or self._missing:
            raise AssertionError(
                "Checkpoint.restore: %s was not fully consumed: unmatched saved entries %s; "
                "variables missing from the file %s"
                % (self._file, sorted(self._unused + still), sorted(self._missing)))
        return self

    def assert_existing_objects_matched(self):
        """Every variable that exists now got its value from the file."""
        if self._missing:
            raise AssertionError("Checkpoint.restore: variables missing from %s: %s"
                                 % (self._file, sorted(self._missing)))
        return self

    def assert_nontrivial_match(self):
        return self

    def expect_partial(self):
        """Silence warnings about unmatched values (nothing is printed either way)."""
        return self

    def run_restore_ops(self, session=None):
        return None


def _still_pending(key):
    for pending in list(_pending_by_object.values()):
        for rel, (arr, file, full, slots) in pending.items():
            if key == full or any(key == s[3] for s in slots):
                return True
    return False


class _NoopStatus(CheckpointLoadStatus):
    def __init__(self):
        super().__init__(None, [], [], [])


def restore_file(path, roots):
    """Restore every variable reachable from ``roots`` from the checkpoint at ``path``."""
    file, tensors = _read(path)
    return restore_tensors(file, tensors, roots)


def restore_tensors(file, tensors, roots):
    """Match saved ``tensors`` (path -> array) to the variables under ``roots``: validate
    all, then assign; values for variables that do not exist yet are deferred."""
    variables, optimizers, paths = _walk(roots)
    plan = []
    for key, var in variables.items():
        if key in tensors:
            _check_entry(file, key, var, tensors[key])
            plan.append((var, tensors[key]))
    slot_keys = {}
    by_id = {id(v): p for p, v in variables.items()}
    for opt_path, opt in optimizers:
        for var_path, var in variables.items():
            if var_path.startswith(opt_path + "/"):
                continue
            prefix = "%s/slots/%s/" % (opt_path, by_id[id(var)])
            for key in tensors:
                if key.startswith(prefix):
                    slot_keys[key] = (opt, var, key[len(prefix):])
    # everything is validated: now assign
    for var, arr in plan:
        var.assign(arr)
    for key, (opt, var, slot_name) in slot_keys.items():
        opt._restore_slot(var, slot_name, tensors[key])
    used = {k for k in variables if k in tensors} | set(slot_keys)
    missing = [k for k in variables if k not in tensors]
    # slots of variables that do not exist yet travel with their variable's pending value
    slots_of = {}
    for opt_path, opt in optimizers:
        prefix = opt_path + "/slots/"
        for key in tensors:
            if key in used or not key.startswith(prefix):
                continue
            var_path, _, slot_name = key[len(prefix):].rpartition("/")
            if var_path in tensors and var_path not in variables:
                slots_of.setdefault(var_path, []).append((opt, slot_name, tensors[key], key))
    slot_parked = {s[3] for lst in slots_of.values() for s in lst}
    unused, deferred = [], []
    for key in tensors:
        if key in used or key in slot_parked:
            continue
        slots = slots_of.get(key, ())
        if _defer_to_nearest(key, tensors[key], roots, paths, file, slots):
            deferred.append(key)
            deferred.extend(s[3] for s in slots)
        else:
            unused.append(key)
            unused.extend(s[3] for s in slots)
    return CheckpointLoadStatus(file, unused, missing, deferred)


def _defer_to_nearest(key, arr, roots, paths, file, slots=()):
    """Park a value on the deepest existing object along its path."""
    parts = key.split("/")
    obj = roots.get(parts[0])
    if obj is None:
        return False
    depth = 1
    while depth < len(parts):
        nxt = dict(_children(obj)).get(parts[depth])
        if nxt is None or isinstance(nxt, Variable):
            break
        obj = nxt
        depth += 1
    if isinstance(obj, Variable) or depth >= len(parts):
        return False
    return _defer(obj, "/".join(parts[depth:]), arr, file, key, slots)


# ---- the public classes -----------------------------------------------------------------------

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

    @property
    def save_counter(self):
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name="save_counter")
        return self._save_counter

    def __setattr__(self, name, value):
        if not name.startswith("_") and (_is_trackable(value) or _container(value)):
            self._deps[name] = value
        object.__setattr__(self, name, value)

    def _roots(self):
        roots = dict(self._deps)
        roots["save_counter"] = self.save_counter
        return roots

    def write(self, file_prefix, options=None):
        """Write a checkpoint to ``file_prefix`` (no counter, no state file). Returns the path."""
        prefix = os.fspath(file_prefix)
        directory = os.path.dirname(prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        write_file(prefix + SUFFIX, self._roots())
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
        _, all_paths = _read_state(directory)
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
        return restore_file(save_path, self._roots())


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
