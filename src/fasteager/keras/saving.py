"""Whole-model saving: ``Model.save(path)`` and ``fe.keras.models.load_model(path)``.

A saved model is its architecture (``get_config`` as JSON, with the class to rebuild it)
and its weights (the checkpoint's safetensors format, keyed by object-graph path):

* ``path.keras``: one zip file holding ``config.json`` and ``model.weights.safetensors``;
* ``path.h5`` / ``path.hdf5``: one HDF5 file (h5py, the ``[h5]`` extra), Keras's legacy
  single-file form: the architecture JSON in the root attribute ``model_config``, the
  weights as datasets keyed by fasteager's object-graph paths (not Keras's per-layer
  groups), so ``load_weights`` reads it too;
* a path without a suffix: a directory holding the two files of the ``.keras`` zip.
  Any other suffix is an error (no directory is ever given a file's name).

Layers whose state is not in variables (an adapted StringLookup, IntegerLookup or
TextVectorization vocabulary) write it with Keras's ``save_assets(dir)`` under
``assets/<index>_<class>/`` in the zip or the directory, and ``load_model`` hands it back
through ``load_assets(dir)`` (not in .h5 files).

A compiled model also stores Keras 3's ``compile_config`` (``training_config`` in .h5) and
its optimizer's variables under ``optimizer/``; ``load_model(compile=True)`` compiles from
it and restores the optimizer's state.

Files are written to temporary names, fsynced and renamed. ``load_model`` rebuilds the
model with ``from_config`` and restores the weights; a model that builds lazily takes
them when it first runs (deferred restore), or at once when the input shape was saved.

Files are untrusted: loading constructs only fasteager's own classes and those the user
allowed (``register_keras_serializable``, ``custom_objects=``, ``custom_object_scope``);
it never imports the modules a file names (see ``_serialization``). ``safe_mode=True``
(the default) also refuses Python lambdas saved as bytecode.
"""
import io
import json
import os
import tempfile
import zipfile

