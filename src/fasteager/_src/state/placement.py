"""Device placement: ``fe.device(name)`` scopes and the soft-placement rule.

GPUs come from the optional CUDA backend (``fasteager.cuda``, PyCUDA): ``num_gpus()`` is 0
unless PyCUDA imports and a device exists. A GPU request (``fe.device("/gpu:0")``,
``t.gpu()``) on a machine without a usable GPU follows soft placement: with it on (the
default) the op runs on the CPU and a warning is issued once; with it off, a clear error
is raised. Where an op runs when a GPU exists is decided in ``fasteager.cuda.ops``.
"""
import re
import sys as _sys
import threading
import warnings

from ... import _core
from ...errors import InvalidArgumentError

_state = threading.local()
_soft_placement = True
_warned = False

# TensorFlow's device strings: optional job/replica/task, then a device type (any case)
# with an optional index: "/device:GPU:0", "/gpu:0", "GPU:0", "cpu", "/CPU", "GPU:*"
_SPEC = re.compile(
    r"^(?:/job:[\w-]+)?(?:/replica:\d+)?(?:/task:\d+)?"
    r"(?:/?(?:device:)?(?P<type>[cC][pP][uU]|[gG][pP][uU])(?::(?P<index>\d+|\*))?)?$")


def parse_device(name):
    """``"/gpu:0"``, ``"/device:GPU:0"``, ``"GPU:0"``, ``"gpu"`` -> ("GPU", 0);
    ``"cpu"``, ``"CPU"``, ``"/cpu:0"`` -> ("CPU", 0). No index means device 0."""
    if name is None or name == "":
        return None
    if not isinstance(name, str):
        raise InvalidArgumentError("device: name must be a string such as '/cpu:0' or "
                                   "'/gpu:0' (got %r)" % (name,))
    m = _SPEC.match(name.strip())
    if not m or not m.group("type"):
        raise InvalidArgumentError("device: cannot parse device name %r (expected e.g. '/cpu:0', "
                                   "'/gpu:0', '/device:GPU:0' or 'GPU:0')" % name)
    index = m.group("index")
    return m.group("type").upper(), 0 if index in (None, "*") else int(index)


# The GPU backend (fasteager.cuda) sits above this layer: the package root registers a
# loader that imports it on first use, so nothing here imports it. The backend gives
# num_gpus(), _probe() (installs its op hook into the core) and to_gpu(tensor, index).
_gpu_backend_loader = None


def set_gpu_backend_loader(loader):
    """``loader()`` returns the GPU backend module, loading it on the first call."""
    global _gpu_backend_loader
    _gpu_backend_loader = loader


def _gpu_backend():
    return _gpu_backend_loader() if _gpu_backend_loader is not None else None


def num_gpus():
    """GPUs usable through the CUDA backend (0 without PyCUDA, a driver or a device)."""
    backend = _gpu_backend()
    return 0 if backend is None else backend.num_gpus()


def _resolve(kind, index):
    """Where a request for (kind, index) actually runs: soft placement onto the CPU."""
    global _warned
    if kind == "GPU" and index >= num_gpus():
        if not _soft_placement:
            raise InvalidArgumentError(
                "device: cannot place on /device:GPU:%d: no GPU is available (install "
                "fasteager[cuda] on a machine with a CUDA GPU, or call "
                "fe.config.set_soft_device_placement(True) to run on the CPU)" % index)
        if not _warned:
            _warned = True
            warnings.warn("fasteager: no GPU is available; ops requested on /device:GPU:%d run "
                          "on the CPU (soft device placement)" % index, RuntimeWarning,
                          stacklevel=3)
        return ("CPU", 0)
    return (kind, index)


class device:
    """Context manager placing the ops inside it: ``with fe.device("/cpu:0"): ...``.

    As TensorFlow's eager device context: ``_device_name`` is the name as given, and
    ``with fe.device(...) as d`` binds None (its ``__enter__`` returns nothing).
    """

    __slots__ = ("_device_name", "_spec", "_stack")

    def __init__(self, device_name):
        self._spec = parse_device(device_name)
        self._device_name = device_name
        self._stack = []        # what each (nested) entry of this object pushed

    def __enter__(self):
        placed = _resolve(*self._spec) if self._spec else None
        _stack().append(placed)
        self._stack.append(placed)
        _core._device_scope_entered(1)

    def __exit__(self, *exc):
        self._stack.pop()
        _stack().pop()
        _core._device_scope_entered(-1)
        return False


def _stack():
    try:
        return _state.stack
    except AttributeError:
        _state.stack = []
        return _state.stack


def current_device():
    stack = _stack()
    return stack[-1] if stack else None


def _gpu_copy(tensor, index=0):
    """``t.gpu(index)``: a copy on the GPU, or ``t`` itself under soft placement."""
    kind, index = _resolve("GPU", int(index))
    if kind == "CPU":
        return tensor
    return _gpu_backend().to_gpu(tensor, index)


def _probe_gpu():
    """The core's first op: let the GPU backend (if any) install its op hook."""
    backend = _gpu_backend()
    if backend is not None:
        backend._probe()


_core.set_device_hooks(_probe_gpu, _gpu_copy)


def set_soft_device_placement(enabled):
    global _soft_placement
    _soft_placement = bool(enabled)


def get_soft_device_placement():
    return _soft_placement

# The classes keep the module name they had before the move to fasteager._src: it is
# what their repr and saved references (pickles) show, so that name still imports, as
# this module (fe.placement, the attribute, warns: see the package root).
for _cls in (device,):
    _cls.__module__ = "fasteager.placement"
del _cls
_sys.modules.setdefault("fasteager.placement", _sys.modules[__name__])
