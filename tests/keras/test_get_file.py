"""keras.utils.get_file: download (file:// URLs here), the cache, hash checks, and safe
extraction of untrusted archives."""
import hashlib
import io
import os
import tarfile
import zipfile

import pytest

import fasteager as fe

get_file = fe.keras.utils.get_file


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "src" / "data.txt"
    path.parent.mkdir()
    path.write_bytes(b"hello fasteager\n")
    return path


def _url(path):
    return path.as_uri()


def test_downloads_once_into_the_cache(tmp_path, source, capsys):
    cache = tmp_path / "cache"
    got = get_file(origin=_url(source), cache_dir=cache)
    assert got == str(cache / "datasets" / "data.txt")
    assert open(got, "rb").read() == b"hello fasteager\n"
    assert "Downloading data from" in capsys.readouterr().out
    source.write_bytes(b"changed")          # a cached file is not fetched again
    assert open(get_file(origin=_url(source), cache_dir=cache), "rb").read() == \
        b"hello fasteager\n"
    assert capsys.readouterr().out == ""
    assert open(get_file(origin=_url(source), cache_dir=cache, force_download=True),
                "rb").read() == b"changed"


def test_fname_subdir_and_keras_home(tmp_path, source, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    got = get_file("renamed.txt", _url(source), cache_subdir="mine")
    assert got == str(tmp_path / "home" / "mine" / "renamed.txt")
    with pytest.raises(ValueError, match="cache_dir"):
        get_file("a/b.txt", _url(source))
    with pytest.raises(ValueError, match="origin"):
        get_file("x.txt")


@pytest.mark.parametrize("algo", ["sha256", "md5"])
def test_hash_is_checked_and_a_bad_download_leaves_nothing(tmp_path, source, algo):
    digest = getattr(hashlib, algo)(source.read_bytes()).hexdigest()
    cache = tmp_path / "c"
    assert os.path.exists(get_file(origin=_url(source), cache_dir=cache, file_hash=digest))
    assert fe.keras.utils.validate_file(cache / "datasets" / "data.txt", digest)
    with pytest.raises(ValueError, match="hash does not match"):
        get_file("other.txt", _url(source), cache_dir=cache, file_hash="0" * len(digest))
    assert sorted(os.listdir(cache / "datasets")) == ["data.txt"]   # no partial file


def test_stale_cached_file_is_fetched_again(tmp_path, source, capsys):
    cache = tmp_path / "c"
    (cache / "datasets").mkdir(parents=True)
    (cache / "datasets" / "data.txt").write_bytes(b"truncated")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    got = get_file(origin=_url(source), cache_dir=cache, file_hash=digest)
    assert open(got, "rb").read() == source.read_bytes()
    assert "re-download" in capsys.readouterr().out


def test_missing_url_raises_and_writes_nothing(tmp_path):
    cache = tmp_path / "c"
    with pytest.raises(Exception, match="URL fetch failure"):
        get_file(origin=(tmp_path / "absent.txt").as_uri(), cache_dir=cache)
    assert os.listdir(cache / "datasets") == []


def _tar(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_extracts_tar_and_zip(tmp_path):
    tgz = tmp_path / "pack.tgz"
    _tar(tgz, [("pack/a.txt", b"a"), ("pack/sub/b.txt", b"b")])
    out = get_file(origin=_url(tgz), cache_dir=tmp_path / "c", extract=True)
    assert out == str(tmp_path / "c" / "datasets" / "pack.tgz")
    assert open(os.path.join(out, "pack", "sub", "b.txt")).read() == "b"
    zp = tmp_path / "z.zip"
    with zipfile.ZipFile(zp, "w") as z:
        z.writestr("inner/c.txt", "c")
    out = get_file("z.zip", _url(zp), cache_dir=tmp_path / "c", extract=True)
    assert out == str(tmp_path / "c" / "datasets" / "z_extracted")
    assert open(os.path.join(out, "inner", "c.txt")).read() == "c"


@pytest.mark.parametrize("name", ["../escape.txt", "/abs/escape.txt", "a/../../escape.txt"])
def test_hostile_tar_members_are_refused_before_writing(tmp_path, name):
    tgz = tmp_path / "evil.tgz"
    _tar(tgz, [("ok.txt", b"fine"), (name, b"pwned")])
    cache = tmp_path / "c"
    with pytest.raises(ValueError, match="outside the archive"):
        get_file(origin=_url(tgz), cache_dir=cache, extract=True)
    assert not (tmp_path / "escape.txt").exists()
    assert not (cache / "datasets" / "evil.tgz").exists()    # no partial extraction
    assert not (cache / "escape.txt").exists()


def test_tar_symlink_out_of_the_archive_is_refused(tmp_path):
    tgz = tmp_path / "link.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        info = tarfile.TarInfo("link")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
    with pytest.raises(ValueError, match="points outside"):
        get_file(origin=_url(tgz), cache_dir=tmp_path / "c", extract=True)


def test_hostile_zip_member_is_refused(tmp_path):
    zp = tmp_path / "evil.zip"
    with zipfile.ZipFile(zp, "w") as z:
        z.writestr("../../escape.txt", "pwned")
    with pytest.raises(ValueError, match="outside the archive"):
        get_file(origin=_url(zp), cache_dir=tmp_path / "c", extract=True)
    assert not (tmp_path / "escape.txt").exists()


def _chained_link_escape(path, up):
    """A tar shaped like the CVE-2025-4517 proof of concept: 16 directories of 247-char
    names, each reachable through a one-letter link, so that the textual path of a link
    deep inside is short while its real path is longer than PATH_MAX (where
    ``os.path.realpath`` stops resolving); a link there climbs 16 levels, and ``escape``
    climbs ``up`` more through it; ``escape/OUTSIDE.txt`` then lands outside."""
    long = "d" * 247
    letters = "abcdefghijklmnop"
    with tarfile.open(path, "w") as tar:
        real = ""
        for c in letters:
            d = tarfile.TarInfo(os.path.join(real, long))
            d.type = tarfile.DIRTYPE
            tar.addfile(d)
            s = tarfile.TarInfo(os.path.join(real, c))
            s.type, s.linkname = tarfile.SYMTYPE, long
            tar.addfile(s)
            real = os.path.join(real, long)
        deep = os.path.join(*letters, "l" * 254)
        link = tarfile.TarInfo(deep)
        link.type, link.linkname = tarfile.SYMTYPE, "../" * 16
        tar.addfile(link)
        esc = tarfile.TarInfo("escape")
        esc.type, esc.linkname = tarfile.SYMTYPE, deep + "/.." * up
        tar.addfile(esc)
        data = b"written outside"
        f = tarfile.TarInfo("escape/OUTSIDE.txt")
        f.size = len(data)
        tar.addfile(f, io.BytesIO(data))


def _files_named(top, name):
    return [os.path.join(d, name) for d, _, files in os.walk(top) if name in files]


def test_chained_links_cannot_write_outside(tmp_path):
    # the cache sits three levels down, so an escape lands inside tmp_path where it is seen
    cache = tmp_path / "s1" / "s2" / "s3" / "cache"
    evil = tmp_path / "evil.tar"
    _chained_link_escape(evil, 3)
    with pytest.raises(ValueError, match="evil.tar|escape|link"):
        get_file("evil.tar", _url(evil), cache_dir=cache, extract=True)
    assert _files_named(tmp_path, "OUTSIDE.txt") == []
    datasets = cache / "datasets"
    assert sorted(os.listdir(datasets)) == ["evil.tar"]     # no extraction, no leftovers


def _add_link(tar, name, target, kind=tarfile.SYMTYPE):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    tar.addfile(info)


def _add_file(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def test_a_link_that_only_leaves_through_another_link_is_refused(tmp_path):
    # "d/u/.." reads as "d" but d/u is a link to "..", so it resolves above the archive
    evil = tmp_path / "climb.tar"
    with tarfile.open(evil, "w") as tar:
        _add_link(tar, "d/u", "..")
        _add_link(tar, "t", "d/u/..")
    with pytest.raises(ValueError, match="through the links"):
        get_file("climb.tar", _url(evil), cache_dir=tmp_path / "c", extract=True)
    assert sorted(os.listdir(tmp_path / "c" / "datasets")) == ["climb.tar"]


def test_a_member_is_never_written_through_a_link(tmp_path):
    evil = tmp_path / "through.tar"
    with tarfile.open(evil, "w") as tar:
        _add_file(tar, "sub/keep.txt", b"k")
        _add_link(tar, "alias", "sub")
        _add_file(tar, "alias/new.txt", b"n")
    with pytest.raises(ValueError, match="passes through 'alias'"):
        get_file("through.tar", _url(evil), cache_dir=tmp_path / "c", extract=True)


def test_links_inside_the_archive_are_kept(tmp_path):
    tar_path = tmp_path / "links.tar"
    with tarfile.open(tar_path, "w") as tar:
        _add_file(tar, "data/a.txt", b"first")
        _add_file(tar, "data/a.txt", b"second")            # a later member wins
        _add_link(tar, "data/link.txt", "a.txt")
        _add_link(tar, "hard.txt", "data/a.txt", tarfile.LNKTYPE)
        _add_link(tar, "dirlink", "data")
        _add_link(tar, "data/self", "../data/a.txt")
    out = get_file("links.tar", _url(tar_path), cache_dir=tmp_path / "c", extract=True)
    assert open(os.path.join(out, "data", "link.txt"), "rb").read() == b"second"
    assert open(os.path.join(out, "hard.txt"), "rb").read() == b"second"
    assert open(os.path.join(out, "dirlink", "a.txt"), "rb").read() == b"second"
    assert os.readlink(os.path.join(out, "data", "self")) == "../data/a.txt"


def test_a_file_member_replaces_a_link_rather_than_writing_through_it(tmp_path):
    outside = tmp_path / "victim.txt"
    outside.write_bytes(b"untouched")
    tar_path = tmp_path / "swap.tar"
    with tarfile.open(tar_path, "w") as tar:
        _add_file(tar, "target.txt", b"t")
        _add_link(tar, "x", "target.txt")
        _add_file(tar, "x", b"replaced")
    out = get_file("swap.tar", _url(tar_path), cache_dir=tmp_path / "c", extract=True)
    assert not os.path.islink(os.path.join(out, "x"))
    assert open(os.path.join(out, "target.txt"), "rb").read() == b"t"
    assert outside.read_bytes() == b"untouched"


def test_truncated_archive_is_data_loss_and_leaves_nothing(tmp_path):
    good = tmp_path / "good.tar"
    with tarfile.open(good, "w") as tar:
        _add_file(tar, "big.bin", os.urandom(5000))
    cut = tmp_path / "cut.tar"
    cut.write_bytes(good.read_bytes()[:2048])
    with pytest.raises(fe.errors.DataLossError, match="cut.tar"):
        get_file("cut.tar", _url(cut), cache_dir=tmp_path / "c", extract=True)
    assert sorted(os.listdir(tmp_path / "c" / "datasets")) == ["cut.tar"]
