"""The benchmark suite: ``python -m fasteager.bench`` (or ``fasteager-bench``).

Every workload has an entry per framework (fasteager, NumPy, PyTorch, TensorFlow, JAX,
HIPS autograd), each run only when that framework is installed. Entries of one workload
run interleaved (A B A B ...) and the report gives medians, the min-max spread and the
ratio fasteager/peer, so a noisy machine cannot fake a win.
"""
from .runner import main  # noqa: F401
