"""``fe.compat.v1.logging``: the level of fasteager's logger, with TensorFlow 1's names."""
import logging as _logging

_logger = _logging.getLogger("fasteager")

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARNING
WARNING = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.FATAL
info = _logger.info
warning = _logger.warning
error = _logger.error


def set_verbosity(level):
    _logger.setLevel(level)


def get_verbosity():
    return _logger.getEffectiveLevel()
