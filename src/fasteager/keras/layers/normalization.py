"""BatchNormalization and LayerNormalization."""
import warnings

import numpy as np

from ... import dtypes, errors
from ...distribute import strategy as _distribute
from ...ops import array_ops, norm_ops
from ...ops.array_ops import (
    broadcast_to,
    concat,
    constant,
    expand_dims,
    reshape,
    stop_gradient,
    transpose,
    zeros_like,
)
from ...ops.elementwise_ops import cast, maximum, minimum, rsqrt, square, where
from ...ops.reduction_ops import reduce_mean, reduce_sum
from ...tensor_shape import TensorShape
from .. import _ops, constraints, initializers, regularizers
from .. import backend as _backend
from .base import Layer


def _in_dtype(t, dtype):
    return t if t.dtype == dtype else cast(t, dtype)


def _axes(axis, rank, layer):
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError("%s: axis %d is out of range for inputs of rank %d"
                             % (layer, a, rank))
        out.append(a % rank)
    return sorted(out)


class BatchNormalization(Layer):
    """Normalise with the batch's statistics in training and the moving ones in inference.

    In training, ``moving = moving * momentum + batch_statistic * (1 - momentum)``, with
    the batch's (biased) mean and variance over every axis but ``axis``, as Keras 3 does.
    The moving statistics are non-trainable variables. A single axis runs the fused ops
    of ``ops/norm_ops.py`` (one kernel forward, one backward; another axis than the last
    is moved last and back); several axes, a ``mask`` (Keras 3's masked statistics:
    sums over the kept entries divided by their count plus ``backend.epsilon()``) and
    synchronized statistics use the formula in elementwise ops.

    Under a multi-worker strategy the moving statistics are ON_READ variables with MEAN
    aggregation, as in TensorFlow: each worker updates them from its own batches and the
    value read, saved or used for inference is their mean over the workers (every
    worker holds it after each training step). With ``synchronized=True`` the batch
    statistics themselves are those of the global batch (one all-reduce of the sums and
    sums of squares per call, whose gradient is again an all-reduce); without a
    multi-worker strategy it is the ordinary layer.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, synchronized=False,
                 beta_constraint=None, gamma_constraint=None, **kwargs):
        for k in ("renorm", "fused", "virtual_batch_size",
                  "adjustment", "renorm_clipping", "renorm_momentum"):
            kwargs.pop(k, None)
        super().__init__(**kwargs)
        self.supports_masking = True
        if not isinstance(synchronized, (bool, np.bool_)):
            raise TypeError("BatchNormalization: synchronized must be a bool (got %r)"
                            % (synchronized,))
        self.synchronized = bool(synchronized)
        if not 0 <= momentum <= 1:
            raise ValueError("BatchNormalization: momentum must be in [0, 1] (got %r)" % momentum)
        if epsilon <= 0:
            raise ValueError("BatchNormalization: epsilon must be positive (got %r)" % epsilon)
        self.axis = axis
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        self._axes = _axes(self.axis, len(shape), "BatchNormalization")
        param_shape = [shape[a] for a in self._axes]
        self._reduce_axes = [a for a in range(len(shape)) if a not in self._axes]
        # parameters broadcast against the input: size 1 on reduced axes
        self._bshape = [shape[a] if a in self._axes else 1 for a in range(len(shape))]
        # (autocast=False as Keras: under mixed precision the normalisation runs in float32
        # on float32 parameters and statistics)
        self.gamma = self._add_weight("gamma", param_shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint,
                                     autocast=False) if self.scale else None
        self.beta = self._add_weight("beta", param_shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint,
                                    autocast=False) if self.center else None
        self.moving_mean = self._add_weight("moving_mean", param_shape, trainable=False,
                                           initializer=self.moving_mean_initializer,
                                           autocast=False)
        self.moving_variance = self._add_weight("moving_variance", param_shape, trainable=False,
                                               initializer=self.moving_variance_initializer,
                                               autocast=False)
        # build runs under the layer's strategy (or the scope fit/run entered)
        self._strategy = _distribute._active_strategy()
        if self._strategy is not None:
            self._strategy._register_on_read(self.moving_mean)
            self._strategy._register_on_read(self.moving_variance)
        self.built = True

    def _global_moments(self, inputs):
        """Mean and (biased) variance over every worker's batch: the workers' sums, sums
        of squares and counts, all-reduced in one buffer."""
        size = self.moving_mean.shape.num_elements()
        shape = inputs.shape.as_list()
        count = float(np.prod([shape[a] for a in self._reduce_axes]))
        local = concat([reshape(reduce_sum(inputs, self._reduce_axes), [-1]),
                           reshape(reduce_sum(square(inputs), self._reduce_axes),
                                      [-1]),
                           constant([count], dtype=inputs.dtype)], axis=0)
        total = _distribute.all_reduce_sum(self._strategy, local)
        n = stop_gradient(total[2 * size])
        mean = total[:size] / n
        var = maximum(total[size:2 * size] / n - square(mean), 0.0)
        return reshape(mean, self._bshape), reshape(var, self._bshape)

    def call(self, inputs, training=None, mask=None):
        shape = inputs.shape.as_list()
        if len(shape) != len(self._bshape) or any(
                shape[a] != self._bshape[a] for a in self._axes):
            raise errors.InvalidArgumentError(
                "BatchNormalization (layer %r): the input shape %s does not match the shape "
                "the layer was built for (normalised axes %s of size %s)"
                % (self.name, shape, self._axes, [self._bshape[a] for a in self._axes]))
        if mask is not None and len(mask.shape) != len(shape) - 1:
            raise ValueError("BatchNormalization (layer %r): the mask must have one dimension "
                             "less than the inputs (expected rank %d, got mask.shape=%s, "
                             "inputs.shape=%s)" % (self.name, len(shape) - 1,
                                                   list(mask.shape), shape))
        train = bool(training) and self.trainable
        compute = inputs.dtype
        if compute == dtypes.float16:       # statistics in float32, as Keras
            inputs = cast(inputs, dtypes.float32)
        if (mask is None and len(self._axes) == 1
                and not (train and self.synchronized and self._strategy is not None)):
            y = self._fused(inputs, train)
        else:
            y = self._composite(inputs, train, mask)
        return y if y.dtype == compute else cast(y, compute)

    def _params(self, dtype):
        """gamma and beta in ``dtype`` (ones and zeros where the layer has none)."""
        size = self.moving_mean.shape.as_list()
        np_dtype = dtype.as_numpy_dtype
        gamma = self.gamma if self.scale else constant(np.ones(size, np_dtype))
        beta = self.beta if self.center else constant(np.zeros(size, np_dtype))
        return _in_dtype(gamma, dtype), _in_dtype(beta, dtype)

    def _update_moving(self, mean, var):
        """``moving = moving * momentum + batch * (1 - momentum)``, in tensor arithmetic
        (no numpy()): fe.function can replay the update."""
        m = self.momentum
        for moving, batch in ((self.moving_mean, mean), (self.moving_variance, var)):
            batch = _in_dtype(reshape(stop_gradient(batch), moving.shape.as_list()),
                              moving.dtype)
            moving.assign(moving * m + batch * (1 - m))

    def _fused(self, inputs, train):
        """One axis: the fused ops on channels-last data (the axis moved last and back)."""
        rank = len(self._bshape)
        axis = self._axes[0]
        x = inputs
        if axis != rank - 1:
            perm = [a for a in range(rank) if a != axis] + [axis]
            x = transpose(x, perm)
        if rank == 1:       # one example of C channels: a batch of one row
            x = reshape(x, [1, -1])
        gamma, beta = self._params(x.dtype)
        if train:
            y, mean, var = norm_ops.fused_batch_norm_train(x, gamma, beta, self.epsilon)
            self._update_moving(mean, var)
        else:
            y = norm_ops.batch_norm_inference(
                x, _in_dtype(self.moving_mean.read_value(), x.dtype),
                _in_dtype(self.moving_variance.read_value(), x.dtype), gamma, beta,
                self.epsilon)
        if rank == 1:
            y = reshape(y, [-1])
        if axis != rank - 1:
            y = transpose(y, [perm.index(a) for a in range(rank)])
        return y

    def _masked_moments(self, inputs, mask):
        """Keras 3's masked statistics: mean and (biased) variance over the entries the mask
        keeps, each divided by (count + backend epsilon)."""
        keep = broadcast_to(expand_dims(cast(mask, dtypes.bool), -1),
                               inputs.shape.as_list())
        zeros = zeros_like(inputs)
        count = reduce_sum(cast(keep, inputs.dtype), self._reduce_axes, keepdims=True)
        denom = count + _backend.epsilon()
        mean = reduce_sum(where(keep, inputs, zeros), self._reduce_axes,
                             keepdims=True) / denom
        diff = where(keep, inputs - mean, zeros)
        var = reduce_sum(square(diff), self._reduce_axes, keepdims=True) / denom
        return mean, var

    def _composite(self, inputs, train, mask):
        """Several axes, a mask, or synchronized statistics: the formula in ops."""
        if train:
            if self.synchronized and self._strategy is not None:
                mean, var = self._global_moments(inputs)
            elif mask is not None:
                mean, var = self._masked_moments(inputs, mask)
            else:
                mean, var = _ops.moments(inputs, self._reduce_axes, keepdims=True)
            self._update_moving(mean, var)
        else:
            mean = reshape(_in_dtype(self.moving_mean.read_value(), inputs.dtype),
                              self._bshape)
            var = reshape(_in_dtype(self.moving_variance.read_value(), inputs.dtype),
                             self._bshape)
        inv = rsqrt(var + self.epsilon)
        if self.scale:
            inv = inv * reshape(_in_dtype(self.gamma, inputs.dtype), self._bshape)
        y = (inputs - mean) * inv
        if self.center:
            y = y + reshape(_in_dtype(self.beta, inputs.dtype), self._bshape)
        return y

    def get_config(self):
        config = super().get_config()
        config.update(axis=self.axis, momentum=self.momentum, epsilon=self.epsilon,
                      center=self.center, scale=self.scale, synchronized=self.synchronized)
        config.update(self._serialized(
            "beta_initializer", "gamma_initializer", "moving_mean_initializer",
            "moving_variance_initializer", "beta_regularizer", "gamma_regularizer",
            "beta_constraint", "gamma_constraint"))
        return config


class LayerNormalization(Layer):
    """Normalise each example over ``axis`` (the last by default), then scale and shift.

    ``rms_scaling=True`` (deprecated in Keras 3, kept with its warning) computes Keras 3's
    ``x * rsqrt(var(x) + epsilon) * gamma``: no centring, no beta, and always a gamma.
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 rms_scaling=False, **kwargs):
        if rms_scaling:
            warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument "
                          "incorrectly scales the input by the variance, not the root mean "
                          "square. To correctly use RMS Normalization, please use "
                          "`keras.layers.RMSNormalization` instead.")
        super().__init__(**kwargs)
        self.rms_scaling = bool(rms_scaling)
        self.supports_masking = True
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        self._axes = _axes(self.axis, len(shape), "LayerNormalization")
        param_shape = [shape[a] for a in self._axes]
        self._bshape = [shape[a] if a in self._axes else 1 for a in range(len(shape))]
        self.gamma = self._add_weight("gamma", param_shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) \
            if self.scale or self.rms_scaling else None
        self.beta = self._add_weight("beta", param_shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) \
            if self.center and not self.rms_scaling else None
        self.built = True

    def call(self, inputs):
        mean, var = _ops.moments(inputs, self._axes, keepdims=True)
        if self.rms_scaling:
            # (Keras 3 scales by the variance without subtracting the mean)
            return inputs * rsqrt(var + self.epsilon) * reshape(self.gamma, self._bshape)
        y = (inputs - mean) * rsqrt(var + self.epsilon)
        if self.scale:
            y = y * reshape(self.gamma, self._bshape)
        if self.center:
            y = y + reshape(self.beta, self._bshape)
        return y

    def get_config(self):
        config = super().get_config()
        config.update(axis=self.axis, epsilon=self.epsilon, center=self.center,
                      scale=self.scale, rms_scaling=self.rms_scaling)
        config.update(self._serialized("beta_initializer", "gamma_initializer",
                                       "beta_regularizer", "gamma_regularizer",
                                       "beta_constraint", "gamma_constraint"))
        return config


