"""Build the Cython extensions: every .pyx under src/fasteager is compiled at install."""
import glob
import os
import subprocess
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "build_tools"))
import private_openmp  # noqa: E402


class BuildExt(build_ext):
    """Link the modules against a private copy of libgomp (build_tools/private_openmp.py
    says why), placed in the package beside them; the system libgomp where that fails."""

    def build_extensions(self):
        package_dir = os.path.dirname(self.get_ext_fullpath("fasteager._core"))
        os.makedirs(package_dir, exist_ok=True)
        try:
            lib = private_openmp.make_private_libgomp(package_dir,
                                                      self.compiler.compiler_so[0])
        except (OSError, ValueError, subprocess.CalledProcessError) as e:
            print("fasteager: linking the system libgomp (no private copy: %s)" % e)
            lib = None
        if lib is not None:
            for ext in self.extensions:
                depth = ext.name.count(".") - 1      # fasteager.summary._crc32c: 1
                ext.extra_link_args = [
                    "-L" + package_dir, "-l:" + private_openmp.SONAME, "-pthread",
                    "-Wl,-rpath,$ORIGIN" + "/.." * depth]
        self._private_libgomp = lib
        super().build_extensions()

    # --inplace and editable installs build in build_lib, then copy the modules into the
    # source tree: the library they link must go with them
    def _inplace_libgomp(self):
        lib = getattr(self, "_private_libgomp", None)
        if lib is None:
            return None
        build_py = self.get_finalized_command("build_py")
        return lib, os.path.join(build_py.get_package_dir("fasteager"), private_openmp.SONAME)

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        pair = self._inplace_libgomp()
        if pair is not None:
            self.copy_file(pair[0], pair[1], level=self.verbose)

    def _get_output_mapping(self):
        yield from super()._get_output_mapping()
        pair = self._inplace_libgomp()
        if self.inplace and pair is not None:
            yield pair


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
    cmdclass={"build_ext": BuildExt},
    zip_safe=False,
)
