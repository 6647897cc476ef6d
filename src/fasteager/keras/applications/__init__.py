"""``fe.keras.applications``: Keras's pretrained image models, built from fasteager layers
with Keras 3's architecture and layer names (``MobileNet``, ``MobileNetV2``), and their
preprocessing helpers (``mobilenet.preprocess_input``,
``imagenet_utils.decode_predictions``).

>>> model = fe.keras.applications.MobileNet(weights=None, alpha=0.25)
"""
from . import imagenet_utils, mobilenet, mobilenet_v2  # noqa: F401
from .mobilenet import MobileNet  # noqa: F401
from .mobilenet_v2 import MobileNetV2  # noqa: F401
