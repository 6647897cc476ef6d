"""Checkpoint and weight-file integrity: everything is validated before anything is
assigned, optimizer slots included; corrupt files raise typed errors naming the file."""
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import fasteager as fe

from fasteager.train import _safetensors, checkpoint as ck
from tests.child_process import child_env

from _weight_files import rewrite_entry  # tests/train/_weight_files.py

X = np.random.RandomState(0).randn(4, 5).astype("float32")
SLOT = "optimizer/slots/model/_layers/0/kernel/m"


def make():
    return fe.keras.Sequential([fe.keras.layers.Dense(3, activation="relu"),
                                fe.keras.layers.Dense(2)])


def train_step(model, opt):
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(model(X) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))


def trained(tmp_path):
    """(saved checkpoint path, its tensors, its metadata) of a model trained one Adam step."""
    m, opt = make(), fe.keras.optimizers.Adam(0.1)
    train_step(m, opt)
    path = fe.train.Checkpoint(model=m, optimizer=opt).save(str(tmp_path / "ck"))
    tensors, meta = _safetensors.load_file(path + ".safetensors")
    return path, tensors, meta


def fresh(built=True):
    m, opt = make(), fe.keras.optimizers.Adam(0.1)
    if built:
        m(X)
        opt.build(m.trainable_variables)
    return m, opt


def snapshot(model, opt):
    """Every byte of every variable and slot (and the optimizer's pending slot values)."""
    arrays = [v.numpy().tobytes() for v in list(model.weights) + list(opt.variables)]
    return arrays, {k: v.tobytes() for k, v in opt._deferred_slot_values.items()}


def rewrite(path, tensors, meta, changes):
    """Save ``tensors`` with ``changes`` (key -> new array, or None to drop it) to ``path``."""
    out = dict(tensors)
    for key, value in changes.items():
        if value is None:
            del out[key]
        else:
            out[key] = value
    _safetensors.save_file(out, path + ".safetensors", meta)


# ---- 1. deferred values own their memory ------------------------------------------------------

_DEFERRED = textwrap.dedent("""
    import sys
    import numpy as np
    import fasteager as fe
    X = np.ones((4, 5), np.float32)
    # values beyond the first page of the file, where a truncated mapping faults
    make = lambda: fe.keras.Sequential([fe.keras.layers.Dense(4000), fe.keras.layers.Dense(2)])
    m, opt = make(), fe.keras.optimizers.Adam(0.1)
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(m(X) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, m.trainable_variables), m.trainable_variables))
    path = fe.train.Checkpoint(model=m, optimizer=opt).save(sys.argv[1] + "/ck")
    m2, opt2 = make(), fe.keras.optimizers.Adam(0.1)
    fe.train.Checkpoint(model=m2, optimizer=opt2).restore(path)
    if sys.argv[2] == "truncate":    # a page mapped past the new end would raise SIGBUS
        with open(path + ".safetensors", "r+b") as f:
            f.truncate(16)
    else:                            # the same inode, new bytes: a mapping would see them
        size = len(open(path + ".safetensors", "rb").read())
        with open(path + ".safetensors", "r+b") as f:
            f.write(b"\\xff" * size)
    m2(X)                            # the deferred values are read only now
    for a, b in zip(m.weights, m2.weights):
        assert a.numpy().tobytes() == b.numpy().tobytes(), a.name
    opt2.build(m2.trainable_variables)
    for v, v2 in zip(m.trainable_variables, m2.trainable_variables):
        for name in ("m", "v"):
            assert (opt.get_slot(v, name).numpy() == opt2.get_slot(v2, name).numpy()).all()
    print("ok")
""")


@pytest.mark.parametrize("change", ["truncate", "overwrite"])
def test_deferred_values_survive_the_file_changing(tmp_path, change):
    proc = subprocess.run([sys.executable, "-c", _DEFERRED, str(tmp_path), change],
                          capture_output=True, text=True, timeout=120, env=child_env())
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout.strip() == "ok"


# ---- 2. slots validated with everything else; nothing changes on error ------------------------

