"""BatchNormalization and LayerNormalization."""
import numpy as np

import fasteager as fe

from .. import _ops, initializers, regularizers
from ...distribute import strategy as _distribute
from .base import Layer


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
    the batch's (biased) mean and variance over every axis but ``axis``, as Keras's
    non-fused path does. The moving statistics are non-trainable variables.

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
                 beta_regularizer=None, gamma_regularizer=None, synchronized=False, **kwargs):
        for k in ("beta_constraint", "gamma_constraint", "renorm", "fused", "virtual_batch_size",
                  "adjustment", "renorm_clipping", "renorm_momentum"):
            kwargs.pop(k, None)
        super().__init__(**kwargs)
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

    def build(self, input_shape):
        shape = fe.TensorShape(input_shape).as_list()
        self._axes = _axes(self.axis, len(shape), "BatchNormalization")
        param_shape = [shape[a] for a in self._axes]
        self._reduce_axes = [a for a in range(len(shape)) if a not in self._axes]
        # parameters broadcast against the input: size 1 on reduced axes
        self._bshape = [shape[a] if a in self._axes else 1 for a in range(len(shape))]
        self.gamma = self.add_weight("gamma", param_shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer) if self.scale else None
        self.beta = self.add_weight("beta", param_shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", param_shape, trainable=False,
                                           initializer=self.moving_mean_initializer)
        self.moving_variance = self.add_weight("moving_variance", param_shape, trainable=False,
                                               initializer=self.moving_variance_initializer)
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
        local = fe.concat([fe.reshape(fe.reduce_sum(inputs, self._reduce_axes), [-1]),
                           fe.reshape(fe.reduce_sum(fe.square(inputs), self._reduce_axes),
                                      [-1]),
                           fe.constant([count], dtype=inputs.dtype)], axis=0)
        total = _distribute.all_reduce_sum(self._strategy, local)
        n = fe.stop_gradient(total[2 * size])
        mean = total[:size] / n
        var = fe.maximum(total[size:2 * size] / n - fe.square(mean), 0.0)
        return fe.reshape(mean, self._bshape), fe.reshape(var, self._bshape)

    def call(self, inputs, training=None):
        shape = inputs.shape.as_list()
        if len(shape) != len(self._bshape) or any(
                shape[a] != self._bshape[a] for a in self._axes):
            raise fe.errors.InvalidArgumentError(
                "BatchNormalization (layer %r): the input shape %s does not match the shape "
                "the layer was built for (normalised axes %s of size %s)"
                % (self.name, shape, self._axes, [self._bshape[a] for a in self._axes]))
        if training and self.trainable:
            if self.synchronized and self._strategy is not None:
                mean, var = self._global_moments(inputs)
            else:
                mean, var = _ops.moments(inputs, self._reduce_axes, keepdims=True)
            m = self.momentum
            flat_mean = fe.reshape(fe.stop_gradient(mean), self.moving_mean.shape.as_list())
            flat_var = fe.reshape(fe.stop_gradient(var), self.moving_variance.shape.as_list())
            # tensor arithmetic (no numpy()): fe.function can replay the update
            self.moving_mean.assign(self.moving_mean * m + flat_mean * (1 - m))
            self.moving_variance.assign(self.moving_variance * m + flat_var * (1 - m))
        else:
            mean = fe.reshape(self.moving_mean.read_value(), self._bshape)
            var = fe.reshape(self.moving_variance.read_value(), self._bshape)
        inv = fe.rsqrt(var + self.epsilon)
        if self.scale:
            inv = inv * fe.reshape(self.gamma, self._bshape)
        y = (inputs - mean) * inv
        if self.center:
            y = y + fe.reshape(self.beta, self._bshape)
        return y

    def get_config(self):
        config = super().get_config()
        config.update(axis=self.axis, momentum=self.momentum, epsilon=self.epsilon,
                      center=self.center, scale=self.scale, synchronized=self.synchronized)
        config.update(self._serialized(
            "beta_initializer", "gamma_initializer", "moving_mean_initializer",
            "moving_variance_initializer", "beta_regularizer", "gamma_regularizer"))
        return config


class LayerNormalization(Layer):
    """Normalise each example over ``axis`` (the last by default), then scale and shift."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, **kwargs):
        kwargs.pop("beta_constraint", None)
        kwargs.pop("gamma_constraint", None)
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)

    def build(self, input_shape):
        shape = fe.TensorShape(input_shape).as_list()
        self._axes = _axes(self.axis, len(shape), "LayerNormalization")
        param_shape = [shape[a] for a in self._axes]
        self._bshape = [shape[a] if a in self._axes else 1 for a in range(len(shape))]
        self.gamma = self.add_weight("gamma", param_shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer) if self.scale else None
        self.beta = self.add_weight("beta", param_shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer) if self.center else None
        self.built = True

    def call(self, inputs):
        mean, var = _ops.moments(inputs, self._axes, keepdims=True)
        y = (inputs - mean) * fe.rsqrt(var + self.epsilon)
        if self.scale:
            y = y * fe.reshape(self.gamma, self._bshape)
        if self.center:
            y = y + fe.reshape(self.beta, self._bshape)
        return y

    def get_config(self):
        config = super().get_config()
        config.update(axis=self.axis, epsilon=self.epsilon, center=self.center,
                      scale=self.scale)
        config.update(self._serialized("beta_initializer", "gamma_initializer",
                                       "beta_regularizer", "gamma_regularizer"))
        return config
