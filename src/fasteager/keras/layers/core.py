"""Core layers: Dense, Flatten, Reshape, Dropout, Activation, ReLU, Softmax, Embedding,
Masking, Lambda."""
import types
import warnings

import numpy as np

from ... import _core, dtypes, errors, nn
from ... import random as fe_random
from ... import sparse as fe_sparse
from ..._core import convert_to_tensor
from ..._src.state import placement
from ..._src.state.variables import Variable
from ...ops import array_ops, elementwise_ops
from ...ops.array_ops import constant, expand_dims, reshape, transpose, zeros_like
from ...ops.elementwise_ops import cast, exp, not_equal
from ...ops.indexing_ops import gather
from ...ops.linalg_ops import matmul
from ...ops.nn_ops import fused_matmul
from ...ops.reduction_ops import reduce_any, reduce_logsumexp
from ...ragged import RaggedTensor
from ...sparse import SparseTensor
from ...tensor_shape import TensorShape
from .. import _ops, _serialization, activations, constraints, initializers, regularizers
from .base import Layer


def _bad_shape(layer, msg):
    return errors.InvalidArgumentError("%s (layer %r): %s" % (type(layer).__name__,
                                                                 layer.name, msg))


def cpu_fusable(layer, inputs):
    """Whether ``layer`` (Dense, Conv2D) runs its product, bias and activation as one
    fused op (nn_ops.fused_matmul / fused_conv2d): on the CPU, with a bias, a relu or
    linear activation and floating inputs of the kernel's dtype. A GPU runs the three ops
    it has kernels for. (The same choice on every call, the first op of the process
    included: traces of one function must not differ.)"""
    gpu = _core.gpu_backend_state()
    if gpu < 0:
        placement._probe_gpu()     # the first op of the process: load the GPU backend, if any
        gpu = _core.gpu_backend_state()
    return (layer.use_bias and gpu == 0
            and (layer.activation is activations.relu or layer.activation is activations.linear)
            and inputs._value.dtype == layer.kernel._tensor._value.dtype
            and inputs._value.dtype.kind == "f")


