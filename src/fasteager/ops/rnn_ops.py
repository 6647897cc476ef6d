"""Fused recurrent ops: whole LSTM, GRU and simple-RNN time loops as single ops.

The time loops run in ``fasteager._rnn`` (per step and block of batch rows: the input
and recurrent products and one fused gate loop; a hand-written backward through time
that also sums the weight gradients; no BLAS call inside a step). Inputs
and outputs are time-major, ``x`` of shape ``(T, B, D)`` and sequences ``(T, B, U)``;
the Keras layers (``keras/layers/recurrent.py``) transpose around them. ``mask`` is
``(T, B)`` of 0/1 (a 0 carries the state through that step); given in the input's dtype
it is used as it is (a traced tensor stays one), otherwise nonzero entries count as 1.

Besides the state sequence each op returns what its backward pass needs (the activated
gates and, for the GRU, the recurrent part of the candidate). Those are real outputs with
real gradients, so the op table checks all of them against finite differences.

Each op's gradient runs a second op (``*_backprop``): the fused backward-through-time
kernel, giving the gradients of every step's pre-activations and of the kernels and
biases. The gradient of x is then one matmul, made only where x needs one (a batch of
data does not). The backprop kernel has no derivative of its own:
second derivatives through these ops are not available (``*_backprop`` is in
``NO_GRADIENT``; the specs check the ops at order 1), and asking for one raises
``UnimplementedError`` rather than returning a partial result. The Keras layers' step-by-step path
(``unroll=True``) is differentiable to any order.

The backprop ops are also what a loaded SavedModel's graph names, with whatever inputs
the file gives them: the kernels check every array's rank, shape and dtype against the
sizes x and recurrent_kernel imply before touching memory (``_rnn.pyx``), and the ops
check their activation names; a mismatch is the op's ``InvalidArgumentError``.

    lstm(x, h0, c0, kernel, recurrent_kernel, bias, mask) -> (h_seq, c_seq, gates)
    gru(x, h0, kernel, recurrent_kernel, bias, mask)       -> (h_seq, gates, hrh)
    simple_rnn(x, h0, kernel, recurrent_kernel, bias, mask) -> h_seq
"""


import numpy as np

from .. import _core, _rnn
from ..errors import InvalidArgumentError, UnimplementedError
from .array_ops import reshape
from .conv_ops import _kernel_call
from .linalg_ops import matmul
from .registry import defop, execute, FLOAT

convert_to_tensor = _core.convert_to_tensor


ACTIVATIONS = tuple(_rnn.ACTIVATIONS)


def _err(opname, what):
    return InvalidArgumentError("%s: %s" % (opname, what))


def _act_code(opname, argname, name):
    code = _rnn.ACTIVATIONS.get(name) if isinstance(name, str) else None
    if code is None:
        raise _err(opname, "%s must be one of %s (got %r)" % (argname, ", ".join(ACTIVATIONS),
                                                              name))
    return code


def _check_shapes(opname, gates, x, states, kernel, recurrent_kernel, bias, mask,
                  bias_shape):
    """Shapes of a fused RNN call: x (T, B, D), states (B, U), kernel (D, G*U),
    recurrent_kernel (U, G*U), bias ``bias_shape(U)``, mask (T, B)."""
    if x.ndim != 3:
        raise _err(opname, "x must be time-major (T, B, D) (expected rank 3, got shape %s)"
                   % list(x.shape))
    T, B, D = x.shape
    if recurrent_kernel.ndim != 2:
        raise _err(opname, "recurrent_kernel must be (units, %d*units) (got shape %s)"
                   % (gates, list(recurrent_kernel.shape)))
    U = recurrent_kernel.shape[0]
    want = [("kernel", kernel, (D, gates * U)), ("recurrent_kernel", recurrent_kernel,
                                                  (U, gates * U)),
            ("bias", bias, bias_shape(U)), ("mask", mask, (T, B))]
    want += [(n, s, (B, U)) for n, s in states]
    for argname, a, shape in want:
        if tuple(a.shape) != shape:
            raise _err(opname, "%s has the wrong shape (expected %s, got %s)"
                       % (argname, list(shape), list(a.shape)))


