"""fasteager.train._safetensors against the reference `safetensors` package."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from fasteager._src.io import atomic as _atomic
from fasteager.train import _safetensors as st
from tests.child_process import child_env

safetensors = pytest.importorskip("safetensors")
stnp = pytest.importorskip("safetensors.numpy")

DTYPES = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.float16, np.uint32,
          np.int32, np.float32, np.uint64, np.int64, np.float64]


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        value = rng.random(shape) > 0.5
    elif np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        value = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    else:
        value = rng.normal(size=shape).astype(dtype)
    return np.asarray(value)  # the reference writer needs ndarrays, not NumPy scalars


def all_dtype_tensors():
    out = {}
    for i, dt in enumerate(DTYPES):
        name = np.dtype(dt).name
        out[f"{name}/matrix"] = sample(dt, (3, 5), i)
        out[f"{name}/scalar"] = sample(dt, (), i)
        out[f"{name}/empty"] = np.zeros((0, 4), dtype=dt)
        out[f"{name}/odd"] = sample(dt, (7,), i)
    return out


def assert_same(got, want):
    assert set(got) == set(want)
    for k in want:
        w = np.asarray(want[k])
        assert got[k].dtype == w.dtype.newbyteorder("="), k
        assert got[k].shape == w.shape, k
        np.testing.assert_array_equal(got[k], w, err_msg=k)


def raw_file(path, header, data=b"", pad=True):
    """Write a hand-made safetensors file: header is a dict (JSON-encoded) or bytes."""
    if not isinstance(header, bytes):
        header = json.dumps(header).encode()
    if pad:
        header += b" " * (-len(header) % 8)
    path.write_bytes(len(header).to_bytes(8, "little") + header + data)
    return path


# ---------------------------------------------------------------------------
# round trips with the reference implementation
# ---------------------------------------------------------------------------

def test_ours_read_by_reference(tmp_path):
    tensors = all_dtype_tensors()
    path = tmp_path / "all.safetensors"
    st.save_file(tensors, path)
    assert_same(stnp.load_file(str(path)), tensors)


def test_reference_read_by_ours(tmp_path):
    tensors = all_dtype_tensors()
    path = tmp_path / "ref.safetensors"
    stnp.save_file(tensors, str(path), metadata={"format": "np"})
    got, meta = st.load_file(path)
    assert_same(got, tensors)
    assert meta == {"format": "np"}


def test_large_tensor_round_trip(tmp_path):
    big = np.random.default_rng(0).random((2048, 2048), dtype=np.float32)  # 16 MiB
    path = tmp_path / "big.safetensors"
    st.save_file({"big": big, "small": np.arange(3, dtype=np.int8)}, path)
    np.testing.assert_array_equal(stnp.load_file(str(path))["big"], big)
    got, _ = st.load_file(path)
    np.testing.assert_array_equal(got["big"], big)


def test_non_contiguous_big_endian_and_array_likes(tmp_path):
    class FakeTensor:
        def __array__(self, dtype=None, copy=None):
            return np.arange(4.0)

    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    tensors = {"t": base.T, "slice": base[::2, 1::3], "be": np.arange(5, dtype=">i4"),
               "fake": FakeTensor(), "list": [[1, 2], [3, 4]]}
    path = tmp_path / "x.safetensors"
    st.save_file(tensors, path)
    ref = stnp.load_file(str(path))
    got, _ = st.load_file(path)
    for name, value in tensors.items():
        np.testing.assert_array_equal(ref[name], np.asarray(value))
        np.testing.assert_array_equal(got[name], np.asarray(value))
    assert got["be"].dtype == np.dtype("=i4")


def test_metadata_round_trip(tmp_path):
    meta = {"object_graph": json.dumps({"nodes": [1, 2]}), "step": "10", "ünï": "cödé"}
    path = tmp_path / "m.safetensors"
    st.save_file({"w": np.ones(2, np.float32)}, path, metadata=meta)
    with safetensors.safe_open(str(path), "np") as f:
        assert f.metadata() == meta
    assert st.load_file(path)[1] == meta
    assert st.read_header(path)[1] == meta
    st.save_file({"w": np.ones(2, np.float32)}, path)
    assert st.load_file(path)[1] == {}


def test_layout(tmp_path):
    path = tmp_path / "l.safetensors"
    tensors = {"b": np.arange(3, dtype=np.uint8), "a": np.arange(3.0),
               "c": np.float32(1.5), "e": np.zeros((2, 0), np.int64)}
    st.save_file(tensors, path)
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    assert (8 + n) % 8 == 0
    header = raw[8:8 + n]
    assert header.rstrip(b" ") == header.rstrip(b" \x00")  # padding is spaces
    parsed = json.loads(header)
    assert parsed["c"]["shape"] == [] and parsed["e"]["shape"] == [2, 0]
    begin, end = parsed["e"]["data_offsets"]
    assert begin == end
    ends = sorted(v["data_offsets"] for v in parsed.values())
    assert ends[-1][1] == len(raw) - 8 - n  # data area covered exactly
    got, _ = st.load_file(path)
    for arr in got.values():
        assert arr.flags.writeable and arr.flags.c_contiguous and arr.flags.aligned
    # Deterministic: insertion order does not change the bytes.
    path2 = tmp_path / "l2.safetensors"
    st.save_file(dict(reversed(list(tensors.items()))), path2)
    assert path2.read_bytes() == raw


def test_read_header(tmp_path):
    path = tmp_path / "h.safetensors"
    st.save_file({"w": np.zeros((2, 3), np.float32), "s": np.int64(3)}, path, {"k": "v"})
    entries, meta = st.read_header(path)
    assert meta == {"k": "v"}
    assert entries["w"]["dtype"] == "F32" and entries["w"]["shape"] == [2, 3]
    assert entries["s"] == {"dtype": "I64", "shape": [], "data_offsets": [0, 8]}
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ValueError, match="truncated"):
        st.read_header(path)


def test_save_rejects_bad_input(tmp_path):
    path = tmp_path / "bad.safetensors"
    with pytest.raises(TypeError):
        st.save_file([np.zeros(2)], path)
    with pytest.raises(TypeError):
        st.save_file({1: np.zeros(2)}, path)
    with pytest.raises(ValueError):
        st.save_file({"__metadata__": np.zeros(2)}, path)
    for bad in (np.zeros(2, np.complex64), np.array(["a"]), np.array([object()])):
        with pytest.raises(TypeError, match="dtype"):
            st.save_file({"x": bad}, path)
    with pytest.raises(TypeError, match="metadata"):
        st.save_file({"x": np.zeros(2)}, path, metadata={"k": 1})
    assert not path.exists()


# ---------------------------------------------------------------------------
# corruption: every problem is a ValueError naming the file
# ---------------------------------------------------------------------------

@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.safetensors"
    st.save_file({"w": np.arange(12, dtype=np.float32).reshape(3, 4),
                  "b": np.arange(5, dtype=np.int16)}, path, {"k": "v"})
    return path


def expect_error(path, match):
    with pytest.raises(ValueError, match=match) as info:
        st.load_file(path)
    assert str(path) in str(info.value)
    assert str(info.value).startswith("safetensors: ")
    return str(info.value)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.safetensors"
    with pytest.raises(FileNotFoundError, match="nope.safetensors"):
        st.load_file(path)
    with pytest.raises(FileNotFoundError, match="nope.safetensors"):
        st.read_header(path)


def test_truncated_everywhere(good_file, tmp_path):
    raw = good_file.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    cuts = sorted({0, 1, 7, 8, 9, 8 + n // 2, 8 + n - 1, 8 + n, 8 + n + 1,
                   len(raw) - 13, len(raw) - 1})
    for cut in cuts:
        path = tmp_path / f"cut{cut}.safetensors"
        path.write_bytes(raw[:cut])
        expect_error(path, "truncated|larger than file")
        with pytest.raises(safetensors.SafetensorError):  # the reference agrees
            stnp.load_file(str(path))


def test_every_header_byte_flip_is_caught(good_file, tmp_path):
    raw = good_file.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    path = tmp_path / "flip.safetensors"
    for i in range(8, 8 + n):
        bad = bytearray(raw)
        bad[i] = 0xFF  # never valid UTF-8
        path.write_bytes(bytes(bad))
        expect_error(path, "header")


def test_header_size_flips(good_file, tmp_path):
    raw = good_file.read_bytes()
    path = tmp_path / "size.safetensors"
    for i in range(8):
        bad = bytearray(raw)
        bad[i] ^= 0x40
        path.write_bytes(bytes(bad))
        with pytest.raises(ValueError, match=str(path)):
            st.load_file(path)


def test_semantic_corruptions(tmp_path):
    f32 = np.arange(4, dtype=np.float32).tobytes()  # 16 bytes
    cases = {
        "bad_json": (b'{"w": {"dtype": "F32",', f32, "invalid JSON"),
        "not_object": (b"[1, 2]", b"", "JSON object"),
        "lowercase_dtype": ({"w": {"dtype": "f32", "shape": [4], "data_offsets": [0, 16]}},
                            f32, "unknown dtype"),
        "bf16": ({"w": {"dtype": "BF16", "shape": [8], "data_offsets": [0, 16]}},
                 f32, "not supported"),
        "size_mismatch": ({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 16]}},
                          f32, "does not match"),
        "bad_shape": ({"w": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 16]}},
                      f32, "bad shape"),
        "reversed_offsets": ({"w": {"dtype": "F32", "shape": [0], "data_offsets": [16, 0]}},
                             f32, "bad data_offsets"),
        "missing_key": ({"w": {"dtype": "F32", "shape": [4]}}, f32, "wrong keys"),
        "overlap": ({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                     "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}},
                    f32, "overlaps"),
        "gap": ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                 "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}},
                f32, "gap"),
        "not_at_start": ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}},
                         f32, "gap"),
        "trailing": ({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]}},
                     f32, "trailing bytes"),
        "beyond_end": ({"a": {"dtype": "F32", "shape": [8], "data_offsets": [0, 32]}},
                       f32, "truncated"),
        "metadata_not_string": ({"__metadata__": {"k": 1},
                                 "w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}},
                                f32, "metadata values must be strings"),
        "metadata_not_object": ({"__metadata__": ["k"],
                                 "w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}},
                                f32, "metadata must be an object"),
        "duplicate": ((b'{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},'
                       b'"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}'),
                      f32, "duplicate"),
        "bool_byte": ({"w": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}},
                      b"\x01\x07", "BOOL"),
    }
    for label, (header, data, match) in cases.items():
        path = raw_file(tmp_path / f"{label}.safetensors", header, data)
        message = expect_error(path, match)
        if label in ("overlap", "gap", "size_mismatch", "bool_byte", "lowercase_dtype"):
            assert ": a:" in message or ": b:" in message or ": w:" in message, message


def test_header_size_larger_than_file(tmp_path):
    path = tmp_path / "huge.safetensors"
    path.write_bytes((1 << 40).to_bytes(8, "little") + b"{}      ")
    message = expect_error(path, "header size larger than file")
    assert "expected" in message and "got" in message


def test_minimal_valid_files(tmp_path):
    assert st.load_file(raw_file(tmp_path / "empty.safetensors", {})) == ({}, {})
    # Leading whitespace is valid JSON and the reference reader accepts it too.
    spaced = b' {"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    path = raw_file(tmp_path / "spaced.safetensors", spaced, np.float32(2).tobytes())
    assert st.load_file(path)[0]["w"][0] == 2
    path = raw_file(tmp_path / "z.safetensors",
                    {"z": {"dtype": "F64", "shape": [0, 3], "data_offsets": [0, 0]}})
    got, _ = st.load_file(path)
    assert got["z"].shape == (0, 3) and got["z"].dtype == np.float64


def test_unaligned_reference_file_loads_aligned(tmp_path):
    # One U8 byte first pushes the F64 tensor off its natural alignment.
    data = b"\x05" + np.arange(3.0).tobytes()
    path = raw_file(tmp_path / "u.safetensors",
                    {"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
                     "b": {"dtype": "F64", "shape": [3], "data_offsets": [1, 25]}}, data)
    got, _ = st.load_file(path)
    assert got["b"].flags.aligned and got["b"].flags.writeable
    np.testing.assert_array_equal(got["b"], np.arange(3.0))
    assert got["a"][0] == 5


# ---------------------------------------------------------------------------
# atomic writes
# ---------------------------------------------------------------------------

def _save_v1(path):
    st.save_file({"w": np.ones(1000, np.float32)}, path, {"version": "1"})
    return path.read_bytes()


def test_failure_mid_write_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.safetensors"
    before = _save_v1(path)

    def failing_write_all(f, chunks):
        chunks = iter(chunks)
        f.write(next(chunks))
        chunk = bytes(next(chunks))
        f.write(chunk[: len(chunk) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_atomic, "_write_all", failing_write_all)
    with pytest.raises(OSError, match="No space"):
        st.save_file({"w": np.zeros(1000, np.float32)}, path, {"version": "2"})
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]  # no temp file left behind
    assert st.load_file(path)[1] == {"version": "1"}


def test_fsync_failure_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.safetensors"
    before = _save_v1(path)

    def failing_fsync(fd):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(_atomic.os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="I/O error"):
        st.save_file({"w": np.zeros(1000, np.float32)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]


def test_killed_mid_write_keeps_previous_file(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    before = _save_v1(path)
    code = textwrap.dedent(f"""
        import os, signal
        import numpy as np
        from fasteager._src.io import atomic as _atomic
        from fasteager.train import _safetensors as st

        def dying_write_all(f, chunks):
            chunks = iter(chunks)
            f.write(next(chunks))
            f.flush()
            os.kill(os.getpid(), signal.SIGKILL)

        _atomic._write_all = dying_write_all
        st.save_file({{"w": np.zeros(1000, np.float32)}}, {str(path)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", code], env=child_env(), timeout=60,
                          check=False)
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    assert st.load_file(path)[1] == {"version": "1"}


def test_atomic_write_replaces_and_keeps_umask_permissions(tmp_path):
    path = tmp_path / "f.bin"
    _atomic.atomic_write(path, b"one")
    _atomic.atomic_write(path, [b"tw", memoryview(b"o")])
    assert path.read_bytes() == b"two"
    umask = os.umask(0)
    os.umask(umask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~umask)
    assert os.listdir(tmp_path) == ["f.bin"]


def test_mmap_load_matches_and_is_read_only(tmp_path):
    import numpy as np
    from fasteager.train import _safetensors as st
    arrays = {"a": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.int64(5),
              "c": np.zeros((0, 2), np.float64)}
    p = tmp_path / "m.safetensors"
    st.save_file(arrays, p)
    got, _ = st.load_file(p, mmap=True)
    for k, v in arrays.items():
        np.testing.assert_array_equal(got[k], v)
        assert got[k].shape == np.shape(v)
    assert not got["a"].flags.writeable
    p.write_bytes(b"\x01\x02")
    import pytest
    with pytest.raises(ValueError, match="truncated"):
        st.load_file(p, mmap=True)
