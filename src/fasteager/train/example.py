"""``tf.train.Example`` and its parts (``fe.train.Example``, ``Features``, ``Feature``,
``BytesList``, ``FloatList``, ``Int64List``): re-exported from the engine's io layer
(``fasteager._src.io.example``), where ``fe.io.parse_example`` reads them."""
from .._src.io.example import BytesList, Example, Feature, Features, FloatList, Int64List

__all__ = ["BytesList", "Example", "Feature", "Features", "FloatList", "Int64List"]

# the classes keep the public module users and pickles see
for _cls in (BytesList, Example, Feature, Features, FloatList, Int64List):
    _cls.__module__ = __name__
del _cls
