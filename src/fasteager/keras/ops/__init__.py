"""``keras.ops``: Keras 3's backend-agnostic op API, on fasteager's op table.

Each function follows Keras 3.15's signature, defaults and dtype rules (``result_type``:
Python scalars are weak, ints meeting floats give ``floatx()``), and returns a fasteager
Tensor, differentiable like any op. The NumPy-style names live in ``numeric`` (math,
comparisons, reductions) and ``arrays`` (creation, shapes, indexing, sorting);
``keras.ops.numpy`` lists both, as Keras's does.
"""
from . import image, linalg, nn, numpy  # noqa: F401
from .core import *  # noqa: F401,F403
from .einops import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .nn import *  # noqa: F401,F403
from .numpy import *  # noqa: F401,F403
