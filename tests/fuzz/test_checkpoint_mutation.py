"""Mutation fuzzing of saved checkpoints and weight files.

A checkpoint (``.safetensors``), a weights file (``.safetensors`` and ``.npz``) and a
``checkpoint`` state file are saved once, then mutated by Hypothesis: truncations, byte
flips, insertions and deletions, and edits of the safetensors header (its length field,
an entry's dtype, shape or offsets, deep JSON nesting, duplicate and dropped entries,
the format metadata, the object-graph metadata that list_variables and load_checkpoint
read); ``.h5`` weights too (byte edits) where h5py is installed. Every
mutated file is loaded, and the load must either

* raise one of fasteager's typed errors (DataLossError, NotFoundError,
  InvalidArgumentError) and leave every variable and optimizer slot bit-exactly as it
  was, or
* succeed, with every variable holding bit-exactly what an independent reader (the
  ``safetensors`` package, ``np.load``) finds in the mutated file.

Loading runs in one long-lived worker process (``_WORKER``): a crash there (SIGBUS,
segfault) fails the example that caused it instead of ending the test run, and the next
example starts a new worker.
"""
import hashlib
import json
import os
import select
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.child_process import child_env
from tests.fuzz import _support as S

stnp = pytest.importorskip("safetensors.numpy")

TYPED = ("DataLossError", "NotFoundError", "InvalidArgumentError")

# The worker: builds the same model and optimizer as the files were saved from (constant
# initializers, so a fresh model is the same in every process), answers one JSON command
# a line with the digest of every variable (by checkpoint key) after the load.
_WORKER = r'''
import hashlib, json, os, sys
import numpy as np
import fasteager as fe
from fasteager.train import checkpoint as ck

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)


def make(built=True):
    model = fe.keras.Sequential([fe.keras.layers.Dense(
        3, kernel_initializer="ones", bias_initializer="zeros")])
    opt = fe.keras.optimizers.Adam(0.1)
    if built:
        build(model, opt)
    return model, opt


def build(model, opt):
    model(X)
    opt.build(model.trainable_variables)


def digests(roots):
    out = {}
    for key, var in ck._gather(roots).items():
        arr = np.asarray(var.numpy())
        out[key] = hashlib.sha1(
            ("%s%s" % (arr.dtype.str, arr.shape)).encode() + arr.tobytes()).hexdigest()
    return out


def save(directory):
    model, opt = make()
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(model(X) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                            model.trainable_variables))
    ckpt = fe.train.Checkpoint(model=model, optimizer=opt)
    ckpt.save(os.path.join(directory, "ck"))
    model.layers[0].kernel.assign(model.layers[0].kernel * 2.0)
    ckpt.save(os.path.join(directory, "ck"))
    model.save_weights(os.path.join(directory, "w.safetensors"))
    model.save_weights(os.path.join(directory, "w.npz"))
    try:
        model.save_weights(os.path.join(directory, "w.h5"))
    except ImportError:           # h5py is optional
        pass


def read(cmd):
    """The readers of a checkpoint's names (they parse its object-graph metadata)."""
    report = {"error": None}
    try:
        names = [n for n, _ in fe.train.list_variables(cmd["path"])]
        fe.train.load_checkpoint(cmd["path"]).get_variable_to_dtype_map()
        for name in names:
            fe.train.load_variable(cmd["path"], name)
    except Exception as e:
        report["error"] = type(e).__name__
        report["typed"] = isinstance(e, fe.errors.OpError)
        report["message"] = "%s: %s" % (type(e).__name__, str(e)[:300])
    return report


def run(cmd):
    if cmd["op"] == "read":
        return read(cmd)
    built = cmd.get("mode", "built") == "built"
    model, opt = make(built)
    ckpt = fe.train.Checkpoint(model=model, optimizer=opt)
    roots = dict(ck._children(model)) if cmd["op"] == "weights" else ckpt._roots()
    report = {"error": None, "stage": "load", "latest": None}
    try:
        if cmd["op"] == "ckpt":
            ckpt.restore(cmd["path"])
        elif cmd["op"] == "weights":
            model.load_weights(cmd["path"])
        else:
            latest = fe.train.latest_checkpoint(cmd["path"])
            report["latest"] = latest
            ckpt.restore(latest)
        if not built:
            report["stage"] = "build"
            build(model, opt)
    except Exception as e:
        report["error"] = type(e).__name__
        report["typed"] = isinstance(e, fe.errors.OpError)
        report["message"] = "%s: %s" % (type(e).__name__, str(e)[:300])
    if report["error"] and not built and report["stage"] == "build":
        report["after"] = digests(roots)
        build(model, opt)         # the slots, created now, must hold their initial values
    report["after"] = digests(roots)
    return report


if __name__ == "__main__":
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "save":
            save(cmd["path"])
            model, opt = make()
            out = {"fresh": digests(fe.train.Checkpoint(model=model, optimizer=opt)._roots()),
                   "fresh_weights": digests(dict(ck._children(model)))}
        else:
            out = run(cmd)
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
'''


