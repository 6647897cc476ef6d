"""Engine layer: io (see docs/architecture.md): the protobuf codec (``protobuf``) and the
messages below the subsystems (``tensor_proto``, ``example``), TFRecord framing and
CRC-32C (``tfrecord``, ``_crc32c``), the PNG codec (``png``) and the image file codecs
(``image_codecs``), ``parsing`` of tf.train.Example, ``csv``, ``gfile`` and atomic
writes (``atomic``). Docstring only: importing one module here loads no sibling."""
