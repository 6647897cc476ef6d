"""InputSpec: what a layer accepts as input (rank, dtype, shape, axis sizes), checked on
each call as Keras 3 checks a layer's ``input_spec``."""
from ... import nest
from ..backend import standardize_dtype


def _shape(shape):
    return tuple(None if d is None else int(d) for d in shape)


class InputSpec:
    """The expected ``dtype``, ``shape`` (None for any size), ``ndim``, ``max_ndim``,
    ``min_ndim`` and ``axes`` ({axis: size}) of one input; ``allow_last_axis_squeeze``
    ignores a last axis of size 1 when comparing shapes; ``name`` is its key when inputs
    come as a dict; ``optional`` inputs may be None."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = standardize_dtype(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = _shape(shape)
            self.ndim = len(shape)
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError("Argument `axes` must be a dict with integer keys. Received: "
                            "axes=%s" % (axes,)) from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            if max(self.axes) > max_dim:
                raise ValueError("Axis {} is greater than the maximum allowed value: {}"
                                 .format(max(self.axes), max_dim))

    def __repr__(self):
        parts = [("dtype=%s" % self.dtype) if self.dtype else "",
                 ("shape=%s" % (self.shape,)) if self.shape else "",
                 ("ndim=%s" % self.ndim) if self.ndim else "",
                 ("max_ndim=%s" % self.max_ndim) if self.max_ndim else "",
                 ("min_ndim=%s" % self.min_ndim) if self.min_ndim else "",
                 ("axes=%s" % (self.axes,)) if self.axes else ""]
        return "InputSpec(%s)" % ", ".join(p for p in parts if p)

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes,
                "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _incompatible(index, spec, layer_name, what):
    return ValueError("Input %d with name '%s' of layer '%s' is incompatible with the layer: "
                      "%s" % (index, spec.name, layer_name, what))


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raise ValueError (Keras's messages) unless ``inputs`` meet ``input_spec`` (an
    InputSpec or a nested structure of them, one per input)."""
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in specs]
        if all(names):
            for name in names:
                if name not in inputs:
                    raise ValueError("Missing data for input \"%s\". You passed a data "
                                     "dictionary with keys %s. Expected the following keys: "
                                     "%s" % (name, list(inputs), names))
            inputs = [inputs[name] for name in names]
    inputs = nest.flatten(inputs)
    if len(inputs) != len(specs):
        names = [spec.name for spec in specs if spec is not None]
        if len(names) == len(specs) and all(names):
            raise ValueError("Layer \"%s\" expects %d named input(s) with keys %s, but it "
                             "received %d input tensors. Pass inputs as a dict, e.g. "
                             "`layer({%s})`." % (layer_name, len(specs), names, len(inputs),
                                                 ", ".join("'%s': ..." % n for n in names)))
        raise ValueError("Layer \"%s\" expects %d input(s), but it received %d input "
                         "tensors. Inputs received: %s"
                         % (layer_name, len(specs), len(inputs), inputs))
    for i, (x, spec) in enumerate(zip(inputs, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError("Inputs to a layer should be tensors. Got '%s' (of type %s) as "
                             "input for layer '%s'." % (x, type(x), layer_name))
        shape = tuple(x.shape)
        shape = tuple(None if d is None else int(d) for d in shape)
        ndim = len(shape)
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise _incompatible(i, spec, layer_name, "expected ndim=%s, found ndim=%d. Full "
                                "shape received: %s" % (spec.ndim, ndim, shape))
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise _incompatible(i, spec, layer_name, "expected max_ndim=%s, found ndim=%d"
                                % (spec.max_ndim, ndim))
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise _incompatible(i, spec, layer_name, "expected min_ndim=%s, found ndim=%d. "
                                "Full shape received: %s" % (spec.min_ndim, ndim, shape))
        if spec.dtype is not None:
            dtype = standardize_dtype(x.dtype)
            if dtype != spec.dtype:
                raise _incompatible(i, spec, layer_name, "expected dtype=%s, found dtype=%s"
                                    % (spec.dtype, dtype))
        for axis, value in (spec.axes or {}).items():
            if value is not None and shape[axis] not in (value, None):
                raise _incompatible(i, spec, layer_name, "expected axis %d of input shape to "
                                    "have value %s, but received input with shape %s"
                                    % (axis, value, shape))
        if spec.shape is not None:
            spec_shape = spec.shape
            if spec.allow_last_axis_squeeze:
                if shape and shape[-1] == 1:
                    shape = shape[:-1]
                if spec_shape and spec_shape[-1] == 1:
                    spec_shape = spec_shape[:-1]
            for want, got in zip(spec_shape, shape):
                if want is not None and got is not None and want != got:
                    raise _incompatible(i, spec, layer_name, "expected shape=%s, found "
                                        "shape=%s" % (spec.shape, shape))
