"""The Cython kernels (``_rnn.pyx``, ``_kernels.pyx``) and the ops wrapping them check
every array they are given before touching memory: a loaded SavedModel's graph can hand
an op any tensors (issue 31, item 3: a (1, 1) recurrent kernel where (4, 4) is needed
read past the array; inputs of the wrong rank segfaulted).

Each bad call runs in a child process, so that a kernel that still reads out of bounds
fails its case instead of ending the test run."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fasteager as fe
from fasteager import _core, _kernels, _rnn
from fasteager.ops.registry import OPS
from tests.child_process import child_env

T, B, D, U = 2, 3, 2, 4
F32 = np.float32


def _z(*shape, dtype=F32):
    return np.zeros(shape, dtype)


def _lstm_fwd_args():
    return [_z(T, B, D), _z(B, U), _z(B, U), _z(D, 4 * U), _z(U, 4 * U), _z(4 * U),
            _z(T, B), 1, 2]


def _lstm_bwd_args():
    return [_z(T, B, D), _z(B, U), _z(B, U), _z(U, 4 * U), _z(T, B), _z(T, B, U),
            _z(T, B, U), _z(T, B, 4 * U), _z(T, B, U), None, None, 1, 2]


def _gru_fwd_args():
    return [_z(T, B, D), _z(B, U), _z(D, 3 * U), _z(U, 3 * U), _z(2, 3 * U), _z(T, B), 1, 2]


def _gru_bwd_args():
    return [_z(T, B, D), _z(B, U), _z(U, 3 * U), _z(T, B), _z(T, B, U), _z(T, B, 3 * U),
            _z(T, B, U), _z(T, B, U), None, None, 1, 2]


def _simple_fwd_args():
    return [_z(T, B, D), _z(B, U), _z(D, U), _z(U, U), _z(U), _z(T, B), 1]


def _simple_bwd_args():
    return [_z(T, B, D), _z(B, U), _z(U, U), _z(T, B), _z(T, B, U), _z(T, B, U), 1]


KERNELS = {
    "lstm_forward": (_lstm_fwd_args, ["x", "h0", "c0", "kernel", "recurrent_kernel", "bias",
                                      "mask"]),
    "lstm_backward": (_lstm_bwd_args, ["x", "h0", "c0", "recurrent_kernel", "mask", "h_seq",
                                       "c_seq", "gates", "g_h"]),
    "gru_forward": (_gru_fwd_args, ["x", "h0", "kernel", "recurrent_kernel", "bias", "mask"]),
    "gru_backward": (_gru_bwd_args, ["x", "h0", "recurrent_kernel", "mask", "h_seq", "gates",
                                     "hrh", "g_h"]),
    "simple_rnn_forward": (_simple_fwd_args, ["x", "h0", "kernel", "recurrent_kernel",
                                              "bias", "mask"]),
    "simple_rnn_backward": (_simple_bwd_args, ["x", "h0", "recurrent_kernel", "mask",
                                               "h_seq", "g_h"]),
}


def _cases():
    """(kernel, argument index, argument name, how it is spoiled)."""
    for kernel, (_, names) in KERNELS.items():
        for i, name in enumerate(names):
            for how in ("rank", "size", "dtype", "list"):
                if name == "mask" and how == "dtype":
                    continue                   # a mask of any real dtype is taken
                yield kernel, i, name, how


def _spoil(a, how):
    if how == "rank":
        return a.reshape(a.shape + (1,))
    if how == "size":
        return np.zeros(tuple(max(d - 1, 1) if d > 1 else 2 for d in a.shape), a.dtype)
    if how == "dtype":
        return a.astype(np.float64)
    return a.tolist()


_CHILD = textwrap.dedent("""
    import sys, numpy as np
    from tests.kernels import test_kernel_argument_checks as m
    from fasteager import _rnn
    failures = []
    for kernel, i, name, how in m._cases():
        args = m.KERNELS[kernel][0]()
        args[i] = m._spoil(args[i], how)
        try:
            getattr(_rnn, kernel)(*args)
            failures.append("%s %s %s: no error" % (kernel, name, how))
        except ValueError as e:
            # x and recurrent_kernel set the sizes: spoiling them may make another
            # argument the one that does not fit
            named = name in ("x", "recurrent_kernel") or \
                str(e).startswith(kernel + ": " + name + " ")
            if not (str(e).startswith(kernel + ": ") and named):
                failures.append("%s %s %s: %s" % (kernel, name, how, e))
    print(failures)