class UnitNormalization(Layer):
    """Scale each example to unit L2 norm over ``axis``: ``x * min(rsqrt(sum(x**2)),
    1e12)`` (Keras 3's ``ops.normalize`` with epsilon 1e-12)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
            self.axis = int(axis)
        else:
            raise TypeError("Invalid value for `axis` argument: expected an int or a "
                            "list/tuple of ints. Received: axis=%s" % (axis,))
        self.supports_masking = True

    def call(self, inputs):
        rank = inputs.shape.rank
        axes = _axes(self.axis, rank, "UnitNormalization")
        inv = rsqrt(reduce_sum(square(inputs), axis=axes, keepdims=True))
        return inputs * minimum(inv, constant(1e12, inv.dtype))

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


class RMSNormalization(Layer):
    """``x * rsqrt(mean(x**2 over axis) + epsilon) * scale`` with a learned ``scale``
    (initialised to ones) over ``axis``; as Keras 3, build turns ``axis`` into a sorted
    list."""

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        self.axis = sorted(self.axis) if isinstance(self.axis, (list, tuple)) else [self.axis]
        self._axes = _axes(self.axis, len(shape), "RMSNormalization")
        self._bshape = [shape[a] if a in self._axes else 1 for a in range(len(shape))]
        self.scale = self._add_weight("scale", [shape[a] for a in self._axes],
                                      initializer="ones")
        self.built = True

    def call(self, inputs):
        x = inputs if inputs.dtype.size >= 4 else cast(inputs, dtypes.float32)
        rrms = rsqrt(reduce_mean(square(x), axis=self._axes, keepdims=True)
                        + self.epsilon)
        y = x * rrms * reshape(cast(self.scale, x.dtype), self._bshape)
        return _in_dtype(y, inputs.dtype)

    def get_config(self):
        config = super().get_config()
        config.update(axis=self.axis, epsilon=self.epsilon)
        return config


class GroupNormalization(Layer):
    """Normalise over groups of channels: ``axis`` is split into ``groups`` groups, each
    normalised over its channels and every other non-batch axis (``groups=-1``: one per
    channel, instance normalization), then scaled and shifted per channel."""

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        if not isinstance(groups, int) or isinstance(groups, bool) or \
                (groups <= 0 and groups != -1):
            raise ValueError("Received an invalid value for argument `groups`, expected a "
                             "positive integer (or `-1` for instance normalization). "
                             "Received: groups=%s" % (groups,))
        super().__init__(**kwargs)
        self.supports_masking = True
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        dim = shape[self.axis]
        if dim is None:
            raise ValueError("Axis %s of input tensor should have a defined dimension but the "
                             "layer received an input with shape %s." % (self.axis, tuple(shape)))
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError("Number of groups (%d) cannot be more than the number of "
                             "channels (%d)." % (self.groups, dim))
        if dim % self.groups:
            raise ValueError("Number of groups (%d) must be a multiple of the number of "
                             "channels (%d)." % (self.groups, dim))
        self.gamma = self._add_weight("gamma", [dim], initializer=self.gamma_initializer,
                                      regularizer=self.gamma_regularizer,
                                      constraint=self.gamma_constraint) if self.scale else None
        self.beta = self._add_weight("beta", [dim], initializer=self.beta_initializer,
                                     regularizer=self.beta_regularizer,
                                     constraint=self.beta_constraint) if self.center else None
        self.built = True

    def call(self, inputs):
        shape = inputs.shape.as_list()
        rank = len(shape)
        axis = self.axis % rank
        x = inputs if inputs.dtype.size >= 4 else cast(inputs, dtypes.float32)
        # (batch, ..., groups, channels per group, ...): moments over all but batch, group
        gshape = [-1] + shape[1:axis] + [self.groups, shape[axis] // self.groups] \
            + shape[axis + 1:]
        xg = reshape(x, gshape)
        red = [i for i in range(1, rank + 1) if i != axis]
        mean, var = _ops.moments(xg, red, keepdims=True)
        bshape = [1] * (rank + 1)
        bshape[axis], bshape[axis + 1] = self.groups, shape[axis] // self.groups
        inv = rsqrt(var + self.epsilon)
        if self.scale:
            inv = inv * reshape(cast(self.gamma, x.dtype), bshape)
        res = -mean * inv
        if self.center:
            res = res + reshape(cast(self.beta, x.dtype), bshape)
        y = reshape(xg * inv + res, array_ops.shape(inputs))
        return _in_dtype(y, inputs.dtype)

    def get_config(self):
        config = super().get_config()
        config.update(groups=self.groups, axis=self.axis, epsilon=self.epsilon,
                      center=self.center, scale=self.scale)
        config.update(self._serialized("beta_initializer", "gamma_initializer",
                                       "beta_regularizer", "gamma_regularizer",
                                       "beta_constraint", "gamma_constraint"))
        return config