def _float_mask(mask, x):
    """The (T, B) mask argument as 0/1 in x's dtype (all ones when None)."""
    x = convert_to_tensor(x)
    if mask is None:
        return convert_to_tensor(np.ones(x.shape.as_list()[:2], dtype=x.dtype.as_numpy_dtype))
    mask = convert_to_tensor(mask)
    if mask.dtype == x.dtype:       # already 0/1 (the layers pass it so): no host round trip
        return mask
    return convert_to_tensor((np.asarray(mask._value) != 0).astype(x.dtype.as_numpy_dtype))


def _backprop(op, opname, inputs, attrs):
    """Run a backprop kernel op. Under a recording outer tape its outputs get a node whose
    gradient raises: a second derivative through the kernel would otherwise come out
    silently partial (the projection matmuls would carry one, the time loop none)."""
    outs = execute(op, *inputs, **attrs)
    if _core.any_tape_recording():
        def no_second_order(grads):
            raise UnimplementedError(
                "%s: second derivatives through the fused kernel are not implemented "
                "(expected first-order gradients only); use the layer's unroll=True, whose "
                "step-by-step ops are differentiable to any order" % opname)
        _core.record_custom(tuple(inputs), tuple(outs), no_second_order)
    return outs


def _cotangents(g, ans):
    """The backprop kernels' cotangent inputs from an op's output gradients ``g``: the
    state sequence's (zeros when None), then those of the other outputs that were given,
    and ``given``, which says which (a None is zero: the kernel skips it rather than
    read an array of zeros the size of every step's gates)."""
    first = g[0] if g[0] is not None else convert_to_tensor(np.zeros_like(ans[0]._value))
    rest = [x for x in g[1:] if x is not None]
    return (first,) + tuple(rest), tuple(x is not None for x in g[1:])


def _given(opname, rest, given):
    """The optional cotangents back in place (None where not given)."""
    if len(given) != 2 or sum(bool(x) for x in given) != len(rest):
        raise _err(opname, "given must flag the %d optional cotangents passed (got given=%r "
                   "with %d)" % (len(rest), given, len(rest)))
    it = iter(rest)
    return [next(it) if x else None for x in given]


def _input_grad(x, dxp, kernel):
    """dx from all steps' input-projection gradients ``dxp`` (T, B, G*U): one matmul."""
    T, B, D = x.shape.as_list()
    return reshape(matmul(reshape(dxp, [T * B, dxp.shape[2]]), kernel, transpose_b=True),
                   [T, B, D])


# ---- LSTM --------------------------------------------------------------------------------

def _check_lstm(x, h0, c0, kernel, recurrent_kernel, bias, mask, activation="tanh",
                recurrent_activation="sigmoid"):
    _act_code("lstm", "activation", activation)
    _act_code("lstm", "recurrent_activation", recurrent_activation)
    _check_shapes("lstm", 4, x, [("h0", h0), ("c0", c0)], kernel, recurrent_kernel, bias,
                  mask, lambda u: (4 * u,))


def _lstm_fwd(x, h0, c0, kernel, recurrent_kernel, bias, mask, activation="tanh",
              recurrent_activation="sigmoid"):
    return _kernel_call("lstm", _rnn.lstm_forward, x, h0, c0, kernel, recurrent_kernel, bias,
                        mask, _rnn.ACTIVATIONS[activation],
                        _rnn.ACTIVATIONS[recurrent_activation])


def _lstm_grad(g, ans, inputs, attrs, needs):
    # backward through time in one fused kernel, which also sums the weight gradients;
    # dx is one matmul, made only where needed (an input batch of data needs none)
    x, h0, c0, kernel, recurrent_kernel, _, mask = inputs
    h_seq, c_seq, gates = ans
    cots, given = _cotangents(g, ans)
    dz, dh0, dc0, dkernel, drk, dbias = _backprop(
        lstm_backprop_op, "lstm", (x, h0, c0, recurrent_kernel, mask, h_seq, c_seq, gates)
        + cots, dict(attrs, given=given))
    dx = _input_grad(x, dz, kernel) if needs[0] else None
    return [dx, dh0, dc0, dkernel if needs[3] else None, drk if needs[4] else None,
            dbias if needs[5] else None, None]


