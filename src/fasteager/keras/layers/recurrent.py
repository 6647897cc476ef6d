"""Recurrent layers: ``SimpleRNN``, ``LSTM``, ``GRU``, ``RNN(cell)``, their cells,
``Bidirectional`` and ``TimeDistributed``, with Keras 3's names, defaults and weights.

Weight layout (as Keras): ``kernel`` (input_dim, G*units), ``recurrent_kernel``
(units, G*units), ``bias``; LSTM gates ``[i, f, c, o]``, GRU ``[z, r, h]`` with
``reset_after=True`` and a ``(2, 3*units)`` bias (input bias, recurrent bias).

Two ways to run a sequence, with the same results:

* fused: ``LSTM``/``GRU``/``SimpleRNN`` with their own cells run the whole time loop as one
  op of ``fasteager/ops/rnn_ops.py`` (Cython, one GEMM for every step's input projection,
  a hand-written backward through time). Taken when the activations are ones the kernel
  has (tanh, sigmoid, relu, linear), recurrent dropout is not active, a GRU has
  ``reset_after=True`` and ``unroll`` is False. Its gradients are first-order only.
* step by step: any cell (the built-in ones, or a user's with ``state_size`` and
  ``call(inputs, states)``) is called once per step in Python, with fasteager ops, so
  everything is differentiable to any order. ``unroll=True`` asks for this path.

Masks (from ``Masking`` or ``Embedding(mask_zero=True)``, or ``mask=``) are ``(batch,
time)`` booleans: a masked step leaves the states unchanged and repeats the previous
output (zeros with ``zero_output_for_mask=True``, which ``Bidirectional`` sets for
sequences, as Keras does).

>>> lstm = fe.keras.layers.LSTM(8, return_sequences=True)
>>> lstm(fe.zeros([2, 5, 3])).shape
TensorShape([2, 5, 8])
"""
import numpy as np

from ... import dtypes, errors
from ..._core import convert_to_tensor
from ...ops import rnn_ops
from ...ops.array_ops import (
    concat,
    expand_dims,
    ones_like,
    reshape,
    split,
    stack,
    stop_gradient,
    transpose,
    zeros,
    zeros_like,
)
from ...ops.elementwise_ops import cast, not_equal
from ...ops.indexing_ops import reverse
from ...ops.linalg_ops import matmul
from ...ops.reduction_ops import cumsum
from ...tensor_shape import TensorShape
from .. import _naming, _ops, activations, backend, constraints, initializers, regularizers
from .._serialization import deserialize_keras_object
from .base import Layer, _snake
from .stacked_cells import StackedRNNCells


def _bad(layer, msg):
    return errors.InvalidArgumentError("%s (layer %r): %s" % (type(layer).__name__,
                                                                 layer.name, msg))


# activation callables the fused kernels implement, by the kernels' names
_FUSED_ACTIVATIONS = {activations.get(n): n for n in rnn_ops.ACTIVATIONS}


def _units(owner, units):
    try:
        units = int(units)
    except (TypeError, ValueError):
        raise ValueError("%s: units must be a positive integer (got %r)" % (owner, units)) \
            from None
    if units <= 0:
        raise ValueError("%s: units must be a positive integer (got %r)" % (owner, units))
    return units


def _rate(owner, name, rate):
    rate = float(rate)
    if not 0 <= rate < 1:
        raise ValueError("%s: %s must be in [0, 1) (got %r)" % (owner, name, rate))
    return rate


# ---- cells -------------------------------------------------------------------------------

