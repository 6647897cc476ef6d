"""Weight initializers (``fe.keras.initializers``), as Keras defines them.

Random initializers draw from ``fe.random``, so ``fe.random.set_seed`` makes a model's
initial weights reproducible. Each is a callable ``init(shape, dtype=None)`` returning a
tensor; ``get('glorot_uniform')`` resolves names, classes, instances and callables.

>>> init = fe.keras.initializers.get("he_normal")
>>> w = init([784, 128])
"""
import math

import numpy as np

from .. import dtypes
from .. import random as fe_random
from .._src import initializers as _family
from ..ops import array_ops
from . import _serialization


def _fans(shape, input_axes=None, output_axes=None):
    """(fan_in, fan_out) as Keras computes them: a conv kernel's receptive field counts;
    with both ``input_axes`` and ``output_axes`` (Keras 3.15's EinsumDense kernels), the
    product of the sizes along each."""
    shape = [int(d) for d in shape]
    if input_axes is not None and output_axes is not None:
        try:
            return (int(np.prod([shape[a] for a in input_axes])),
                    int(np.prod([shape[a] for a in output_axes])))
        except IndexError:
            raise ValueError("VarianceScaling: input_axes %s and output_axes %s must be axes "
                             "of the shape %s" % (list(input_axes), list(output_axes), shape)
                             ) from None
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


def _dtype(dtype):
    return dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)


class Initializer(_family.Initializer):
    """Base class: subclasses implement ``__call__(shape, dtype=None)``. Keras's initializers
    are the engine's one initializer family (``fe.zeros_initializer`` ...) with Keras's
    names, float32 by default, and Keras's ``from_config`` (every key an argument)."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(_family.zeros_initializer, Initializer):
    def __call__(self, shape, dtype=None):
        return super().__call__(shape, _dtype(dtype))


class Ones(_family.ones_initializer, Initializer):
    def __call__(self, shape, dtype=None):
        return super().__call__(shape, _dtype(dtype))


class Constant(Initializer):
    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None):
        d = _dtype(dtype)
        return array_ops.constant(np.full([int(s) for s in shape], self.value, d.as_numpy_dtype))

    def get_config(self):
        return {"value": self.value}


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return fe_random.normal(shape, self.mean, self.stddev, dtype=_dtype(dtype),
                                seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None):
        return fe_random.uniform(shape, self.minval, self.maxval, dtype=_dtype(dtype),
                                 seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return fe_random.truncated_normal(shape, self.mean, self.stddev, dtype=_dtype(dtype),
                                          seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, n from ``mode`` (Keras's general initializer)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        for name, axes in (("input_axes", input_axes), ("output_axes", output_axes)):
            if axes is not None and (isinstance(axes, (str, bytes)) or not all(
                    isinstance(a, int) and not isinstance(a, bool) for a in axes)):
                raise ValueError("VarianceScaling: %s must be a list of integer axes or None "
                                 "(got %r)" % (name, axes))
        self.input_axes = None if input_axes is None else list(input_axes)
        self.output_axes = None if output_axes is None else list(output_axes)
        if scale <= 0:
            raise ValueError("VarianceScaling: scale must be positive (got %r)" % (scale,))
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("VarianceScaling: mode must be fan_in, fan_out or fan_avg "
                             "(got %r)" % (mode,))
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("VarianceScaling: unknown distribution %r" % (distribution,))
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = _fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        d = _dtype(dtype)
        if self.distribution == "truncated_normal":
            # 0.879...: the stddev of a unit normal truncated to [-2, 2] (Keras's constant)
            std = math.sqrt(scale) / 0.87962566103423978
            return fe_random.truncated_normal(shape, 0.0, std, dtype=d, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return fe_random.normal(shape, 0.0, math.sqrt(scale), dtype=d, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return fe_random.uniform(shape, -limit, limit, dtype=d, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_avg", "uniform", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class HeNormal(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class HeUniform(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(2.0, "fan_in", "uniform", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class LecunNormal(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class LecunUniform(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_in", "uniform", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal sample."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None):
        shape = [int(s) for s in shape]
        if len(shape) < 2:
            raise ValueError("Orthogonal: the shape must have rank >= 2 (got %s)" % shape)
        rows = int(np.prod(shape[:-1]))
        cols = shape[-1]
        a = fe_random.normal([max(rows, cols), min(rows, cols)], dtype=dtypes.float64,
                             seed=self.seed).numpy()
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))      # make the decomposition unique (Mezzadri 2007)
        if rows < cols:
            q = q.T
        d = _dtype(dtype)
        return array_ops.constant((self.gain * q.reshape(shape)).astype(d.as_numpy_dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    """``gain`` times the identity matrix (2D shapes only)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        shape = [int(s) for s in shape]
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices. "
                             "Received: shape=%s of rank %d." % (tuple(shape), len(shape)))
        d = _dtype(dtype)
        return array_ops.constant((self.gain * np.eye(*shape)).astype(d.as_numpy_dtype))

    def get_config(self):
        # Keras 3.15.1's Identity has no get_config of its own: its config is {} (a clone
        # from the config has gain 1.0), kept so configs match Keras's
        return {}


