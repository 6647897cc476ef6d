"""``keras.utils.get_file``: download a file once into Keras's cache, check its hash,
and optionally extract it (Keras 3's rules for names, the cache and extraction).

Downloads go through ``urllib`` (http, https, ftp and file URLs) into a temporary file
that replaces the target only once complete and, with ``file_hash``, verified; so a
failed or corrupt download leaves nothing at the target. Archives are untrusted:
extraction refuses members that would land outside the extraction directory (absolute
paths, ``..``, links pointing out, directly or through other links) and special files,
and then leaves the extraction directory as it was (see the section on extraction).
"""
import hashlib
import lzma
import os
import shutil
import stat
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import zipfile
import zlib

from .._src.io.atomic import atomic_open
from ..errors import DataLossError


def keras_home():
    """``$KERAS_HOME``, else ``~/.keras`` (Keras's cache root)."""
    return os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")


def _hash_file(path, algorithm):
    h = hashlib.sha256() if algorithm == "sha256" else hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _algorithm(file_hash, hash_algorithm):
    # Keras: 'auto' reads a 64-hex-digit hash as sha256, anything else as md5
    if hash_algorithm not in ("auto", "sha256", "md5"):
        raise ValueError("get_file: hash_algorithm must be 'auto', 'sha256' or 'md5' "
                         "(got %r)" % (hash_algorithm,))
    if hash_algorithm == "auto":
        return "sha256" if len(file_hash) == 64 else "md5"
    return hash_algorithm


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    """Whether the file at ``fpath`` has the md5 or sha256 hash ``file_hash``."""
    return _hash_file(fpath, _algorithm(str(file_hash), algorithm)) == str(file_hash)


def _fetch(origin, dest):
    """Write what ``origin`` holds to the open binary file ``dest``."""
    import urllib.request
    with urllib.request.urlopen(origin, timeout=60) as r:
        for block in iter(lambda: r.read(1 << 20), b""):
            dest.write(block)


class _HashingWriter:
    """A binary file that also feeds what is written to a hash."""

    def __init__(self, f, h):
        self._f, self._h = f, h

    def write(self, block):
        self._h.update(block)
        return self._f.write(block)


# ---- extraction ----------------------------------------------------------------------
#
# Archives are untrusted. The stdlib's own guards (textual checks of names, tarfile's
# "data" filter before Python 3.11.13 / 3.12.11) miss links chained so that a path that
# looks inside resolves outside once the links exist (CVE-2025-4517). So members are
# written one by one into a fresh directory through directory descriptors opened with
# O_NOFOLLOW: nothing is ever written through a symbolic link, whatever the links say.
# Links themselves are created as members, and once every member is in place each
# symbolic link is resolved, component by component against the real tree, and must stay
# inside; only then does the tree move into place.

_NAME_MAX = 255                 # bytes in one path component (Linux, macOS)
_PATH_MAX = 4096
_MAX_LINK_HOPS = 40             # the kernel's own limit on links followed in one path
_COPY_BLOCK = 1 << 20


def _member_parts(name, what="archive member"):
    """The components of an archive member's name, relative to the extraction directory;
    ValueError for a name that would leave it or that no file system can hold."""
    if "\x00" in name:
        raise ValueError("get_file: %s %r has a NUL character in its name" % (what, name))
    if name.startswith("/") or os.path.isabs(name) or (os.altsep and name.startswith(os.altsep)):
        raise ValueError("get_file: %s %r is outside the archive (an absolute path)"
                         % (what, name))
    parts = [p for p in name.split("/") if p not in ("", ".")]
    depth = 0
    for p in parts:
        depth += -1 if p == ".." else 1
        if depth < 0:
            raise ValueError("get_file: %s %r is outside the archive" % (what, name))
    norm = []
    for p in parts:
        if p == "..":
            norm.pop()
        else:
            if len(os.fsencode(p)) > _NAME_MAX:
                raise ValueError("get_file: %s %r has a path component longer than %d bytes"
                                 % (what, name[:80] + "...", _NAME_MAX))
            norm.append(p)
    if len(os.fsencode("/".join(norm))) > _PATH_MAX:
        raise ValueError("get_file: %s %r is longer than %d bytes"
                         % (what, name[:80] + "...", _PATH_MAX))
    return norm


