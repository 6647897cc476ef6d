"""Structure-aware mutation fuzzing of archive extraction through the public
``keras.utils.get_file(..., extract=True)`` (and ``extract_archive`` under it).

Each case builds a valid tar (plain or gzip) or zip with the real structure, from
members drawn to reach the extractor's deep paths: names that are absolute, climb with
``..``, are longer than a file system allows, unicode, empty or doubled; symbolic and hard
links pointing inside, outside, at directories, at other links (chains), at themselves;
files written through an earlier link; duplicates of one name with other types; special
files. Then the archive's own fields are mutated with its checksums kept valid (a tar
header's size field, recomputed header checksum; a zip entry's declared sizes in both
headers) or it is truncated.

The archive is pre-placed in the cache of a sandbox that holds a sentinel tree around
the extraction folder. The property, for every case:

* nothing outside the extraction folder is created, changed or removed (the sentinel
  tree is compared byte by byte, links included), and no temporary folder is left;
* a failure is a typed error (fasteager's ValueError for a hostile member,
  DataLossError for a corrupt archive) and leaves no extraction folder;
* after a success, every link in the extracted tree resolves inside it.

Cases run in a child process (``run_in_child``) with a memory limit and a timeout.
"""
import hashlib
import io
import os
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile

import pytest

from tests.fuzz import _support as S

import fasteager as fe

_NAMES = ["a.txt", "d/b.txt", "d/e/c.bin", "d", "d/e", "x", "link", "l2", "ü/ß.txt",
          "日本/語.txt"]


def _hostile_name(rng, sandbox):
    kind = rng.integers(0, 11)
    if kind == 0:
        return os.path.join(sandbox, "outer", "victim.txt")        # absolute, inside sandbox
    if kind == 1:
        return "../" * int(rng.integers(1, 5)) + "escaped.txt"
    if kind == 2:
        return "d/" + "../" * int(rng.integers(1, 4)) + "escaped.txt"
    if kind == 3:
        return "n" * int(rng.integers(250, 300)) + "/f.txt"       # past NAME_MAX
    if kind == 4:
        return "/".join(["p" * 200] * int(rng.integers(15, 25)))    # past PATH_MAX
    if kind == 5:
        return "./" + str(rng.choice(_NAMES))
    if kind == 6:
        return "d//" + "b.txt"
    if kind == 7:
        return ""
    if kind == 8:
        return "link/through.txt"                                   # via an earlier link
    if kind == 9:
        return "x/../" + str(rng.choice(_NAMES))
    return "." if rng.random() < 0.5 else ".."


def _name(rng, sandbox):
    return _hostile_name(rng, sandbox) if rng.random() < 0.3 else str(rng.choice(_NAMES))


def _link_target(rng, sandbox):
    kind = rng.integers(0, 9)
    if kind == 0:
        return os.path.join(sandbox, "outer", "victim.txt")
    if kind == 1:
        return "../" * int(rng.integers(1, 5))
    if kind == 2:
        return "../outer/victim.txt"
    if kind == 3:
        return "d/e/../.."
    if kind == 4:
        return "link/.." * int(rng.integers(1, 3))
    if kind == 5:
        return "."
    if kind == 6:
        return "l2/../../victim.txt"
    return str(rng.choice(_NAMES))


# ---- tar ---------------------------------------------------------------------------------

def _tar_members(rng, sandbox):
    out = []
    for _ in range(int(rng.integers(1, 12))):
        kind = rng.choice(["file", "file", "dir", "sym", "sym", "hard", "fifo", "chr"])
        info = tarfile.TarInfo(_name(rng, sandbox))
        data = b""
        if kind == "file":
            data = rng.bytes(int(rng.integers(0, 3000)))
            info.size = len(data)
        elif kind == "dir":
            info.type = tarfile.DIRTYPE
        elif kind == "sym":
            info.type, info.linkname = tarfile.SYMTYPE, _link_target(rng, sandbox)
        elif kind == "hard":
            info.type = tarfile.LNKTYPE
            info.linkname = (_link_target(rng, sandbox) if rng.random() < 0.5
                             else str(rng.choice(_NAMES)))
        elif kind == "fifo":
            info.type = tarfile.FIFOTYPE
        else:
            info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
        info.mode = int(rng.choice([0o644, 0o755, 0o4755, 0o777, 0o000]))
        out.append((info, data))
        if rng.random() < 0.15:             # the same name again, maybe another type
            out.append((info, data))
    return out


