"""Run workloads side by side and report ratios (see the package docstring)."""
import argparse
import json
import platform
import statistics
import sys
import time

from . import model_workloads  # noqa: F401 - registers its workloads
from . import workloads as _workloads


def _machine():
    import numpy as np
    info = {"python": platform.python_version(), "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(),
            "numpy": np.__version__}
    try:
        import fasteager
        info["fasteager"] = fasteager.__version__
    except Exception:  # pragma: no cover
        pass
    for mod in ("torch", "tensorflow", "jax", "autograd"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception:
            pass
    return info


def _time_entry(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def run_workload(wl, rounds, quick, progress):
    """Time every available entry of one workload, interleaved; returns a result dict."""
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
        if progress:
            print("\r  %-28s round %d/%d" % (wl.name, r + 1, rounds), end="", file=sys.stderr,
                  flush=True)
    if progress:
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr, flush=True)
    result = {"workload": wl.name, "description": wl.description, "unit": "s/call",
              "entries": {}}
    base = statistics.median(samples["fasteager"]) if "fasteager" in samples else None
    for name, s in samples.items():
        med = statistics.median(s)
        row = {"median": med, "min": min(s), "max": max(s), "samples": len(s)}
        if base is not None and name != "fasteager":
            row["fasteager_over_peer"] = base / med
        result["entries"][name] = row
    return result


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
    lines = ["| workload | entry | median | min - max | fasteager / peer |",
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
    results = []
    for w in wls:
        print("running %s ..." % w.name, file=sys.stderr, flush=True)
        res = run_workload(w, rounds, args.quick, progress=sys.stderr.isatty())
        if res is not None:
            results.append(res)
    print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": _machine(), "command": " ".join(sys.argv),
                       "results": results}, f, indent=2)
    if args.plot:
        plot(results, args.plot)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown_table(results))
    return 0