class _Cell(Layer):
    """What the three built-in cells share: units, initializers, regularizers, dropout.

    Dropout masks are drawn once per sequence (the same mask at every step, as Keras's
    DropoutRNNCell): ``RNN`` clears them before and after each call.
    """

    _GATES = 1
    _COMMON = ("units", "use_bias", "dropout", "recurrent_dropout", "seed")
    _SERIALIZED = ("activation", "kernel_initializer", "recurrent_initializer",
                   "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
                   "bias_regularizer", "kernel_constraint", "recurrent_constraint",
                   "bias_constraint")

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        owner = type(self).__name__
        self.units = _units(owner, units)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        # (applied by the optimizer after each update, as Keras 3)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = _rate(owner, "dropout", dropout)
        self.recurrent_dropout = _rate(owner, "recurrent_dropout", recurrent_dropout)
        self.seed = seed
        self.supports_masking = True
        self.reset_dropout_mask()
        self.reset_recurrent_dropout_mask()

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def _bias_init(self):
        return self.bias_initializer

    def _bias_shape(self):
        return [self._GATES * self.units]

    def build(self, input_shape):
        dim = TensorShape(input_shape)[-1]
        if dim is None:
            raise ValueError("%s (layer %r): the last dimension of the input must be known "
                             "(got input shape %s)" % (type(self).__name__, self.name,
                                                       input_shape))
        n = self._GATES * self.units
        self.kernel = self._add_weight("kernel", [dim, n], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self._add_weight("recurrent_kernel", [self.units, n],
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = self._add_weight("bias", self._bias_shape(), initializer=self._bias_init(),
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    # dropout masks, one per sequence
    def reset_dropout_mask(self):
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        self._recurrent_dropout_mask = None

    def get_dropout_mask(self, inputs):
        if self._dropout_mask is None:
            self._dropout_mask = _ops.dropout(ones_like(inputs), self.dropout, seed=self.seed)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, state):
        if self._recurrent_dropout_mask is None:
            self._recurrent_dropout_mask = _ops.dropout(ones_like(state),
                                                        self.recurrent_dropout, seed=self.seed)
        return self._recurrent_dropout_mask

    def _dropped(self, inputs, h_tm1, training):
        if training and self.dropout > 0:
            inputs = inputs * self.get_dropout_mask(inputs)
        if training and self.recurrent_dropout > 0:
            h_tm1 = h_tm1 * self.get_recurrent_dropout_mask(h_tm1)
        return inputs, h_tm1

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [
            self.state_size]
        return [zeros([batch_size, s], dtype=self.compute_dtype) for s in sizes]

    def get_config(self):
        config = super().get_config()
        config.update({k: getattr(self, k) for k in self._COMMON})
        config.update(self._serialized(*self._SERIALIZED))
        return config


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)``."""

    def call(self, inputs, states, training=None):
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        inputs, h_tm1 = self._dropped(inputs, h_tm1, training)
        h = matmul(inputs, self.kernel)
        if self.use_bias:
            h = h + self.bias
        output = self.activation(h + matmul(h_tm1, self.recurrent_kernel))
        return output, [output]


class LSTMCell(_Cell):
    """One LSTM step; gates ``[i, f, c, o]``, ``unit_forget_bias`` starts f's bias at 1."""

    _GATES = 4
    _SERIALIZED = _Cell._SERIALIZED + ("recurrent_activation",)

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, units = self.bias_initializer, self.units

        def init(shape, dtype=None):
            # Keras: the bias initializer for i, ones for f, the initializer for c and o
            parts = [np.asarray(base([units], dtype=dtype)), np.ones(units),
                     np.asarray(base([2 * units], dtype=dtype))]
            return np.concatenate(parts).astype(dtypes.as_dtype(dtype).as_numpy_dtype)
        return init

    def call(self, inputs, states, training=None):
        h_tm1, c_tm1 = states[0], states[1]
        inputs, h_tm1 = self._dropped(inputs, h_tm1, training)
        z = matmul(inputs, self.kernel) + matmul(h_tm1, self.recurrent_kernel)
        if self.use_bias:
            z = z + self.bias
        zi, zf, zc, zo = split(z, 4, axis=1)
        ract = self.recurrent_activation
        c = ract(zf) * c_tm1 + ract(zi) * self.activation(zc)
        h = ract(zo) * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


class GRUCell(_Cell):
    """One GRU step; gates ``[z, r, h]``; ``reset_after=True`` (Keras 3's default, the
    cuDNN form) applies the reset gate after the recurrent matmul and has a (2, 3U) bias."""

    _GATES = 3
    _SERIALIZED = _Cell._SERIALIZED + ("recurrent_activation",)

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 reset_after=True, **kwargs):
        super().__init__(units, activation=activation, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)

    def _bias_shape(self):
        return [2, 3 * self.units] if self.reset_after else [3 * self.units]

    def call(self, inputs, states, training=None):
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        x, h_in = self._dropped(inputs, h_tm1, training)
        U = self.units
        xp = matmul(x, self.kernel)
        bias_in = bias_rec = None
        if self.use_bias:
            bias_in, bias_rec = (self.bias[0], self.bias[1]) if self.reset_after else (
                self.bias, None)
            xp = xp + bias_in
        xz, xr, xh = split(xp, 3, axis=1)
        ract = self.recurrent_activation
        if self.reset_after:
            hr = matmul(h_in, self.recurrent_kernel)
            if bias_rec is not None:
                hr = hr + bias_rec
            hz, hrr, hh = split(hr, 3, axis=1)
            z, r = ract(xz + hz), ract(xr + hrr)
            cand = self.activation(xh + r * hh)
        else:
            hzr = matmul(h_in, self.recurrent_kernel[:, :2 * U])
            hz, hrr = split(hzr, 2, axis=1)
            z, r = ract(xz + hz), ract(xr + hrr)
            cand = self.activation(xh + matmul(r * h_in, self.recurrent_kernel[:, 2 * U:]))
        h = z * h_tm1 + (1 - z) * cand
        return h, [h]

    def get_config(self):
        config = super().get_config()
        config["reset_after"] = self.reset_after
        return config


