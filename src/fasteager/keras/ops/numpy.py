"""``keras.ops.numpy``: the NumPy-style functions of ``keras.ops``."""
from .arrays import *  # noqa: F401,F403
from .arrays import __all__ as _arrays_all
from .numeric import *  # noqa: F401,F403
from .numeric import __all__ as _numeric_all

__all__ = sorted(_arrays_all + _numeric_all)
