"""fasteager's version; also the ``fasteager.version`` namespace (``tf.version.VERSION``).

TensorFlow's ``tf.version`` names the release, the source revision and the compiler;
programs print them. ``GIT_VERSION`` is TensorFlow's ``v<release>`` form (a source tree
carries no revision once installed). The GraphDef version numbers are TensorFlow's graph
format, which fasteager neither reads nor writes, so they are not here.
"""
import platform as _platform

__version__ = "0.1.0"

VERSION = __version__
GIT_VERSION = "v" + __version__
# the compiler that built the interpreter the compiled modules are built for
COMPILER_VERSION = _platform.python_compiler()
