"""Whole-model saving: ``Model.save(path)`` and ``fe.keras.models.load_model(path)``.

A saved model is its architecture (``get_config`` as JSON, with the class to rebuild it)
and its weights (the checkpoint's safetensors format, keyed by object-graph path):

* ``path.keras``: one zip file holding ``config.json`` and ``model.weights.safetensors``;
* any other path: a directory holding the same two files.

Files are written to temporary names, fsynced and renamed. ``load_model`` rebuilds the
model with ``from_config`` and restores the weights; a model that builds lazily takes
them when it first runs (deferred restore), or at once when the input shape was saved.
"""
import importlib
import io
import json
import os
import zipfile

from .. import _atomic
from ..errors import DataLossError, NotFoundError
from ..train import _safetensors, checkpoint as _ckpt
from ..train import weights as _weights

CONFIG = "config.json"
WEIGHTS = "model.weights.safetensors"


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
    if hasattr(model, "get_config") and not _own_get_config(cls):
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
    return {"class_name": cls.__name__, "module": cls.__module__, "qualname": cls.__qualname__,
            "config": config, "build_input_shape": None if shape is None else list(shape),
            "format": "fasteager-model-1"}


def _weights_bytes(model):
    buf = io.BytesIO()
    tmp = _SpooledPath()
    try:
        _ckpt.write_file(tmp.path, dict(_ckpt._children(model)))
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


def save_model(model, filepath, overwrite=True):
    """Save architecture and weights (see the module docstring for the layouts)."""
    path = os.fspath(filepath)
    if not overwrite and os.path.exists(path):
        raise FileExistsError("save: %s exists and overwrite=False" % path)
    desc = json.dumps(_describe(model), indent=1, default=_json_default).encode()
    if path.endswith(".keras"):
        payload = _weights_bytes(model)
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with _atomic.atomic_open(path) as f:
            with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
                z.writestr(CONFIG, desc)
                z.writestr(WEIGHTS, payload)
        return
    os.makedirs(path, exist_ok=True)
    _weights.save_weights(model, os.path.join(path, WEIGHTS))
    _atomic.atomic_write(os.path.join(path, CONFIG), desc)


def _json_default(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "get_config"):
        return {"class_name": type(o).__name__, "config": o.get_config()}
    if hasattr(o, "name") and isinstance(getattr(o, "name"), str):
        return o.name
    raise TypeError("save: cannot store %r in the model config (expected JSON values)" % (o,))


def _find_class(desc, custom_objects):
    name = desc["class_name"]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    try:
        obj = importlib.import_module(desc["module"])
        for part in desc["qualname"].split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        raise ValueError("load_model: cannot find class %s (module %s): pass it in "
                         "custom_objects={'%s': cls}" % (name, desc["module"], name)) from None


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


def _parse_desc(raw, source):
    try:
        desc = json.loads(raw)
        desc["class_name"], desc["config"]
    except (ValueError, TypeError, KeyError) as e:
        raise DataLossError("load_model: %s: %s is not a saved model config (%s)"
                            % (source, CONFIG, e)) from None
    return desc


def _layer_from_config(spec, custom_objects):
    from . import layers as _layers
    name = spec["class_name"]
    cls = (custom_objects or {}).get(name) or getattr(_layers, name, None)
    if cls is None:
        from . import training
        cls = getattr(training, name, None)
    if cls is None:
        raise ValueError("load_model: unknown layer class %s: pass it in "
                         "custom_objects={'%s': cls}" % (name, name))
    return _from_config(cls, spec["config"], custom_objects)


def _from_config(cls, config, custom_objects):
    from .training import Sequential
    if isinstance(cls, type) and issubclass(cls, Sequential) and "layers" in config:
        config = dict(config)
        layers = [_layer_from_config(spec, custom_objects) for spec in config.pop("layers")]
        return cls(layers, **config)
    return cls.from_config(config) if hasattr(cls, "from_config") else cls(**config)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Rebuild a model saved by ``Model.save`` and restore its weights."""
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
    else:
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
            tensors = _load_weights_file(tmp.path, path)
        finally:
            tmp.close()
        source = path
    cls = _find_class(desc, custom_objects)
    model = _from_config(cls, desc["config"], custom_objects)
    shape = desc.get("build_input_shape")
    if shape is not None and hasattr(model, "build") and not getattr(model, "built", False):
        model.build(tuple(shape))
    _ckpt.restore_tensors(source, tensors, dict(_ckpt._children(model)))
    return model
