"""Layer wrappers: the ``Wrapper`` base class (a layer around another layer, serialized
with it) and ``SpectralNormalization``, as Keras 3's."""
from ...tensor_shape import TensorShape
from .. import _naming
from .._serialization import deserialize_keras_object, serialize_keras_object
from ..ops.nn import normalize
from ..ops.core import cast, cond, stop_gradient
from ..ops.numpy import all as _all, divide, equal, matmul, reshape, transpose
from .base import Layer


class Wrapper(Layer):
    """A layer that wraps ``layer`` (base of wrappers such as SpectralNormalization); its
    config holds the wrapped layer's serialized config."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Layer %s supplied to Wrapper isn't a supported layer type. "
                             "Please ensure wrapped layer is a valid Keras layer." % (layer,))
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            _naming.build_in_scope(self.layer, TensorShape(input_shape))
            self.layer.built = True
        self.built = True

    def get_config(self):
        config = super().get_config()
        config["layer"] = serialize_keras_object(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = config.pop("layer")
        if isinstance(layer, dict):
            layer = deserialize_keras_object(layer, custom_objects=custom_objects)
        return cls(layer, **config)


class SpectralNormalization(Wrapper):
    """Divides the wrapped layer's ``kernel`` (or ``embeddings``) by its largest singular
    value, estimated by ``power_iterations`` steps of power iteration from the
    non-trainable ``vector_u``; the kernel and ``vector_u`` are updated in training calls
    (as Keras, a kernel that is all zeros is left as it is)."""

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError("`power_iterations` should be greater than zero. Received: "
                             "`power_iterations=%s`" % (power_iterations,))
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        if hasattr(self.layer, "kernel"):
            self.kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            self.kernel = self.layer.embeddings
        else:
            raise ValueError("%s object has no attribute 'kernel' nor 'embeddings'"
                             % type(self.layer).__name__)
        self.kernel_shape = tuple(self.kernel.shape.as_list())
        self.vector_u = self._add_weight(
            "vector_u", [1, self.kernel_shape[-1]], dtype=self.kernel.dtype,
            initializer={"class_name": "TruncatedNormal", "config": {"stddev": 0.02}},
            trainable=False)
        self.built = True

    def call(self, inputs, training=False):
        if training:
            u, kernel = cond(_all(equal(self.kernel, 0)),
                             lambda: (self.vector_u.value, self.kernel.value),
                             self.normalized_weights)
            self.vector_u.assign(u)
            self.kernel.assign(kernel)
        return cast(self.layer(inputs), inputs.dtype)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def normalized_weights(self):
        """(the new ``vector_u``, the kernel divided by its spectral norm estimate)."""
        weights = reshape(self.kernel, [-1, self.kernel_shape[-1]])
        u = self.vector_u.value
        for _ in range(self.power_iterations):
            v = normalize(matmul(u, transpose(weights)), axis=None)
            u = normalize(matmul(v, weights), axis=None)
        u, v = stop_gradient(u), stop_gradient(v)
        sigma = matmul(matmul(v, weights), transpose(u))
        kernel = reshape(divide(self.kernel, sigma), self.kernel_shape)
        return cast(u, self.vector_u.dtype), cast(kernel, self.kernel.dtype)

    def get_config(self):
        config = super().get_config()
        config["power_iterations"] = self.power_iterations
        return config