@pytest.mark.parametrize("built", [True, False])
@pytest.mark.parametrize("bad, match", [
    (np.zeros((2, 2), np.float32), r"ck-1\.safetensors.*kernel/m.*shape \[2, 2\].*\[5, 3\]"),
    (np.zeros((5, 3), np.int32), r"ck-1\.safetensors.*kernel/m.*dtype int32.*float32"),
])
def test_bad_slot_changes_nothing(tmp_path, built, bad, match):
    path, tensors, meta = trained(tmp_path)
    rewrite(path, tensors, meta, {SLOT: bad})
    m, opt = fresh(built=True)
    if not built:                       # slots not created yet: checked against the variable
        opt = fe.keras.optimizers.Adam(0.1)
    before = snapshot(m, opt)
    with pytest.raises(fe.errors.InvalidArgumentError, match=match):
        fe.train.Checkpoint(model=m, optimizer=opt).restore(path)
    assert snapshot(m, opt) == before


def test_bad_deferred_slot_changes_nothing_at_build(tmp_path):
    path, tensors, meta = trained(tmp_path)
    rewrite(path, tensors, meta, {SLOT: np.zeros((5, 3), np.int32)})
    m = fe.keras.Sequential([fe.keras.layers.Dense(3, kernel_initializer="zeros"),
                             fe.keras.layers.Dense(2)])
    opt = fe.keras.optimizers.Adam(0.1)
    fe.train.Checkpoint(model=m, optimizer=opt).restore(path)
    with pytest.raises(fe.errors.InvalidArgumentError, match="kernel/m.*int32"):
        m(X)
    # the layer's kernel and bias were validated together: neither took its saved value
    assert not m.layers[0].kernel.numpy().any()
    assert not opt._deferred_slot_values


def test_deferred_layer_values_are_validated_together(tmp_path):
    path, tensors, meta = trained(tmp_path)
    rewrite(path, tensors, meta, {"model/_layers/0/bias": np.zeros(4, np.float32)})
    m = fe.keras.Sequential([fe.keras.layers.Dense(3, kernel_initializer="zeros"),
                             fe.keras.layers.Dense(2)])
    fe.train.Checkpoint(model=m).restore(path)
    with pytest.raises(fe.errors.InvalidArgumentError, match="_layers/0/bias"):
        m(X)
    assert not m.layers[0].kernel.numpy().any()


def test_missing_or_renamed_slots_are_not_consumed(tmp_path):
    path, tensors, meta = trained(tmp_path)
    rewrite(path, tensors, meta, {SLOT: None})
    m, opt = fresh()
    status = fe.train.Checkpoint(model=m, optimizer=opt).restore(path)
    with pytest.raises(AssertionError, match="kernel/m"):
        status.assert_consumed()
    with pytest.raises(AssertionError, match="kernel/m"):
        status.assert_existing_objects_matched()
    # before the optimizer's first step: the variable has saved slots, one is missing
    m, opt = fresh()
    status = fe.train.Checkpoint(model=m, optimizer=fe.keras.optimizers.Adam(0.1)).restore(path)
    with pytest.raises(AssertionError, match="kernel/m"):
        status.assert_consumed()

    renamed = dict(tensors)
    renamed[SLOT + "_old"] = renamed.pop(SLOT)
    _safetensors.save_file(renamed, path + ".safetensors", meta)
    for built in (True, False):
        m, opt = fresh(built)
        status = fe.train.Checkpoint(model=m, optimizer=opt).restore(path)
        if built:
            with pytest.raises(AssertionError, match="kernel/m_old"):
                status.assert_consumed()
        m(X)
        with pytest.raises(AssertionError, match="kernel/m"):
            status.assert_consumed()


def test_complete_slots_are_consumed(tmp_path):
    path, _, _ = trained(tmp_path)
    for built in (True, False):
        m, opt = fresh(built)
        status = fe.train.Checkpoint(model=m, optimizer=opt).restore(path)
        m(X)
        status.assert_consumed()


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".h5"])
def test_load_weights_wrong_entry_changes_nothing(tmp_path, suffix):
    if suffix == ".h5":
        pytest.importorskip("h5py")
    m = make()
    m(X)
    path = str(tmp_path / ("w" + suffix))
    m.save_weights(path)
    rewrite_entry(path, suffix, "_layers/1/kernel", m.layers[1].kernel.numpy().astype(np.int32))
    other = make()
    other(X)
    before = [w.numpy().tobytes() for w in other.weights]
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"load_weights: .*w\%s.*_layers/1/kernel.*int32" % suffix):
        other.load_weights(path)
    assert [w.numpy().tobytes() for w in other.weights] == before


