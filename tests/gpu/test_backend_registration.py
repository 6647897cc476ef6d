"""The CUDA backend plugs in from above: nothing below imports ``fasteager.cuda``; the
package root's loader brings in its light part on the first op (the GPU probe), its GPU
ops only where a GPU exists, and ``cuda.ops`` installs the traces' GPU kernels as it
loads. Checked in a fresh interpreter (this process may have loaded everything)."""
import json
import subprocess
import sys

from tests.child_process import child_env

CODE = """
import json, sys
import fasteager as fe
from fasteager._src.tracing import tracer
at_import = sorted(m for m in sys.modules if m.startswith("fasteager.cuda"))
fe.constant(1.0) + 1.0
gpus = fe.cuda.num_gpus()
after_op = sorted(m for m in sys.modules if m.startswith("fasteager.cuda"))
before = tracer.gpu_kernels
from fasteager.cuda import fusion, ops
print(json.dumps([at_import, after_op, gpus, before is None,
                  tracer.gpu_kernels == (ops.array_forward, fusion.FusedGPU)]))
"""


def test_cuda_loads_from_above_and_installs_its_trace_kernels():
    out = subprocess.run([sys.executable, "-c", CODE], env=child_env(), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    at_import, after_op, gpus, none_before, installed = json.loads(
        out.stdout.strip().splitlines()[-1])
    assert at_import == []
    if gpus == 0:   # no GPU: the probe loads the light part only, no trace kernels yet
        assert after_op == ["fasteager.cuda", "fasteager.cuda.context"]
        assert none_before
    assert installed
