"""Run HIPS autograd's own test files against fasteager.numpy.

autograd's tests import ``autograd.numpy`` and ``autograd.test_util.check_grads``; the
stand-in package in ``shim/`` maps the first to ``fasteager.numpy`` and builds the second on
fasteager's reverse and forward modes (orders 1 and 2, as autograd's ``check_grads``).

    pip download --no-binary :all: --no-deps autograd -d /tmp/ag
    tar xzf /tmp/ag/*.tar.gz -C /tmp/ag
    python tests/numpy/autograd_suite/run.py /tmp/ag/autograd-*/tests [pytest args]

The test files run are the NumPy ones (FILES); the others test autograd's own tracer.
With autograd 1.9.1's sdist: 412 tests; one fails by design (test_fft's
``test_rfftn_odd_not_implemented`` expects autograd's refusal of odd-length ``rfftn``
gradients, which fasteager computes). Helpers that autograd adds beside NumPy's names
(``make_diagonal``, ``linalg._dot``, ``linalg.T``) come from the shim, not fasteager.numpy.
"""
import os
import pathlib
import subprocess
import sys

FILES = ["test_numpy.py", "test_systematic.py", "test_linalg.py", "test_scalar_ops.py",
         "test_binary_ops.py", "test_complex.py", "test_truediv.py", "test_fft.py"]
HERE = pathlib.Path(__file__).resolve().parent


def main(argv):
    if not argv:
        sys.exit(__doc__)
    tests = pathlib.Path(argv[0])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE / "shim"), str(tests)] +
                                        [p for p in sys.path if p])
    # autograd's own pytest settings ask for plugins this run needs not: an empty ini
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c",
           str(HERE / "pytest.ini"), "--rootdir", str(tests)] + \
        [str(tests / f) for f in FILES] + argv[1:]
    return subprocess.call(cmd, env=env, cwd=str(tests))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