class Worker:
    """The loading process; restarted after a crash."""

    def __init__(self, directory):
        self.directory = directory
        self.script = os.path.join(directory, "worker.py")
        with open(self.script, "w") as f:
            f.write(_WORKER)
        self.proc = None

    def ask(self, cmd, timeout=60):
        if self.proc is None or self.proc.poll() is not None:
            env = child_env(PYTHONFAULTHANDLER="1")
            self.proc = subprocess.Popen([sys.executable, self.script], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, env=env)
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.proc.kill()
            self.proc.wait()
            err = self.proc.stderr.read()[-3000:]
            self.proc = None
            raise AssertionError("the loader %s on %r (exit %s)\n%s" % (
                "hung" if not ready else "died", cmd, self.proc and self.proc.returncode, err))
        return json.loads(line)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """(worker, directory, fresh digests, fresh weight digests, original file bytes)."""
    directory = str(tmp_path_factory.mktemp("saved"))
    worker = Worker(directory)
    fresh = worker.ask({"op": "save", "path": directory})
    files = {name: open(os.path.join(directory, name), "rb").read()
             for name in ("ck-1.safetensors", "ck-2.safetensors", "checkpoint",
                          "w.safetensors", "w.npz", "w.h5")
             if os.path.exists(os.path.join(directory, name))}
    yield worker, directory, fresh["fresh"], fresh["fresh_weights"], files
    worker.close()


def digest(arr):
    arr = np.asarray(arr)
    return hashlib.sha1(("%s%s" % (arr.dtype.newbyteorder("=").str, arr.shape)).encode()
                        + np.ascontiguousarray(arr).tobytes()).hexdigest()


# ---- mutations -------------------------------------------------------------------------

def byte_edits(n, hot=None):
    """Edits of an ``n``-byte file; positions favour ``[0, hot)`` (a header) when given."""
    pos = st.integers(0, n - 1) if hot is None else st.one_of(
        st.integers(0, max(hot - 1, 0)), st.integers(0, n - 1))
    return st.one_of(
        st.tuples(st.just("truncate"), pos),
        st.tuples(st.just("flip"), pos, st.integers(1, 255)),
        st.tuples(st.just("insert"), pos, st.binary(min_size=1, max_size=16)),
        st.tuples(st.just("delete"), pos, st.integers(1, 16)))


def apply_bytes(raw, edit):
    if not raw:
        return raw
    kind, at = edit[0], edit[1] % len(raw)    # positions drawn for the original length
    if kind == "truncate":
        return raw[:at]
    if kind == "flip":
        return raw[:at] + bytes([raw[at] ^ edit[2]]) + raw[at + 1:]
    if kind == "insert":
        return raw[:at] + edit[2] + raw[at:]
    return raw[:at] + raw[at + edit[2]:]


_NEST = "\0NEST\0"
_DTYPE_NAMES = ["F32", "F64", "F16", "I32", "I64", "U8", "BOOL", "BF16", "f32", "", 5, None]
_BIG = st.sampled_from([2 ** 31, 2 ** 32, 2 ** 62, 2 ** 63, 2 ** 64 - 1, 2 ** 70, 10 ** 30])