class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` on the last axis of any-rank input.

    >>> fe.keras.layers.Dense(10)(fe.zeros([1, 1, 784])).shape
    TensorShape([1, 1, 10])
    """

    _input_min_ndim = 2

    _accepts_sparse = True      # sparse inputs multiply the kernel without densifying

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, quantization_config=None,
                 **kwargs):
        if quantization_config is not None:
            # (Keras 3.15's Dense configs carry quantization_config=None)
            raise errors.UnimplementedError("Dense: quantization_config is not supported "
                                            "(got %r)" % (quantization_config,))
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True      # (as Keras 3: masks pass through)
        try:
            units = int(units)
        except (TypeError, ValueError):
            raise ValueError("Dense: units must be a positive integer (got %r)" % (units,)) \
                from None
        if units <= 0:
            raise ValueError("Dense: units must be a positive integer (got %r)" % (units,))
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._check_rank(shape)
        if shape.rank is None or shape[-1] is None:
            raise ValueError("Dense (layer %r): the last dimension of the input must be known "
                             "(got input shape %s)" % (self.name, shape))
        self.kernel = self._add_weight("kernel", [shape[-1], self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._add_weight("bias", [self.units], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        sparse = isinstance(inputs, SparseTensor)     # Keras's sparse x dense matmul
        shape = inputs.shape.as_list() if sparse else list(inputs._value.shape)
        want = self.kernel._tensor._value.shape[0]
        if not shape or shape[-1] != want:
            raise _bad_shape(self, "the input's last dimension must be %d, as the kernel was "
                             "built for (kernel shape %s, got input shape %s)"
                             % (want, self.kernel.shape.as_list(), shape))
        if sparse:
            y = fe_sparse.sparse_dense_matmul(cast(inputs, self.kernel.dtype), self.kernel)
        elif cpu_fusable(self, inputs):
            flat = inputs if len(shape) == 2 else reshape(inputs, [-1, want])
            y = fused_matmul(flat, self.kernel, self.bias,
                                  "relu" if self.activation is activations.relu else "linear")
            return y if len(shape) == 2 else reshape(y, shape[:-1] + [self.units])
        elif len(shape) == 2:
            y = matmul(inputs, self.kernel)
        else:
            flat = reshape(inputs, [-1, want])
            y = reshape(matmul(flat, self.kernel), shape[:-1] + [self.units])
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def get_config(self):
        config = super().get_config()
        config.update(units=self.units, use_bias=self.use_bias)
        config.update(self._serialized("activation", "kernel_initializer", "bias_initializer",
                                       "kernel_regularizer", "bias_regularizer",
                                       "kernel_constraint", "bias_constraint"))
        return config


class Flatten(Layer):
    """Flatten all axes but the first: (N, d1, d2, ...) -> (N, d1*d2*...)."""

    _input_min_ndim = 1

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        shape = inputs.shape.as_list()
        if len(shape) == 1:
            return expand_dims(inputs, 1)
        if self.data_format == "channels_first" and len(shape) > 2:
            inputs = transpose(inputs, [0] + list(range(2, len(shape))) + [1])
        rest = int(np.prod(shape[1:]))
        # (-1 for the batch: a traced call then serves every batch size, see _relax)
        return reshape(inputs, [-1 if rest and shape[0] else shape[0], rest])

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class Reshape(Layer):
    """Reshape each example to ``target_shape`` (may contain one -1)."""

    _input_min_ndim = 1

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if sum(d == -1 for d in self.target_shape) > 1:
            raise ValueError("Reshape: at most one dimension of target_shape may be -1 (got %s)"
                             % (self.target_shape,))

    def call(self, inputs):
        n = inputs.shape[0]
        per = int(np.prod(inputs.shape.as_list()[1:]))
        want = int(np.prod([d for d in self.target_shape if d != -1]))
        if (-1 not in self.target_shape and want != per) or (want == 0 or per % want):
            raise _bad_shape(self, "cannot reshape examples of shape %s (%d values) to %s"
                             % (inputs.shape.as_list()[1:], per, list(self.target_shape)))
        return reshape(inputs, [n] + list(self.target_shape))

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config


class Dropout(Layer):
    """Zero a fraction ``rate`` of inputs (scaling the rest) in training; identity otherwise."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True      # (as Keras 3: masks pass through)
        rate = float(rate)
        if not 0 <= rate < 1:
            raise ValueError("Dropout: rate must be in [0, 1) (got %r)" % (rate,))
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        noise = None
        if self.noise_shape is not None:
            noise = [inputs.shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        return _ops.dropout(inputs, self.rate, noise_shape=noise, seed=self.seed)

    def get_config(self):
        config = super().get_config()
        config.update(rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return config


class Identity(Layer):
    """Returns its input unchanged (Keras 3's placeholder layer)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs


def _check_rate(layer, rate, upper_open=False):
    """Keras 3's rate check for the noise layers (rate in [0, 1])."""
    if not (0 <= rate < 1 if upper_open else 0 <= rate <= 1):
        raise ValueError("Invalid value received for argument `rate`. Expected a float value "
                         "between 0 and 1. Received: rate=%s" % (rate,))
    return rate


class GaussianNoise(Layer):
    """Adds zero-centred normal noise of ``stddev`` in training; identity otherwise."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= stddev <= 1:
            raise ValueError("Invalid value received for argument `stddev`. Expected a float "
                             "value between 0 and 1. Received: stddev=%s" % (stddev,))
        self.stddev = stddev
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if training and self.stddev > 0:
            return inputs + fe_random.normal(array_ops.shape(inputs), mean=0.0, stddev=self.stddev,
                                             dtype=inputs.dtype, seed=self.seed)
        return inputs

    def get_config(self):
        config = super().get_config()
        config.update(stddev=self.stddev, seed=self.seed)
        return config


class GaussianDropout(Layer):
    """Multiplies by normal noise of mean 1, stddev ``sqrt(rate / (1 - rate))`` in
    training; identity otherwise."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = _check_rate(self, rate)
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            stddev = float(np.sqrt(self.rate / (1.0 - self.rate)))
            return inputs * fe_random.normal(array_ops.shape(inputs), mean=1.0, stddev=stddev,
                                             dtype=inputs.dtype, seed=self.seed)
        return inputs

    def get_config(self):
        config = super().get_config()
        config.update(rate=self.rate, seed=self.seed)
        return config


class AlphaDropout(Layer):
    """Dropout that keeps SELU's self-normalisation: dropped entries take SELU's negative
    saturation value and an affine map restores mean and variance (training only)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = _check_rate(self, rate)
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not (training and self.rate > 0):
            return inputs
        shape = inputs.shape.as_list()
        noise = shape if self.noise_shape is None else \
            [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        kept = cast(fe_random.uniform(noise, dtype=inputs.dtype, seed=self.seed)
                       >= self.rate, inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (inputs * kept + alpha_p * (1 - kept)) + b

    def get_config(self):
        config = super().get_config()
        config.update(rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return config


class _SpatialDropout(Layer):
    """Dropout of whole feature maps: one draw per (example, channel)."""

    _rank = None

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.rate = _check_rate(self, rate)
        self.seed = seed
        if self._rank > 1:
            data_format = (data_format or "channels_last").lower()
            if data_format not in ("channels_first", "channels_last"):
                raise ValueError("The `data_format` argument must be one of {'channels_first', "
                                 "'channels_last'}. Received: data_format=%s" % (data_format,))
            self.data_format = data_format
        else:
            self.data_format = "channels_last"

    def call(self, inputs, training=False):
        shape = inputs.shape.as_list()
        if len(shape) != self._rank + 2:
            raise ValueError("Input 0 of layer \"%s\" is incompatible with the layer: "
                             "expected ndim=%d, found ndim=%d. Full shape received: %s"
                             % (self.name, self._rank + 2, len(shape), tuple(shape)))
        if not (training and self.rate > 0):
            return inputs
        noise = [shape[0]] + [1] * (self._rank + 1)
        if self.data_format == "channels_first":
            noise[1] = shape[1]
        else:
            noise[-1] = shape[-1]
        return _ops.dropout(inputs, self.rate, noise_shape=noise, seed=self.seed)

    def get_config(self):
        config = {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype}
        if self._rank > 1:
            config["data_format"] = self.data_format
        return config


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of ``(batch, steps, channels)`` inputs."""
    _rank = 1

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)


class SpatialDropout2D(_SpatialDropout):
    """Drops whole feature maps of 4-D inputs."""
    _rank = 2


class SpatialDropout3D(_SpatialDropout):
    """Drops whole feature volumes of 5-D inputs."""
    _rank = 3


class ActivityRegularization(Layer):
    """Identity that adds an L1/L2 penalty on its output to ``losses``."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        kwargs["activity_regularizer"] = regularizers.L1L2(l1=l1, l2=l2)
        super().__init__(**kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2

    def call(self, inputs):
        return inputs

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update(l1=self.l1, l2=self.l2)
        return config


class ELU(Layer):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` below (``activations.elu``)."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self.supports_masking = True

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self):
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


