"""The CUDA C sources shipped in ``fasteager/cuda/kernels/`` (read, never compiled, here)."""
import functools
import importlib.resources


@functools.lru_cache(maxsize=None)
def read_source(filename):
    """The text of ``kernels/<filename>`` from the installed package."""
    return importlib.resources.files("fasteager.cuda").joinpath("kernels", filename).read_text()