class STFT(Initializer):
    """Conv kernels of a short-time Fourier transform, shape ``(frame_length, 1, bins)``:
    the real (cosine) or imaginary (sine) side, times a window (``"hann"``/``"hamming"``,
    other scipy window names when scipy is installed, or window values) scaled by its L2
    (``"density"``) or L1 (``"spectrum"``) norm."""

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError("side should be 'real' or 'imag', not %s" % (side,))
        if isinstance(window, str):
            _stft_window(window, 1, periodic)    # reject an unknown name now, as Keras does
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError("Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                             "Received scaling=%s" % (scaling,))
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def __call__(self, shape, dtype=None):
        d = _dtype(dtype)
        frame_length, _, bins = [int(s) for s in shape]
        np_dtype = d.as_numpy_dtype
        # Keras computes in the requested dtype: the same rounding steps
        freq = np.arange(bins, dtype=np_dtype).reshape(1, 1, bins) / np_dtype((bins - 1) * 2)
        time = np.arange(frame_length, dtype=np_dtype).reshape(frame_length, 1, 1)
        args = ((np_dtype(-2) * time) * freq * np.arccos(np_dtype(-1))).astype(np_dtype)
        kernel = (np.cos(args) if self.side == "real" else np.sin(args)).astype(np_dtype)
        if self.window is not None:
            win = self.window
            if isinstance(win, str):
                win = _stft_window(win, frame_length, self.periodic)
            win = np.asarray(win, np_dtype)
            if win.ndim != 1 or win.shape[-1] != frame_length:
                raise ValueError("The shape of `window` must be equal to [frame_length]."
                                 "Received: window shape=%s" % (win.shape,))
            win = win.reshape(frame_length, 1, 1)
            scaling = np_dtype(1)
            if self.scaling == "density":
                scaling = np.sqrt(np.sum(np.square(win)))
            elif self.scaling == "spectrum":
                scaling = np.sum(np.abs(win))
            kernel = (kernel * win / scaling).astype(np_dtype)
        return array_ops.constant(kernel)

    def get_config(self):
        return {"side": self.side, "window": self.window, "periodic": self.periodic,
                "scaling": self.scaling}


def _stft_window(name, length, periodic):
    """scipy.signal.get_window(name, length, fftbins=periodic), in float64."""
    if name in ("hann", "hamming"):
        alpha = 0.5 if name == "hann" else 0.54
        if length == 1:
            return np.ones(1)
        n = length if periodic else length - 1
        return alpha - (1 - alpha) * np.cos(2 * np.pi * np.arange(length) / n)
    try:
        import scipy.signal  # optional: the other window names come from scipy
    except ImportError as e:
        raise ImportError("STFTInitializer: window=%r needs scipy (pip install scipy); 'hann' "
                          "and 'hamming' work without it" % (name,)) from e
    return scipy.signal.get_window(name, length, periodic)


IdentityInitializer = identity = Identity
OrthogonalInitializer = Orthogonal
STFTInitializer = stft = STFT
zeros = Zeros
ones = Ones
constant = Constant
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
orthogonal = Orthogonal
variance_scaling = VarianceScaling

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal, "he_normal": HeNormal,
    "he_uniform": HeUniform, "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform,
    "orthogonal": Orthogonal,
    "variance_scaling": VarianceScaling, "identity": Identity,
    "stft": STFT,
}


def deserialize(config, custom_objects=None):
    """The initializer a name or a serialized ``{"class_name", "config"}`` dict names."""
    table = dict(_BY_NAME)
    table.update({cls.__name__: cls for cls in _BY_NAME.values()})
    table.update({"IdentityInitializer": Identity, "OrthogonalInitializer": Orthogonal,
                  "STFTInitializer": STFT})
    return _serialization.deserialize_in(config, custom_objects, table, Initializer,
                                         "initializers.deserialize")


def serialize(initializer):
    for name, cls in _BY_NAME.items():
        if type(initializer) is cls:
            return {"class_name": cls.__name__, "config": initializer.get_config()}
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def get(identifier):
    """An initializer from a name ('he_normal'), a config dict, a class or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier
        if key not in _BY_NAME:
            # Keras also accepts the class names: 'GlorotUniform'
            for name, cls in _BY_NAME.items():
                if cls.__name__ == identifier:
                    key = name
        if key not in _BY_NAME:
            raise ValueError("initializers.get: unknown initializer %r (known: %s)"
                             % (identifier, ", ".join(sorted(_BY_NAME))))
        return _BY_NAME[key]()
    if isinstance(identifier, dict):
        cls = get(identifier["class_name"]).__class__
        return cls(**identifier.get("config", {}))
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError("initializers.get: cannot interpret %r as an initializer" % (identifier,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("initializers", globals(), Initializer)
