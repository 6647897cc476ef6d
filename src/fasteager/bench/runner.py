"""Run workloads side by side and report ratios (see the package docstring)."""
import argparse
import importlib
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from . import _worker
from . import workloads as _workloads

for _name in _worker.WORKLOAD_MODULES[1:]:   # each registers its workloads
    if os.path.exists(os.path.join(os.path.dirname(__file__), _name + ".py")):
        importlib.import_module("." + _name, __package__)

_TURN_PAUSE = 0.02   # seconds between a process's resumption and its sample


def _machine():
    """Versions read from the installed packages' metadata (nothing is imported here)."""
    from importlib import metadata
    info = {"python": platform.python_version(), "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count()}
    for dist in ("numpy", "fasteager", "torch", "tensorflow", "tensorflow-cpu", "jax",
                 "autograd"):
        try:
            info[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return info


MODE_ISOLATED = "separate processes: each entry alone in its own fresh process, A B A B"
MODE_IN_PROCESS = ("IN-PROCESS: every framework in this one process (quick local iteration "
                   "only; one library's settings can slow another, so these ratios are not "
                   "a fair comparison)")


def _time_entry(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def _summary(wl, samples, mode):
    result = {"workload": wl.name, "description": wl.description, "unit": "s/call",
              "mode": mode, "base": wl.base, "processes": getattr(wl, "processes", 1),
              "entries": {}}
    base = statistics.median(samples[wl.base]) if wl.base in samples else None
    for name, s in samples.items():
        med = statistics.median(s)
        row = {"median": med, "min": min(s), "max": max(s), "samples": len(s)}
        if base is not None and name != wl.base:
            row["fasteager_over_peer"] = base / med
        result["entries"][name] = row
    return result


def _progress(wl, r, rounds, progress):
    if progress:
        print("\r  %-28s round %d/%d" % (wl.name, r + 1, rounds), end="", file=sys.stderr,
              flush=True)


def run_workload_in_process(wl, rounds, quick, progress):
    """Every entry in this process, interleaved (``--in-process``: for quick iteration)."""
    entries = {}
    for name, make in wl.entries.items():
        try:
            entries[name] = make(quick)
        except ImportError:
            continue
    if not entries:
        return None
    # calibrate the inner loop so one sample takes ~20 ms (at least one call)
    inner = {}
    for name, fn in entries.items():
        fn()
        t = _time_entry(fn, 1)
        inner[name] = max(1, min(100000, int(0.02 / max(t, 1e-9))))
    samples = {name: [] for name in entries}
    for r in range(rounds):
        for name, fn in entries.items():
            samples[name].append(_time_entry(fn, inner[name]))
        _progress(wl, r, rounds, progress)
    return _summary(wl, samples, MODE_IN_PROCESS)


class _Worker:
    """One entry in its own process (_worker.py), timed on request."""

    def __init__(self, wl, entry, quick):
        self.entry = entry
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [sys.executable, _worker.__file__, wl.name, entry, "1" if quick else "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            bufsize=1)
        self.ready = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.log.seek(0)
            raise RuntimeError("benchmark entry %s exited (status %s):\n%s" % (
                self.entry, self.proc.returncode, self.log.read()[-3000:]))
        return json.loads(line)

    def sample(self):
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        return self._read()["seconds"]

    def stop(self):
        """Freeze the process between its turns: its threads (OpenBLAS's spin for up to
        about 0.1 s after a GEMM) cannot take the CPU from the entry being timed."""
        if hasattr(signal, "SIGSTOP"):
            os.kill(self.proc.pid, signal.SIGSTOP)

    def cont(self):
        if hasattr(signal, "SIGCONT"):
            os.kill(self.proc.pid, signal.SIGCONT)

    def close(self):
        self.cont()
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def run_workload(wl, rounds, quick, progress):
    """Every entry alone in its own process; samples alternate A B A B over ``rounds``.

    The processes start one after another (each warms up and calibrates while the others
    are frozen), then take turns: only one runs at a time, the others stopped (SIGSTOP)
    so that no thread of theirs competes for the cores. A workload with
    ``processes`` > 1 does this that many times, each time with fresh processes, and
    pools the samples: a process's own luck (where its arrays landed, which core it got)
    then counts once per process, not in every sample."""
    samples = {}
    for _ in range(wl.processes):
        workers = []
        try:
            for name in wl.entries:
                w = _Worker(wl, name, quick)
                if "missing" in w.ready:
                    w.close()
                    continue
                if w.ready.get("isolation_problem"):
                    w.close()
                    raise RuntimeError("%s / %s: %s" % (wl.name, name,
                                                        w.ready["isolation_problem"]))
                w.stop()
                workers.append(w)
            if not workers:
                return None
            for w in workers:
                samples.setdefault(w.entry, [])
            for r in range(rounds):
                for w in workers:
                    w.cont()
                    time.sleep(_TURN_PAUSE)
                    samples[w.entry].append(w.sample())
                    w.stop()
                _progress(wl, r, rounds, progress)
        finally:
            for w in workers:
                w.close()
    return _summary(wl, samples, MODE_ISOLATED)


def _fmt_time(t):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if t >= scale:
            return "%.3g %s" % (t / scale, unit)
    return "%.3g ns" % (t / 1e-9)


def print_table(results, out=None):
    out = sys.stdout if out is None else out
    print("%-30s %-22s %12s %23s %10s" % ("workload", "entry", "median", "min - max",
                                          "fe/peer"), file=out)
    print("-" * 101, file=out)
    for res in results:
        for name, row in res["entries"].items():
            ratio = row.get("fasteager_over_peer")
            print("%-30s %-22s %12s %23s %10s" % (
                res["workload"], name, _fmt_time(row["median"]),
                "%s - %s" % (_fmt_time(row["min"]), _fmt_time(row["max"])),
                "" if ratio is None else "%.2fx" % ratio), file=out)


def markdown_table(results):
    """The results as a Markdown table (what benchmarks/RESULTS.md holds)."""
    modes = sorted(set(res.get("mode", MODE_ISOLATED) for res in results))
    lines = ["Mode: %s." % "; ".join(modes), "",
             "| workload | entry | median | min - max | fasteager / peer |",
             "|---|---|---|---|---|"]
    for res in results:
        first = True
        for name, row in res["entries"].items():
            ratio = row.get("fasteager_over_peer")
            lines.append("| %s | %s | %s | %s - %s | %s |" % (
                res["workload"] if first else "", name, _fmt_time(row["median"]),
                _fmt_time(row["min"]), _fmt_time(row["max"]),
                "" if ratio is None else "%.2fx" % ratio))
            first = False
    return "\n".join(lines) + "\n"


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels, ratios = [], []
    for res in results:
        for name, row in res["entries"].items():
            if "fasteager_over_peer" in row:
                labels.append("%s\nvs %s" % (res["workload"], name))
                ratios.append(row["fasteager_over_peer"])
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(labels) + 1.5))
    ax.barh(range(len(labels)), ratios, color=["tab:green" if r <= 1 else "tab:red"
                                               for r in ratios])
    ax.axvline(1.0, color="k", lw=1)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time ratio fasteager / peer (lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    p = argparse.ArgumentParser(prog="fasteager-bench", description=__doc__)
    p.add_argument("--list", action="store_true", help="list workloads and exit")
    p.add_argument("--only", action="append", default=[],
                   help="run workloads whose name contains this (repeatable)")
    p.add_argument("--quick", action="store_true", help="small sizes and few rounds")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds per workload")
    p.add_argument("--in-process", action="store_true",
                   help="run every framework in this one process (quick local iteration "
                        "only: the output says so, and its ratios are not a fair comparison)")
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a PNG plot of the ratios")
    p.add_argument("--markdown", metavar="PATH", help="write the table as Markdown")
    args = p.parse_args(argv)
    wls = _workloads.all_workloads()
    if args.only:
        wls = [w for w in wls if any(s in w.name for s in args.only)]
    if args.list:
        for w in wls:
            print("%-30s %s [%s]" % (w.name, w.description, ", ".join(w.entries)))
        return 0
    rounds = args.rounds or (5 if args.quick else 15)
    run = run_workload_in_process if args.in_process else run_workload
    mode = MODE_IN_PROCESS if args.in_process else MODE_ISOLATED
    print("mode: %s; %d rounds" % (mode, rounds), flush=True)
    results = []
    for w in wls:
        print("running %s ..." % w.name, file=sys.stderr, flush=True)
        res = run(w, rounds, args.quick, progress=sys.stderr.isatty())
        if res is not None:
            results.append(res)
    print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": _machine(), "command": " ".join(sys.argv), "mode": mode,
                       "rounds": rounds, "results": results}, f, indent=2)
    if args.plot:
        plot(results, args.plot)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown_table(results))
    return 0
