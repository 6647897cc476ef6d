"""BatchNormalization and LayerNormalization."""
import fasteager as fe

from .. import _ops, initializers, regularizers
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
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, **kwargs):
        for k in ("beta_constraint", "gamma_constraint", "renorm", "fused", "virtual_batch_size",
                  "adjustment", "synchronized", "renorm_clipping", "renorm_momentum"):
            kwargs.pop(k, None)
        super().__init__(**kwargs)
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
        self.built = True

    def call(self, inputs, training=None):
        shape = inputs.shape.as_list()
        if len(shape) != len(self._bshape) or any(
                shape[a] != self._bshape[a] for a in self._axes):
            raise fe.errors.InvalidArgumentError(
                "BatchNormalization (layer %r): the input shape %s does not match the shape "
                "the layer was built for (normalised axes %s of size %s)"
                % (self.name, shape, self._axes, [self._bshape[a] for a in self._axes]))
        if training and self.trainable:
            mean, var = _ops.moments(inputs, self._reduce_axes, keepdims=True)
            m = self.momentum
            flat_mean = fe.reshape(fe.stop_gradient(mean), self.moving_mean.shape.as_list())
            flat_var = fe.reshape(fe.stop_gradient(var), self.moving_variance.shape.as_list())
            self.moving_mean.assign(self.moving_mean.numpy() * m + flat_mean.numpy() * (1 - m))
            self.moving_variance.assign(self.moving_variance.numpy() * m
                                        + flat_var.numpy() * (1 - m))
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
                      center=self.center, scale=self.scale)
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
