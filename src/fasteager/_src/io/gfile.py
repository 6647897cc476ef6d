"""``fe.io.gfile`` and ``fe.io.read_file`` / ``write_file`` / ``matching_files``: local
files, with TensorFlow's names and error classes (a missing file is NotFoundError)."""
import errno
import glob as _glob
import os
import shutil

import numpy as np

from ... import _core
from ...errors import (AlreadyExistsError, FailedPreconditionError, InvalidArgumentError,
                     NotFoundError, PermissionDeniedError, ResourceExhaustedError,
                     UnknownError)
from ...ops.string_values import bytes_array

# TensorFlow's mapping of a file system's errno to its error classes (ErrnoToCode in
# tsl/platform/errors.cc), for the errors local files give
_ERRNO_CLASSES = {
    errno.ENOENT: NotFoundError, errno.EEXIST: AlreadyExistsError,
    errno.EISDIR: FailedPreconditionError, errno.ENOTDIR: FailedPreconditionError,
    errno.ENOTEMPTY: FailedPreconditionError, errno.EBUSY: FailedPreconditionError,
    errno.ELOOP: FailedPreconditionError, errno.EXDEV: FailedPreconditionError,
    errno.EACCES: PermissionDeniedError, errno.EPERM: PermissionDeniedError,
    errno.EROFS: PermissionDeniedError, errno.EINVAL: InvalidArgumentError,
    errno.ENAMETOOLONG: InvalidArgumentError, errno.ENOSPC: ResourceExhaustedError,
    errno.EMFILE: ResourceExhaustedError, errno.ENFILE: ResourceExhaustedError,
    errno.EDQUOT: ResourceExhaustedError, errno.EFBIG: ResourceExhaustedError,
}


def _os_error(opname, e, path):
    """The typed error TensorFlow raises for the OSError ``e`` on ``path``, with its
    message form ``<path>; <strerror>``."""
    cls = _ERRNO_CLASSES.get(e.errno, UnknownError)
    reason = os.strerror(e.errno) if e.errno else str(e)
    return cls("%s: %s; %s" % (opname, path, reason))


def _path(opname, value, argname="filename"):
    """A str path from a str, bytes, os.PathLike or scalar string tensor."""
    if isinstance(value, _core.Tensor):
        arr = value._value
        if arr.ndim != 0:
            raise InvalidArgumentError("%s: %s must be a scalar (got shape %s)"
                                       % (opname, argname, list(arr.shape)))
        value = arr[()]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bytes, np.bytes_)):
        return os.fsdecode(bytes(value))
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError("%s: %s must be a string (got %s)" % (opname, argname,
                                                          type(value).__name__))


def _scalar_string(data):
    value = np.empty((), dtype=object)
    value[()] = bytes(data)
    return _core.convert_to_tensor(value)


def read_file(filename, name=None):
    """The bytes of the file, as a scalar string tensor (NotFoundError if it is missing)."""
    path = _path("read_file", filename)
    try:
        with open(path, "rb") as f:
            return _scalar_string(f.read())
    except OSError as e:
        raise _os_error("read_file", e, path) from None


def write_file(filename, contents, name=None):
    """Writes the scalar string ``contents`` to ``filename`` (its directories are created,
    as TensorFlow's WriteFile does)."""
    path = _path("write_file", filename)
    data = bytes_array(contents, "write_file")
    if data.ndim != 0:
        raise InvalidArgumentError("write_file: contents must be a scalar string (got shape "
                                   "%s)" % list(data.shape))
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data[()])


def filenames_list(filenames, opname):
    """``filenames`` (a string, path, list or string tensor) as a list of str."""
    names = bytes_array(os.fsencode(filenames) if isinstance(filenames, os.PathLike)
                        else filenames, opname)
    if names.ndim > 1:
        raise InvalidArgumentError("%s: filenames must be a string or a list of strings "
                                   "(got rank %d)" % (opname, names.ndim))
    return [os.fsdecode(n) for n in names.reshape(-1)]


def glob_files(file_pattern, opname):
    """The files matching each glob pattern (sorted per pattern), as ``tf.io.gfile.glob``;
    what ``matching_files`` and the file datasets of ``fe.data`` list."""
    out = []
    for pattern in filenames_list(file_pattern, opname):
        out.extend(sorted(_glob.glob(pattern)))
    return out


def matching_files(pattern, name=None):
    """The paths matching the glob ``pattern`` (a string or a vector of them), sorted, as a
    string vector."""
    names = glob_files(pattern.numpy() if isinstance(pattern, _core.Tensor) else pattern,
                      "matching_files")
    return _core.convert_to_tensor(bytes_array([os.fsencode(n) for n in names]) if names
                                   else np.empty((0,), object))


