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
