"""tf.version as programs read it (the keras save_and_load tutorial prints VERSION)."""
import re

import fasteager as fe


def test_version_namespace():
    assert fe.version.VERSION == fe.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)?", fe.version.VERSION)
    assert fe.version.GIT_VERSION == "v" + fe.__version__
    assert isinstance(fe.version.COMPILER_VERSION, str) and fe.version.COMPILER_VERSION
