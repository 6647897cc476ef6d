"""``keras.preprocessing``: Keras 3's home of the image helpers (``image.load_img`` ...),
the same functions as ``keras.utils``."""
from . import image  # noqa: F401