lstm_op = defop("lstm", _lstm_fwd, kinds=FLOAT, multi=True, check=_check_lstm, nin=7,
                joint_grad=_lstm_grad)
# the tape hands its gradient None for outputs nothing used (usually c_seq and gates)
lstm_op.none_output_grads = True


def _lstm_backprop_fwd(x, h0, c0, recurrent_kernel, mask, h_seq, c_seq, gates, g_h, *rest,
                       given=(True, True), activation="tanh", recurrent_activation="sigmoid"):
    g_c, g_gates = _given("lstm_backprop", rest, given)
    return _kernel_call("lstm_backprop", _rnn.lstm_backward, x, h0, c0, recurrent_kernel,
                        mask, h_seq, c_seq, gates, g_h, g_c, g_gates,
                        _act_code("lstm_backprop", "activation", activation),
                        _act_code("lstm_backprop", "recurrent_activation",
                                  recurrent_activation))


# inputs: x, h0, c0, recurrent_kernel, mask, h_seq, c_seq, gates, g_h, then g_c and g_gates
# where ``given`` says so (absent: zero); outputs (dz, dh0, dc0, dkernel,
# drecurrent_kernel, dbias): dz the (T, B, 4U) gradients of the gate pre-activations
lstm_backprop_op = defop("lstm_backprop", _lstm_backprop_fwd, kinds=FLOAT, multi=True, nin=-1,
                         attrs=("given", "activation", "recurrent_activation"),
                         no_grad="the fused backward-through-time kernel of lstm; it has no "
                                 "derivative of its own (no second derivatives of lstm)")


def lstm(x, h0, c0, kernel, recurrent_kernel, bias, mask=None, activation="tanh",
         recurrent_activation="sigmoid"):
    """A whole LSTM time loop over time-major ``x`` (T, B, D) with Keras's weight layout
    (gates i, f, c, o). Returns ``(h_seq, c_seq, gates)``, each time-major."""
    return execute(lstm_op, x, h0, c0, kernel, recurrent_kernel, bias, _float_mask(mask, x),
                   activation=activation, recurrent_activation=recurrent_activation)


# ---- GRU (reset_after=True) --------------------------------------------------------------

def _check_gru(x, h0, kernel, recurrent_kernel, bias, mask, activation="tanh",
               recurrent_activation="sigmoid"):
    _act_code("gru", "activation", activation)
    _act_code("gru", "recurrent_activation", recurrent_activation)
    _check_shapes("gru", 3, x, [("h0", h0)], kernel, recurrent_kernel, bias, mask,
                  lambda u: (2, 3 * u))


def _gru_fwd(x, h0, kernel, recurrent_kernel, bias, mask, activation="tanh",
             recurrent_activation="sigmoid"):
    return _kernel_call("gru", _rnn.gru_forward, x, h0, kernel, recurrent_kernel, bias, mask,
                        _rnn.ACTIVATIONS[activation], _rnn.ACTIVATIONS[recurrent_activation])


def _gru_grad(g, ans, inputs, attrs, needs):
    x, h0, kernel, recurrent_kernel, _, mask = inputs
    h_seq, gates, hrh = ans
    cots, given = _cotangents(g, ans)
    dxp, _, dh0, dkernel, drk, dbias = _backprop(
        gru_backprop_op, "gru", (x, h0, recurrent_kernel, mask, h_seq, gates, hrh) + cots,
        dict(attrs, given=given))
    dx = _input_grad(x, dxp, kernel) if needs[0] else None
    return [dx, dh0, dkernel if needs[2] else None, drk if needs[3] else None,
            dbias if needs[4] else None, None]


gru_op = defop("gru", _gru_fwd, kinds=FLOAT, multi=True, check=_check_gru, nin=6,
               joint_grad=_gru_grad)
gru_op.none_output_grads = True


