"""``fe.summary.experimental``: the default-step functions, as in ``tf.summary.experimental``."""

from .writer import get_step, set_step

__all__ = ["get_step", "set_step"]