def header_edits(names):
    entry = st.sampled_from(names)
    number = st.one_of(st.integers(-3, 40), _BIG)
    return st.one_of(
        st.tuples(st.just("length"), st.one_of(st.integers(-16, 16), _BIG)),
        st.tuples(st.just("dtype"), entry, st.sampled_from(_DTYPE_NAMES)),
        st.tuples(st.just("shape"), entry, st.one_of(
            st.lists(number, max_size=4), st.lists(st.just(0), min_size=60, max_size=70),
            st.just("3"), st.just([[3]]))),
        st.tuples(st.just("offsets"), entry, st.integers(0, 1),
                  st.one_of(st.integers(-64, 64), _BIG)),
        st.tuples(st.just("nest"), entry, st.sampled_from(["shape", "dtype", "data_offsets"]),
                  st.one_of(st.integers(1, 60), st.integers(1000, 200_000))),
        st.tuples(st.just("drop"), entry),
        st.tuples(st.just("duplicate"), entry),
        st.tuples(st.just("format"), st.sampled_from(["fasteager-checkpoint-0", "", "x" * 300])))


_GRAPH_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=8),
    st.lists(st.integers(0, 3), max_size=3), st.just({"tf_name": 3}),
    st.just({"name": ["x"]}), st.just({"trainable": "yes"}), st.just({"shape": [2]}),
    st.just({"tf_name": "_CHECKPOINTABLE_OBJECT_GRAPH"}))


def graph_edits(names):
    """Edits of the object-graph metadata (a JSON text inside the header's metadata):
    its text replaced, an entry or one of its fields changed, two entries given one
    TensorFlow name, an entry dropped or nested deep."""
    entry = st.sampled_from(names)
    return st.one_of(
        st.tuples(st.just("graph-text"), st.one_of(
            st.sampled_from(["{", "[]", "5", "null", '"x"', "{}", '{"a": 1}']),
            st.integers(1, 60_000).map(lambda k: "[" * k + "]" * k))),
        st.tuples(st.just("graph-entry"), entry, _GRAPH_VALUES),
        st.tuples(st.just("graph-field"), entry,
                  st.sampled_from(["name", "trainable", "tf_name", "other"]), _GRAPH_VALUES),
        st.tuples(st.just("graph-collide"), entry, entry),
        st.tuples(st.just("graph-drop"), entry))


def _edit_graph(graph_text, edit):
    kind = edit[0]
    if kind == "graph-text":
        return edit[1]
    graph = json.loads(graph_text)
    if kind == "graph-entry":
        graph[edit[1]] = edit[2]
    elif kind == "graph-field":
        graph[edit[1]][edit[2]] = edit[3]
    elif kind == "graph-collide":
        graph[edit[2]]["tf_name"] = graph[edit[1]]["tf_name"]
    else:
        del graph[edit[1]]
    return json.dumps(graph)


def apply_header(raw, edit):
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    kind = edit[0]
    if kind.startswith("graph"):
        meta = header["__metadata__"]
        meta["object_graph"] = _edit_graph(meta["object_graph"], edit)
        body = json.dumps(header).encode()
        body += b" " * (-len(body) % 8)
        return len(body).to_bytes(8, "little") + body + data
    if kind == "length":
        value = n + edit[1] if edit[1] < 2 ** 31 else edit[1]
        return (value % 2 ** 64).to_bytes(8, "little") + raw[8:]
    extra = ""
    if kind == "dtype":
        header[edit[1]]["dtype"] = edit[2]
    elif kind == "shape":
        header[edit[1]]["shape"] = edit[2]
    elif kind == "offsets":
        offsets = header[edit[1]]["data_offsets"]
        offsets[edit[2]] = offsets[edit[2]] + edit[3] if edit[3] < 2 ** 31 else edit[3]
    elif kind == "nest":
        header[edit[1]][edit[2]] = _NEST
        extra = edit[3]
    elif kind == "drop":
        del header[edit[1]]
    elif kind == "duplicate":
        extra = edit[1]
    else:
        header["__metadata__"]["format"] = edit[1]
    text = json.dumps(header)
    if kind == "nest":
        text = text.replace(json.dumps(_NEST), "[" * extra + "]" * extra)
    elif kind == "duplicate":
        text = text[:-1] + ", %s: %s}" % (json.dumps(extra), json.dumps(header[extra]))
    body = text.encode()
    body += b" " * (-len(body) % 8)
    return len(body).to_bytes(8, "little") + body + data