def test_h5_name_not_utf8_changes_nothing(tmp_path):
    h5py = pytest.importorskip("h5py")
    m = make()
    m(X)
    path = str(tmp_path / "w.h5")
    m.save_weights(path)
    with h5py.File(path, "a") as f:
        f.create_dataset(b"\xff\xfe", data=np.zeros(3, np.float32))
    other = make()
    other(X)
    before = [w.numpy().tobytes() for w in other.weights]
    with pytest.raises(fe.errors.DataLossError, match=r"w\.h5.*UTF-8"):
        other.load_weights(path)
    assert [w.numpy().tobytes() for w in other.weights] == before


def test_h5_dataset_larger_than_its_storage(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = str(tmp_path / "w.h5")
    with h5py.File(path, "w") as f:        # declared 8 TB, nothing stored
        f.create_dataset("_layers/0/kernel", shape=(10 ** 6, 10 ** 6), dtype="f8")
    with pytest.raises(fe.errors.DataLossError, match=r"w\.h5.*_layers/0/kernel.*storage"):
        make().load_weights(path)


# ---- 3. corrupt files: typed errors naming the file ------------------------------------------

def test_deeply_nested_header(tmp_path):
    header = b"[" * 100_000 + b"]" * 100_000
    path = tmp_path / "deep.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header)
    with pytest.raises(fe.errors.DataLossError, match="deep.safetensors.*invalid JSON"):
        fe.train.Checkpoint(v=fe.Variable(1.0)).restore(str(path))


@pytest.mark.parametrize("shape", [[0, 2 ** 70], [0] * 65, [0, 2 ** 40, 2 ** 40]])
def test_empty_tensor_with_unrepresentable_shape(tmp_path, shape):
    header = json.dumps({"w": {"dtype": "F32", "shape": shape, "data_offsets": [0, 0]}})
    path = tmp_path / "big.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header.encode())
    with pytest.raises(fe.errors.DataLossError, match="big.safetensors.*'?w'?.*shape"):
        _safetensors.load_file(path)


def test_safetensors_read_errors_are_typed(tmp_path):
    with pytest.raises(fe.errors.DataLossError, match="directory"):
        _safetensors.load_file(tmp_path)
    with pytest.raises(fe.errors.NotFoundError, match="nope"):
        _safetensors.read_header(tmp_path / "nope.safetensors")
    (tmp_path / "d.safetensors").mkdir()
    with pytest.raises(fe.errors.DataLossError, match="d.safetensors.*directory"):
        fe.train.Checkpoint(v=fe.Variable(1.0)).restore(str(tmp_path / "d"))


def _npz(tmp_path):
    m = make()
    m(X)
    path = str(tmp_path / "w.npz")
    m.save_weights(path)
    return path, open(path, "rb").read()


def _expect_npz_error(path, match="w.npz"):
    other = make()
    other(X)
    before = [w.numpy().tobytes() for w in other.weights]
    with pytest.raises(fe.errors.DataLossError, match=match):
        other.load_weights(path)
    assert [w.numpy().tobytes() for w in other.weights] == before


def npy_member(version, header, data):
    """The bytes of a .npy file with ``header`` (the dict text) of format ``version``."""
    size = 2 if version == 1 else 4
    pad = -(len(header) + 1 + 6 + 2 + size) % 64
    header = header + b" " * pad + b"\n"
    return (b"\x93NUMPY" + bytes([version, 0]) + len(header).to_bytes(size, "little")
            + header + data)


def test_npz_unknown_compression_method(tmp_path):
    path, raw = _npz(tmp_path)
    data = bytearray(raw)
    # the compression method of the first local header and of every central entry
    for sig, off in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        i = data.find(sig)
        while i >= 0:
            data[i + off:i + off + 2] = (99).to_bytes(2, "little")
            i = data.find(sig, i + 4)
    open(path, "wb").write(bytes(data))
    _expect_npz_error(path)


def test_npz_declared_shape_larger_than_member(tmp_path):
    path = str(tmp_path / "w.npz")
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("_layers/0/kernel.npy", npy_member(1, header, b"\0" * 8))
    _expect_npz_error(path, r"w\.npz.*_layers/0/kernel.*\[100000000000\]")


def test_npz_object_arrays_and_stray_members(tmp_path):
    path = str(tmp_path / "w.npz")
    np.savez(path, a=np.array([{"x": 1}], dtype=object))
    _expect_npz_error(path, "w.npz")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", b"hello")
    _expect_npz_error(path, "readme.txt")


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, 0.99])
def test_npz_truncated(tmp_path, cut):
    path, raw = _npz(tmp_path)
    open(path, "wb").write(raw[:int(len(raw) * cut)])
    _expect_npz_error(path)


