"""``keras.utils.get_file``: download a file once into Keras's cache, check its hash,
and optionally extract it (Keras 3's rules for names, the cache and extraction).

Downloads go through ``urllib`` (http, https, ftp and file URLs) into a temporary file
that replaces the target only once complete and, with ``file_hash``, verified; so a
failed or corrupt download leaves nothing at the target. Archives are untrusted:
extraction refuses members that would land outside the extraction directory (absolute
paths, ``..``, links pointing out) and special files, and writes nothing then.
"""
import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import zipfile

from .._atomic import atomic_open


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


def _inside(root, name):
    target = os.path.realpath(os.path.join(root, name))
    return target == root or target.startswith(root + os.sep)


def _check_tar(tar, root):
    for m in tar.getmembers():
        if not (m.isfile() or m.isdir() or m.issym() or m.islnk()):
            raise ValueError("get_file: archive member %r is a special file" % m.name)
        if os.path.isabs(m.name) or not _inside(root, m.name):
            raise ValueError("get_file: archive member %r is outside the archive" % m.name)
        if m.issym() or m.islnk():
            base = root if m.islnk() else os.path.dirname(os.path.join(root, m.name))
            if os.path.isabs(m.linkname) or not _inside(root, os.path.join(base, m.linkname)):
                raise ValueError("get_file: archive link %r points outside the archive (%r)"
                                 % (m.name, m.linkname))


def _check_zip(z, root):
    for name in z.namelist():
        if os.path.isabs(name) or not _inside(root, name):
            raise ValueError("get_file: archive member %r is outside the archive" % name)


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extract a tar (also .tar.gz, .tar.bz2, .tar.xz) or zip archive into ``path``;
    True if it was one of the formats asked for. Members that would leave ``path`` raise
    ValueError before anything is written."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for fmt in formats:
        if fmt == "tar" and tarfile.is_tarfile(file_path):
            opener, check = tarfile.open, _check_tar
        elif fmt == "zip" and zipfile.is_zipfile(file_path):
            opener, check = zipfile.ZipFile, _check_zip
        else:
            continue
        root = os.path.realpath(path)
        # extract into a fresh directory beside ``path``, then move it into place: a
        # failure leaves no half-extracted tree
        parent = os.path.dirname(root)
        os.makedirs(parent, exist_ok=True)
        work = tempfile.mkdtemp(prefix=".extract-", dir=parent)
        try:
            with opener(file_path) as archive:
                check(archive, root)
                if opener is tarfile.open:
                    archive.extractall(work, filter="data")
                else:
                    archive.extractall(work)
            if os.path.isdir(root):
                shutil.rmtree(root)
            os.replace(work, root)
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
