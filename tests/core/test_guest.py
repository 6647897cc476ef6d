"""Importing fasteager leaves the environment as it found it, while its own OpenMP runtime
still gets the passive wait policy (read by libgomp once, when it loads)."""
import json
import subprocess
import sys

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
