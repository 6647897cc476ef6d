"""The benchmark runner: listing, filtering, JSON output (timings themselves are not tested)."""
import json

from fasteager.bench import runner


def test_list_and_json(tmp_path, capsys):
    assert runner.main(["--list"]) == 0
    listed = capsys.readouterr().out
    for name in ("dispatch_add", "chain100_fwd_bwd", "mlp_train_step", "convnet_train_step",
                 "matmul_1000x200", "dataset_shuffle_batch_epoch", "checkpoint_save_load"):
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
