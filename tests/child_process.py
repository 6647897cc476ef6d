"""The environment of a child Python process that must import the same fasteager as the
test process, whether fasteager is installed editable, from a wheel, or imported from a
source tree on PYTHONPATH.

Tests start children with ``sys.executable`` and ``env=child_env()``: the directory that
holds the imported ``fasteager`` package is prepended to the inherited PYTHONPATH (unless
it is a site-packages directory, which the same interpreter finds by itself). A fixed
``PYTHONPATH=src`` would instead point a wheel install at a source tree without its
compiled modules (``No module named 'fasteager._core'``).
"""
import os
import site

import fasteager


def package_root():
    """The directory the test process imported ``fasteager`` from (its parent dir)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(fasteager.__file__)))


def child_env(**overrides):
    """A copy of ``os.environ`` whose PYTHONPATH finds this process's fasteager first."""
    env = dict(os.environ)
    root = package_root()
    inherited = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    site_dirs = {os.path.abspath(p) for p in site.getsitepackages()}
    if site.ENABLE_USER_SITE:
        site_dirs.add(os.path.abspath(site.getusersitepackages()))
    first = [] if root in site_dirs else [root]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(first + inherited))
    env.update(overrides)
    return env
