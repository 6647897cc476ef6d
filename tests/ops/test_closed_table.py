"""The op table is complete when ``fasteager.ops`` has finished importing: every op is
defined in a topic module under ops/, and defining one later raises."""
import subprocess
import sys

import numpy as np
import pytest

from fasteager.ops import registry
from fasteager.ops.registry import FLOAT, OPS


def test_defining_an_op_after_the_table_is_closed_raises():
    before = dict(OPS)
    with pytest.raises(RuntimeError, match="the op table is closed"):
        registry.defop("_late_op", np.exp, kinds=FLOAT, grads=[lambda g, ans, x: g * ans])
    assert OPS == before


def test_no_module_defines_an_op_after_the_table_is_closed():
    # a fresh interpreter loading every public module (keras, image, linalg, signal ...):
    # a module that still called defop at import would fail here with the closed table's
    # RuntimeError, and the table would grow after fasteager.ops returned
    code = ("import fasteager.ops as o; n = len(o.OPS); import fasteager, fasteager.keras, "
            "fasteager.image, fasteager.linalg, fasteager.signal, fasteager.strings, "
            "fasteager.saved_model, fasteager.distribute; print(n, len(o.OPS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    first, last = out.stdout.split()
    assert first == last
