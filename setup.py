"""Build the Cython extensions: every .pyx under src/fasteager is compiled at install."""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _extensions():
    exts = []
    for path in sorted(glob.glob(os.path.join("src", "fasteager", "**", "*.pyx"), recursive=True)):
        module = os.path.splitext(os.path.relpath(path, "src"))[0].replace(os.sep, ".")
        exts.append(
            Extension(
                module,
                [path],
                include_dirs=[np.get_include(), os.path.join("src", "fasteager")],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                # no errno from libm calls (nothing reads it): lets sqrt vectorise
                extra_compile_args=["-O3", "-fopenmp", "-fno-math-errno"],
                extra_link_args=["-fopenmp"],
                language="c++",
            )
        )
    return exts


setup(
    ext_modules=cythonize(
        _extensions(),
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
    zip_safe=False,
)