# ---- the RNN layer -----------------------------------------------------------------------

def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _expand_to(m, x):
    """The (batch, 1) mask ``m`` with axes added to broadcast against ``x``."""
    for _ in range(x.shape.rank - 2):
        m = expand_dims(m, -1)
    return m


def _keep_where(m, new, old):
    m = _expand_to(m, new)
    return m * new + (1 - m) * old


def _flat(x):
    """Nested lists of states (or state sizes) as one flat list."""
    return [t for s in x for t in _flat(s)] if isinstance(x, (list, tuple)) else [x]


def _mask_tensor(layer, mask, batch, steps, dtype):
    """A (batch, time) mask argument as 0/1 in ``dtype`` (None for no mask). It stays a
    tensor (no NumPy round trip), so ``fe.function`` traces through it."""
    if isinstance(mask, (list, tuple)):     # [input mask, state masks...]
        mask = mask[0]
    if mask is None:
        return None
    mask = convert_to_tensor(mask)
    if mask.shape.as_list() != [batch, steps]:
        raise _bad(layer, "mask must be (batch, time) (expected %s, got %s)"
                   % ([batch, steps], mask.shape.as_list()))
    if mask.dtype != dtypes.bool:
        mask = not_equal(mask, 0)
    return cast(mask, dtype)