def _tar_checksum(header):
    return sum(header[:148]) + 8 * 32 + sum(header[156:512])


def _mutate_tar(rng, raw):
    """Edit one header's size field (huge, zero, off by some) and give it a valid
    checksum again, or truncate, or flip bytes."""
    raw = bytearray(raw)
    headers = []
    off = 0
    while off + 512 <= len(raw) and any(raw[off:off + 512]):
        headers.append(off)
        size_field = bytes(raw[off + 124:off + 136]).rstrip(b"\0 ")
        try:
            size = int(size_field or b"0", 8)
        except ValueError:
            break
        off += 512 + (size + 511) // 512 * 512
    what = rng.integers(0, 4)
    if what == 0 and headers:
        h = int(rng.choice(headers))
        new = int(rng.choice([0, 1, 511, 513, 10 ** 6, 8 ** 11 - 1]))
        raw[h + 124:h + 136] = b"%011o\0" % new
        raw[h + 148:h + 156] = b"%06o\0 " % _tar_checksum(raw[h:h + 512])
    elif what == 1:
        raw = raw[:int(rng.integers(0, max(len(raw), 1)))]
    elif what == 2 and raw:
        for _ in range(int(rng.integers(1, 4))):
            raw[int(rng.integers(0, len(raw)))] ^= 1 << int(rng.integers(0, 8))
    return bytes(raw)


def _tar_bytes(rng, sandbox):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=int(rng.choice(
            [tarfile.GNU_FORMAT, tarfile.PAX_FORMAT]))) as tar:
        for info, data in _tar_members(rng, sandbox):
            try:
                tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
            except ValueError:      # a name tarfile itself can't store
                pass
    raw = buf.getvalue()
    if rng.random() < 0.5:
        raw = _mutate_tar(rng, raw)
    if rng.random() < 0.4:
        import gzip
        raw = gzip.compress(raw)
        if rng.random() < 0.3:
            raw = raw[:int(rng.integers(10, max(len(raw), 11)))]
    return raw


# ---- zip ---------------------------------------------------------------------------------

def _zip_bytes(rng, sandbox):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for _ in range(int(rng.integers(1, 10))):
            name = _name(rng, sandbox) or "empty"
            info = zipfile.ZipInfo(name)
            info.compress_type = int(rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
            if rng.random() < 0.2:              # a Unix symbolic link entry
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                data = _link_target(rng, sandbox).encode()
            else:
                info.external_attr = int(rng.choice([0o644, 0o755, 0o4755])) << 16
                data = rng.bytes(int(rng.integers(0, 3000)))
            if rng.random() < 0.1:
                name = name.rstrip("/") + "/"   # a directory entry
                info = zipfile.ZipInfo(name)
                data = b""
            with _quiet():
                z.writestr(info, data)
    raw = bytearray(buf.getvalue())
    what = rng.integers(0, 4)
    if what == 0:
        # declared sizes: local header (offset 18, 22) and central directory (20, 24)
        huge = int(rng.choice([0, 1, 2 ** 31, 2 ** 32 - 1]))
        for sig, at in ((b"PK\x03\x04", 18), (b"PK\x01\x02", 20)):
            pos = raw.find(sig)
            if pos >= 0 and rng.random() < 0.7:
                raw[pos + at + 4:pos + at + 8] = struct.pack("<I", huge)
    elif what == 1:
        raw = raw[:int(rng.integers(0, max(len(raw), 1)))]
    elif what == 2 and raw:
        for _ in range(int(rng.integers(1, 4))):
            raw[int(rng.integers(0, len(raw)))] ^= 1 << int(rng.integers(0, 8))
    return bytes(raw)


class _quiet:
    # zipfile warns about duplicate names; the duplicates are the point
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


# ---- the property ------------------------------------------------------------------------

def _snapshot(top, skip):
    """Every path under ``top`` but ``skip``: its type and its content or link target."""
    out = {}
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if os.path.join(d, x) != skip]
        for name in dirs + files:
            p = os.path.join(d, name)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[p] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[p] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                with open(p, "rb") as f:
                    out[p] = ("file", hashlib.sha1(f.read()).hexdigest(),
                              stat.S_IMODE(st.st_mode))
    return out


