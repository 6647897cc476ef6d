"""fe.distribute plugs in from above: summaries, checkpoints, fe.nn's loss helpers, random
generators and optimizers work without it loaded (one replica, plain eager), and importing
it installs its answers (``_src.state.replicas``, the generators' replica streams).
Checked in a fresh interpreter (this test process has loaded everything)."""
import json
import subprocess
import sys

from tests.child_process import child_env

CODE = r"""
import json, sys, tempfile
import fasteager as fe
cpu = fe.config.list_physical_devices("CPU")[0]
fe.config.set_logical_device_configuration(cpu, [fe.config.LogicalDeviceConfiguration()] * 2)
from fasteager._src.state import replicas
from fasteager.ops import random_ops
d = tempfile.mkdtemp()
v = fe.Variable([1.0, 2.0])
fe.train.Checkpoint(v=v).write(d + "/ckpt")
with fe.summary.create_file_writer(d).as_default():
    fe.summary.scalar("x", 1.0, step=0)
loss = float(fe.nn.compute_average_loss(fe.constant([1.0, 3.0])).numpy())
fe.random.Generator.from_seed(1).normal([2])
without = ["fasteager.distribute" in sys.modules, replicas.should_write(),
           replicas.replica_count(), loss,
           replicas.aggregate_gradients(None, [1], [], lambda a: a + [2]),
           list(replicas.written_by_update(None))]
import fasteager.distribute as dist
from fasteager.distribute import mirrored, strategy
installed = [replicas._should_write is strategy.should_write,
             replicas._aggregate is strategy.aggregate_gradients,
             random_ops._replica_hooks["replica_stream"] is mirrored.replica_stream]
s = dist.MirroredStrategy(["/cpu:0", "/cpu:1"])
inside = s.experimental_local_results(s.run(lambda: replicas.replica_count()))
print(json.dumps([without, installed, inside]))
"""


def test_layers_below_work_without_distribute_and_it_installs_its_hooks():
    out = subprocess.run([sys.executable, "-c", CODE], env=child_env(), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    without, installed, inside = json.loads(out.stdout.strip().splitlines()[-1])
    assert without == [False, True, 1, 2.0, [1, 2], []]
    assert installed == [True, True, True]
    assert inside == [2]   # the same number in both replicas: one value