from .._src.io import atomic as _atomic
from ..errors import AlreadyExistsError, DataLossError, InvalidArgumentError, NotFoundError
from ..train import _safetensors
from ..train import checkpoint as _ckpt
from ..train import weights as _weights
from . import _serialization
from . import metrics as metrics_module
from ._serialization import (  # noqa: F401
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from .layers.base import Layer

CONFIG = "config.json"
WEIGHTS = "model.weights.safetensors"
H5_SUFFIXES = (".h5", ".hdf5")
# state kept outside variables (an adapted vocabulary), by Keras's save_assets/load_assets:
# "assets/<index>_<layer class>/<file>" in the zip or the directory
ASSETS = "assets"


def _own_get_config(cls):
    """Whether ``cls`` (a Model subclass) defines get_config itself, below the framework's
    Layer/Model (whose generic config cannot rebuild a subclassed model)."""
    for base in cls.__mro__:
        if "get_config" in base.__dict__:
            return not (base.__module__.startswith("fasteager.keras")
                        and base.__name__ in ("Layer", "Model"))
    return False


def _describe(model):
    cls = type(model)
    auto = getattr(model, "_auto_config", None) is not None    # Keras 3's automatic config
    if hasattr(model, "get_config") and not _own_get_config(cls) and not auto:
        raise NotImplementedError(
            "save: %s does not implement get_config(): subclassed models must define "
            "get_config() (returning their __init__ arguments) to be saved whole, or use "
            "save_weights" % cls.__name__)
    if not hasattr(model, "get_config"):
        raise NotImplementedError("save: %s has no get_config(); implement it to save the "
                                  "whole model, or use save_weights" % cls.__name__)
    try:
        config = model.get_config()
    except NotImplementedError:
        raise NotImplementedError(
            "save: %s.get_config() is not implemented: subclassed models must define "
            "get_config() (returning their __init__ arguments) to be saved whole, or use "
            "save_weights" % cls.__name__) from None
    shape = getattr(model, "_saved_input_shape", None)
    spec = getattr(model, "_input_spec", None)       # a Sequential started with Input(...)
    if shape is None and spec is not None and getattr(model, "built", False):
        shape = [None] + list(spec.shape.as_list())[1:]
    desc = {"class_name": cls.__name__, "module": cls.__module__, "qualname": cls.__qualname__,
            "config": serialize_keras_object(config),
            "build_input_shape": None if shape is None else list(shape),
            "format": "fasteager-model-1"}
    if get_registered_name(cls) != cls.__name__:
        desc["registered_name"] = get_registered_name(cls)
    return desc


def _save_roots(model):
    """The objects whose variables a saved model holds: the model's children and, once
    compiled, its optimizer (iterations, learning rate, slots keyed by variable path)."""
    roots = dict(_ckpt._children(model))
    if getattr(model, "_is_compiled", False) and getattr(model, "optimizer", None) is not None:
        roots["optimizer"] = model.optimizer
    return roots


def _weights_bytes(model):
    buf = io.BytesIO()
    tmp = _SpooledPath()
    try:
        _ckpt.write_file(tmp.path, _save_roots(model))
        with open(tmp.path, "rb") as f:
            buf.write(f.read())
    finally:
        tmp.close()
    return buf.getvalue()


class _SpooledPath:
    def __init__(self):
        import tempfile
        fd, self.path = tempfile.mkstemp(suffix=".safetensors")
        os.close(fd)

    def close(self):
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass


def _asset_layers(model):
    """(key, layer) for each layer with assets, in the model's layer order (keyed by
    position and class: a sub-layer's generated name may differ after a reload)."""
    layers = model._flatten_layers() if hasattr(model, "_flatten_layers") else [model]
    return [("%d_%s" % (i, type(layer).__name__), layer) for i, layer in enumerate(layers)
            if hasattr(layer, "save_assets") and hasattr(layer, "load_assets")]


def _save_assets(model):
    """{archive name: bytes} of every layer's assets."""
    out = {}
    for key, layer in _asset_layers(model):
        with tempfile.TemporaryDirectory() as tmp:
            layer.save_assets(tmp)
            for name in sorted(os.listdir(tmp)):
                with open(os.path.join(tmp, name), "rb") as f:
                    out["%s/%s/%s" % (ASSETS, key, name)] = f.read()
    return out


def _load_assets(model, files, source):
    """Hand each layer the asset files saved for it (``files``: archive name -> bytes)."""
    for key, layer in _asset_layers(model):
        prefix = "%s/%s/" % (ASSETS, key)
        mine = {name[len(prefix):]: data for name, data in files.items()
                if name.startswith(prefix)}
        if not mine:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in mine.items():
                if not name or "/" in name or "\\" in name or name in (".", ".."):
                    raise DataLossError("load_model: %s: bad asset name %r" % (source, name))
                with open(os.path.join(tmp, name), "wb") as f:
                    f.write(data)
            layer.load_assets(tmp)


def save_model(model, filepath, overwrite=True):
    """Save architecture and weights (see the module docstring for the layouts)."""
    path = os.fspath(filepath)
    if not overwrite and os.path.exists(path):
        raise AlreadyExistsError("save: %s exists and overwrite=False (expected a new path, "
                                 "or overwrite=True)" % path)
    suffix = os.path.splitext(path)[1]
    if suffix not in ("", ".keras") + H5_SUFFIXES and not os.path.isdir(path):
        raise ValueError("save: unknown format for %r (expected a path ending in .keras, "
                         ".h5 or .hdf5, or a directory path without a suffix; got %r)"
                         % (path, suffix))
    desc = _describe(model)
    compile_config = model.get_compile_config() if hasattr(model, "get_compile_config") \
        else None
    if suffix in H5_SUFFIXES:
        attrs = {"model_config": json.dumps(desc, indent=1), "backend": "fasteager"}
        if compile_config is not None:
            # Keras's legacy layout: the optimizer as "optimizer_config", without its module
            training = {k: v for k, v in compile_config.items() if k != "optimizer"}
            opt = compile_config["optimizer"]
            training["optimizer_config"] = {"class_name": opt["class_name"],
                                            "config": opt["config"]} \
                if isinstance(opt, dict) else opt
            attrs["training_config"] = json.dumps(training)
        _weights.save_weights(model, path, h5_attrs=attrs, roots=_save_roots(model))
        return
    if compile_config is not None:
        desc["compile_config"] = compile_config
    desc = json.dumps(desc, indent=1).encode()
    if path.endswith(".keras"):
        payload = _weights_bytes(model)
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with _atomic.atomic_open(path) as f:
            with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
                z.writestr(CONFIG, desc)
                z.writestr(WEIGHTS, payload)
                for name, data in _save_assets(model).items():
                    z.writestr(name, data)
        return
    os.makedirs(path, exist_ok=True)
    _weights.save_weights(model, os.path.join(path, WEIGHTS), roots=_save_roots(model))
    for name, data in _save_assets(model).items():
        os.makedirs(os.path.dirname(os.path.join(path, name)), exist_ok=True)
        _atomic.atomic_write(os.path.join(path, name), data)
    _atomic.atomic_write(os.path.join(path, CONFIG), desc)


def _load_weights_file(file, source):
    try:
        tensors, metadata = _safetensors.load_file(file)
    except FileNotFoundError:
        raise NotFoundError("load_model: %s has no %s" % (source, WEIGHTS)) from None
    except ValueError as e:
        raise DataLossError("load_model: %s: %s" % (source, e)) from None
    if metadata.get("format") != _ckpt.FORMAT:
        raise DataLossError("load_model: %s: %s is not a fasteager weights file"
                            % (source, WEIGHTS))
    return tensors


def _read_h5_model(path):
    """(description, weights) of a model saved as .h5, validated like the other forms."""
    h5py = _weights._h5py("load_model")
    try:
        with h5py.File(path, "r") as f:
            raw = f.attrs.get("model_config")
            training = f.attrs.get("training_config")
    except (OSError, KeyError, ValueError) as e:
        raise DataLossError("load_model: %s is not an HDF5 file (%s)" % (path, e)) from None
    if raw is None:
        raise DataLossError("load_model: %s has no model_config attribute (expected a file "
                            "written by Model.save; a weights file loads with load_weights)"
                            % path)
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DataLossError("load_model: %s: model_config is not UTF-8 text" % path) from None
    if not isinstance(raw, str):
        raise DataLossError("load_model: %s: model_config is not text (expected a JSON "
                            "string, got %s)" % (path, type(raw).__name__))
    desc = _parse_desc(raw, path)
    if training is not None:
        desc["compile_config"] = _training_to_compile_config(training, path)
    return desc, _weights._read(path, ".h5")


def _training_to_compile_config(raw, path):
    """A .h5 file's ``training_config`` attribute (Keras's legacy form) as a compile_config."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DataLossError("load_model: %s: training_config is not UTF-8 text" % path) \
                from None
    try:
        config = json.loads(raw) if isinstance(raw, str) else None
    except (ValueError, RecursionError) as e:
        raise DataLossError("load_model: %s: training_config is not JSON (%s)"
                            % (path, type(e).__name__)) from None
    if not isinstance(config, dict):
        raise DataLossError("load_model: %s: training_config must be a JSON object (got %s)"
                            % (path, type(config).__name__))
    config = dict(config)
    if "optimizer_config" in config:
        config["optimizer"] = config.pop("optimizer_config")
    return config


def _parse_desc(raw, source):
    try:
        desc = json.loads(raw)
        desc["class_name"], desc["config"]
    except (ValueError, TypeError, KeyError, RecursionError) as e:
        raise DataLossError("load_model: %s: %s is not a saved model config (%s)"
                            % (source, CONFIG, type(e).__name__ if isinstance(e, RecursionError)
                               else e)) from None
    if not isinstance(desc["class_name"], str) or not isinstance(desc["config"], dict):
        raise DataLossError("load_model: %s: %s is not a saved model config (expected a "
                            "class_name string and a config dict)" % (source, CONFIG))
    shape = desc.get("build_input_shape")
    if shape is not None and not (isinstance(shape, list) and all(
            d is None or (type(d) is int and d >= 0) for d in shape)):
        raise DataLossError("load_model: %s: build_input_shape must be a list of sizes "
                            "(got %r)" % (source, shape))
    return desc


_COMPILE_KEYS = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics",
                 "run_eagerly", "steps_per_execution", "jit_compile")


def _check_compile_config(config, source):
    """Refuse a compile_config whose shape no ``get_compile_config`` could have written."""
    if not isinstance(config, dict):
        raise DataLossError("load_model: %s: compile_config must be a dict (got %s)"
                            % (source, type(config).__name__))
    unknown = sorted(str(k) for k in config if k not in _COMPILE_KEYS)
    if unknown:
        raise DataLossError("load_model: %s: compile_config has unknown keys %s (expected "
                            "some of %s)" % (source, unknown, list(_COMPILE_KEYS)))
    opt = config.get("optimizer", "rmsprop")
    if not (isinstance(opt, str) or (isinstance(opt, dict) and "class_name" in opt
                                     and "config" in opt)):
        raise DataLossError("load_model: %s: compile_config's optimizer must be a name or a "
                            "serialized optimizer (got %.80r)" % (source, opt))
    for key in ("run_eagerly", "jit_compile"):
        if config.get(key) not in (None, True, False):
            raise DataLossError("load_model: %s: compile_config's %s must be a bool (got %.80r)"
                                % (source, key, config[key]))
    steps = config.get("steps_per_execution")
    if steps is not None and not (type(steps) is int and steps >= 1):
        raise DataLossError("load_model: %s: compile_config's steps_per_execution must be a "
                            "positive int (got %.80r)" % (source, steps))


def _check_metric_names(args):
    """Resolve the metric names now (compile resolves them at the first batch), so a file
    naming an unknown metric fails at load time, as Keras 3's does."""
    pending = [args.get("metrics"), args.get("weighted_metrics")]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, str) and item not in ("accuracy", "acc", "crossentropy", "ce"):
            metrics_module.get(item)


