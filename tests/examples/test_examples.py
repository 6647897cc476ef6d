"""The runnable examples: eager_guide.py and eager_2017.py in --quick mode, and a short
train_mnist.py run; each as a subprocess, checking the lines the seed documents show."""
import math
import pathlib
import re
import subprocess
import sys

import pytest

from tests.child_process import child_env
from tests.conftest import skip_without_example_data

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


pytestmark = pytest.mark.data


@pytest.fixture(autouse=True, scope="module")
def _example_data():
    skip_without_example_data()


def run_example(name, *args, timeout=300):
    env = child_env()  # this process's fasteager; FASTEAGER_DATA from the environment
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, "%s failed:\n%s\n%s" % (name, proc.stdout, proc.stderr)
    return proc.stdout


def floats_after(prefix, out):
    """The numbers on the lines starting with prefix."""
    return [line[len(prefix):] for line in out.splitlines() if line.startswith(prefix)]


@pytest.fixture(scope="module")
def guide_out(tmp_path_factory):
    return run_example("eager_guide.py", "--quick", "--workdir",
                       str(tmp_path_factory.mktemp("guide")))


@pytest.fixture(scope="module")
def eager2017_out():
    return run_example("eager_2017.py", "--quick")


def test_guide_basics(guide_out):
    lines = guide_out.splitlines()
    assert "True" in lines
    assert "hello, [[4.]]" in lines
    assert "[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)" in guide_out
    assert "[[ 2  6]\n [12 20]], shape=(2, 2), dtype=int32)" in guide_out
    assert "[[ 2  6]\n [12 20]]" in guide_out


def test_guide_fizzbuzz(guide_out):
    expected = ["1", "2", "Fizz", "4", "Buzz", "Fizz", "7", "8", "Fizz", "Buzz", "11",
                "Fizz", "13", "14", "FizzBuzz"]
    lines = guide_out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("=== Dynamic control"))
    assert lines[start + 1:start + 16] == expected


def test_guide_gradient_and_training(guide_out):
    assert "Tensor([[2.]], shape=(1, 1), dtype=float32)" in guide_out
    assert "Logits: [[" in guide_out
    for e in range(3):
        assert "Epoch %d finished" % e in guide_out


def test_guide_linear_regression(guide_out):
    assert "Loss at step 000:" in guide_out
    assert "Loss at step 280:" in guide_out
    initial = float(floats_after("Initial loss: ", guide_out)[0])
    final = float(floats_after("Final loss: ", guide_out)[0])
    assert final < 1.5 < 20 < initial
    m = re.search(r"W = ([-\d.e]+), B = ([-\d.e]+)", guide_out)
    assert m, guide_out
    assert abs(float(m.group(1)) - 3) < 0.2 and abs(float(m.group(2)) - 2) < 0.2


def test_guide_saving_metrics_summaries(guide_out):
    assert "saved and loaded" in guide_out
    assert "ckpt-1'" in guide_out
    assert "numpy=2.0>" in guide_out  # restoring the saved path
    assert "latest checkpoint:" in guide_out and "model_dir" in guide_out
    assert "Tensor(2.5, shape=(), dtype=float32)" in guide_out
    assert "Tensor(5.5, shape=(), dtype=float32)" in guide_out
    assert re.search(r"^events\.out\.tfevents\.\S+\.v2$", guide_out, re.M)


def test_guide_custom_gradients_and_performance(guide_out):
    lines = guide_out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("=== Custom gradients"))
    assert lines[start + 2:start + 6] == ["0.5", "nan", "0.5", "1.0"]
    assert "line search step:" in guide_out
    assert "CPU: " in guide_out and " secs" in guide_out
    assert "GPU: " in guide_out
    assert guide_out.rstrip().endswith("All programs of the eager guide ran.")


def test_2017(eager2017_out):
    out = eager2017_out
    lines = out.splitlines()
    assert "Tensor([[4.]], shape=(1, 1), dtype=float32)" in out
    collatz = [float(v) for v in re.findall(r"Tensor\(([\d.]+), shape=\(\), dtype=float64\)",
                                             out)]
    assert collatz == [6, 3, 10, 5, 16, 8, 4, 2, 1]
    assert "Tensor(9.0, shape=(), dtype=float32)" in out
    grads = re.findall(r"numpy=([-\w.]+)>\]", out)
    assert grads[:4] == ["6.0", "2.0", "1.0", "-1.0"]
    assert grads[4] == "0.5" and grads[5] == "nan" and grads[6:8] == ["0.5", "1.0"]
    assert "(1, 1, 784)" in lines
    assert "shape=(1, 1, 10), dtype=float32)" in out
    before = float(floats_after("mean loss before training: ", out)[0])
    after = float(out.split("under tf.device('/gpu:0'): ")[1].split()[0])
    assert math.isfinite(after) and after < before
    assert out.rstrip().endswith("All programs of the 2017 announcement ran.")


def test_train_mnist_short(tmp_path):
    out = run_example("train_mnist.py", "--model", "mlp", "--steps", "30", "--epochs", "1",
                      "--logdir", str(tmp_path / "logs"), "--ckpt-dir", str(tmp_path / "ckpt"))
    m = re.search(r"test accuracy: ([\d.]+)", out)
    assert m, out
    assert 0.3 < float(m.group(1)) <= 1.0
    assert list((tmp_path / "logs").rglob("events.out.tfevents.*"))
    assert (tmp_path / "ckpt" / "checkpoint").is_file()
    assert list((tmp_path / "ckpt").glob("ckpt-1*"))


def test_transformer_mnist_quick(tmp_path):
    out = run_example("transformer_mnist.py", "--quick", "--logdir", str(tmp_path / "logs"))
    # Keras 3's summary table crops long cells with an ellipsis ("(MultiHeadAttentio…")
    assert "(MultiHeadAttentio" in out and "Connected to" in out
    m = re.search(r"test accuracy: ([\d.]+)", out)
    assert m, out
    assert 0.2 < float(m.group(1)) <= 1.0   # 20 steps: well above chance (0.1)
    assert list((tmp_path / "logs").rglob("events.out.tfevents.*"))


def test_lstm_mnist_quick(tmp_path):
    out = run_example("lstm_mnist.py", "--quick", "--logdir", str(tmp_path / "logs"))
    assert "lstm (LSTM)" in out and "(None, 128)" in out
    m = re.search(r"test accuracy: ([\d.]+)", out)
    assert m, out
    assert 0.2 < float(m.group(1)) <= 1.0   # 20 steps: well above chance (0.1)
    assert list((tmp_path / "logs").rglob("events.out.tfevents.*"))
    assert list((tmp_path / "logs" / "ckpt").glob("ckpt-1*"))
