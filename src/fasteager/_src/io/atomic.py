"""Atomic file replacement shared by the checkpoint and other file writers.

A file at ``path`` is either the complete old version or the complete new one, never a
mix, even if the process dies mid-write or the machine loses power:

1. write to a temporary file in the same directory (``os.replace`` is only atomic
   within one file system);
2. flush and fsync it, so its data reaches the disk before its name does;
3. ``os.replace`` it over ``path`` (atomic rename on POSIX and Windows);
4. fsync the directory, so that the rename itself survives a power loss.

On an exception the temporary file is removed and ``path`` is untouched. A hard kill
(SIGKILL, power loss) can leave a ``.<name>.<random>.tmp`` file behind, never a
partial file at ``path``.
"""

import contextlib
import os
import secrets

__all__ = ["atomic_open", "atomic_write"]


def _fsync_dir(directory):
    # Directories cannot be opened for fsync on Windows; the rename is still atomic there.
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_open(path):
    """Context manager yielding a binary file whose contents replace ``path`` on success.

    >>> with atomic_open("model.safetensors") as f:
    ...     f.write(payload)
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory,
                       f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    # O_EXCL: never follow or reuse someone else's file; 0o666 lets the umask decide the
    # final permissions, as a plain open() would.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def _write_all(f, chunks):
    for chunk in chunks:
        f.write(chunk)


def atomic_write(path, chunks):
    """Atomically replace ``path`` with the concatenation of ``chunks`` (bytes-likes).

    ``chunks`` may be a generator, so large payloads need not be joined in memory.
    """
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        chunks = (chunks,)
    with atomic_open(path) as f:
        _write_all(f, chunks)