def _compile_from_config(model, config, custom_objects=None, safe_mode=True,
                         source="compile_from_config"):
    """Compile ``model`` from a saved compile_config (Model.compile_from_config's body):
    every object goes through the allow-list; the optimizer is built for the model's
    trainable variables so a restore can fill its state."""
    _check_compile_config(config, source)
    where = "load_model: %s: compile_config" % source
    args = deserialize_keras_object(config, custom_objects, safe_mode, where=where)
    opt = args.get("optimizer", "rmsprop")
    if not (isinstance(opt, str) or hasattr(opt, "apply_gradients")):
        raise TypeError("%s: the optimizer is a %s, not an optimizer (expected an optimizer "
                        "config)" % (where, type(opt).__name__))
    try:
        _check_metric_names(args)
        model.compile(**args)
    except (DataLossError, InvalidArgumentError, _serialization._RefusedError):
        raise
    except (TypeError, ValueError, KeyError) as e:
        # a loss or metric name that is neither built in nor registered (Keras 3 raises
        # TypeError "Could not locate function" for it), or values compile refuses
        raise TypeError("%s: cannot compile from it (%s: %s); register custom losses and "
                        "metrics or pass them in custom_objects" % (where, type(e).__name__, e)
                        ) from None
    if getattr(model, "built", False) and hasattr(model.optimizer, "build"):
        model.optimizer.build(model.trainable_variables)


