"""Importing fasteager leaves the environment as it found it, while its own OpenMP runtime
still gets the passive wait policy (read by libgomp once, when it loads), and another
library's OpenMP runtime keeps its own settings."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from tests.child_process import child_env

CHILD = """
import json, os
before = dict(os.environ)
import fasteager
after = dict(os.environ)
print(json.dumps(sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))))
"""


def _import_in_child(wait_policy):
    env = child_env(OMP_DISPLAY_ENV="true")      # libgomp prints its settings as it loads
    env.pop("OMP_WAIT_POLICY", None)
    if wait_policy is not None:
        env["OMP_WAIT_POLICY"] = wait_policy
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.mark.parametrize("user", [None, "ACTIVE"])
def test_import_changes_no_environment_variable(user):
    changed, displayed = _import_in_child(user)
    assert changed == []
    if "OMP_WAIT_POLICY" in displayed:                 # libgomp (GCC's OpenMP) is ours
        assert "OMP_WAIT_POLICY = '%s'" % (user or "PASSIVE") in displayed


# Another library's OpenMP runtime (PyTorch ships GNU libgomp under the same soname and
# loads it RTLD_GLOBAL; here the system's libgomp, loaded the same way, stands in for it)
# must keep its own settings: fasteager links a private copy (build_tools/private_openmp.py)
# so its passive wait policy stays its own, whichever library loads first.
OTHER_RUNTIME = """
import ctypes, sys
def other():
    ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
if sys.argv[2] == "other_first":
    other()
import fasteager as fe
if sys.argv[2] == "fasteager_first":
    other()
x = fe.random.normal((8, 12, 12, 4), seed=1)
k = fe.random.normal((3, 3, 4, 8), seed=2)
print(float(fe.reduce_sum(fe.nn.conv2d(x, k, 1, "SAME"))))   # runs an OpenMP kernel
print(sorted({l.split()[-1] for l in open("/proc/self/maps") if "gomp" in l}))
"""


def _system_libgomp():
    try:
        out = subprocess.run(["gcc", "-print-file-name=libgomp.so.1"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
    except OSError:
        out = ""
    return out if out.startswith("/") else None


@pytest.mark.parametrize("order", ["fasteager_first", "other_first"])
def test_another_openmp_runtime_keeps_its_wait_policy(order):
    import fasteager
    private = os.path.join(os.path.dirname(fasteager.__file__), "libgomp.fe.1")
    system = _system_libgomp()
    if not os.path.exists(private) or system is None:
        pytest.skip("built without a private libgomp (no GCC libgomp here)")
    env = child_env(OMP_DISPLAY_ENV="verbose")
    env.pop("OMP_WAIT_POLICY", None)
    env.pop("GOMP_SPINCOUNT", None)
    proc = subprocess.run([sys.executable, "-c", OTHER_RUNTIME, system, order], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    spins = re.findall(r"GOMP_SPINCOUNT = '(\d+)'", proc.stderr)
    # two runtimes, each with its settings: ours passive (no spinning), the other at
    # libgomp's default; a shared runtime would print one block with our setting
    assert sorted(spins) == ["0", "300000"], proc.stderr
    maps = proc.stdout.strip().splitlines()[-1]
    assert "libgomp.fe.1" in maps and "libgomp.so.1" in maps
    value = float(proc.stdout.strip().splitlines()[-2])
    assert np.isfinite(value)


def test_openmp_modules_need_the_private_runtime():
    import fasteager
    folder = os.path.dirname(fasteager.__file__)
    if not os.path.exists(os.path.join(folder, "libgomp.fe.1")):
        pytest.skip("built without a private libgomp (no GCC libgomp here)")
    readelf = subprocess.run(["readelf", "-d", os.path.join(folder, "_kernels" + _suffix())],
                             capture_output=True, text=True)
    if readelf.returncode != 0:
        pytest.skip("no readelf")
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf.stdout)
    assert "libgomp.fe.1" in needed and "libgomp.so.1" not in needed


def _suffix():
    import sysconfig
    return sysconfig.get_config_var("EXT_SUFFIX")