class RNN(Layer):
    """Runs a cell over the time axis of ``(batch, time, features)`` input.

    ``cell`` follows Keras's protocol: ``state_size`` (an int or a list of ints), optional
    ``output_size``, and ``call(inputs, states) -> (output, new_states)``.
    """

    _input_ndim = 3

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)           # a list of cells runs as one, as Keras
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError("RNN: cell must have a call(inputs, states) method and a "
                             "state_size attribute (got %r)" % (cell,))
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.supports_masking = True
        self._states = None

    # ---- states ---------------------------------------------------------------------------
    def _state_sizes(self):
        return [int(s) for s in _flat(self.cell.state_size)]

    @property
    def states(self):
        """The carried states of a stateful layer (None before its first call)."""
        return self._states

    def reset_states(self, states=None):
        """Zero the states of a stateful layer (or set them to ``states``)."""
        if not self.stateful:
            raise AttributeError("%s (layer %r): reset_states needs stateful=True"
                                 % (type(self).__name__, self.name))
        if self._states is None:
            return
        batch = self._states[0].shape[0]
        if states is None:
            self._states = [zeros([batch, s], dtype=self.dtype) for s in self._state_sizes()]
        else:
            self._states = self._check_states(_as_list(states), batch)

    reset_state = reset_states

    def _check_states(self, states, batch):
        sizes = self._state_sizes()
        if len(states) != len(sizes):
            raise _bad(self, "expected %d initial state(s), got %d" % (len(sizes), len(states)))
        out = []
        for i, (s, size) in enumerate(zip(states, sizes)):
            s = self._convert_input(s)
            if s.shape.as_list() != [batch, size]:
                raise _bad(self, "initial state %d has the wrong shape (expected %s, got %s)"
                           % (i, [batch, size], s.shape.as_list()))
            out.append(s)
        return out

    # ---- build and call -------------------------------------------------------------------
    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._check_rank(shape)
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build(TensorShape([shape[0], shape[-1]]))
            self.cell.built = True
        elif not isinstance(self.cell, Layer) and hasattr(self.cell, "build"):
            self.cell.build(TensorShape([shape[0], shape[-1]]))
        self.built = True

    def call(self, sequences, initial_state=None, mask=None, training=None):
        batch, steps = sequences.shape.as_list()[:2]
        if steps == 0:
            raise _bad(self, "the input has no time steps (expected time >= 1, got shape %s)"
                       % sequences.shape.as_list())
        if initial_state is not None:
            states = self._check_states(_flat(initial_state), batch)
        elif self.stateful and self._states is not None:
            if self._states[0].shape[0] != batch:
                raise _bad(self, "a stateful layer keeps its batch size (expected %d, got %d)"
                           % (self._states[0].shape[0], batch))
            states = self._states
        elif hasattr(self.cell, "get_initial_state"):
            states = _flat(self.cell.get_initial_state(batch_size=batch))
        else:
            states = [zeros([batch, s], dtype=sequences.dtype) for s in self._state_sizes()]
        mask = _mask_tensor(self, mask, batch, steps, sequences.dtype)
        cell = self.cell
        for reset in ("reset_dropout_mask", "reset_recurrent_dropout_mask"):
            if hasattr(cell, reset):
                getattr(cell, reset)()
        try:
            fused = None if self.unroll else self._fused(sequences, states, mask, training)
            if fused is not None:
                last, outputs, states = fused
            else:
                last, outputs, states = self._loop(sequences, states, mask, training)
        finally:
            for reset in ("reset_dropout_mask", "reset_recurrent_dropout_mask"):
                if hasattr(cell, reset):
                    getattr(cell, reset)()
        if self.stateful:
            self._states = [stop_gradient(s) for s in states]
        output = outputs if self.return_sequences else last
        if self.return_state:
            if isinstance(cell, StackedRNNCells):    # one list of states per cell, as Keras
                return [output] + cell.group_states(states)
            return [output] + list(states)
        return output

    def _loop(self, sequences, states, mask, training):
        """The step-by-step path: the cell once per time step, in fasteager ops."""
        cell = self.cell
        steps = sequences.shape[1]
        takes_training = "training" in _call_params(cell)
        keep = mask
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs = []
        prev = None
        for t in order:
            x_t = sequences[:, t]
            if takes_training:
                out, new_states = cell.call(x_t, states, training=training)
            else:
                out, new_states = cell.call(x_t, states)
            new_states = _flat(new_states)
            if keep is not None:
                m = keep[:, t:t + 1]
                # (a (batch, 1) mask; states of higher rank, as ConvLSTM's, take it
                # broadcast over their other axes)
                states = [_keep_where(m, n, s) for n, s in zip(new_states, states)]
                m = _expand_to(m, out)
                if prev is None:
                    prev = zeros_like(out)
                out = m * out + (1 - m) * (zeros_like(out) if self.zero_output_for_mask
                                           else prev)
            else:
                states = new_states
            outputs.append(out)
            prev = out
        seq = stack(outputs, axis=1) if self.return_sequences else None
        return outputs[-1], seq, states

    def _fused(self, sequences, states, mask, training):
        """(last output, sequences or None, states) from one fused op, or None when this
        layer's cell or settings have no fused kernel (subclasses say)."""
        return

    def _fused_run(self, run, sequences, mask, training):
        """Shared by the fused paths: time-major input with dropout and direction applied,
        ``run(x_tm, mask_tm)`` returning the time-major state sequence and final states,
        then the outputs in Keras's form."""
        cell = self.cell
        x = sequences
        if training and cell.dropout > 0:
            # one mask for every step (Keras's DropoutRNNCell)
            x = x * expand_dims(cell.get_dropout_mask(x[:, 0]), 1)
        x_tm = transpose(x, [1, 0, 2])
        m_tm = None if mask is None else transpose(mask, [1, 0])
        if self.go_backwards:
            x_tm = reverse(x_tm, [0])
            m_tm = None if m_tm is None else reverse(m_tm, [0])
        h_seq, states = run(x_tm, m_tm)
        if m_tm is not None:
            # the kernel repeats the carried state at masked steps; Keras's outputs there
            # are zeros (zero_output_for_mask) or the previous output, zeros before the
            # first unmasked step
            keep = m_tm if self.zero_output_for_mask else cast(
                cumsum(m_tm, axis=0) > 0, m_tm.dtype)
            h_seq = h_seq * expand_dims(keep, -1)
        seq = transpose(h_seq, [1, 0, 2]) if self.return_sequences else None
        return h_seq[-1], seq, states

    def _fusable(self, training, *acts):
        cell = self.cell
        return (type(cell) is self._CELL and not (training and cell.recurrent_dropout > 0)
                and all(a in _FUSED_ACTIVATIONS for a in acts))

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            return [out] + [None] * len(self._state_sizes())
        return out

    def get_config(self):
        config = super().get_config()
        config.update(return_sequences=self.return_sequences, return_state=self.return_state,
                      go_backwards=self.go_backwards, stateful=self.stateful,
                      unroll=self.unroll, zero_output_for_mask=self.zero_output_for_mask)
        if type(self) is RNN:
            config.update(self._serialized("cell"))
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**_decoded(config, ["cell"], custom_objects))


