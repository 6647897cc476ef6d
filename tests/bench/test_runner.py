"""The benchmark runner: listing, filtering, JSON output (timings themselves are not tested)."""
import json

from fasteager.bench import runner


def test_list_and_json(tmp_path, capsys):
    assert runner.main(["--list"]) == 0
    listed = capsys.readouterr().out
    for name in ("dispatch_add", "chain100_fwd_bwd", "mlp_train_step", "convnet_train_step",
                 "matmul_1000x200", "dataset_shuffle_batch_epoch", "checkpoint_save_load",
                 "resnet_train_step", "mlp_train_step_b256", "convnet_train_step_b8",
                 "convnet_train_step_b128", "coexist_numpy_mlp", "coexist_torch_mlp"):
        assert name in listed
    out = tmp_path / "r.json"
    assert runner.main(["--quick", "--rounds", "2", "--only", "dispatch_add",
                        "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "fe/peer" in table
    data = json.loads(out.read_text())
    assert "machine" in data and data["results"]
    res = [r for r in data["results"] if r["workload"] == "dispatch_add"][0]
    assert res["entries"]["fasteager"]["samples"] == 2
    assert "fasteager_over_peer" in res["entries"]["numpy"]


def test_markdown_table():
    results = [{"workload": "w", "entries": {
        "fasteager": {"median": 2e-6, "min": 1e-6, "max": 3e-6, "samples": 3},
        "numpy": {"median": 1e-6, "min": 1e-6, "max": 1e-6, "samples": 3,
                  "fasteager_over_peer": 2.0}}}]
    md = runner.markdown_table(results)
    assert "| w | fasteager | 2 us | 1 us - 3 us |  |" in md
    assert "|  | numpy | 1 us | 1 us - 1 us | 2.00x |" in md


def test_each_entry_runs_alone_in_its_own_process(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert runner.main(["--quick", "--rounds", "2", "--only", "dispatch_add",
                        "--json", str(out)]) == 0
    assert "separate processes" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["mode"] == runner.MODE_ISOLATED
    assert all(r["mode"] == runner.MODE_ISOLATED for r in data["results"])


def test_in_process_mode_is_labelled(capsys):
    assert runner.main(["--quick", "--rounds", "1", "--only", "dispatch_add",
                        "--in-process"]) == 0
    assert "IN-PROCESS" in capsys.readouterr().out


def test_a_peer_process_never_holds_fasteager():
    # the worker loads the workload modules without the fasteager package
    import subprocess
    import sys
    from fasteager.bench import _worker
    code = ("import runpy, sys; sys.argv = ['w']; g = runpy.run_path(%r); "
            "g['load_workloads'](); print('fasteager' in sys.modules)" % _worker.__file__)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_isolation_problems_are_named():
    from fasteager.bench import _worker
    from fasteager.bench.workloads import Workload
    wl = Workload("w", "d", with_fasteager=("numpy_after_fasteager",))
    with_fe = ["numpy", "fasteager", "fasteager._core"]
    assert _worker.isolation_problem(wl, "numpy", with_fe) == \
        "the numpy process imported fasteager"
    assert _worker.isolation_problem(wl, "numpy", ["numpy", "torch"]) is None
    assert _worker.isolation_problem(wl, "numpy_after_fasteager", with_fe + ["torch"]) is None
    assert _worker.isolation_problem(wl, "fasteager", with_fe) is None
    assert _worker.isolation_problem(wl, "fasteager_eager", with_fe + ["torch.nn", "jax"]) \
        == "fasteager's process imported jax, torch"


def test_processes_pool_samples_from_fresh_processes(monkeypatch):
    from fasteager.bench import workloads
    wl = [w for w in workloads.all_workloads() if w.name == "dispatch_add"][0]
    monkeypatch.setattr(wl, "entries", {k: wl.entries[k] for k in ("fasteager", "numpy")})
    monkeypatch.setattr(wl, "processes", 2)
    res = runner.run_workload(wl, 2, True, False)
    assert res["processes"] == 2
    assert res["entries"]["fasteager"]["samples"] == 4      # 2 rounds in each of 2 processes
    assert res["entries"]["numpy"]["samples"] == 4
    coexist = [w for w in workloads.all_workloads() if w.name.startswith("coexist_")]
    assert coexist and all(w.processes == 5 for w in coexist)