def _open_dir(root_fd, parts, name, create):
    """A descriptor of the directory ``parts`` under ``root_fd``, made where missing with
    ``create``; ValueError if any component is a link or a file (never followed)."""
    fd = os.dup(root_fd)
    try:
        for p in parts:
            if create:
                try:
                    os.mkdir(p, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                nfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except (NotADirectoryError, FileNotFoundError, OSError) as e:
                if isinstance(e, FileNotFoundError) and not create:
                    raise ValueError("get_file: archive link %r names a member that is not "
                                     "in the archive before it" % name) from None
                # ELOOP: O_NOFOLLOW met a symbolic link
                raise ValueError("get_file: archive member %r passes through %r, which is "
                                 "a link or a file, not a directory" % (name, p)) from None
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def _clear(dir_fd, leaf, name, is_dir=False):
    """Make room for member ``name``: a later member replaces an earlier file or link of
    the same name (tar's rule); a directory is never replaced. True if a directory of
    that name is there already (for a directory member)."""
    try:
        st = os.stat(leaf, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        if is_dir:
            return True
        raise ValueError("get_file: archive member %r would replace a directory" % name)
    if is_dir:
        raise ValueError("get_file: archive directory %r would replace a file or link" % name)
    os.unlink(leaf, dir_fd=dir_fd)
    return False


class _Writer:
    """Writes members into ``work`` (a fresh directory), never following a link."""

    def __init__(self, work):
        self.work = work
        self.root_fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY)
        self.links = []         # (parts, name) of every symbolic link made

    def close(self):
        os.close(self.root_fd)

    def _parent(self, parts, name):
        return _open_dir(self.root_fd, parts[:-1], name, create=True)

    def directory(self, name):
        parts = _member_parts(name)
        if parts:
            fd = self._parent(parts, name)
            try:
                if not _clear(fd, parts[-1], name, is_dir=True):
                    os.mkdir(parts[-1], 0o755, dir_fd=fd)
            finally:
                os.close(fd)

    def file(self, name, source, mode=0o644):
        parts = _member_parts(name)
        if not parts:
            raise ValueError("get_file: archive member %r has no file name" % name)
        fd = self._parent(parts, name)
        try:
            _clear(fd, parts[-1], name)
            out = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                          0o755 if mode & 0o100 else 0o644, dir_fd=fd)
        finally:
            os.close(fd)
        with os.fdopen(out, "wb") as f:
            for block in iter(lambda: source.read(_COPY_BLOCK), b""):
                f.write(block)

    def symlink(self, name, target):
        parts = _member_parts(name)
        if not parts:
            raise ValueError("get_file: archive link %r has no file name" % name)
        # the target, read from the link's own directory, must not leave the archive even
        # as text; where it really points is checked once the whole tree exists
        if target.startswith("/") or os.path.isabs(target):
            raise ValueError("get_file: archive link %r points outside the archive (%r)"
                             % (name, target))
        try:
            _member_parts("/".join(parts[:-1] + [target]), "archive link %r target" % name)
        except ValueError:
            raise ValueError("get_file: archive link %r points outside the archive (%r)"
                             % (name, target)) from None
        fd = self._parent(parts, name)
        try:
            _clear(fd, parts[-1], name)
            os.symlink(target, parts[-1], dir_fd=fd)
        finally:
            os.close(fd)
        self.links.append((parts, name))

    def hardlink(self, name, target):
        parts = _member_parts(name)
        try:
            src = _member_parts(target, "archive link %r target" % name)
        except ValueError:
            raise ValueError("get_file: archive link %r points outside the archive (%r)"
                             % (name, target)) from None
        if not parts or not src:
            raise ValueError("get_file: archive link %r -> %r names no file" % (name, target))
        sfd = _open_dir(self.root_fd, src[:-1], name, create=False)
        try:
            try:
                st = os.stat(src[-1], dir_fd=sfd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                raise ValueError("get_file: archive hard link %r must name a regular file "
                                 "extracted before it (got %r)" % (name, target))
            fd = self._parent(parts, name)
            try:
                if parts == src:
                    return      # a link to itself: the file is there already
                _clear(fd, parts[-1], name)
                os.link(src[-1], parts[-1], src_dir_fd=sfd, dst_dir_fd=fd,
                        follow_symlinks=False)
            finally:
                os.close(fd)
        finally:
            os.close(sfd)

    def check_links(self):
        """Every symbolic link, resolved through the finished tree, stays inside it."""
        for parts, name in self.links:
            where = _resolve(self.work, parts)
            if where is None:
                raise ValueError("get_file: archive link %r points outside the archive "
                                 "(through the links it passes)" % name)


def _resolve(work, parts):
    """Where ``parts`` (components under ``work``) leads once every link on the way is
    followed, as the kernel would; None if that leaves ``work`` (or can't be decided: a
    loop, or a path too long to look at, is refused rather than trusted)."""
    done, todo, hops = [], list(reversed(parts)), 0
    while todo:
        p = todo.pop()
        if p in ("", "."):
            continue
        if p == "..":
            if not done:
                return None
            done.pop()
            continue
        here = os.path.join(work, *done, p)
        try:
            st = os.lstat(here)
        except (FileNotFoundError, NotADirectoryError):
            done.append(p)          # dangling: the rest is read as text
            continue
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            target = os.readlink(here)
            if hops > _MAX_LINK_HOPS or target.startswith("/"):
                return None
            todo.extend(reversed(target.split("/")))
            continue
        done.append(p)
    return done


# errors of a corrupt or truncated archive, from tarfile, zipfile and the decompressors
_CORRUPT = (tarfile.TarError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError,
            zlib.error, lzma.LZMAError, UnicodeError, NotImplementedError, RuntimeError)


class _Corrupt(Exception):
    """What reading the archive raised (never what writing the tree raised)."""


def _read(fn, *args):
    # OSError here is the archive's (zipfile seeking to a negative offset it read) and
    # MemoryError a header declaring a huge long name (tarfile reads it whole): both are
    # the archive's corruption, unlike the same errors from writing the tree
    try:
        return fn(*args)
    except (OSError, MemoryError) + _CORRUPT as e:
        raise _Corrupt(e) from None


class _Source:
    """A member's data, read through ``_read``."""

    def __init__(self, f):
        self._f = f

    def read(self, n):
        return _read(self._f.read, n)


def _extract_tar(file_path, writer):
    tar = _read(tarfile.open, file_path)
    with tar:
        members = iter(tar)
        while True:
            m = _read(next, members, None)
            if m is None:
                break
            if m.isdir():
                writer.directory(m.name)
            elif m.isfile():
                with _read(tar.extractfile, m) as source:
                    writer.file(m.name, _Source(source), m.mode)
            elif m.issym():
                writer.symlink(m.name, m.linkname)
            elif m.islnk():
                writer.hardlink(m.name, m.linkname)
            else:
                raise ValueError("get_file: archive member %r is a special file" % m.name)


def _extract_zip(file_path, writer):
    z = _read(zipfile.ZipFile, file_path)
    with z:
        for info in z.infolist():
            if info.is_dir():
                writer.directory(info.filename)
            else:
                # a zip "symlink" (a Unix mode in the external attributes) is written as
                # the file it is, its target as text, as zipfile itself does
                with _read(z.open, info) as source:
                    writer.file(info.filename, _Source(source), info.external_attr >> 16)


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extract a tar (also .tar.gz, .tar.bz2, .tar.xz) or zip archive into ``path``;
    True if it was one of the formats asked for. A member that would leave ``path``
    (absolute, ``..``, through or as a link pointing out) or is a special file raises
    ValueError, a corrupt or truncated archive DataLossError; either way ``path`` is
    left as it was."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    file_path = os.fspath(file_path)
    for fmt in formats:
        try:
            if fmt == "tar" and _read(tarfile.is_tarfile, file_path):
                extract = _extract_tar
            elif fmt == "zip" and _read(zipfile.is_zipfile, file_path):
                extract = _extract_zip
            else:
                continue
        except _Corrupt as e:       # a stream cut short, a first header declaring TBs
            raise DataLossError(None, None, "get_file: can't read %s as a %s archive "
                                "(corrupt or truncated): %s: %s"
                                % (file_path, fmt, type(e.args[0]).__name__, e.args[0])) \
                from None
        root = os.path.realpath(path)
        # extract into a fresh directory beside ``path``, then move it into place: a
        # failure leaves no half-extracted tree
        parent = os.path.dirname(root)
        os.makedirs(parent, exist_ok=True)
        work = tempfile.mkdtemp(prefix=".extract-", dir=parent)
        try:
            writer = _Writer(work)
            try:
                extract(file_path, writer)
                writer.check_links()
            finally:
                writer.close()
            if os.path.isdir(root) and not os.path.islink(root):
                shutil.rmtree(root)
            elif os.path.lexists(root):
                os.unlink(root)
            os.replace(work, root)
        except (_Corrupt,) + _CORRUPT as e:
            shutil.rmtree(work, ignore_errors=True)
            cause = e.args[0] if isinstance(e, _Corrupt) else e
            raise DataLossError(None, None, "get_file: can't extract %s as a %s archive "
                                "(corrupt or truncated): %s: %s"
                                % (file_path, fmt, type(cause).__name__, cause)) from None
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        return True
    return False


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False):
    """Download ``origin`` into ``<cache_dir>/<cache_subdir>/<fname>`` unless it is
    there already (with ``file_hash``: and has that md5/sha256 hash); return its path, or
    with ``extract=True`` the directory the archive was extracted into.

    >>> path = fe.keras.utils.get_file(origin="file:///tmp/example.txt")  # doctest: +SKIP
    """
    if origin is None:
        raise ValueError('get_file: please specify the "origin" argument (URL of the file '
                         'to download)')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    if file_hash is not None:
        hash_algorithm = _algorithm(str(file_hash), hash_algorithm)
    base = os.path.expanduser(keras_home() if cache_dir is None else os.fspath(cache_dir))
    if not os.access(base, os.W_OK) and os.path.exists(base):
        base = os.path.join(tempfile.gettempdir(), ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    provided = fname is not None and os.fspath(fname) != ""
    if provided:
        fname = os.fspath(fname)
        if os.sep in fname or (os.altsep and os.altsep in fname):
            raise ValueError("get_file: paths are no longer accepted as the `fname` argument "
                             "(to choose the parent directory use `cache_dir`; got fname=%s)"
                             % fname)
    else:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname or fname in (os.curdir, os.pardir):
            raise ValueError("get_file: can't parse the file name from the origin provided: "
                             "'%s' (specify the `fname` argument)" % origin)
    if extract or untar:
        if provided and "." in fname:
            target = os.path.join(datadir, fname)
            extraction_dir = os.path.join(datadir, fname[:fname.find(".")] + "_extracted")
        else:
            target = os.path.join(datadir, fname + "_archive")
            extraction_dir = os.path.join(datadir, fname)
    else:
        target = os.path.join(datadir, fname)

    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not validate_file(target, file_hash,
                                                                    hash_algorithm):
        print("A local file was found, but it seems to be incomplete or outdated because "
              "the %s file hash does not match the original value of %s so we will "
              "re-download the data." % (hash_algorithm, file_hash), file=sys.stdout)
        download = True
    if download:
        print("Downloading data from %s" % origin, file=sys.stdout)
        try:
            with atomic_open(target) as f:
                h = hashlib.sha256() if hash_algorithm == "sha256" else hashlib.md5()
                _fetch(origin, _HashingWriter(f, h))
                if file_hash is not None:
                    got = h.hexdigest()
                    if got != str(file_hash):
                        raise ValueError(
                            "get_file: incomplete or corrupted file detected: the %s file "
                            "hash does not match the provided value of %s (got %s)"
                            % (hash_algorithm, file_hash, got))
        except urllib.error.HTTPError as e:
            raise Exception("URL fetch failure on %s: %s -- %s" % (origin, e.code, e.msg)) \
                from None
        except urllib.error.URLError as e:
            raise Exception("URL fetch failure on %s: %s -- %s"
                            % (origin, getattr(e, "errno", None), e.reason)) from None
    if extract or untar:
        if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
            import warnings
            warnings.warn("Could not extract archive.", stacklevel=2)
        return extraction_dir
    return target