def _rebuild(desc, custom_objects, safe_mode):
    """The model a config describes, through the allow-list of ``_serialization``."""
    cls = _serialization.lookup(desc, custom_objects)
    if cls is None:
        raise _serialization.refuse(desc, "load_model")
    if not (isinstance(cls, type) and issubclass(cls, Layer)):
        raise TypeError("load_model: the saved model is a %r, not a model or layer (expected "
                        "a Model subclass)" % (desc["class_name"],))
    spec = {k: desc[k] for k in ("class_name", "config", "module", "registered_name")
            if k in desc}
    return deserialize_keras_object(spec, custom_objects, safe_mode)


def _read_assets(path):
    """{archive name: bytes} of the assets saved at ``path`` (none in .h5 files)."""
    out = {}
    if os.path.isdir(path):
        root = os.path.join(path, ASSETS)
        if os.path.isdir(root):
            for key in sorted(os.listdir(root)):
                for name in sorted(os.listdir(os.path.join(root, key))):
                    with open(os.path.join(root, key, name), "rb") as f:
                        out["%s/%s/%s" % (ASSETS, key, name)] = f.read()
    elif not path.endswith(H5_SUFFIXES):
        try:
            with zipfile.ZipFile(path) as z:
                for name in z.namelist():
                    if name.startswith(ASSETS + "/"):
                        out[name] = z.read(name)
        except (zipfile.BadZipFile, KeyError, OSError, EOFError) as e:
            raise DataLossError("load_model: %s is not a saved model (%s)" % (path, e)) \
                from None
    return out


