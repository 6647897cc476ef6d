"""The 2017 eager API: ``import fasteager.contrib.eager as tfe``.

Thin aliases of the modern names (``tfe.gradients_function`` is
``fe.gradients_function``, and so on).
"""
from .. import placement as _device
from .. import enable_eager_execution, executing_eagerly  # noqa: F401
from ..autodiff import (custom_gradient, gradients_function, implicit_gradients,  # noqa: F401
                        implicit_value_and_gradients, value_and_gradients_function)
from ..variables import Variable  # noqa: F401


def num_gpus():
    """The number of GPUs fasteager can use."""
    return _device.num_gpus()


def in_eager_mode():
    return True


def Iterator(dataset):
    """An iterator over ``dataset``'s elements (tensors): ``for x, y in tfe.Iterator(ds)``;
    ``.next()`` and ``.get_next()`` also work."""
    from ..data.dataset import OwnedIterator
    return OwnedIterator(dataset)