def test_state_file_not_utf8_or_a_directory(tmp_path):
    v = fe.Variable(1.0)
    manager = fe.train.CheckpointManager(fe.train.Checkpoint(v=v), tmp_path, max_to_keep=2)
    manager.save()
    state = tmp_path / "checkpoint"
    state.write_bytes(b'model_checkpoint_path: "ck\xff-1"\n')
    with pytest.raises(fe.errors.DataLossError, match=r"checkpoint.*UTF-8"):
        fe.train.latest_checkpoint(tmp_path)
    with pytest.raises(fe.errors.DataLossError, match=r"checkpoint.*UTF-8"):
        fe.train.CheckpointManager(fe.train.Checkpoint(v=v), tmp_path, max_to_keep=2)
    state.write_text("model_checkpoint_path = ckpt-1\n")
    with pytest.raises(fe.errors.DataLossError, match="line 1"):
        fe.train.latest_checkpoint(tmp_path)
    os.remove(state)
    state.mkdir()
    with pytest.raises(fe.errors.DataLossError, match="checkpoint.*directory"):
        fe.train.latest_checkpoint(tmp_path)


def test_save_replaces_a_corrupt_state_file(tmp_path):
    v = fe.Variable(5.0)
    (tmp_path / "checkpoint").write_bytes(b"\xff\xfe garbage")
    path = fe.train.Checkpoint(v=v).save(str(tmp_path / "ck"))
    assert fe.train.latest_checkpoint(tmp_path) == path


def test_state_file_paths_are_escaped(tmp_path):
    v = fe.Variable(3.0)
    prefix = tmp_path / 'a "q" \\ b'
    path = fe.train.Checkpoint(v=v).save(str(prefix))
    assert fe.train.latest_checkpoint(tmp_path) == path
    # TF's own escapes: octal bytes of UTF-8 and timestamp lines
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "\\303\\251-1"\nall_model_checkpoint_paths: "\\303\\251-1"\n'
        "all_model_checkpoint_timestamps: 1700000000.5\nlast_preserved_timestamp: 1.7e9\n")
    fe.train.Checkpoint(v=v).write(str(tmp_path / "\u00e9-1"))
    assert fe.train.latest_checkpoint(tmp_path) == str(tmp_path / "\u00e9-1")


# ---- 4. errors of get_slot_names are not swallowed --------------------------------------------

def test_get_slot_names_errors_propagate(tmp_path):
    class Broken(fe.keras.optimizers.Adam):
        def get_slot_names(self):
            raise RuntimeError("broken slot names")

    m = make()
    opt = Broken(0.1)
    train_step(m, opt)
    with pytest.raises(RuntimeError, match="broken slot names"):
        fe.train.Checkpoint(model=m, optimizer=opt).save(str(tmp_path / "ck"))
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".safetensors")]


# ---- found by tests/fuzz/test_checkpoint_mutation.py ------------------------------------------

@pytest.mark.parametrize("dtype", [["F32"], {"F32": 1}, 5, None])
def test_safetensors_dtype_not_a_string(tmp_path, dtype):
    header = json.dumps({"w": {"dtype": dtype, "shape": [1], "data_offsets": [0, 4]}})
    path = tmp_path / "t.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header.encode() + b"\0" * 4)
    with pytest.raises(fe.errors.DataLossError, match="t.safetensors.*w.*dtype"):
        _safetensors.load_file(path)


def test_npz_with_bytes_before_the_zip(tmp_path):
    # zipfile finds an archive behind a prefix; np.load (and so this reader) does not
    path, raw = _npz(tmp_path)
    open(path, "wb").write(b"\0" + raw)
    _expect_npz_error(path, "w.npz.*not a zip")


@pytest.mark.parametrize("version", [1, 2, 7])
def test_npz_npy_versions(tmp_path, version):
    path = str(tmp_path / "w.npz")
    bias = np.arange(2, dtype=np.float32)
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("b.npy", npy_member(version, header, bias.tobytes()))
    if version == 7:
        _expect_npz_error(path, "w.npz.*'b'.*version.*7.0")
    else:
        from fasteager.train import weights
        np.testing.assert_array_equal(weights._read(path, ".npz")["b"], bias)