def checkpoint_mutations(raw):
    n = int.from_bytes(raw[:8], "little")
    names = sorted(k for k in json.loads(raw[8:8 + n]) if k != "__metadata__")
    return st.lists(st.one_of(
        st.tuples(st.just("bytes"), byte_edits(len(raw), hot=8 + n)),
        st.tuples(st.just("header"), header_edits(names))), min_size=1, max_size=3)


def mutate(raw, edits):
    for where, edit in edits:
        if where == "header":
            try:
                raw = apply_header(raw, edit)
            except (ValueError, KeyError, TypeError, IndexError, RecursionError):
                continue        # an earlier edit broke the header: keep the bytes as they are
        else:
            raw = apply_bytes(raw, edit)
    return raw


# ---- the property ----------------------------------------------------------------------

def reference(path, kind):
    """The arrays an independent reader finds in ``path`` (None when it rejects it)."""
    try:
        if kind == "npz":
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        if kind == "h5":
            import h5py
            out = {}
            with h5py.File(path, "r") as f:
                f.visititems(lambda name, obj: out.__setitem__(name, obj[()])
                             if isinstance(obj, h5py.Dataset) else None)
            return out
        return stnp.load_file(path)
    except Exception:   # noqa: BLE001 - any refusal of the reference counts as "corrupt"
        return None


def check(report, fresh, expected, what):
    """The load raised a typed error and changed nothing, or restored ``expected``."""
    after = report["after"]
    if report["error"]:
        assert report["typed"] and report["error"] in TYPED, "%s: %s" % (what, report["message"])
        if report["stage"] == "build":
            # the restore itself succeeded: what it assigned then is the file's; the values
            # that waited for the model must not have been assigned
            for key in after:
                if key.startswith("model/") or "/slots/" in key:
                    assert after[key] == fresh[key], "%s: %s changed (%s)" % (
                        what, key, report["message"])
            return
        changed = sorted(k for k in after if after[k] != fresh[k])
        assert not changed, "%s: %s changed despite %s" % (what, changed, report["message"])
        return
    assert expected is not None, "%s: loaded a file the reference reader rejects" % what
    for key, value in after.items():
        want = digest(expected[key]) if key in expected else fresh[key]
        assert value == want, "%s: %s does not hold the file's value" % (what, key)


def load_and_check(saved, name, data, cmd, kind="safetensors", weights=False):
    worker, directory, fresh, fresh_weights, _ = saved
    path = os.path.join(directory, "mutated-" + name)
    with open(path, "wb") as f:
        f.write(data)
    report = worker.ask(dict(cmd, path=path))
    expected = reference(path, kind)
    check(report, fresh_weights if weights else fresh, expected,
          "%s (%d bytes)" % (name, len(data)))
    return report


@S.fuzz(40)
@given(data=st.data())
def test_checkpoint_mutations(saved, data):
    raw = saved[4]["ck-1.safetensors"]
    edits = data.draw(checkpoint_mutations(raw), label="edits")
    mode = data.draw(st.sampled_from(["built", "deferred"]), label="mode")
    load_and_check(saved, "ck.safetensors", mutate(raw, edits), {"op": "ckpt", "mode": mode})