def _decoded(config, keys, custom_objects):
    """``config`` with the nested objects at ``keys`` constructed (from_config may get a
    raw config, as ``get_config`` wrote it)."""
    config = dict(config)
    for key in keys:
        if isinstance(config.get(key), dict):
            config[key] = deserialize_keras_object(config[key], custom_objects)
    return config


def _call_params(obj):
    import inspect
    try:
        return inspect.signature(obj.call).parameters
    except (TypeError, ValueError):
        return {}


# ---- the three built-in recurrent layers -------------------------------------------------

class _Builtin(RNN):
    """An RNN over its own cell class, built from the cell's arguments (Keras's layout of
    ``LSTM(units, ...)``); the cell is named ``lstm_cell`` and built in the layer's scope, so
    its weights are ``kernel`` with path ``lstm/lstm_cell/kernel``, as in Keras 3."""

    _CELL = None
    _RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")

    def __init__(self, units, **kwargs):
        rnn_args = {k: kwargs.pop(k) for k in self._RNN_ARGS + ("zero_output_for_mask",)
                    if k in kwargs}
        kwargs.pop("use_cudnn", None)       # no cuDNN here: the fused kernel is the fast path
        layer_args = {k: kwargs.pop(k) for k in ("name", "trainable", "dtype", "input_shape",
                                                 "batch_input_shape", "batch_size",
                                                 "input_dim", "activity_regularizer")
                      if k in kwargs}
        name = layer_args.pop("name", None) or backend.unique_name(_snake(type(self).__name__))
        # Keras 3 names the cell by its class alone: its weights' path is the layer's scope
        # then the cell's ('lstm/lstm_cell/kernel')
        cell = self._CELL(units, name=_snake(self._CELL.__name__),
                          dtype=layer_args.get("dtype"), **kwargs)
        super().__init__(cell, name=name, **rnn_args, **layer_args)

    def __getattr__(self, name):
        # the cell's settings read as the layer's own (lstm.units, lstm.activation ...)
        if name.startswith("_") or "cell" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["cell"], name)

    def get_config(self):
        config = super().get_config()
        cell_config = self.cell.get_config()
        for k in ("name", "trainable", "dtype"):
            cell_config.pop(k, None)
        config.update(cell_config)
        return config


