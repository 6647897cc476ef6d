"""MNIST handwritten digits (LeCun, Cortes & Burges), as ``tf.keras.datasets.mnist``.

``load_data(path=None)`` looks for a local copy, in order: ``path`` (Keras's
``mnist.npz``, or a folder holding it or the four IDX files), ``$FASTEAGER_DATA/mnist/``,
``~/.fasteager/datasets/mnist/``. The IDX files may be gzipped or not. With none found it
downloads the four canonical gzipped files once, checks their SHA-256 and caches them
atomically in ``~/.fasteager/datasets/mnist/``; without a network it raises
``FileNotFoundError`` saying where to put them.

IDX format (http://yann.lecun.com/exdb/mnist/): ``00 00 <type> <ndim>``, one big-endian
uint32 per dimension, then the data; MNIST uses type 0x08 (uint8).
"""
import gzip
import hashlib
import os
import pathlib
import zlib

import numpy as np

from ..._src.io.atomic import atomic_open
from ...errors import DataLossError

FILES = {"x_train": "train-images-idx3-ubyte", "y_train": "train-labels-idx1-ubyte",
         "x_test": "t10k-images-idx3-ubyte", "y_test": "t10k-labels-idx1-ubyte"}
# SHA-256 of the canonical gzipped files.
SHA256 = {
    "train-images-idx3-ubyte.gz":
        "0b367032e93c5d0cea0925647cfdb18614af8ee15f83e6f2fc2ad904a6835971",
    "train-labels-idx1-ubyte.gz":
        "1787548bbe0bff1ec2ecdc0ef292b02df999e2d1a6002d27500982c652b17203",
    "t10k-images-idx3-ubyte.gz":
        "1a1a05eab793c14bb050b398624a11b0ffd1a2953baed553b1b9bd079e2a20be",
    "t10k-labels-idx1-ubyte.gz":
        "b91679a0acfe4ba0e50a2437a903084cba1f5f92592b016a25a7dfd00455798b",
}
MIRRORS = ("https://ossci-datasets.s3.amazonaws.com/mnist/",
           "https://storage.googleapis.com/cvdf-datasets/mnist/")
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_NDIM = {"x_train": 3, "y_train": 1, "x_test": 3, "y_test": 1}


def cache_dir():
    """``~/.fasteager/datasets/mnist``."""
    return pathlib.Path(os.path.expanduser("~")) / ".fasteager" / "datasets" / "mnist"


def read_idx(path):
    """An IDX file (gzipped or not) as a NumPy array; DataLossError naming the file when
    it is truncated or corrupt."""
    path = pathlib.Path(path)
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise DataLossError("mnist.load_data: %s is not a valid gzip file (%s)"
                                % (path, e)) from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise DataLossError("mnist.load_data: %s is not an IDX file (expected magic "
                            "00 00 <type> <ndim>, got %s)" % (path, raw[:4].hex(" ")))
    dtype, ndim = np.dtype(_IDX_TYPES[raw[2]]), raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise DataLossError("mnist.load_data: %s is truncated in its header (expected %d "
                            "bytes, got %d)" % (path, header, len(raw)))
    dims = tuple(int(d) for d in np.frombuffer(raw, ">u4", ndim, 4))
    size = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(raw) - header != size:
        raise DataLossError("mnist.load_data: %s has the wrong data size for dims %s "
                            "(expected %d bytes, got %d)"
                            % (path, list(dims), size, len(raw) - header))
    return np.frombuffer(raw, dtype, offset=header).reshape(dims).astype(dtype.newbyteorder("="))


def _idx_paths(folder):
    """The four IDX files in ``folder`` (gzipped or not), or None if any is missing."""
    found = {}
    for key, stem in FILES.items():
        for name in (stem + ".gz", stem):
            p = folder / name
            if p.is_file():
                found[key] = p
                break
        else:
            return None
    return found


def _load_npz(path):
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = [k for k in FILES if k not in f.files]
            if missing:
                raise DataLossError("mnist.load_data: %s lacks arrays %s (expected keys "
                                    "x_train, y_train, x_test, y_test)" % (path, missing))
            out = {k: f[k] for k in FILES}
    except (ValueError, OSError, zlib.error, EOFError) as e:
        if isinstance(e, DataLossError):
            raise
        raise DataLossError("mnist.load_data: cannot read %s as an npz file (%s)"
                            % (path, e)) from None
    return _checked(out, path)


