"""Run the benchmark suite from a checkout: ``python benchmarks/run.py --quick``.

The same runner as ``python -m fasteager.bench`` and the ``fasteager-bench`` script; see
``src/fasteager/bench/`` for the workloads and RESULTS.md beside this file for a full run.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from fasteager.bench import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
