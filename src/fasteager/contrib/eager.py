"""The 2017 eager API: ``import fasteager.contrib.eager as tfe``.

Thin aliases of the modern names (``tfe.gradients_function`` is
``fe.gradients_function``, and so on).
"""
from .. import enable_eager_execution, executing_eagerly  # noqa: F401
from .._src.autodiff.tape import (  # noqa: F401
    custom_gradient,
    gradients_function,
    implicit_gradients,
    implicit_value_and_gradients,
    value_and_gradients_function,
)
from .._src.state import placement as _device
from .._src.state.variables import Variable  # noqa: F401
from ..data.dataset import OwnedIterator


def num_gpus():
    """The number of GPUs fasteager can use."""
    return _device.num_gpus()


def in_eager_mode():
    return True


def Iterator(dataset):
    """An iterator over ``dataset``'s elements (tensors): ``for x, y in tfe.Iterator(ds)``;
    ``.next()`` and ``.get_next()`` also work."""
    return OwnedIterator(dataset)


def __getattr__(name):
    # Network is a Keras Model: imported on first use so that importing tfe stays light
    if name == "Network":
        from ..keras.layers import Layer
        from ..keras.training import Model

        class Network(Model):
            """The 2017 layer container: a Model whose ``track_layer(layer)`` registers a
            sub-layer (its variables join the network's) and returns it."""

            def __init__(self, name=None):
                super().__init__(name=name)
                self._tracked_layers = []

            def track_layer(self, layer):
                if not isinstance(layer, Layer):
                    raise TypeError("Network.track_layer: expected a Layer (got %r)" % (layer,))
                if not any(lay is layer for lay in self._tracked_layers):
                    self._tracked_layers.append(layer)
                return layer

        Network.__module__ = __name__
        globals()["Network"] = Network
        return Network
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
