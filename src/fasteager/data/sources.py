"""``Dataset.from_generator``: elements from a Python generator, checked against a
declared signature (``output_signature``, or ``output_types`` with ``output_shapes``)."""
import numpy as np

from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from . import structure as S
from .dataset import UNKNOWN, Dataset


def _zip_structure(template, other, what):
    """Pair each leaf of ``template`` with the matching part of ``other``."""
    if isinstance(template, dict):
        return {k: _zip_structure(v, other[k], what) for k, v in template.items()}
    if isinstance(template, tuple):
        if not isinstance(other, (tuple, list)) or len(other) != len(template):
            raise TypeError("from_generator: %s does not match output_types (expected %d "
                            "components, got %r)" % (what, len(template), other))
        return tuple(_zip_structure(t, o, what) for t, o in zip(template, other))
    return S.TensorSpec(other, template)


class FromGenerator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("from_generator: generator must be callable (got %s)"
                            % type(generator).__name__)
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("from_generator: give output_signature or output_types/"
                                "output_shapes, not both")
            spec = S.map_structure(lambda s: S.TensorSpec(
                getattr(s, "shape", None), s.dtype), output_signature)
        elif output_types is not None:
            types = output_types
            if output_shapes is None:
                spec = S.map_structure(lambda t: S.TensorSpec(None, t), types)
            else:
                spec = _zip_structure(S.map_structure(as_dtype, types), output_shapes,
                                      "output_shapes")
        else:
            raise TypeError("from_generator: the element structure must be declared (expected "
                            "output_signature=..., got neither it nor output_types)")
        self._generator = generator
        self._args = tuple(args) if args is not None else ()
        self._spec = spec

    def _iter(self):
        spec = self._spec
        args = [np.asarray(S.to_array(a)) for a in self._args]
        for value in self._generator(*args):
            yield self._convert(value, spec)

    def _convert(self, value, spec):
        if isinstance(spec, dict):
            if not isinstance(value, dict):
                raise TypeError("from_generator: the generator yielded %s (expected a dict "
                                "with keys %s)" % (type(value).__name__, sorted(spec)))
            return {k: self._convert(value[k], s) for k, s in spec.items()}
        if isinstance(spec, tuple):
            if not isinstance(value, (tuple, list)) or len(value) != len(spec):
                raise TypeError("from_generator: the generator yielded %r (expected a tuple "
                                "of %d components)" % (value, len(spec)))
            items = [self._convert(v, s) for v, s in zip(value, spec)]
            return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
        want = spec.dtype._np
        arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        if arr.dtype != want:
            if arr.dtype.kind == "f" and want.kind in "iub" or arr.dtype.kind in "OUS":
                raise InvalidArgumentError(
                    "from_generator: yielded value has dtype %s (expected %s)"
                    % (arr.dtype, want.name))
            arr = arr.astype(want)
        if spec.shape is not None and not spec.shape.is_compatible_with(arr.shape):
            raise InvalidArgumentError(
                "from_generator: yielded value has an incompatible shape (expected %s, got "
                "%s)" % (list(spec.shape), list(arr.shape)))
        return arr

    def _cardinality(self):
        return UNKNOWN

    def _element_spec(self):
        return self._spec