def _bias_or_zeros(cell, shape):
    if cell.use_bias:
        return cell.bias
    return zeros(shape, dtype=cell.dtype)


class SimpleRNN(_Builtin):
    """A fully connected RNN: ``SimpleRNN(units, activation="tanh", ...)``."""

    _CELL = SimpleRNNCell

    def _fused(self, sequences, states, mask, training):
        cell = self.cell
        if not self._fusable(training, cell.activation):
            return None

        def run(x_tm, m_tm):
            h_seq = rnn_ops.simple_rnn(x_tm, states[0], cell.kernel, cell.recurrent_kernel,
                                       _bias_or_zeros(cell, [cell.units]), m_tm,
                                       activation=_FUSED_ACTIVATIONS[cell.activation])
            return h_seq, [h_seq[-1]]
        return self._fused_run(run, sequences, mask, training)


class LSTM(_Builtin):
    """Long short-term memory (Hochreiter & Schmidhuber 1997), Keras's LSTM."""

    _CELL = LSTMCell

    def _fused(self, sequences, states, mask, training):
        cell = self.cell
        if not self._fusable(training, cell.activation, cell.recurrent_activation):
            return None

        def run(x_tm, m_tm):
            h_seq, c_seq, _ = rnn_ops.lstm(
                x_tm, states[0], states[1], cell.kernel, cell.recurrent_kernel,
                _bias_or_zeros(cell, [4 * cell.units]), m_tm,
                activation=_FUSED_ACTIVATIONS[cell.activation],
                recurrent_activation=_FUSED_ACTIVATIONS[cell.recurrent_activation])
            return h_seq, [h_seq[-1], c_seq[-1]]
        return self._fused_run(run, sequences, mask, training)


class GRU(_Builtin):
    """Gated recurrent unit (Cho et al. 2014), Keras's GRU (``reset_after=True``)."""

    _CELL = GRUCell

    def _fused(self, sequences, states, mask, training):
        cell = self.cell
        if not cell.reset_after or not self._fusable(training, cell.activation,
                                                     cell.recurrent_activation):
            return None

        def run(x_tm, m_tm):
            h_seq, _, _ = rnn_ops.gru(
                x_tm, states[0], cell.kernel, cell.recurrent_kernel,
                _bias_or_zeros(cell, [2, 3 * cell.units]), m_tm,
                activation=_FUSED_ACTIVATIONS[cell.activation],
                recurrent_activation=_FUSED_ACTIVATIONS[cell.recurrent_activation])
            return h_seq, [h_seq[-1]]
        return self._fused_run(run, sequences, mask, training)


# ---- wrappers ----------------------------------------------------------------------------

def _clone(layer, **overrides):
    """A fresh, unbuilt copy of a recurrent layer from its config, with ``overrides``."""
    config = layer.get_config()
    config.update(overrides)
    if "cell" in config and hasattr(layer, "cell"):
        cell = layer.cell
        config["cell"] = type(cell).from_config(cell.get_config())
    return type(layer).from_config(config)


_MERGE_MODES = ("concat", "sum", "mul", "ave", None)


