"""Weight files for ``Model.save_weights`` / ``load_weights``, chosen by suffix.

* ``.safetensors`` (native): the checkpoint format, keyed by object-graph path.
* ``.npz``: NumPy's zip of arrays, same keys; loaded with ``allow_pickle=False``.
* ``.h5``: HDF5 through h5py (the optional ``[h5]`` extra), one dataset per key.

Every format is written to a temporary file, fsynced and renamed. Loading validates all
entries (shape, dtype) before assigning any; a variable that does not exist yet (a model
that has not been built) takes its value when it is created.
"""
import os
import zipfile
import zlib

import numpy as np

from .. import _atomic
from ..errors import DataLossError, NotFoundError, UnimplementedError
from . import checkpoint as _ckpt

SUFFIXES = (".safetensors", ".npz", ".h5", ".hdf5")


def _format(opname, path):
    p = os.fspath(path)
    for s in SUFFIXES:
        if p.endswith(s):
            return s
    raise UnimplementedError("%s: unknown weights format for %r (expected a path ending in %s)"
                             % (opname, p, ", ".join(SUFFIXES)))


def _roots(model):
    return dict(_ckpt._children(model))


def save_weights(model, filepath, overwrite=True):
    """Write every variable of ``model`` to ``filepath`` (format by suffix)."""
    path = os.fspath(filepath)
    fmt = _format("save_weights", path)
    if not overwrite and os.path.exists(path):
        raise FileExistsError("save_weights: %s exists and overwrite=False" % path)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    if fmt == ".safetensors":
        _ckpt.write_file(path, _roots(model))
        return
    entries = {k: np.asarray(v._tensor._value, order="C")
               for k, v in _ckpt._gather(_roots(model)).items()}
    if fmt == ".npz":
        with _atomic.atomic_open(path) as f:
            np.savez(f, **entries)
    else:
        h5py = _h5py("save_weights")
        with _atomic.atomic_open(path) as raw:
            with h5py.File(raw, "w") as f:
                for k, arr in entries.items():
                    f.create_dataset(k, data=arr)
                f.attrs["format"] = _ckpt.FORMAT


def _h5py(opname):
    try:
        import h5py
    except ImportError:
        raise ImportError("%s: .h5 files need h5py: pip install 'fasteager[h5]' (or use a "
                          ".safetensors or .npz path)" % opname) from None
    return h5py


def _read(path, fmt):
    if fmt in (".h5", ".hdf5"):
        _h5py("load_weights")          # name the missing extra before anything else
    if not os.path.exists(path):
        raise NotFoundError("load_weights: no file at %r" % path)
    if fmt == ".safetensors":
        return _ckpt._read(path)[1]
    if fmt == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
            raise DataLossError("load_weights: %s: cannot read the .npz file (%s)"
                                % (path, e)) from None
    h5py = _h5py("load_weights")
    out = {}
    try:
        with h5py.File(path, "r") as f:
            f.visititems(lambda name, obj: out.__setitem__(name, obj[()])
                         if isinstance(obj, h5py.Dataset) else None)
    except (OSError, KeyError, ValueError, RuntimeError) as e:
        raise DataLossError("load_weights: %s: cannot read the HDF5 file (%s)" % (path, e)) from None
    return {k: np.asarray(v) for k, v in out.items()}


def load_weights(model, filepath, skip_mismatch=False, by_name=False):
    """Load values saved by ``save_weights`` into ``model``. Returns a load status."""
    path = os.fspath(filepath)
    fmt = _format("load_weights", path)
    tensors = _read(path, fmt)
    return _ckpt.restore_tensors(path, tensors, _roots(model))