@S.fuzz(40)
@given(data=st.data())
def test_object_graph_metadata_mutations(saved, data):
    """list_variables, load_checkpoint and load_variable read the object graph: a mutated
    one (valid safetensors framing around it) is read or refused with a typed error, and
    a restore from it still restores exactly or changes nothing."""
    raw = saved[4]["ck-1.safetensors"]
    n = int.from_bytes(raw[:8], "little")
    names = sorted(json.loads(json.loads(raw[8:8 + n])["__metadata__"]["object_graph"]))
    edits = data.draw(st.lists(graph_edits(names), min_size=1, max_size=3), label="edits")
    mutated = mutate(raw, [("header", e) for e in edits])
    path = os.path.join(saved[1], "mutated-graph.safetensors")
    with open(path, "wb") as f:
        f.write(mutated)
    report = saved[0].ask({"op": "read", "path": path})
    if report["error"]:
        assert report["typed"] and report["error"] in TYPED, report["message"]
        assert "mutated-graph" in report["message"], report["message"]
    load_and_check(saved, "graph.safetensors", mutated, {"op": "ckpt", "mode": "built"})


@S.fuzz(20)
@given(data=st.data())
def test_weights_safetensors_mutations(saved, data):
    raw = saved[4]["w.safetensors"]
    edits = data.draw(checkpoint_mutations(raw), label="edits")
    load_and_check(saved, "w.safetensors", mutate(raw, edits), {"op": "weights"},
                   weights=True)


@S.fuzz(25)
@given(data=st.data())
def test_weights_npz_mutations(saved, data):
    raw = saved[4]["w.npz"]
    edits = data.draw(st.lists(byte_edits(len(raw)), min_size=1, max_size=3), label="edits")
    for edit in edits:
        raw = apply_bytes(raw, edit)
    load_and_check(saved, "w.npz", raw, {"op": "weights"}, kind="npz", weights=True)


@S.fuzz(20)
@given(data=st.data())
def test_weights_h5_mutations(saved, data):
    pytest.importorskip("h5py")
    raw = saved[4]["w.h5"]
    edits = data.draw(st.lists(byte_edits(len(raw)), min_size=1, max_size=3), label="edits")
    for edit in edits:
        raw = apply_bytes(raw, edit)
    load_and_check(saved, "w.h5", raw, {"op": "weights"}, kind="h5", weights=True)


@S.fuzz(25)
@given(data=st.data())
def test_state_file_mutations(saved, data):
    worker, directory, fresh, _, files = saved
    raw = files["checkpoint"]
    edits = data.draw(st.lists(st.one_of(
        byte_edits(len(raw)), st.tuples(st.just("replace"), st.binary(max_size=64))),
        min_size=1, max_size=3), label="edits")
    for edit in edits:
        if edit[0] == "replace":
            raw = edit[1]
        else:
            raw = apply_bytes(raw, edit)
    state_dir = os.path.join(directory, "state")
    os.makedirs(state_dir, exist_ok=True)
    for name in ("ck-1.safetensors", "ck-2.safetensors"):
        with open(os.path.join(state_dir, name), "wb") as f:
            f.write(files[name])
    with open(os.path.join(state_dir, "checkpoint"), "wb") as f:
        f.write(raw)
    report = worker.ask({"op": "state", "path": state_dir})
    latest = report["latest"]
    expected = {} if latest is None else reference(latest + ".safetensors", "safetensors")
    check(report, fresh, expected, "state file %r" % raw[:80])
    if latest is not None and not report["error"]:
        assert os.path.basename(latest) in ("ck-1", "ck-2"), latest


def test_unmutated_files_restore_exactly(saved):
    """The baseline of the property: the saved files themselves load bit-exactly."""
    worker, directory, fresh, fresh_weights, files = saved
    for mode in ("built", "deferred"):
        report = load_and_check(saved, "ck.safetensors", files["ck-1.safetensors"],
                                {"op": "ckpt", "mode": mode})
        assert report["error"] is None and report["after"] != fresh, report
    for name, kind in (("w.safetensors", "safetensors"), ("w.npz", "npz")):
        report = load_and_check(saved, name, files[name], {"op": "weights"}, kind=kind,
                                weights=True)
        assert report["error"] is None and report["after"] != fresh_weights, report
    report = worker.ask({"op": "state", "path": directory})
    assert report["error"] is None and report["latest"].endswith("ck-2"), report