class Bidirectional(Layer):
    """Runs ``layer`` forwards and a copy of it backwards and merges the two outputs.

    ``merge_mode``: "concat" (default), "sum", "mul", "ave", or None for a list of both.
    """

    _input_ndim = 3

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if not isinstance(layer, Layer) or not hasattr(layer, "go_backwards"):
            raise ValueError("Bidirectional: layer must be a recurrent Layer with "
                             "go_backwards, return_sequences and return_state (got %r)"
                             % (layer,))
        if merge_mode not in _MERGE_MODES:
            raise ValueError("Bidirectional: merge_mode must be one of 'concat', 'sum', 'mul', "
                             "'ave' or None (got %r)" % (merge_mode,))
        if weights is not None:
            raise ValueError("Bidirectional: weights= is not supported (expected None); call "
                             "set_weights after building")
        super().__init__(**kwargs)
        self.forward_layer = _clone(layer, name="forward_" + layer.name)
        if backward_layer is None:
            self.backward_layer = _clone(layer, name="backward_" + layer.name,
                                         go_backwards=not layer.go_backwards)
        else:
            for attr in ("return_sequences", "return_state", "stateful"):
                if getattr(backward_layer, attr) != getattr(layer, attr):
                    raise ValueError("Bidirectional: backward_layer.%s must match layer.%s "
                                     "(expected %r, got %r)" % (
                                         attr, attr, getattr(layer, attr),
                                         getattr(backward_layer, attr)))
            if backward_layer.go_backwards == layer.go_backwards:
                raise ValueError("Bidirectional: backward_layer.go_backwards must differ from "
                                 "layer.go_backwards (both are %r)" % layer.go_backwards)
            self.backward_layer = backward_layer
        self._custom_backward = backward_layer is not None
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.stateful = layer.stateful
        # padded outputs are zeros, so the two directions line up after the reversal
        for lay in (self.forward_layer, self.backward_layer):
            if hasattr(lay, "zero_output_for_mask"):
                lay.zero_output_for_mask = lay.return_sequences
        self.supports_masking = True

    def build(self, input_shape):
        for lay in (self.forward_layer, self.backward_layer):
            if not lay.built:
                _naming.build_in_scope(lay, input_shape)
                lay.built = True
        self.built = True

    def call(self, inputs, initial_state=None, mask=None, training=None):
        fwd_state = bwd_state = None
        if initial_state is not None:
            initial_state = _as_list(initial_state)
            if len(initial_state) % 2:
                raise _bad(self, "initial_state must hold the forward then the backward "
                           "states (expected an even count, got %d)" % len(initial_state))
            half = len(initial_state) // 2
            fwd_state, bwd_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(inputs, initial_state=fwd_state, mask=mask, training=training)
        y_rev = self.backward_layer(inputs, initial_state=bwd_state, mask=mask,
                                    training=training)
        states = []
        if self.return_state:
            y, states = y[0], list(y[1:])
            y_rev, rev_states = y_rev[0], list(y_rev[1:])
            states += rev_states
        if self.return_sequences:
            y_rev = reverse(y_rev, [1])
        if self.merge_mode == "concat":
            out = [concat([y, y_rev], axis=-1)]
        elif self.merge_mode == "sum":
            out = [y + y_rev]
        elif self.merge_mode == "ave":
            out = [(y + y_rev) * 0.5]
        elif self.merge_mode == "mul":
            out = [y * y_rev]
        else:
            out = [y, y_rev]
        if self.return_state:
            return out + states
        return out[0] if len(out) == 1 else out

    def reset_states(self, states=None):
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    reset_state = reset_states

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        outs = [out] if self.merge_mode is not None else [out, out]
        if self.return_state:
            outs += [None] * (2 * len(self.forward_layer._state_sizes()))
        return outs[0] if len(outs) == 1 else outs

    def get_config(self):
        config = super().get_config()
        config["merge_mode"] = self.merge_mode
        config.update(self._serialized("forward_layer"))
        config["layer"] = config.pop("forward_layer")
        # the layer's own name, without the "forward_" its copy got
        config["layer"]["config"]["name"] = config["layer"]["config"]["name"][len("forward_"):]
        if self._custom_backward:
            config.update(self._serialized("backward_layer"))
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**_decoded(config, ["layer", "backward_layer"], custom_objects))


class TimeDistributed(Layer):
    """Applies ``layer`` to every time step of ``(batch, time, ...)`` input."""

    _input_min_ndim = 3

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("TimeDistributed: layer must be a Layer (got %r)" % (layer,))
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        if not self.layer.built:
            _naming.build_in_scope(self.layer, TensorShape([None] + shape[2:]))
            self.layer.built = True
        self.built = True

    def call(self, inputs, training=None, mask=None):
        shape = inputs.shape.as_list()
        flat = reshape(inputs, [shape[0] * shape[1]] + shape[2:])
        y = self.layer(flat, training=training)
        return reshape(y, shape[:2] + y.shape.as_list()[1:])

    def compute_mask(self, inputs, mask=None):
        return mask

    def get_config(self):
        config = super().get_config()
        config.update(self._serialized("layer"))
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**_decoded(config, ["layer"], custom_objects))
