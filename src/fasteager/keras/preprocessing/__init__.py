"""``keras.preprocessing``: Keras 3's home of the image helpers (``image.load_img`` ...),
the same functions as ``keras.utils``."""
from .._dataset_utils import timeseries_dataset_from_array  # noqa: F401
from .._directory_datasets import (  # noqa: F401
    image_dataset_from_directory,
    text_dataset_from_directory,
)
from . import image  # noqa: F401