class GFile:
    """A file object with TensorFlow's ``tf.io.gfile.GFile`` interface: ``mode`` "r"
    reads str, "rb" bytes; "w"/"a" (and "b" variants) write."""

    def __init__(self, name, mode="r"):
        self.name = _path("GFile", name, "name")
        if mode.replace("b", "").replace("+", "") not in ("r", "w", "a"):
            raise InvalidArgumentError("GFile: mode must be one of r, w, a (with b or +); got "
                                       "%r" % mode)
        self.mode = mode
        try:
            self._f = open(self.name, mode)
        except OSError as e:
            raise _os_error("GFile", e, self.name) from None

    def read(self, n=-1):
        return self._f.read(n)

    def readline(self):
        return self._f.readline()

    def readlines(self):
        return self._f.readlines()

    def write(self, data):
        if isinstance(data, _core.Tensor):
            data = data.numpy()
        if "b" not in self.mode and isinstance(data, bytes):
            data = data.decode()
        self._f.write(data)

    def seek(self, offset, whence=0):
        return self._f.seek(offset, whence)

    def tell(self):
        return self._f.tell()

    def size(self):
        return os.path.getsize(self.name)

    def flush(self):
        self._f.flush()

    def close(self):
        self._f.close()

    @property
    def closed(self):
        return self._f.closed

    def __iter__(self):
        return iter(self._f)

    def __next__(self):
        return next(self._f)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class gfile:   # noqa: N801 -- TensorFlow's name
    """``fe.io.gfile``: TensorFlow's file-system functions on local paths."""
    GFile = GFile

    @staticmethod
    def exists(path):
        return os.path.exists(_path("gfile.exists", path, "path"))

    @staticmethod
    def isdir(path):
        return os.path.isdir(_path("gfile.isdir", path, "path"))

    @staticmethod
    def glob(pattern):
        """The paths matching ``pattern`` (a string or a list of them), sorted."""
        patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
        out = []
        for p in patterns:
            out.extend(sorted(_glob.glob(_path("gfile.glob", p, "pattern"))))
        return out

    @staticmethod
    def listdir(path):
        """The entry names in directory ``path`` (NotFoundError if it is missing)."""
        p = _path("gfile.listdir", path, "path")
        if not os.path.isdir(p):
            raise NotFoundError("Could not find directory %s" % p)
        return os.listdir(p)

    @staticmethod
    def makedirs(path):
        p = _path("gfile.makedirs", path, "path")
        try:
            os.makedirs(p, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            # a file stands where a directory should be: name it, as TensorFlow does
            blocker = p
            while os.path.dirname(blocker) not in ("", blocker):
                parent = os.path.dirname(blocker)
                if os.path.isdir(parent):
                    break
                blocker = parent
            raise FailedPreconditionError("gfile.makedirs: %s is not a directory"
                                          % blocker) from None
        except OSError as e:
            raise _os_error("gfile.makedirs", e, p) from None

    @staticmethod
    def mkdir(path):
        p = _path("gfile.mkdir", path, "path")
        try:
            os.mkdir(p)
        except OSError as e:
            raise _os_error("gfile.mkdir", e, p) from None

    @staticmethod
    def remove(path):
        p = _path("gfile.remove", path, "path")
        try:
            os.remove(p)
        except OSError as e:
            raise _os_error("gfile.remove", e, p) from None

    @staticmethod
    def rmtree(path):
        """Delete ``path`` and everything under it (a file too, as TensorFlow does)."""
        p = _path("gfile.rmtree", path, "path")
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.remove(p)
        except OSError as e:
            raise _os_error("gfile.rmtree", e, getattr(e, "filename", None) or p) from None

    @staticmethod
    def _check_target(opname, s, d, overwrite):
        if os.path.lexists(d) and not overwrite:
            raise AlreadyExistsError("%s: file already exists: %s" % (opname, d))

    @staticmethod
    def rename(src, dst, overwrite=False):
        """Move ``src`` to ``dst`` (replacing a file there only with ``overwrite``)."""
        s, d = _path("gfile.rename", src, "src"), _path("gfile.rename", dst, "dst")
        gfile._check_target("gfile.rename", s, d, overwrite)
        try:
            os.replace(s, d)
        except OSError as e:
            # TensorFlow names the source: "a; Is a directory" for a file onto a directory
            raise _os_error("gfile.rename", e, s) from None

    @staticmethod
    def copy(src, dst, overwrite=False):
        """Copy the file ``src`` to ``dst`` (replacing a file there only with
        ``overwrite``). Copying a file onto itself leaves it as it is (TensorFlow
        truncates it)."""
        s, d = _path("gfile.copy", src, "src"), _path("gfile.copy", dst, "dst")
        if os.path.isdir(s):
            raise InvalidArgumentError("gfile.copy: %s; Invalid argument (the source %s is "
                                       "a directory, expected a file)" % (d, s))
        gfile._check_target("gfile.copy", s, d, overwrite)
        try:
            if os.path.exists(d) and os.path.samefile(s, d):
                return
            shutil.copyfile(s, d)
        except OSError as e:
            bad = getattr(e, "filename", None) or s
            raise _os_error("gfile.copy", e, bad) from None

    @staticmethod
    def join(path, *paths):
        return os.path.join(path, *paths)

    @staticmethod
    def walk(top, topdown=True, onerror=None):
        return os.walk(_path("gfile.walk", top, "top"), topdown=topdown, onerror=onerror)
