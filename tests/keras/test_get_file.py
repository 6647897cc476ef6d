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