def _gru_backprop_fwd(x, h0, recurrent_kernel, mask, h_seq, gates, hrh, g_h, *rest,
                      given=(True, True), activation="tanh", recurrent_activation="sigmoid"):
    g_gates, g_hrh = _given("gru_backprop", rest, given)
    return _kernel_call("gru_backprop", _rnn.gru_backward, x, h0, recurrent_kernel, mask,
                        h_seq, gates, hrh, g_h, g_gates, g_hrh,
                        _act_code("gru_backprop", "activation", activation),
                        _act_code("gru_backprop", "recurrent_activation",
                                  recurrent_activation))


# inputs: x, h0, recurrent_kernel, mask, h_seq, gates, hrh, g_h, then g_gates and g_hrh
# where ``given`` says so; outputs (dxp, dhr, dh0, dkernel, drecurrent_kernel, dbias):
# dxp and dhr the gradients of the input and the recurrent projections
gru_backprop_op = defop("gru_backprop", _gru_backprop_fwd, kinds=FLOAT, multi=True, nin=-1,
                        attrs=("given", "activation", "recurrent_activation"),
                        no_grad="the fused backward-through-time kernel of gru; it has no "
                                "derivative of its own (no second derivatives of gru)")


def gru(x, h0, kernel, recurrent_kernel, bias, mask=None, activation="tanh",
        recurrent_activation="sigmoid"):
    """A whole GRU time loop (Keras's ``reset_after=True``: gates z, r, h, ``bias`` of shape
    (2, 3U), input then recurrent) over time-major ``x``. Returns ``(h_seq, gates, hrh)``."""
    return execute(gru_op, x, h0, kernel, recurrent_kernel, bias, _float_mask(mask, x),
                   activation=activation, recurrent_activation=recurrent_activation)


# ---- simple RNN --------------------------------------------------------------------------

def _check_simple(x, h0, kernel, recurrent_kernel, bias, mask, activation="tanh"):
    _act_code("simple_rnn", "activation", activation)
    _check_shapes("simple_rnn", 1, x, [("h0", h0)], kernel, recurrent_kernel, bias, mask,
                  lambda u: (u,))


def _simple_fwd(x, h0, kernel, recurrent_kernel, bias, mask, activation="tanh"):
    return _kernel_call("simple_rnn", _rnn.simple_rnn_forward, x, h0, kernel,
                        recurrent_kernel, bias, mask, _rnn.ACTIVATIONS[activation])


def _simple_grad(g, ans, inputs, attrs, needs):
    x, h0, kernel, recurrent_kernel, _, mask = inputs
    da, dh0, dkernel, drk, dbias = _backprop(simple_rnn_backprop_op, "simple_rnn",
                                             (x, h0, recurrent_kernel, mask, ans, g), attrs)
    dx = _input_grad(x, da, kernel) if needs[0] else None
    return [dx, dh0, dkernel if needs[2] else None, drk if needs[3] else None,
            dbias if needs[4] else None, None]


simple_rnn_op = defop("simple_rnn", _simple_fwd, kinds=FLOAT, check=_check_simple, nin=6,
                      joint_grad=_simple_grad)


def _simple_backprop_fwd(x, h0, recurrent_kernel, mask, h_seq, g_h, activation="tanh"):
    return _kernel_call("simple_rnn_backprop", _rnn.simple_rnn_backward, x, h0,
                        recurrent_kernel, mask, h_seq, g_h,
                        _act_code("simple_rnn_backprop", "activation", activation))


# outputs (da, dh0, dkernel, drecurrent_kernel, dbias): da the (T, B, U) gradients of the
# pre-activations
simple_rnn_backprop_op = defop(
    "simple_rnn_backprop", _simple_backprop_fwd, kinds=FLOAT, multi=True, nin=6,
    no_grad="the fused backward-through-time kernel of simple_rnn; it has no derivative of "
            "its own (no second derivatives of simple_rnn)")


def simple_rnn(x, h0, kernel, recurrent_kernel, bias, mask=None, activation="tanh"):
    """A whole simple-RNN time loop, ``h_t = activation(x_t @ kernel + h_{t-1} @
    recurrent_kernel + bias)``, over time-major ``x``. Returns ``h_seq`` (T, B, U)."""
    return execute(simple_rnn_op, x, h0, kernel, recurrent_kernel, bias, _float_mask(mask, x),
                   activation=activation)
