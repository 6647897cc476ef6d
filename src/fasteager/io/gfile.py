"""``fe.io.gfile`` (TensorFlow's ``tf.io.gfile``): file-system functions on local paths,
with TensorFlow's names and error classes. Re-exports of ``fasteager._src.io.gfile``."""
from .._src.io.gfile import GFile  # noqa: F401
from .._src.io.gfile import gfile as _gfile

copy = _gfile.copy
exists = _gfile.exists
glob = _gfile.glob
isdir = _gfile.isdir
join = _gfile.join
listdir = _gfile.listdir
makedirs = _gfile.makedirs
mkdir = _gfile.mkdir
remove = _gfile.remove
rename = _gfile.rename
rmtree = _gfile.rmtree
walk = _gfile.walk

__all__ = ["GFile", "copy", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir",
           "remove", "rename", "rmtree", "walk"]