def _load_idx(paths):
    return _checked({k: read_idx(p) for k, p in paths.items()}, paths["x_train"].parent)


def _checked(arrays, where):
    for k, a in arrays.items():
        if a.ndim != _NDIM[k]:
            raise DataLossError("mnist.load_data: %s in %s has rank %d (expected %d)"
                                % (k, where, a.ndim, _NDIM[k]))
    for split in ("train", "test"):
        x, y = arrays["x_" + split], arrays["y_" + split]
        if len(x) != len(y):
            raise DataLossError("mnist.load_data: %s images and labels differ in number in %s "
                                "(expected %d labels, got %d)" % (split, where, len(x), len(y)))
    a = arrays
    return (a["x_train"].astype(np.uint8, copy=False), a["y_train"].astype(np.uint8, copy=False)), \
        (a["x_test"].astype(np.uint8, copy=False), a["y_test"].astype(np.uint8, copy=False))


def _search(folder):
    """Load from ``folder`` if it holds ``mnist.npz`` or the IDX files, else None."""
    folder = pathlib.Path(folder)
    if (folder / "mnist.npz").is_file():
        return _load_npz(folder / "mnist.npz")
    paths = _idx_paths(folder)
    return None if paths is None else _load_idx(paths)


def fetch(url, dest):
    """Download ``url`` to the open binary file ``dest`` (replaced in tests)."""
    import urllib.request
    with urllib.request.urlopen(url, timeout=60) as r:
        while True:
            block = r.read(1 << 20)
            if not block:
                return
            dest.write(block)


class _HashingWriter:
    def __init__(self, f):
        self._f, self.sha256 = f, hashlib.sha256()

    def write(self, block):
        self.sha256.update(block)
        return self._f.write(block)


def _download(folder):
    """Fetch the four gzipped files into ``folder``; a file is renamed into place only
    once its checksum matches. Returns None, or the list of errors."""
    errors = []
    for name, digest in SHA256.items():
        target = folder / name
        if target.is_file() and _sha256(target) == digest:
            continue
        for mirror in MIRRORS:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                with atomic_open(target) as f:
                    w = _HashingWriter(f)
                    fetch(mirror + name, w)
                    if w.sha256.hexdigest() != digest:
                        raise ValueError("checksum mismatch (expected sha256 %s, got %s)"
                                         % (digest, w.sha256.hexdigest()))
                break
            except (OSError, ValueError) as e:
                errors.append("%s%s: %s" % (mirror, name, e))
        else:
            return errors
    return None


def download_into(cache, download):
    """Run ``download(cache)`` (None when it succeeded, else its errors); a failed download
    leaves no folder behind that it created."""
    created = _missing_parents(cache)
    errors = download(cache)
    if errors is not None:
        for folder in created:
            try:
                folder.rmdir()
            except OSError:             # not empty (or already gone): keep it
                break
    return errors


def _missing_parents(folder):
    """``folder`` and those of its parents that do not exist yet, innermost first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_data(path=None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 arrays shaped (60000, 28, 28),
    (60000,), (10000, 28, 28), (10000,).

    >>> (x_train, y_train), (x_test, y_test) = fe.keras.datasets.mnist.load_data()
    """
    searched = []
    if path is not None:
        p = pathlib.Path(os.path.expanduser(os.fspath(path)))
        if p.is_file():
            if p.suffix == ".npz":
                return _load_npz(p)
            raise ValueError("mnist.load_data: path must be mnist.npz or a folder (expected "
                             "an .npz file or a directory, got %s)" % p)
        searched.append(p)
    env = os.environ.get("FASTEAGER_DATA")
    if env:
        searched.append(pathlib.Path(env) / "mnist")
    cache = cache_dir()
    searched.append(cache)
    for folder in searched:
        if folder.is_dir():
            found = _search(folder)
            if found is not None:
                return found
    errors = download_into(cache, _download)
    if errors is None:
        return _load_idx(_idx_paths(cache))
    raise FileNotFoundError(
        "mnist.load_data: MNIST not found and could not be downloaded (searched %s; "
        "download errors: %s). Put mnist.npz or the four files %s (gzipped or not) in "
        "one of those folders, or set FASTEAGER_DATA to a folder containing mnist/"
        % ([str(s) for s in searched], "; ".join(errors[-4:]),
           ", ".join(s + ".gz" for s in FILES.values())))
