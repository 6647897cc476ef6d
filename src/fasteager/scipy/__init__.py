"""``fasteager.scipy``: the few SciPy functions NumPy programs lean on (``special``)."""
from . import special  # noqa: F401