class PReLU(Layer):
    """Leaky ReLU whose negative slope ``alpha`` is learned, one per input entry (axes in
    ``shared_axes`` share one)."""

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape):
        param_shape = list(TensorShape(input_shape).as_list()[1:])
        for i in self.shared_axes or ():
            param_shape[i - 1] = 1
        self.alpha = self._add_weight("alpha", param_shape, initializer=self.alpha_initializer,
                                      regularizer=self.alpha_regularizer,
                                      constraint=self.alpha_constraint)
        self.built = True

    def call(self, inputs):
        return activations.relu(inputs) - self.alpha * activations.relu(-inputs)

    def get_config(self):
        config = super().get_config()
        config["shared_axes"] = self.shared_axes
        config.update(self._serialized("alpha_initializer", "alpha_regularizer",
                                       "alpha_constraint"))
        return config


class Activation(Layer):
    """Apply an activation function: ``Activation('relu')``."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True      # (as Keras 3: masks pass through)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        config = super().get_config()
        config.update(self._serialized("activation"))
        return config


class ReLU(Layer):
    """Keras 3's ``ReLU(max_value, negative_slope, threshold)``: ``activations.relu``."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True      # (as Keras 3: masks pass through)
        # (Keras 3's checks and messages)
        if max_value is not None and max_value < 0.0:
            raise ValueError("max_value of a ReLU layer cannot be a negative value. "
                             "Received: max_value=%s" % (max_value,))
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError("negative_slope of a ReLU layer cannot be None or a negative "
                             "value. Received: negative_slope=%s" % (negative_slope,))
        if threshold is None or threshold < 0.0:
            raise ValueError("threshold of a ReLU layer cannot be None or a negative value. "
                             "Received: threshold=%s" % (threshold,))
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def get_config(self):
        config = super().get_config()
        config.update(max_value=self.max_value, negative_slope=self.negative_slope,
                      threshold=self.threshold)
        return config


class LeakyReLU(Layer):
    """``x`` for ``x >= 0``, ``negative_slope * x`` below (Keras 3's name; Keras 2's
    ``alpha=`` is still taken, with Keras 3's deprecation warning)."""

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError("The negative_slope value of a Leaky ReLU layer cannot be None or "
                             "negative value. Expected a float. Received: negative_slope=%s"
                             % (negative_slope,))
        self.supports_masking = True      # (as Keras 3: masks pass through)
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        config = super().get_config()
        config["negative_slope"] = self.negative_slope
        return config


