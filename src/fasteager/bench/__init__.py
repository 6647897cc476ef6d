"""The benchmark suite: ``python -m fasteager.bench`` (or ``fasteager-bench``).

Every workload has an entry per framework (fasteager, NumPy, PyTorch, TensorFlow, JAX,
HIPS autograd), each run only when that framework is installed. Each entry runs alone in
its own process (a peer's never imports fasteager, fasteager's never imports a peer:
one library's process-wide settings cannot slow another), and the processes take turns
(A B A B ...) over the rounds; the report gives medians, the min-max spread and the ratio
fasteager/peer, so a noisy machine cannot fake a win. ``--in-process`` runs everything in
one process instead, for quick iteration only (the output says so).
"""
from .runner import main  # noqa: F401