def _read_keras_zip(path):
    """(the model description, the weights by path) of a ``.keras`` zip."""
    try:
        with zipfile.ZipFile(path) as z:
            desc = _parse_desc(z.read(CONFIG), path)
            payload = z.read(WEIGHTS)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError) as e:
        raise DataLossError("load_model: %s is not a saved model (%s)" % (path, e)) from None
    tmp = _SpooledPath()
    try:
        with open(tmp.path, "wb") as f:
            f.write(payload)
        return desc, _load_weights_file(tmp.path, path)
    finally:
        tmp.close()


def model_from_json(json_string, custom_objects=None):
    """The model a JSON config names (``model.to_json()``, Keras's or fasteager's), built
    through the same allow-list as ``load_model``; its weights are new."""
    try:
        desc = json.loads(json_string)
    except (TypeError, ValueError) as e:
        raise ValueError("model_from_json: json_string is not valid JSON (%s)" % e) from None
    if not (isinstance(desc, dict) and isinstance(desc.get("class_name"), str)
            and isinstance(desc.get("config"), dict)):
        raise ValueError("model_from_json: expected a JSON object with 'class_name' and "
                         "'config' (got %.80r)" % (json_string,))
    return _rebuild(desc, custom_objects, True)


def save_weights(model, filepath, overwrite=True, max_shard_size=None, **kwargs):
    """``model.save_weights`` to a ``.weights.h5`` file, as ``keras.saving.save_weights``."""
    path = str(filepath)
    if kwargs:
        raise ValueError("Invalid keyword arguments: %s" % (kwargs,))
    if max_shard_size is not None:
        raise ValueError("save_weights: max_shard_size (Keras's sharded .weights.json "
                         "files) is not supported; save one .weights.h5 file (received "
                         "max_shard_size=%r)" % (max_shard_size,))
    if not path.endswith(".weights.h5"):
        raise ValueError("The filename must end in `.weights.h5`. Received: filepath=%s"
                         % path)
    model.save_weights(filepath, overwrite=overwrite)