def _check_softmax_mask(inputs, mask):
    """Keras 3's check that ``mask`` broadcasts to ``inputs`` without growing them."""
    ishape, mshape = inputs.shape.as_list(), mask.shape.as_list()
    if len(mshape) > len(ishape):
        raise ValueError("The `mask` must be broadcastable to `inputs` and must not have more "
                         "dimensions. Received: inputs.shape=%s, mask.shape=%s"
                         % (tuple(ishape), tuple(mshape)))
    for m, i in zip(mshape[::-1], ishape[::-1]):
        if m is not None and i is not None and m != 1 and m != i:
            raise ValueError("The `mask` must be broadcastable to `inputs`. Each mask dimension "
                             "must be 1 or match the corresponding input dimension. Received: "
                             "inputs.shape=%s, mask.shape=%s" % (tuple(ishape), tuple(mshape)))


class Softmax(Layer):
    """Softmax over ``axis`` (an int, or a tuple of axes normalised together).

    ``mask`` (True or > 0.5 keeps) sets the masked logits to a large negative number
    (-1e9, -3e4 in float16) and zeroes their outputs, as Keras 3 does, so an entirely
    masked row gives zeros.
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True      # (as Keras 3: masks pass through)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            mask = convert_to_tensor(mask)
            _check_softmax_mask(inputs, mask)
            if mask.dtype != dtypes.bool:
                mask = mask > cast(0.5, mask.dtype)
            fill = -3e4 if inputs.dtype == dtypes.float16 else -1e9
            inputs = elementwise_ops.where(mask, inputs, constant(fill, inputs.dtype))
        if isinstance(self.axis, (tuple, list)) and len(self.axis) > 1:
            axes = list(self.axis)
            outputs = exp(inputs - reduce_logsumexp(inputs, axis=axes, keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
            outputs = _ops.softmax(inputs, axis=axis)
        if mask is not None:
            outputs = elementwise_ops.where(mask, outputs, zeros_like(outputs))
        return outputs

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


class Embedding(Layer):
    """Look up rows of an ``(input_dim, output_dim)`` table by integer ids."""

    _accepts_ragged = True      # a RaggedTensor of ids gives a RaggedTensor, as in Keras 3

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 input_length=None, **kwargs):
        super().__init__(**kwargs)
        if int(input_dim) <= 0 or int(output_dim) <= 0:
            raise ValueError("Embedding: input_dim and output_dim must be positive "
                             "(got %r, %r)" % (input_dim, output_dim))
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        if embeddings_initializer == "uniform":
            embeddings_initializer = initializers.RandomUniform()
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.input_length = input_length
        self.supports_masking = self.mask_zero

    def build(self, input_shape):
        self.embeddings = self._add_weight("embeddings", [self.input_dim, self.output_dim],
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def _convert_input(self, x):
        if not isinstance(x, RaggedTensor):
            x = convert_to_tensor(x.read_value() if isinstance(x, Variable) else x)
        if not x.dtype.is_integer:
            x = cast(x, dtypes.int32)
        return x

    def call(self, inputs):
        # gather checks the ids' range when it runs (InvalidArgumentError, as TensorFlow's
        # CPU gather), so a traced step replays instead of reading the ids in Python
        if isinstance(inputs, RaggedTensor):      # ragged ids: ragged embeddings
            return nn.embedding_lookup(self.embeddings, inputs)
        return gather(self.embeddings, convert_to_tensor(inputs))

    def compute_mask(self, inputs, mask=None):
        """With ``mask_zero=True``, id 0 is padding: the mask is ``inputs != 0``."""
        if not self.mask_zero:
            return None
        return not_equal(self._convert_input(inputs), 0)

    def get_config(self):
        config = super().get_config()
        config.update(input_dim=self.input_dim, output_dim=self.output_dim,
                      mask_zero=self.mask_zero, input_length=self.input_length)
        config.update(self._serialized("embeddings_initializer", "embeddings_regularizer",
                                       "embeddings_constraint"))
        return config


class ReversibleEmbedding(Embedding):
    """An Embedding that can also map back: ``layer(hidden, reverse=True)`` multiplies by
    the transposed table (``tie_weights=True``) or by its own ``reverse_embeddings``
    (output_dim, input_dim), giving logits over the ids; ``logit_soft_cap`` bounds them
    as ``cap * tanh(logits / cap)``; ``reverse_dtype`` is the dtype of that product."""

    def __init__(self, input_dim, output_dim, tie_weights=True,
                 embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs):
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        self.tie_weights = tie_weights
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape=None):
        super().build(input_shape)
        self.reverse_embeddings = None if self.tie_weights else self._add_weight(
            "reverse_embeddings", [self.output_dim, self.input_dim],
            initializer=self.embeddings_initializer)

    def _convert_input(self, x):
        # (ids are made integer in call: a reverse call's float inputs must stay floats)
        return Layer._convert_input(self, x)

    def call(self, inputs, reverse=False):
        if not reverse:
            return super().call(Embedding._convert_input(self, inputs))
        kernel = transpose(self.embeddings) if self.tie_weights else self.reverse_embeddings
        inputs = convert_to_tensor(inputs)
        if self.reverse_dtype is not None:
            inputs = cast(inputs, self.reverse_dtype)
            kernel = cast(kernel, self.reverse_dtype)
        logits = matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = elementwise_ops.tanh(logits / cap) * cap
        return logits

    def compute_mask(self, inputs, mask=None):
        # (reverse calls take float hidden states: they have no padding mask, as Keras)
        if getattr(getattr(inputs, "dtype", None), "is_floating", False):
            return None
        return super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape, reverse=False):
        shape = list(input_shape)
        if reverse:
            shape[-1] = self.input_dim
            return tuple(shape)
        return tuple(shape) + (self.output_dim,)

    def get_config(self):
        config = super().get_config()
        config.update(tie_weights=self.tie_weights, reverse_dtype=self.reverse_dtype,
                      logit_soft_cap=self.logit_soft_cap)
        return config


class Masking(Layer):
    """Marks time steps whose features all equal ``mask_value`` as padding: they are
    zeroed, and the mask (``(batch, time)``, True where kept) goes to the next layers.

    >>> x = fe.constant([[[1.], [0.]]])
    >>> fe.keras.layers.Masking()(x).shape
    TensorShape([1, 2, 1])
    """

    _input_min_ndim = 2

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = float(mask_value)
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return reduce_any(not_equal(self._convert_input(inputs), self.mask_value),
                             axis=-1)

    def call(self, inputs):
        keep = self.compute_mask(inputs)
        return inputs * cast(expand_dims(keep, -1), inputs.dtype)

    def get_config(self):
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config


class Lambda(Layer):
    """Wrap a function as a layer: ``Lambda(lambda x: x * 2.0)``.

    Saving stores a registered or built-in function by name, and a lambda (or a local
    function) as marshalled bytecode, which ``load_model`` refuses unless
    ``safe_mode=False``: loading it runs code from the file. Its defaults and closure must
    be JSON values. Like Keras, a Lambda's own variables are not tracked: write a Layer
    subclass for that.
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(function, str):
            function = activations.get(function)
        if not callable(function):
            raise TypeError("Lambda: function must be callable (got %r)" % (function,))
        if arguments is not None and not isinstance(arguments, dict):
            raise TypeError("Lambda: arguments must be a dict of keyword arguments (got %r)"
                            % (arguments,))
        self.function = function
        self.arguments = dict(arguments or {})
        self.output_shape_arg = output_shape
        self.mask = mask

    def call(self, inputs, **kwargs):
        kwargs.pop("training", None)
        return self.function(inputs, **self.arguments, **kwargs)

    def get_config(self):
        fn, config = self.function, super().get_config()
        anonymous = isinstance(fn, types.FunctionType) and (
            fn.__name__ == "<lambda>" or "<locals>" in fn.__qualname__)
        if anonymous and _serialization.get_registered_name(fn) == fn.__name__:
            config["function"] = _serialization.dump_function(fn)
        else:   # by (registered) name: built-ins load as they are, others by custom_objects
            config["function"] = _serialization.serialize_keras_object(fn)
        config.update(output_shape=self.output_shape_arg, arguments=self.arguments)
        return config

    # Sequential configs reach from_config through deserialize_keras_object, which has
    # already turned the function into an object (or refused it); a config passed here
    # directly goes through the same gate
    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        config = dict(config)
        fn = config.get("function")
        if isinstance(fn, dict):
            mode = _serialization.in_safe_mode() if safe_mode is None else safe_mode
            config["function"] = _serialization.deserialize_keras_object(
                fn, custom_objects, safe_mode=mode, where="Lambda.from_config")
        elif isinstance(fn, str):
            found = _serialization.get_registered_object(fn, custom_objects)
            if found is None and fn not in activations._BY_NAME:
                raise _serialization.refuse({"class_name": fn}, "Lambda.from_config")
            config["function"] = found if found is not None else fn
        return cls(**config)