""")


def test_each_kernel_checks_each_array():
    proc = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                          timeout=120, env=child_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]", proc.stdout


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_unspoiled_arguments_run(kernel):
    out = getattr(_rnn, kernel)(*KERNELS[kernel][0]())
    assert all(np.all(np.isfinite(o)) for o in (out if isinstance(out, tuple) else [out]))


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_activation_codes_are_checked(kernel):
    args = KERNELS[kernel][0]()
    args[-1] = 7
    with pytest.raises(ValueError, match="unknown activation code"):
        getattr(_rnn, kernel)(*args)


def test_non_contiguous_inputs_are_copied_not_misread():
    args = _lstm_fwd_args()
    r = np.random.default_rng(0)
    args[0] = r.standard_normal((T, B, D)).astype(F32)
    args[4] = r.standard_normal((U, 4 * U)).astype(F32)
    want = _rnn.lstm_forward(*args)
    args[4] = np.asfortranarray(args[4])
    args[0] = np.ascontiguousarray(args[0].transpose(2, 1, 0)).transpose(2, 1, 0)
    got = _rnn.lstm_forward(*args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


_OP_CHILD = textwrap.dedent("""
    import numpy as np
    from fasteager import _core
    from fasteager.ops.registry import OPS
    import fasteager as fe
    t = lambda *s: _core.wrap(np.zeros(s, np.float32))
    cases = {
        "simple_rnn_backprop scalars": ("simple_rnn_backprop", (t(),) * 6, None),
        "gru_backprop rank 2": ("gru_backprop", (t(2, 3),) * 10, None),
        "lstm_backprop rank 2": ("lstm_backprop", (t(2, 3),) * 11, None),
        "simple_rnn_backprop (1, 1) kernel": ("simple_rnn_backprop", (
            t(2, 2, 3), t(2, 4), t(1, 1), t(2, 2), t(2, 2, 4), t(2, 2, 4)), None),
        "gru_backprop (1, 1) kernel": ("gru_backprop", (
            t(2, 2, 3), t(2, 4), t(1, 1), t(2, 2), t(2, 2, 4), t(2, 2, 12), t(2, 2, 4),
            t(2, 2, 4)), {"given": (False, False)}),
        "lstm_backprop bad activation": ("lstm_backprop", (
            t(2, 2, 3), t(2, 4), t(2, 4), t(4, 16), t(2, 2), t(2, 2, 4), t(2, 2, 4),
            t(2, 2, 16), t(2, 2, 4)), {"given": (False, False), "activation": "softmax"}),
    }
    out = []
    for what, (op, args, attrs) in cases.items():
        try:
            _core.execute(OPS[op], args, attrs)
            out.append("%s: no error" % what)
        except fe.errors.InvalidArgumentError as e:
            if not str(e).startswith(op + ": "):
                out.append("%s: %s" % (what, e))
    print(out)
""")


def test_backprop_ops_refuse_bad_inputs_with_their_name():
    """The ops a saved graph names: InvalidArgumentError naming the op and the argument
    (the issue's scalars, rank-2 inputs and (1, 1) recurrent kernel)."""
    proc = subprocess.run([sys.executable, "-c", _OP_CHILD], capture_output=True, text=True,
                          timeout=120, env=child_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]", proc.stdout


def test_backprop_op_error_names_the_argument():
    t = lambda *s: _core.wrap(np.zeros(s, F32))       # noqa: E731
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"simple_rnn_backprop: recurrent_kernel has the wrong shape "
                             r"\(expected \[4, 4\], got \[1, 1\]\)"):
        _core.execute(OPS["simple_rnn_backprop"], (t(2, 2, 3), t(2, 4), t(1, 1), t(2, 2),
                                                   t(2, 2, 4), t(2, 2, 4)), None)


def test_sum_middle_axes_checks_its_axes_and_array():
    x = np.ones((2, 3, 8), F32)
    np.testing.assert_array_equal(_kernels.sum_middle_axes(x, 1, 2), np.full((2, 8), 3.0))
    for a0, a1 in ((1, 5), (2, 1), (-1, 2)):
        with pytest.raises(ValueError, match="sum_middle_axes: axes out of range"):
            _kernels.sum_middle_axes(x, a0, a1)
    with pytest.raises(ValueError, match="sum_middle_axes: x"):
        _kernels.sum_middle_axes(x.tolist(), 1, 2)
    with pytest.raises(ValueError):           # (the typed memoryview refuses it)
        _kernels.sum_middle_axes(x.astype(np.int32), 1, 2)
    with pytest.raises(ValueError):
        _kernels.sum_middle_axes(x.astype(">f4"), 1, 2)
    # a non-contiguous x is read in its logical order
    t = np.ascontiguousarray(np.arange(48, dtype=F32).reshape(8, 3, 2).transpose(2, 1, 0))
    v = t.transpose(2, 1, 0)
    np.testing.assert_array_equal(_kernels.sum_middle_axes(v, 1, 2), v.sum(axis=1))
    # no elements: zeros, no read of a first element
    np.testing.assert_array_equal(_kernels.sum_middle_axes(np.ones((2, 0, 8), F32), 1, 2),
                                  np.zeros((2, 8), F32))


def test_relu_backward_sum_refuses_non_arrays():
    with pytest.raises(ValueError, match="relu_backward_sum"):
        _kernels.relu_backward_sum([1.0, 2.0], np.ones(2))


@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d"])
@pytest.mark.parametrize("strides", ["VALID", 0, (1, 1, 1)])
def test_pool_ops_check_attributes_a_saved_graph_gives_them(op, strides):
    # a saved graph's attributes reach the op without the public function's normalising
    x = _core.wrap(np.zeros((2, 4, 4, 1), F32))
    with pytest.raises(fe.errors.InvalidArgumentError, match=op + ": strides"):
        _core.execute(OPS[op], (x,), {"ksize": 2, "strides": strides, "padding": "VALID"})
