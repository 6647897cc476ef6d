"""One benchmark entry, alone in its own process (run by runner.py as a script).

The parent starts this file as a script, so the fasteager package is NOT imported: the
workload modules are loaded from this folder under a private package name, and only the
entry's own factory imports its framework. A peer's process therefore never holds
fasteager (and fasteager's never holds the peer); the worker checks that and says so.

Protocol (one JSON object per line): the worker builds the entry, warms it up, picks an
inner loop of about 20 ms per sample, and reports ``{"ready": ...}``; then for each
``run`` line from the parent it times one sample and reports its seconds per call;
``quit`` ends it. The protocol uses a private copy of stdout: anything the entry prints
goes to stderr.
"""
import importlib
import importlib.util
import json
import os
import sys
import time
import types

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = "_fasteager_bench_workloads"
# workload modules, registered in this order (the same list runner.py imports)
WORKLOAD_MODULES = ("workloads", "model_workloads", "rnn_workloads", "jvp_workloads")
PEERS = ("torch", "tensorflow", "jax", "autograd")


def load_workloads():
    """Import the workload modules of this folder without importing fasteager."""
    pkg = types.ModuleType(_PACKAGE)
    pkg.__path__ = [_HERE]
    sys.modules[_PACKAGE] = pkg
    for name in WORKLOAD_MODULES:
        if os.path.exists(os.path.join(_HERE, name + ".py")):
            importlib.import_module(_PACKAGE + "." + name)
    return sys.modules[_PACKAGE + ".workloads"]


def isolation_problem(wl, entry, modules=None):
    """What the entry imported that it must not have, or None: fasteager's entries no
    peer, a peer's entry no fasteager (but the coexistence entries that mix them).
    ``modules``: the names to judge (default: this process's ``sys.modules``)."""
    loaded = set(m.split(".")[0] for m in (sys.modules if modules is None else modules))
    if entry in wl.with_fasteager:
        return None
    if entry.startswith("fasteager"):
        bad = sorted(loaded & set(PEERS))
        return "fasteager's process imported %s" % ", ".join(bad) if bad else None
    return "the %s process imported fasteager" % entry if "fasteager" in loaded else None


def _time(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def main(argv):
    if sys.path and os.path.abspath(sys.path[0]) == _HERE:
        del sys.path[0]                   # run as a script: keep this folder off the path
    workload_name, entry, quick = argv[0], argv[1], argv[2] == "1"
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                         # the entry's prints must not break the protocol
    sys.stdout = sys.stderr
    wls = load_workloads()
    wl = {w.name: w for w in wls.all_workloads()}[workload_name]
    try:
        fn = wl.entries[entry](quick)
    except ImportError as e:
        proto.write(json.dumps({"missing": str(e)}) + "\n")
        return 0
    fn()
    t = _time(fn, 1)
    inner = max(1, min(100000, int(0.02 / max(t, 1e-9))))
    fn()
    problem = isolation_problem(wl, entry)
    proto.write(json.dumps({"ready": True, "inner": inner, "pid": os.getpid(),
                            "isolation_problem": problem}) + "\n")
    for line in sys.stdin:
        command = line.strip()
        if command == "run":
            proto.write(json.dumps({"seconds": _time(fn, inner)}) + "\n")
        elif command == "quit":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
