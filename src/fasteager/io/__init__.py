"""``fe.io``: the parts of ``tf.io`` fasteager has: ``decode_raw``, ``decode_csv``, the
parsing of serialized ``tf.train.Example`` records (``parse_example``,
``parse_single_example`` with ``FixedLenFeature``, ``VarLenFeature`` and
``RaggedFeature``), ``TFRecordWriter``, files (``read_file``, ``write_file``,
``matching_files``, the ``gfile`` module) and image codecs (``decode_png``/``encode_png``
built in; JPEG, GIF and BMP with Pillow), see docs/image_io.md. Re-exports: the codecs
live in ``fasteager._src.io``; ``gfile`` is a sub-module, as TensorFlow lays it out."""
from .._src.composite.strings import decode_raw  # noqa: F401
from .._src.io.csv import decode_csv  # noqa: F401
from .._src.io.gfile import matching_files, read_file, write_file  # noqa: F401
from .._src.io.image_codecs import (decode_and_crop_jpeg, decode_bmp,  # noqa: F401
                                    decode_gif, decode_image, decode_jpeg, decode_png,
                                    encode_jpeg, encode_png, extract_jpeg_shape, is_jpeg)
from .._src.io.parsing import (FixedLenFeature, RaggedFeature, VarLenFeature,  # noqa: F401
                               parse_example, parse_single_example)
from .._src.io.tfrecord import TFRecordOptions, TFRecordWriter  # noqa: F401
from . import gfile  # noqa: F401

__all__ = ["FixedLenFeature", "RaggedFeature", "TFRecordOptions", "TFRecordWriter",
           "VarLenFeature", "decode_and_crop_jpeg", "decode_bmp", "decode_csv", "decode_gif",
           "decode_image", "decode_jpeg", "decode_png", "decode_raw", "encode_jpeg", "encode_png",
           "extract_jpeg_shape", "gfile", "is_jpeg", "matching_files", "parse_example",
           "parse_single_example", "read_file", "write_file"]