def load_weights(model, filepath, skip_mismatch=False, **kwargs):
    """Load weights into ``model`` from a ``.keras`` model file, a ``.weights.h5`` file or a
    legacy ``.h5`` file, as ``keras.saving.load_weights``."""
    path = str(filepath)
    objects_to_skip = kwargs.pop("objects_to_skip", None)
    by_name = kwargs.pop("by_name", None)
    if kwargs:
        raise ValueError("Invalid keyword arguments: %s" % (kwargs,))
    if path.endswith(".keras"):
        if objects_to_skip is not None:
            raise ValueError("`objects_to_skip` only supports loading '.weights.h5' files."
                             "Received: %s" % path)
        if by_name is not None:
            raise ValueError("`by_name` only supports loading legacy '.h5' or '.hdf5' files. "
                             "Received: %s" % path)
        if skip_mismatch:
            raise ValueError("load_weights: skip_mismatch=True is not supported for .keras "
                             "files (received %s); load the model with load_model" % path)
        if not os.path.exists(path):
            raise NotFoundError("load_weights: nothing at %r" % path)
        _, tensors = _read_keras_zip(path)
        _ckpt.restore_tensors(path, tensors, _save_roots(model), "load_weights")
    elif path.endswith((".weights.h5", ".weights.json")):
        if by_name is not None:
            raise ValueError("`by_name` only supports loading legacy '.h5' or '.hdf5' files. "
                             "Received: %s" % path)
        if objects_to_skip is not None:
            raise ValueError("load_weights: objects_to_skip is not supported (received %r)"
                             % (objects_to_skip,))
        model.load_weights(filepath, skip_mismatch=skip_mismatch)
    elif path.endswith((".h5", ".hdf5")):
        if objects_to_skip is not None:
            raise ValueError("`objects_to_skip` only supports loading '.weights.h5' files."
                             "Received: %s" % path)
        model.load_weights(filepath, skip_mismatch=skip_mismatch, by_name=bool(by_name))
    else:
        raise ValueError("File format not supported: filepath=%s. Keras 3 only supports V3 "
                         "`.keras` files, `.weights.h5` files, legacy H5 format files "
                         "(`.h5` extension), or Orbax checkpoints." % path)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Rebuild a model saved by ``Model.save`` and restore its weights.

    Only fasteager's classes and allowed custom ones are constructed: pass your own in
    ``custom_objects={"MyLayer": MyLayer}`` or register them with
    ``@fe.keras.saving.register_keras_serializable()``. ``safe_mode=False`` allows Python
    lambdas saved in the file (their bytecode runs: only for files you trust).
    """
    if custom_objects is not None and not isinstance(custom_objects, dict):
        raise TypeError("load_model: custom_objects must be a dict of name -> object (got %s)"
                        % type(custom_objects).__name__)
    path = os.fspath(filepath)
    if not os.path.exists(path):
        raise NotFoundError("load_model: nothing at %r" % path)
    if os.path.isdir(path):
        try:
            with open(os.path.join(path, CONFIG), "rb") as f:
                desc = _parse_desc(f.read(), path)
        except FileNotFoundError:
            raise NotFoundError("load_model: %s has no %s" % (path, CONFIG)) from None
        source = os.path.join(path, WEIGHTS)
        tensors = _load_weights_file(source, path)
    elif path.endswith(H5_SUFFIXES):
        desc, tensors = _read_h5_model(path)
        source = path
    else:
        desc, tensors = _read_keras_zip(path)
        source = path
    model = _rebuild(desc, custom_objects, safe_mode)
    _load_assets(model, _read_assets(path), path)
    shape = desc.get("build_input_shape")
    if shape is not None and hasattr(model, "build") and not getattr(model, "built", False):
        model.build(tuple(shape))
    compile_config = desc.get("compile_config")
    if compile and compile_config is not None:
        # Keras 3: a model saved compiled comes back compiled (compile=False skips it); a
        # file without compile_config (older fasteager files) loads uncompiled
        _compile_from_config(model, compile_config, custom_objects, safe_mode, path)
    _ckpt.restore_tensors(source, tensors, _save_roots(model), "load_model")
    return model
