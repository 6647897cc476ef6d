"""Shape-producing ops asked for absurd outputs: an element count past 2**63 - 1 is
InvalidArgumentError and one that no memory can hold ResourceExhaustedError, as in
TensorFlow (classes recorded in tests/tf_reference/output_sizes.json), never a crash
(NumPy's tile wraps around and writes out of bounds) or a lazily mapped terabyte array.

The cases run in one child process under an address-space limit, so a crash there fails
the test naming the case instead of ending the run.
"""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import fasteager as fe
from tests.child_process import child_env
from tests.tf_reference import load

BIG = 2 ** 20
HUGE = 2 ** 40

# the cases of tests/tf_reference/record_output_sizes.py
CASES = {
    "tile_overflow": lambda: fe.tile(fe.ones([4, 3]), [2, 2 ** 62]),
    "tile_too_big": lambda: fe.tile(fe.ones([4, 3]), [BIG, BIG]),
    "broadcast_to_overflow": lambda: fe.broadcast_to(fe.ones([3]), [HUGE, HUGE, 3]),
    "broadcast_to_too_big": lambda: fe.broadcast_to(fe.ones([3]), [BIG, BIG, 3]),
    "zeros_overflow": lambda: fe.zeros([HUGE, HUGE]),
    "zeros_too_big": lambda: fe.zeros([BIG, BIG]),
    "ones_overflow": lambda: fe.ones([HUGE, HUGE]),
    "ones_too_big": lambda: fe.ones([BIG, BIG]),
    "fill_overflow": lambda: fe.fill([HUGE, HUGE], 1.0),
    "fill_too_big": lambda: fe.fill([BIG, BIG], 1.0),
    "pad_overflow": lambda: fe.pad(fe.ones([2, 2]), [[0, 2 ** 62], [0, 2 ** 62]]),
    "pad_too_big": lambda: fe.pad(fe.ones([2, 2]), [[0, BIG], [0, BIG]]),
    "range_too_big": lambda: fe.range(0, 2 ** 62, dtype=fe.int64),
    "range_float_overflow": lambda: fe.range(0.0, 1e30),
    "eye_too_big": lambda: fe.eye(BIG),
    "eye_batch_overflow": lambda: fe.eye(2, batch_shape=[2 ** 62, 4]),
    "resize_too_big": lambda: fe.image.resize(fe.ones([1, 2, 2, 1]), [BIG, BIG]),
    "zeros_negative": lambda: fe.zeros([-1, 3]),
}

# fasteager only: TensorFlow takes one_hot's depth and repeat's count as int32 and wraps
# 2**40 to 0 (an empty result); fasteager keeps the number and refuses the size
OWN_CASES = {
    "one_hot_too_big": (lambda: fe.one_hot([1, 2], HUGE), "ResourceExhaustedError"),
    "one_hot_overflow": (lambda: fe.one_hot(fe.zeros([BIG], fe.int32), 2 ** 50),
                         "InvalidArgumentError"),
    "repeat_too_big": (lambda: fe.repeat(fe.ones([3]), HUGE), "ResourceExhaustedError"),
    "repeat_overflow": (lambda: fe.repeat(fe.ones([3]), [2 ** 62] * 3),
                        "InvalidArgumentError"),
    "linspace_too_big": (lambda: fe.linspace(0.0, 1.0, HUGE), "ResourceExhaustedError"),
    "resize_overflow": (lambda: fe.image.resize(fe.ones([1, 2, 2, 1]), [2 ** 40, 2 ** 40]),
                        "InvalidArgumentError"),
}

_CHILD = r'''
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
from tests.ops import test_output_sizes as t
out = {}
for name, case in sorted({**t.CASES, **{k: v[0] for k, v in t.OWN_CASES.items()}}.items()):
    sys.stderr.write("CASE %s\n" % name); sys.stderr.flush()
    try:
        case()
        out[name] = None
    except Exception as e:
        out[name] = "%s.%s: %s" % (type(e).__module__, type(e).__name__, str(e)[:200])
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results():
    root = pathlib.Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                          timeout=120, cwd=str(root), env=child_env())
    cases = [ln for ln in proc.stderr.splitlines() if ln.startswith("CASE ")]
    assert proc.returncode == 0, "child died (code %d) on %s\n%s" % (
        proc.returncode, cases[-1] if cases else "start-up", proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_class_is_tensorflows(results, case):
    want = load("output_sizes")[case]
    got = results[case]
    assert got is not None and got.startswith("fasteager.errors.%s:" % want), (case, got)
    assert case.split("_")[0] in got      # the message names the op


@pytest.mark.parametrize("case", sorted(OWN_CASES))
def test_sizes_tensorflow_truncates_are_refused(results, case):
    got = results[case]
    assert got is not None and got.startswith("fasteager.errors.%s:" % OWN_CASES[case][1]), \
        (case, got)


def test_sizes_near_the_bound_still_work():
    assert fe.tile(fe.ones([2, 3]), [2, 0]).shape == (4, 0)
    assert fe.zeros([0, 2 ** 40]).shape == (0, 2 ** 40)
    assert fe.pad(fe.ones([2]), [[1, 2]]).numpy().tolist() == [0, 1, 1, 0, 0]
    assert fe.repeat(fe.constant([1, 2]), [0, 3]).numpy().tolist() == [2, 2, 2]
    assert fe.one_hot([0, 1], 2).numpy().tolist() == [[1, 0], [0, 1]]
    assert fe.eye(2, batch_shape=[3]).shape == (3, 2, 2)
    np.testing.assert_array_equal(fe.broadcast_to(fe.constant([1, 2]), [2, 2]).numpy(),
                                  [[1, 2], [1, 2]])
