"""Weight files for ``Model.save_weights`` / ``load_weights``, chosen by suffix.

* ``.safetensors`` (native): the checkpoint format, keyed by object-graph path.
* ``.npz``: NumPy's zip of arrays, same keys; read member by member, never unpickled.
* ``.h5``: HDF5 through h5py (the optional ``[h5]`` extra), one dataset per key.

Every format is written to a temporary file, fsynced and renamed. Loading validates all
entries (shape, dtype, optimizer slots) before assigning any and turns every sign of a
corrupt file into a DataLossError naming it; nothing allocates more than the file holds;
a variable that does not exist yet (a model that has not been built) takes its value
when it is created.
"""
import math
import os
import struct
import zipfile
import zlib

import numpy as np

from .._src.io import atomic as _atomic
from ..errors import DataLossError, NotFoundError
from . import _safetensors, checkpoint as _ckpt

SUFFIXES = (".safetensors", ".npz", ".h5", ".hdf5")


def _format(opname, path):
    p = os.fspath(path)
    for s in SUFFIXES:
        if p.endswith(s):
            return s
    # ValueError, as Keras 3 raises for a path without `.weights.h5` (TF's old checkpoint
    # prefixes such as "my_checkpoint" included)
    raise ValueError("%s: the filename must end in `.weights.h5` (or .safetensors, .npz, "
                     ".h5, .hdf5). Received: filepath=%s" % (opname, p))


def _roots(model):
    return dict(_ckpt._children(model))


def save_weights(model, filepath, overwrite=True, h5_attrs=None, roots=None):
    """Write every variable of ``model`` to ``filepath`` (format by suffix); ``h5_attrs``:
    more root attributes of an HDF5 file (``Model.save``'s architecture); ``roots``: the
    objects to write instead of the model's children (``Model.save`` adds the optimizer)."""
    path = os.fspath(filepath)
    if roots is None:
        roots = _roots(model)
    fmt = _format("save_weights", path)
    if not overwrite and os.path.exists(path):
        raise FileExistsError("save_weights: %s exists and overwrite=False" % path)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    if fmt == ".safetensors":
        _ckpt.write_file(path, roots)
        return
    entries = {k: np.asarray(v._tensor._value, order="C")
               for k, v in _ckpt._gather(roots).items()}
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
                for k, v in (h5_attrs or {}).items():
                    f.attrs[k] = v


def _h5py(opname):
    try:
        import h5py
    except ImportError:
        raise ImportError("%s: .h5 files need h5py: pip install 'fasteager[h5]' (or use a "
                          ".safetensors or .npz path)" % opname) from None
    return h5py


# What a corrupt file makes the readers below raise (zipfile raises NotImplementedError
# for an unknown compression method, NumPy's header parser SyntaxError, h5py KeyError...).
_CORRUPT = (ValueError, TypeError, KeyError, IndexError, SyntaxError, RecursionError,
            OverflowError, EOFError, NotImplementedError, RuntimeError, struct.error,
            zipfile.BadZipFile, zlib.error, OSError)
_MAX_RATIO = 1100     # deflate's best case is ~1032:1; more means a lying size field


def _corrupt(path, kind, e):
    return DataLossError("load_weights: %s: cannot read the %s file (%s: %.200s)"
                         % (path, kind, type(e).__name__, e))


def _read(path, fmt):
    """The arrays in the weights file at ``path``: name -> C-ordered native ndarray."""
    if fmt in (".h5", ".hdf5"):
        _h5py("load_weights")          # name the missing extra before anything else
    if not os.path.exists(path):
        raise NotFoundError("load_weights: no file at %r" % path)
    if fmt == ".safetensors":
        return _ckpt._read(path, "load_weights")[1]
    reader, kind = (_read_npz, ".npz") if fmt == ".npz" else (_read_h5, "HDF5")
    try:
        return reader(path)
    except DataLossError:
        raise
    except (FileNotFoundError, NotADirectoryError, PermissionError, IsADirectoryError) as e:
        raise _safetensors.os_error("load_weights", path, e) from None
    except _CORRUPT as e:
        raise _corrupt(path, kind, e) from None