def _sandbox():
    top = tempfile.mkdtemp(prefix="fe-extract-fuzz-")
    outer = os.path.join(top, "outer")
    datasets = os.path.join(outer, "cache", "datasets")
    os.makedirs(datasets)
    for rel, data in (("victim.txt", b"victim"), ("cache/keep.txt", b"keep"),
                      ("escaped.txt", b"already here")):
        with open(os.path.join(outer, rel), "wb") as f:
            f.write(data)
    os.makedirs(os.path.join(top, "sibling"))
    with open(os.path.join(top, "sibling", "s.txt"), "wb") as f:
        f.write(b"s")
    return top, os.path.join(outer, "cache"), datasets


def _check_extraction(fname, raw, top, cache, datasets):
    archive = os.path.join(datasets, fname)
    with open(archive, "wb") as f:
        f.write(raw)
    target = os.path.join(datasets, fname.split(".")[0] + "_extracted")
    before = _snapshot(top, target)
    try:
        out = fe.keras.utils.get_file(fname, origin="file:///nonexistent/" + fname,
                                      cache_dir=cache, extract=True)
        failed = None
    except Exception as e:          # noqa: BLE001 - checked below, then re-raised
        failed = e
    after = _snapshot(top, target)
    changed = sorted(set(before.items()) ^ set(after.items()))
    assert not changed, "written outside the extraction folder: %s" % changed[:4]
    leftovers = [n for n in os.listdir(datasets) if n.startswith(".extract-")]
    assert not leftovers, "temporary folder left: %s" % leftovers
    if failed is not None:
        assert not os.path.lexists(target), "a failed extraction left %s" % target
        raise failed
    if os.path.isdir(out):
        root = os.path.realpath(out)
        for d, dirs, files in os.walk(out):
            for name in dirs + files:
                p = os.path.join(d, name)
                st = os.lstat(p)
                assert stat.S_ISLNK(st.st_mode) or stat.S_ISDIR(st.st_mode) or \
                    stat.S_ISREG(st.st_mode), "special file %s extracted" % p
                if stat.S_ISLNK(st.st_mode):
                    real = os.path.realpath(p)
                    assert real == root or real.startswith(root + os.sep), \
                        "link %s -> %s resolves outside (%s)" % (p, os.readlink(p), real)


def _case(kind):
    def make(rng):
        top, cache, datasets = _sandbox()
        raw = (_tar_bytes if kind == "tar" else _zip_bytes)(rng, top)
        fname = "evil.tar.gz" if kind == "tar" else "evil.zip"

        def thunk():
            import warnings
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")      # "Could not extract archive."
                    _check_extraction(fname, raw, top, cache, datasets)
            finally:
                shutil.rmtree(top, ignore_errors=True)
        return "%s archive of %d bytes (sha1 %s)" % (
            kind, len(raw), hashlib.sha1(raw).hexdigest()[:12]), thunk
    return make


CHILD_TARGETS = {"tar": _case("tar"), "zip": _case("zip")}


@pytest.mark.parametrize("target", sorted(CHILD_TARGETS))
def test_extraction_never_writes_outside(target):
    n = S.examples(60)
    assert S.run_in_child(__name__, target, 20261207, n, timeout=max(120, n // 4),
                          memory_mb=2048) == n
