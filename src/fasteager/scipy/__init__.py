"""``fasteager.scipy``: the SciPy functions NumPy programs lean on, as HIPS autograd's
``autograd.scipy`` gives them: ``special``, ``stats`` and ``linalg``, over the op table
(differentiable; NumPy's dtype rules as ``fasteager.numpy``). SciPy itself is not needed.
"""
from . import linalg, special, stats  # noqa: F401