def _array(path, name, dtype, shape, fortran, data):
    if dtype.hasobject:
        raise DataLossError("load_weights: %s: %r holds Python objects (expected numbers, got "
                            "dtype %s)" % (path, name, dtype))
    arr = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    # own, writable, C-ordered, native memory: a deferred value outlives the file
    return np.array(arr, dtype=dtype.newbyteorder("=") if dtype.byteorder in "<>" else dtype,
                    order="C")


def _read_npz(path):
    """Read an .npz without np.load: NumPy allocates what a member's header declares before
    reading it; here each member's declared size must match the zip's, which must be
    within what the archive holds."""
    fmt = np.lib.format
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic not in (b"PK\x03\x04", b"PK\x05\x06"):   # zipfile would skip a prefix
        raise DataLossError("load_weights: %s: not a zip file (expected the bytes 'PK\\x03"
                            "\\x04' at the start, got %r)" % (path, magic))
    out = {}
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            name = info.filename.removesuffix(".npy")
            if name == info.filename or name in out:
                raise DataLossError("load_weights: %s: member %.80r is not an array (expected "
                                    "one <name>.npy per array)" % (path, info.filename))
            if info.compress_size > size or info.file_size > _MAX_RATIO * max(
                    info.compress_size, 1) or (info.compress_type == zipfile.ZIP_STORED
                                               and info.file_size != info.compress_size):
                raise DataLossError("load_weights: %s: %r: zip sizes do not fit the archive "
                                    "(expected at most %d bytes, got %d packed in %d)"
                                    % (path, name, size, info.file_size, info.compress_size))
            with z.open(info) as f:
                version = fmt.read_magic(f)
                if version not in ((1, 0), (2, 0), (3, 0)):
                    raise DataLossError("load_weights: %s: %r: unknown .npy version (expected "
                                        "1.0, 2.0 or 3.0, got %d.%d)" % (path, name, *version))
                # 3.0 differs from 2.0 only in allowing UTF-8 field names
                read_header = (fmt.read_array_header_1_0 if version == (1, 0)
                               else fmt.read_array_header_2_0)
                shape, fortran, dtype = read_header(f)
                nbytes = math.prod(shape) * dtype.itemsize
                if nbytes != info.file_size - f.tell():
                    raise DataLossError("load_weights: %s: %r: declared shape %s %s does not "
                                        "match the member's size (expected %d bytes, got %d)"
                                        % (path, name, list(shape), dtype, nbytes,
                                           info.file_size - f.tell()))
                data = f.read(nbytes)
            if len(data) != nbytes:
                raise DataLossError("load_weights: %s: %r: truncated (expected %d bytes, got "
                                    "%d)" % (path, name, nbytes, len(data)))
            out[name] = _array(path, name, dtype, shape, fortran, data)
    return out


def _read_h5(path):
    h5py = _h5py("load_weights")
    size = os.path.getsize(path)
    datasets = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: datasets.__setitem__(name, obj)
                     if isinstance(obj, h5py.Dataset) else None)
        out = {}
        for name, ds in datasets.items():
            if isinstance(name, bytes):
                try:
                    name = name.decode("utf-8")
                except UnicodeDecodeError:
                    raise DataLossError("load_weights: %s: dataset name %.80r is not UTF-8 "
                                        "(expected a variable path)" % (path, name)) from None
            stored = ds.id.get_storage_size()
            filtered = bool(ds.compression) or ds.chunks is not None and bool(
                ds.id.get_create_plist().get_nfilters())
            limit = stored * _MAX_RATIO if filtered else min(stored, size)
            if ds.dtype.hasobject or ds.nbytes > limit:
                raise DataLossError("load_weights: %s: dataset %r: declared %s %s does not fit "
                                    "its storage (expected at most %d bytes, got %d)"
                                    % (path, name, list(ds.shape), ds.dtype, limit, ds.nbytes))
            arr = np.asarray(ds[()])
            out[name] = np.array(arr, dtype=arr.dtype.newbyteorder("=")
                                 if arr.dtype.byteorder in "<>" else arr.dtype, order="C")
    return out


def load_weights(model, filepath, skip_mismatch=False, by_name=False):
    """Load values saved by ``save_weights`` into ``model``. Returns a load status."""
    path = os.fspath(filepath)
    fmt = _format("load_weights", path)
    tensors = _read(path, fmt)
    return _ckpt.restore_tensors(path, tensors, _roots(model), "load_weights")
