"""Convolutional LSTM layers, ConvLSTM1D/2D/3D as Keras 3's: an LSTM whose input and
recurrent transformations are convolutions. Input (batch, time, *spatial, channels)
(channels_last) or (batch, time, channels, *spatial); the states are images
(batch, *out_spatial, filters). Weights as Keras's: ``kernel`` (*k, in, 4 * filters),
``recurrent_kernel`` (*k, filters, 4 * filters), ``bias`` (4 * filters), gates in the
order i, f, c, o."""
from ...ops.array_ops import concat, ones_like, reshape, split, zeros
from ...tensor_shape import TensorShape
from .. import _ops, activations, constraints, initializers, regularizers
from ..backend import image_data_format
from ..ops.nn import conv
from .base import Layer
from .conv import _padding, _tuple
from .recurrent import RNN, _bad


class _ConvLSTMCell(Layer):
    """One step of a ConvLSTM (Keras's ConvLSTMCell)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation="tanh",
                 recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        owner = "ConvLSTM%dD" % rank
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size", owner)
        self.strides = _tuple(strides, rank, "strides", owner)
        self.padding = _padding(padding, owner)
        self.data_format = data_format or image_data_format()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError("%s: data_format must be 'channels_last' or 'channels_first' "
                             "(got %r)" % (owner, data_format))
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate", owner)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("Specifying `strides > 1` is not compatible with "
                             "`dilation_rate > 1`. Please provide `strides=1` or "
                             "`dilation_rate=1`. Received: strides=%s and dilation_rate=%s"
                             % (self.strides, self.dilation_rate))
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.seed = seed
        self.state_size = -1          # (images: see get_initial_state)
        self.reset_dropout_mask()
        self.reset_recurrent_dropout_mask()

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        self.spatial_dims = tuple(shape[2:] if self.data_format == "channels_first"
                                  else shape[1:-1])
        if None in self.spatial_dims:
            raise ValueError("ConvLSTM layers only support static input shapes for the "
                             "spatial dimension. Received invalid input shape: "
                             "input_shape=%s" % (tuple(shape),))
        cin = shape[self._channel_axis()]
        if cin is None:
            raise ValueError("The channel dimension of the inputs (last axis) should be "
                             "defined. Found None. Full input shape received: "
                             "input_shape=%s" % (tuple(shape),))
        self.input_dim = cin
        f = self.filters
        self.kernel = self._add_weight("kernel", self.kernel_size + (cin, 4 * f),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self._add_weight(
            "recurrent_kernel", self.kernel_size + (f, 4 * f),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        if self.use_bias:
            init = self.bias_initializer
            if self.unit_forget_bias:
                base = self.bias_initializer

                def init(shape, dtype=None):        # the forget gate's bias starts at 1
                    return concat([base((f,), dtype=dtype), ones_like(base((f,), dtype=dtype)),
                                   base((2 * f,), dtype=dtype)], 0)
            self.bias = self._add_weight("bias", (4 * f,), initializer=init,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    # dropout masks, one per sequence (as fasteager's other cells)
    def reset_dropout_mask(self):
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        self._recurrent_dropout_mask = None

    def _masked(self, x, attr, rate, training):
        if not (training and 0.0 < rate < 1.0):
            return x
        if getattr(self, attr) is None:
            setattr(self, attr, _ops.dropout(ones_like(x), rate, seed=self.seed))
        return x * getattr(self, attr)

    def _out_spatial(self):
        out = []
        for size, k, s, d in zip(self.spatial_dims, self.kernel_size, self.strides,
                                 self.dilation_rate):
            eff = (k - 1) * d + 1
            out.append(-(-size // s) if self.padding == "same" else -(-(size - eff + 1) // s))
        return tuple(out)

    def get_initial_state(self, batch_size=None):
        spatial = self._out_spatial()
        shape = [batch_size] + ([self.filters] + list(spatial)
                                if self.data_format == "channels_first"
                                else list(spatial) + [self.filters])
        return [zeros(shape, dtype=self.dtype), zeros(shape, dtype=self.dtype)]

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        x = self._masked(inputs, "_dropout_mask", self.dropout, training)
        h = self._masked(h_tm1, "_recurrent_dropout_mask", self.recurrent_dropout, training)
        ks = split(self.kernel, 4, axis=self.rank + 1)
        rks = split(self.recurrent_kernel, 4, axis=self.rank + 1)
        bs = split(self.bias, 4) if self.use_bias else [None] * 4
        bias_shape = [1] * (self.rank + 2)
        bias_shape[self._channel_axis()] = self.filters
        gates = []
        for k, rk, b in zip(ks, rks, bs):
            z = conv(x, k, self.strides, self.padding, self.data_format, self.dilation_rate)
            if b is not None:
                z = z + reshape(b, bias_shape)
            gates.append(z + conv(h, rk, 1, "same", self.data_format))
        i = self.recurrent_activation(gates[0])
        f = self.recurrent_activation(gates[1])
        c = f * c_tm1 + i * self.activation(gates[2])
        o = self.recurrent_activation(gates[3])
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config.update(filters=self.filters, kernel_size=self.kernel_size,
                      strides=self.strides, padding=self.padding,
                      data_format=self.data_format, dilation_rate=self.dilation_rate,
                      use_bias=self.use_bias, unit_forget_bias=self.unit_forget_bias,
                      dropout=self.dropout, recurrent_dropout=self.recurrent_dropout,
                      seed=self.seed)
        config.update(self._serialized(*_SERIALIZED))
        return config


_SERIALIZED = ("activation", "recurrent_activation", "kernel_initializer",
               "recurrent_initializer", "bias_initializer", "kernel_regularizer",
               "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
               "recurrent_constraint", "bias_constraint")
_CELL_ARGS = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
              "use_bias", "unit_forget_bias", "dropout", "recurrent_dropout", "seed") \
    + _SERIALIZED


class _ConvLSTM(RNN):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, **kwargs):
        cell = _ConvLSTMCell(
            self.rank, filters, kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed, name="conv_lstm_cell",
            dtype=kwargs.get("dtype"))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful,
                         activity_regularizer=activity_regularizer, **kwargs)

    @property
    def _input_ndim(self):
        return self.rank + 3

    def __getattr__(self, name):
        # the cell's arguments read through the layer, as Keras's properties
        if name in _CELL_ARGS:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._check_rank(shape)
        if not self.cell.built:
            self.cell.build(TensorShape([shape[0]] + shape.as_list()[2:]))
        self.built = True

    def _state_sizes(self):
        return [-1, -1]

    def _check_states(self, states, batch):
        want = [s.shape.as_list() for s in self.cell.get_initial_state(batch)]
        if len(states) != 2:
            raise _bad(self, "expected 2 initial states, got %d" % len(states))
        out = []
        for i, (s, shape) in enumerate(zip(states, want)):
            s = self._convert_input(s)
            if s.shape.as_list() != shape:
                raise _bad(self, "initial state %d has the wrong shape (expected %s, got %s)"
                           % (i, shape, s.shape.as_list()))
            out.append(s)
        return out

    def reset_states(self, states=None):
        if not self.stateful:
            raise AttributeError("%s (layer %r): reset_states needs stateful=True"
                                 % (type(self).__name__, self.name))
        if self._states is None:
            return
        batch = self._states[0].shape[0]
        self._states = self.cell.get_initial_state(batch) if states is None \
            else self._check_states(list(states), batch)

    reset_state = reset_states

    def get_config(self):
        config = super().get_config()
        config.pop("cell", None)         # (the cell's arguments are the layer's)
        cell = self.cell.get_config()
        for key in _CELL_ARGS:
            config[key] = cell[key]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


class ConvLSTM1D(_ConvLSTM):
    """1-D convolutional LSTM on (batch, time, steps, channels)."""
    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """2-D convolutional LSTM on (batch, time, rows, cols, channels)."""
    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """3-D convolutional LSTM on (batch, time, depth, rows, cols, channels)."""
    rank = 3
