"""``tf.get_current_name_scope``: the ``fe.name_scope`` path in effect."""
from .module import _current_scope


def get_current_name_scope():
    """The current ``fe.name_scope`` path, ``'a/b'`` (``''`` at the top level)."""
    return _current_scope().rstrip("/")
