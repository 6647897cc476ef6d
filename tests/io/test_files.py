"""fe.io.read_file / write_file / matching_files and fe.io.gfile on local paths, with
TensorFlow's return types and error classes."""
import pytest

import fasteager as tf
from fasteager.errors import AlreadyExistsError, NotFoundError


def test_read_and_write_file(tmp_path):
    path = tmp_path / "sub" / "dir" / "data.bin"
    tf.io.write_file(str(path), b"ab\x00c")           # creates the directories, as TF
    got = tf.io.read_file(str(path))
    assert got.dtype == tf.string and got.shape == ()
    assert got.numpy() == b"ab\x00c"
    assert tf.io.read_file(tf.constant(str(path))).numpy() == b"ab\x00c"
    tf.io.write_file(path, tf.constant("text"))
    assert tf.io.read_file(path).numpy() == b"text"
    with pytest.raises(NotFoundError, match="read_file: .*No such file"):
        tf.io.read_file(str(tmp_path / "missing"))


def test_matching_files(tmp_path):
    for n in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / n).write_text(n)
    got = tf.io.matching_files(str(tmp_path / "*.txt"))
    assert got.dtype == tf.string
    assert [p.rsplit(b"/", 1)[1] for p in got.numpy().tolist()] == [b"a.txt", b"b.txt"]
    assert tf.io.matching_files(str(tmp_path / "*.none")).shape == (0,)


def test_gfile(tmp_path):
    g = tf.io.gfile
    d = str(tmp_path / "x" / "y")
    g.makedirs(d)
    assert g.exists(d) and g.isdir(d)
    name = g.join(d, "f.txt")
    with g.GFile(name, "w") as f:
        f.write("line1\nline2\n")
    with g.GFile(name) as f:
        assert f.read() == "line1\nline2\n"
    with g.GFile(name, "rb") as f:
        assert f.readline() == b"line1\n"
    assert list(g.GFile(name)) == ["line1\n", "line2\n"]
    assert g.GFile(name).size() == 12
    assert g.listdir(d) == ["f.txt"]
    assert g.glob(str(tmp_path / "x" / "y" / "*.txt")) == [name]
    assert g.glob(str(tmp_path / "nothing*")) == []
    g.copy(name, name + ".bak")
    with pytest.raises(AlreadyExistsError):
        g.copy(name, name + ".bak")
    g.rename(name + ".bak", name + ".old")
    assert sorted(g.listdir(d)) == ["f.txt", "f.txt.old"]
    g.remove(name + ".old")
    with pytest.raises(AlreadyExistsError):
        g.mkdir(d)
    walked = list(g.walk(str(tmp_path / "x")))
    assert walked[0][1] == ["y"]
    g.rmtree(str(tmp_path / "x"))
    assert not g.exists(d)
    with pytest.raises(NotFoundError, match="Could not find directory"):
        g.listdir(d)
    with pytest.raises(NotFoundError):
        g.GFile(name).read()
    with pytest.raises(NotFoundError):
        g.remove(name)


# the cases of tests/tf_reference/record_gfile_errors.py, run in a directory holding files
# "a" ("hello"), "b" and directory "d/"
_GFILE_CASES = {
    "rename_file_onto_dir": ("rename", ("a", "d"), {}),
    "rename_file_onto_dir_overwrite": ("rename", ("a", "d"), {"overwrite": True}),
    "rename_dir_onto_file_overwrite": ("rename", ("d", "b"), {"overwrite": True}),
    "rename_missing": ("rename", ("zz", "q"), {}),
    "rename_into_missing_dir": ("rename", ("a", "nodir/x"), {}),
    "remove_dir": ("remove", ("d",), {}),
    "remove_missing": ("remove", ("zz",), {}),
    "copy_dir": ("copy", ("d", "e"), {}),
    "copy_dir_onto_file_overwrite": ("copy", ("d", "b"), {"overwrite": True}),
    "copy_file_onto_dir": ("copy", ("a", "d"), {}),
    "copy_file_onto_dir_overwrite": ("copy", ("a", "d"), {"overwrite": True}),
    "copy_onto_itself": ("copy", ("a", "a"), {}),
    "copy_onto_itself_overwrite": ("copy", ("a", "a"), {"overwrite": True}),
    "copy_into_missing_dir": ("copy", ("a", "nodir/x"), {}),
    "makedirs_existing_file": ("makedirs", ("a",), {}),
    "makedirs_under_file": ("makedirs", ("a/x/y",), {}),
    "mkdir_under_file": ("mkdir", ("a/x",), {}),
}


@pytest.mark.parametrize("case", sorted(_GFILE_CASES))
def test_gfile_misuse_raises_tensorflows_error_class(tmp_path, monkeypatch, case):
    from tests.tf_reference import load
    want = load("gfile_errors")[case]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "a").write_text("hello")
    (tmp_path / "b").write_text("bb")
    method, args, kwargs = _GFILE_CASES[case]
    if want["error"] is None:
        getattr(tf.io.gfile, method)(*args, **kwargs)
    else:
        with pytest.raises(getattr(tf.errors, want["error"])) as info:
            getattr(tf.io.gfile, method)(*args, **kwargs)
        # TensorFlow's "<path>; <reason>" is part of the message
        assert want["message"] in str(info.value)
        assert type(info.value).__module__ == "fasteager.errors"
    # TensorFlow truncates a file copied onto itself; fasteager keeps it whole
    assert (tmp_path / "a").read_text() == "hello" or not (tmp_path / "a").exists()
    assert not (tmp_path / "e").exists()         # a refused copy leaves no empty file
