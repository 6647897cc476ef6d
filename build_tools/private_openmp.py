"""A private copy of GNU libgomp for fasteager's extension modules (used by setup.py).

Why: other libraries load an OpenMP runtime too, and PyTorch's wheel ships one under the
same soname, ``libgomp.so.1``. The dynamic linker loads a soname once per process, so
whichever library comes first decides the runtime both use, with the settings it read
at load: fasteager's choice of wait policy (its OpenMP threads must sleep between
loops, or they starve OpenBLAS's threads) then became PyTorch's too, and slowed its small
parallel loops (issue 15). This is the problem auditwheel solves for wheels by copying a
library under a new name; we do it at build time so editable installs get it too.

The copy must differ from libgomp in two ways:
- its soname (``libgomp.so.1`` -> ``libgomp.fe.1``), so it is loaded as a library of its
  own next to any other libgomp;
- its symbol version names (``GOMP_4.0`` -> ``GEMP_4.0``, ``OMP_1.0`` -> ``EMP_1.0``): glibc
  binds a versioned reference to the first definition with that name and version in the
  global scope, and PyTorch puts its libgomp there (RTLD_GLOBAL). With other version
  names our modules' references can only bind to our copy.
Symbol names stay the same, so the compiler's OpenMP calls link unchanged. The edit is
in place: each new string has the length of the old one, and the verdef hashes are
recomputed. Anything unexpected in the file makes :func:`make_private_libgomp` raise,
and setup.py then links the system libgomp as before.
"""
import os
import shutil
import struct
import subprocess

SONAME = "libgomp.fe.1"

_SHT_DYNSYM, _SHT_DYNAMIC, _SHT_GNU_VERDEF, _SHT_GNU_VERNEED = 11, 6, 0x6FFFFFFD, 0x6FFFFFFE
_DT_SONAME = 14


def _elf_hash(name):
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def _sections(data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for i in range(shnum):
        (_name, typ, _flags, _addr, offset, size, link, _info, _align,
         entsize) = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        out.append({"type": typ, "offset": offset, "size": size, "link": link,
                    "entsize": entsize})
    return out


def _cstring(data, at):
    end = data.index(b"\0", at)
    return bytes(data[at:end])


def _rename_version(name):
    # one substitution per character, so a name that is the tail of another (the linker
    # merges string tails: "OMP_1.0" may live inside "GOMP_1.0") changes consistently
    return name.replace(b"O", b"E")


def patch(data):
    """Rename the soname and the version definitions of a libgomp image (a bytearray)."""
    secs = _sections(data)
    dynamic = [s for s in secs if s["type"] == _SHT_DYNAMIC]
    verdef = [s for s in secs if s["type"] == _SHT_GNU_VERDEF]
    dynsym = [s for s in secs if s["type"] == _SHT_DYNSYM]
    if len(dynamic) != 1 or len(verdef) != 1 or len(dynsym) != 1:
        raise ValueError("expected one .dynamic, .dynsym and .gnu.version_d section")
    strtab = secs[dynsym[0]["link"]]
    if secs[verdef[0]["link"]] is not strtab or secs[dynamic[0]["link"]] is not strtab:
        raise ValueError("the version definitions do not use .dynstr")
    base = strtab["offset"]

    # the strings other entries point at (symbol names, needed versions) must not change
    protected = set()
    sym = dynsym[0]
    for at in range(sym["offset"], sym["offset"] + sym["size"], sym["entsize"]):
        protected.add(struct.unpack_from("<I", data, at)[0])
    for s in secs:
        if s["type"] == _SHT_GNU_VERNEED:
            at = s["offset"]
            while True:
                _v, cnt, file_, aux, nxt = struct.unpack_from("<HHIII", data, at)
                protected.add(file_)
                a = at + aux
                for _ in range(cnt):
                    _h, _f, _o, name, anext = struct.unpack_from("<IHHII", data, a)
                    protected.add(name)
                    a += anext
                if not nxt:
                    break
                at += nxt

    soname_at = None
    for at in range(dynamic[0]["offset"], dynamic[0]["offset"] + dynamic[0]["size"], 16):
        tag, val = struct.unpack_from("<qQ", data, at)
        if tag == _DT_SONAME:
            soname_at = val
    if soname_at is None or _cstring(data, base + soname_at) != b"libgomp.so.1":
        raise ValueError("the soname is not libgomp.so.1")

    # walk the version definitions: rename each, recompute its hash
    writes = {}
    at = verdef[0]["offset"]
    while True:
        _ver, flags, _ndx, cnt, _hash, aux, nxt = struct.unpack_from("<HHHHIII", data, at)
        name_at, = struct.unpack_from("<I", data, at + aux)
        old = _cstring(data, base + name_at)
        new = SONAME.encode() if flags & 1 else _rename_version(old)   # 1: VER_FLG_BASE
        writes[name_at] = (old, new)
        struct.pack_into("<I", data, at + 8, _elf_hash(new))
        if not nxt:
            break
        at += nxt
    writes.setdefault(soname_at, (b"libgomp.so.1", SONAME.encode()))
    for name_at, (old, new) in writes.items():
        if len(new) != len(old):
            raise ValueError("renaming %r would change its length" % old)
        # a version's own marker symbol (same name) is renamed with it
        inside = [p for p in protected
                  if name_at <= p < name_at + len(old) and p not in writes]
        if inside:
            raise ValueError("the string %r is shared with a symbol name" % old)
    for name_at, (old, new) in writes.items():
        data[base + name_at:base + name_at + len(new)] = new
    return data


def system_libgomp(compiler="gcc"):
    """The libgomp.so.1 the compiler links (``gcc -print-file-name``)."""
    path = subprocess.run([compiler, "-print-file-name=libgomp.so.1"], capture_output=True,
                          text=True, check=True).stdout.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        raise FileNotFoundError("the compiler has no libgomp.so.1 (got %r)" % path)
    return os.path.realpath(path)


def make_private_libgomp(dest_dir, compiler="gcc"):
    """Write ``dest_dir/libgomp.fe.1`` (renamed as above) and return its path."""
    src = system_libgomp(compiler)
    with open(src, "rb") as f:
        data = patch(bytearray(f.read()))
    dest = os.path.join(dest_dir, SONAME)
    tmp = dest + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    shutil.copymode(src, tmp)
    os.replace(tmp, dest)      # a running process keeps the old file it mapped
    return dest
