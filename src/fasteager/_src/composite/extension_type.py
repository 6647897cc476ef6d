"""``fe.experimental.ExtensionType``: user-defined composite types, as TensorFlow's.

A subclass declares typed fields with annotations (defaults as class attributes)::

    class MaskedTensor(fe.experimental.ExtensionType):
        values: fe.Tensor
        mask: fe.Tensor

        def __validate__(self):
            assert self.mask.dtype.is_bool, "mask.dtype must be fe.bool"

and gets, as in TensorFlow:

- a generated ``__init__`` (unless the class writes its own), taking the fields in order,
  positionally or by name, converting each value to its annotation (``fe.Tensor``:
  ``convert_to_tensor``; ``fe.TensorShape``; ``fe.DType``; ``Tuple[...]``;
  ``Mapping[...]``, kept read-only; ``Optional``/``Union``). A value that does not fit
  raises ``TypeError("<field>: expected 'int', got 'float'")``. ``__validate__`` runs
  after every construction.
- immutability: assigning a field outside the constructor raises ``AttributeError``.
- ``__repr__`` listing the fields, and ``==`` / ``!=`` returning a scalar bool tensor
  (same type and every field equal).
- a ``Spec`` nested class, a subclass of ``ExtensionTypeSpec`` (under the class's own
  nested ``class Spec`` when it writes one): ``Cls.Spec(...)`` takes a spec per field,
  ``Cls.Spec.from_value(v)`` / ``fe.type_spec_from_value(v)`` describe a value.
- the composite protocol (``_to_components`` / ``_from_components``) of ``fasteager.nest``,
  ``fe.function``, ``fe.data``, AutoGraph and ``fe.cond``/``fe.while_loop``: the tensors
  in the fields are the components, everything else is static (``_static_key``).

``BatchableExtensionType`` values also batch and unbatch (``fe.data``, ``fe.map_fn``).
"""
import collections.abc
import sys as _sys
import types
import typing

import numpy as np

from ... import _core
from ...dtypes import DType, as_dtype
from ...errors import DataLossError, NotFoundError, UnimplementedError
from ...ops.array_ops import stack, unstack
from ...ops.string_values import bytes_array, is_string_value
from ...tensor_shape import TensorShape
from .. import nest
from .ragged import RaggedTensor, RaggedTensorSpec
from .sparse import SparseTensor, SparseTensorSpec, to_dense
from .structure import DatasetSpec, TensorSpec, _is_dataset

__all__ = ["BatchableExtensionType", "ExtensionType", "ExtensionTypeSpec",
           "type_spec_from_value"]

_NO_DEFAULT = object()


def _type_name(t):
    return getattr(t, "__name__", None) or repr(t)


def _tensor_classes():
    return RaggedTensor, SparseTensor


def _convert(where, annotation, value):
    """``value`` as the field type ``annotation``, or TypeError naming ``where``."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is typing.Any:
        return value
    if annotation is None or annotation is type(None):
        if value is not None:
            raise TypeError("%s: expected None, got %r" % (where, type(value).__name__))
        return None
    if origin is typing.Union or origin is types.UnionType:
        errors = []
        for option in args:
            try:
                return _convert(where, option, value)
            except (TypeError, ValueError) as e:
                errors.append(str(e))
        raise TypeError("%s: expected one of %s, got %r"
                        % (where, [_type_name(a) for a in args], type(value).__name__))
    if origin is tuple:
        if not isinstance(value, (tuple, list)):
            raise TypeError("%s: expected 'tuple', got %r" % (where, type(value).__name__))
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert("%s[%d]" % (where, i), args[0], v) for i, v in enumerate(value))
        if args and len(args) != len(value):
            raise TypeError("%s: expected a tuple of %d values, got %d"
                            % (where, len(args), len(value)))
        return tuple(_convert("%s[%d]" % (where, i), a, v)
                     for i, (a, v) in enumerate(zip(args, value))) if args else tuple(value)
    if origin in (collections.abc.Mapping, dict):
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError("%s: expected a Mapping, got %r" % (where, type(value).__name__))
        key_t, value_t = args if args else (typing.Any, typing.Any)
        return _ImmutableDict({
            _convert("%s key" % where, key_t, k): _convert("%s[%r]" % (where, k), value_t, v)
            for k, v in value.items()})
    if annotation is _core.Tensor:
        if value is None or isinstance(value, _tensor_classes()):
            raise TypeError("%s: expected a Tensor, got %r" % (where, type(value).__name__))
        if isinstance(value, _core.VariableBase):
            return value
        return _core.convert_to_tensor(value) if not _is_string(value) else \
            _string_tensor(value)
    if annotation is TensorShape:
        return TensorShape(value)
    if annotation is DType:
        return as_dtype(value)
    if isinstance(annotation, type):
        if annotation is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if annotation in (int, float) and isinstance(value, bool):
            raise TypeError("%s: expected %r, got 'bool'" % (where, annotation.__name__))
        if not isinstance(value, annotation):
            raise TypeError("%s: expected %r, got %r"
                            % (where, annotation.__name__, type(value).__name__))
        return value
    raise TypeError("%s: unsupported field type %r" % (where, annotation))


class _ImmutableDict(collections.abc.Mapping):
    """A read-only dict (TensorFlow stores Mapping fields so, and prints them so)."""

    def __init__(self, items):
        self._dict = dict(items)

    def __getitem__(self, key):
        return self._dict[key]

    def __iter__(self):
        return iter(self._dict)

    def __len__(self):
        return len(self._dict)

    def __repr__(self):
        return "ImmutableDict(%r)" % (self._dict,)


def _is_string(value):
    return is_string_value(value)


def _string_tensor(value):
    return _core.wrap(bytes_array(value))


def _field_equal(a, b):
    if isinstance(a, (_core.Tensor, _core.VariableBase)) or isinstance(b, (_core.Tensor,
                                                                          _core.VariableBase)):
        x, y = np.asarray(_core.convert_to_tensor(a)._value), \
            np.asarray(_core.convert_to_tensor(b)._value)
        return x.shape == y.shape and bool(np.all(x == y))
    if isinstance(a, ExtensionType) or isinstance(b, ExtensionType):
        return type(a) is type(b) and all(_field_equal(getattr(a, n), getattr(b, n))
                                          for n in type(a)._fields)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_field_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        return set(a) == set(b) and all(_field_equal(a[k], b[k]) for k in a)
    ragged, sparse = _tensor_classes()
    if isinstance(a, ragged) or isinstance(b, ragged):
        return type(a) is type(b) and a.to_list() == b.to_list()
    if isinstance(a, sparse) or isinstance(b, sparse):
        return type(a) is type(b) and _field_equal(to_dense(a, validate_indices=False),
                                                   to_dense(b, validate_indices=False))
    return a == b


def _generated_init(cls):
    fields = cls._fields

    def __init__(self, *args, **kwargs):
        if len(args) > len(fields):
            raise TypeError("%s.__init__: takes %d field(s), got %d positional arguments"
                            % (cls.__name__, len(fields), len(args)))
        values = dict(zip(fields, args))
        for name, v in kwargs.items():
            if name not in fields:
                raise TypeError("%s.__init__: got an unexpected keyword argument %r"
                                % (cls.__name__, name))
            if name in values:
                raise TypeError("%s.__init__: got multiple values for argument %r"
                                % (cls.__name__, name))
            values[name] = v
        for name in fields:
            if name not in values:
                default = cls._defaults.get(name, _NO_DEFAULT)
                if default is _NO_DEFAULT:
                    raise TypeError("missing a required argument: %r" % name)
                values[name] = default
            setattr(self, name, values[name])
    __init__.__qualname__ = cls.__qualname__ + ".__init__"
    return __init__


# -- components: the tensors a value is made of ---------------------------------------------
_STATIC = (str, bytes, int, float, bool, complex, type(None), TensorShape, DType, type)


def _components(value, out):
    """Append the components of a field value (tensors, or what stands for them in a
    pipeline or a spec: arrays, specs, composites) to ``out``; static values are skipped."""
    if isinstance(value, _STATIC):
        return
    if isinstance(value, tuple):
        for v in value:
            _components(v, out)
    elif isinstance(value, collections.abc.Mapping):
        for k in sorted(value, key=_key_order):
            _components(value[k], out)
    else:
        out.append(value)


def _rebuild(value, it):
    """``value`` with its components replaced, in ``_components`` order, from ``it``."""
    if isinstance(value, _STATIC):
        return value
    if isinstance(value, tuple):
        return tuple(_rebuild(v, it) for v in value)
    if isinstance(value, collections.abc.Mapping):
        new = {k: _rebuild(value[k], it) for k in sorted(value, key=_key_order)}
        return _ImmutableDict((k, new[k]) for k in value)
    return next(it)


def _static(value):
    """A hashable description of everything but the components of a field value."""
    if isinstance(value, _STATIC):
        try:
            hash(value)
            return ("value", type(value).__name__, value)
        except TypeError:
            return ("id", id(value))
    if isinstance(value, tuple):
        return ("tuple",) + tuple(_static(v) for v in value)
    if isinstance(value, collections.abc.Mapping):
        return ("mapping",) + tuple((repr(k), _static(value[k]))
                                    for k in sorted(value, key=_key_order))
    return ("component",)


def _key_order(k):
    return (type(k).__name__, k)


def _rank(component):
    """The rank of a component (tensor, array, pipeline leaf or spec), or None."""
    shape = getattr(component, "shape", None)
    return len(shape) if isinstance(shape, (tuple, list)) else getattr(shape, "rank", None)


# -- specs ----------------------------------------------------------------------------------
def _spec_of(value):
    """The TypeSpec of a field value: TensorSpec for a tensor, the nested Spec of an
    extension value, containers of specs for tuples and mappings, static values as they
    are (and specs: the spec of a value holding specs for components is its spec)."""
    if isinstance(value, _STATIC) or _is_type_spec(value):
        return value
    if isinstance(value, tuple):
        return tuple(_spec_of(v) for v in value)
    if isinstance(value, collections.abc.Mapping):
        return _ImmutableDict((k, _spec_of(v)) for k, v in value.items())
    return type_spec_from_value(value)


def type_spec_from_value(value):
    """The TypeSpec of ``value`` (``tf.type_spec_from_value``): ``TensorSpec`` for a tensor
    (or a value that converts to one), ``RaggedTensorSpec``, ``SparseTensorSpec``, the
    ``Spec`` of an extension type.

    >>> fe.type_spec_from_value(fe.constant([1, 2]))
    TensorSpec(shape=(2,), dtype=fe.int32, name=None)
    """
    if isinstance(value, ExtensionType):
        return type(value).Spec.from_value(value)
    ragged, sparse = _tensor_classes()
    if isinstance(value, ragged):
        return RaggedTensorSpec.from_value(value)
    if isinstance(value, sparse):
        return SparseTensorSpec.from_value(value)
    if _is_dataset(value):
        return DatasetSpec.from_value(value)
    if isinstance(value, (_core.Tensor, _core.VariableBase)):
        t = _core.convert_to_tensor(value)
        return TensorSpec(t.shape, t.dtype)
    try:
        t = _string_tensor(value) if _is_string(value) else _core.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError("Could not build a TypeSpec for %r of unsupported type %s."
                        % (value, type(value))) from None
    return TensorSpec(t.shape, t.dtype)


def _is_type_spec(x):
    return hasattr(x, "is_compatible_with") and not isinstance(x, (ExtensionType, type))


def _convert_spec(where, annotation, value):
    """A spec field: a TypeSpec where the value has a tensor (or extension value), the
    field's type where it is static."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or origin is types.UnionType:
        for option in args:
            try:
                return _convert_spec(where, option, value)
            except (TypeError, ValueError):
                pass
        raise TypeError("%s: expected a spec of one of %s, got %r"
                        % (where, [_type_name(a) for a in args], value))
    if origin is tuple and isinstance(value, (tuple, list)):
        if len(args) == 2 and args[1] is Ellipsis:
            args = (args[0],) * len(value)
        return tuple(_convert_spec("%s[%d]" % (where, i), a, v)
                     for i, (a, v) in enumerate(zip(args, value)))
    if origin in (collections.abc.Mapping, dict) and isinstance(value, collections.abc.Mapping):
        value_t = args[1] if args else typing.Any
        return _ImmutableDict((k, _convert_spec("%s[%r]" % (where, k), value_t, v))
                              for k, v in value.items())
    if annotation is TensorShape and value is None:     # (a batch shape of unknown rank)
        return None
    tensorish = annotation is _core.Tensor or annotation in _tensor_classes() or (
        isinstance(annotation, type) and issubclass(annotation, ExtensionType))
    if tensorish:
        if not _is_type_spec(value):
            raise TypeError("%s: expected a TensorSpec, got %r" % (where, type(value).__name__))
        return value
    return _convert(where, annotation, value)


def _spec_compatible(spec, value):
    if isinstance(spec, tuple):
        return isinstance(value, tuple) and len(spec) == len(value) and all(
            _spec_compatible(s, v) for s, v in zip(spec, value))
    if isinstance(spec, collections.abc.Mapping):
        return isinstance(value, collections.abc.Mapping) and set(spec) == set(value) and all(
            _spec_compatible(spec[k], value[k]) for k in spec)
    if _is_type_spec(spec) and not isinstance(spec, _STATIC):
        if _is_type_spec(value):
            return spec == value
        try:
            return bool(spec.is_compatible_with(value))
        except (TypeError, ValueError):
            return False
    return _field_equal(spec, value)


def _spec_repr(v):
    if isinstance(v, collections.abc.Mapping):       # (TensorFlow prints a dict here)
        return "{%s}" % ", ".join("%r: %s" % (k, _spec_repr(x)) for k, x in v.items())
    if isinstance(v, tuple):
        inner = ", ".join(_spec_repr(x) for x in v)
        return "(%s,)" % inner if len(v) == 1 else "(%s)" % inner
    return repr(v)


class ExtensionTypeSpec:
    """The type of an extension value (``tf.experimental.ExtensionTypeSpec``): the class and
    each field's spec (a ``TensorSpec`` for a tensor field, the value for a static one).

    ``Cls.Spec(...)`` takes the fields as ``Cls(...)`` does, each as a spec;
    ``Cls.Spec.from_value(v)`` is ``fe.type_spec_from_value(v)``. A class may define its
    own nested ``class Spec`` (a constructor, properties, methods): it becomes a subclass of
    this one.
    """
    __module__ = 'fasteager.extension_type'     # its public home (printed types, pickles)

    value_type = None

    def __init__(self, *args, **kwargs):
        fields = self.value_type._fields
        if len(args) > len(fields):
            raise TypeError("%s.Spec: takes %d field(s), got %d positional arguments"
                            % (self.value_type.__name__, len(fields), len(args)))
        values = dict(zip(fields, args))
        for name, v in kwargs.items():
            if name not in fields:
                raise TypeError("%s.Spec: got an unexpected keyword argument %r"
                                % (self.value_type.__name__, name))
            values[name] = v
        for name in fields:
            if name not in values:
                default = self.value_type._defaults.get(name, _NO_DEFAULT)
                if default is _NO_DEFAULT:
                    raise TypeError("missing a required argument: %r" % name)
                values[name] = _spec_of(default)
            setattr(self, name, values[name])

    def __setattr__(self, name, value):
        if not self.__dict__.get("_constructing", False):
            raise AttributeError("Cannot mutate attribute `%s` outside the custom constructor "
                                 "of ExtensionTypeSpec." % name)
        if name in self.value_type._fields:
            value = _convert_spec(name, self.value_type._annotations[name], value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        raise AttributeError("Cannot mutate attribute `%s` outside the custom constructor of "
                             "ExtensionTypeSpec." % name)

    @classmethod
    def from_value(cls, value):
        """The spec of ``value`` (an instance of ``value_type``)."""
        out = object.__new__(cls)
        object.__setattr__(out, "_constructing", True)
        for name in cls.value_type._fields:
            object.__setattr__(out, name, _spec_of(getattr(value, name)))
        object.__setattr__(out, "_constructing", False)
        return out

    def is_compatible_with(self, spec_or_value):
        """Whether ``spec_or_value`` (a value or a spec) has this type: the same class, each
        tensor of a shape and dtype its TensorSpec accepts, equal static fields."""
        other = spec_or_value
        if isinstance(other, ExtensionTypeSpec):
            return self == other
        if not isinstance(other, self.value_type):
            return False
        return all(_spec_compatible(getattr(self, n), getattr(other, n))
                   for n in self.value_type._fields)

    def _placeholder_value(self):
        """A value of this spec for tracing: zeros for each TensorSpec (an unknown
        dimension as 1), nested specs likewise, static fields as they are; built without
        the class's constructor, as TensorFlow builds its placeholders."""
        out = object.__new__(self.value_type)
        object.__setattr__(out, "_constructing", True)
        for name, spec in self._field_items():
            object.__setattr__(out, name, _placeholder(spec))
        object.__setattr__(out, "_constructing", False)
        return out

    def _field_items(self):
        return tuple((n, self.__dict__.get(n)) for n in self.value_type._fields)

    def __eq__(self, other):
        return type(other) is type(self) and all(
            _spec_equal(a, b) for (_, a), (_, b) in zip(self._field_items(),
                                                        other._field_items()))

    def __hash__(self):
        return hash((type(self), repr(self)))

    def __repr__(self):
        inner = ", ".join("%s=%s" % (k, _spec_repr(v)) for k, v in self._field_items())
        return "%s.Spec(%s)" % (self.value_type.__name__, inner)


def _placeholder(spec):
    if isinstance(spec, tuple):
        return tuple(_placeholder(s) for s in spec)
    if isinstance(spec, collections.abc.Mapping):
        return _ImmutableDict((k, _placeholder(s)) for k, s in spec.items())
    if isinstance(spec, ExtensionTypeSpec):
        return spec._placeholder_value()
    if isinstance(spec, TensorSpec):
        dims = [] if spec.shape is None else [1 if d is None else d for d in spec.shape]
        return _core.wrap(np.zeros(dims, spec.dtype._np))
    if _is_type_spec(spec) and not isinstance(spec, _STATIC):
        raise TypeError("%r: no placeholder value for a field spec %r" % (type(spec).__name__,
                                                                         spec))
    return spec


def _spec_equal(a, b):
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        return set(a) == set(b) and all(_spec_equal(a[k], b[k]) for k in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_spec_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _make_spec_class(cls):
    """``cls.Spec``: the generated spec class, under the class's own nested ``Spec`` when
    it defines one (TensorFlow's rule)."""
    user = cls.__dict__.get("Spec")
    bases = (ExtensionTypeSpec,)
    namespace = {"value_type": cls, "__module__": cls.__module__,
                 "__qualname__": cls.__qualname__ + ".Spec"}
    if isinstance(user, type) and not issubclass(user, ExtensionTypeSpec):
        namespace.update({k: v for k, v in vars(user).items()
                          if k not in ("__dict__", "__weakref__", "__module__",
                                       "__qualname__")})
    else:
        inherited = [b.Spec for b in cls.__bases__ if issubclass(b, ExtensionType)
                     and isinstance(getattr(b, "Spec", None), type)
                     and b.Spec is not ExtensionTypeSpec]
        bases = tuple(inherited) or bases
    namespace["__init__"] = _constructing_spec(namespace.get("__init__",
                                                             ExtensionTypeSpec.__init__))
    return type("Spec", bases, namespace)


def _run_constructing(self, init, args, kwargs):
    """Run ``init`` with field assignment allowed; True for the outermost constructor."""
    outer = not self.__dict__.get("_constructing", False)
    object.__setattr__(self, "_constructing", True)
    try:
        init(self, *args, **kwargs)
    finally:
        if outer:
            object.__setattr__(self, "_constructing", False)
    return outer


def _constructing_spec(init):
    def __init__(self, *args, **kwargs):
        outer = _run_constructing(self, init, args, kwargs)
        missing = [n for n in self.value_type._fields if n not in self.__dict__]
        if outer and missing:
            raise ValueError("%s.Spec: the constructor did not set the field(s) %s"
                             % (self.value_type.__name__, missing))
    __init__.__qualname__ = init.__qualname__
    __init__.__wrapped__ = init
    return __init__


class ExtensionType:
    """Base class of user-defined composite types (see the module docstring)."""
    __module__ = 'fasteager.extension_type'     # its public home (printed types, pickles)

    _fields = ()
    _defaults = {}
    _fe_base = True       # (a base class: its annotations are no fields)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_fe_base" in cls.__dict__:          # BatchableExtensionType itself
            return
        fields, defaults = [], {}
        for klass in reversed(cls.__mro__):
            if not issubclass(klass, ExtensionType) or "_fe_base" in klass.__dict__:
                continue
            for name, annotation in klass.__dict__.get("__annotations__", {}).items():
                if name.startswith("_") or typing.get_origin(annotation) is typing.ClassVar:
                    continue
                if name not in fields:
                    fields.append(name)
                if name in klass.__dict__:
                    defaults[name] = klass.__dict__[name]
        cls._fields = tuple(fields)
        cls._defaults = defaults
        # the name a saved model knows the class by (TensorFlow's: ``__name__`` set in the
        # class body, else module and qualified name); a class defined again replaces it
        given = cls.__dict__.get("__name__")
        cls._registered_name = given if isinstance(given, str) and given != cls.__name__ \
            else "%s.%s" % (cls.__module__, cls.__qualname__)
        _registry[cls._registered_name] = cls
        try:
            # (the class itself in scope: a field may refer to it, ``Tuple['Node', ...]``)
            hints = typing.get_type_hints(cls, localns={cls.__name__: cls})
        except (NameError, TypeError):      # unresolvable forward references: as written
            hints = {}
            for klass in reversed(cls.__mro__):
                hints.update(klass.__dict__.get("__annotations__", {}))
        cls._annotations = {n: hints[n] for n in fields}
        for name in fields:              # fields live on the instance, not as class defaults
            if name in cls.__dict__:
                delattr(cls, name)
        user_init = cls.__dict__.get("__init__")
        if user_init is None:
            cls.__init__ = _generated_init(cls)
            user_init = cls.__init__
        cls._user_init = user_init
        cls.__init__ = _constructing(cls, user_init)
        cls.Spec = _make_spec_class(cls)

    def __setattr__(self, name, value):
        if not self.__dict__.get("_constructing", False):
            raise AttributeError("Cannot mutate attribute `%s` outside the custom constructor "
                                 "of ExtensionType." % name)
        if name in type(self)._fields:
            value = _convert(name, type(self)._annotations[name], value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        raise AttributeError("Cannot mutate attribute `%s` outside the custom constructor of "
                             "ExtensionType." % name)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % (n, getattr(self, n)) for n in type(self)._fields))

    def __eq__(self, other):
        same = type(other) is type(self) and all(
            _field_equal(getattr(self, n), getattr(other, n)) for n in type(self)._fields)
        return _core.wrap(np.array(same))

    def __ne__(self, other):
        return _core.wrap(np.array(not bool(self.__eq__(other)._value)))

    __hash__ = None

    # composite protocol of fasteager.nest (expand_composites), fe.function and fe.data:
    # the components are the tensors in the fields (inside tuples and mappings too; a
    # nested extension value, RaggedTensor or SparseTensor is one component); everything
    # else is static and copied from the value the components are put back into
    def _to_components(self):
        out = []
        for n in type(self)._fields:
            _components(self.__dict__[n], out)
        return tuple(out)

    def _from_components(self, parts):
        out = object.__new__(type(self))
        object.__setattr__(out, "_constructing", True)
        it = iter(parts)
        for n in type(self)._fields:
            object.__setattr__(out, n, _rebuild(self.__dict__[n], it))
        object.__setattr__(out, "_constructing", False)
        return out

    def _static_key(self):
        """What two values of one trace must share besides their components' shapes and
        dtypes: the class and the static fields (strings, mapping keys, ...)."""
        # (of plain values: a saved model keeps the keys of its traces)
        cls = type(self)
        return ("%s.%s" % (cls.__module__, cls.__qualname__),) + tuple(
            _static(self.__dict__[n]) for n in cls._fields)


class BatchableExtensionType(ExtensionType):
    """An ExtensionType whose values batch and unbatch (``tf.experimental.
    BatchableExtensionType``): ``fe.data`` slices, batches and unbatches them and
    ``fe.map_fn`` maps over them, each tensor field gaining or losing its leading
    dimension. A ``fe.TensorShape`` field is the batch shape: it gains or loses the same
    dimensions (unknown, ``None``, for a dataset's batches, as in TensorFlow)."""
    __module__ = 'fasteager.extension_type'     # its public home (printed types, pickles)

    _fe_base = True

    def _from_components(self, parts):
        parts = list(parts)
        out = ExtensionType._from_components(self, parts)
        old, new = _rank(next(iter(self._to_components()), None)), _rank(next(iter(parts),
                                                                            None))
        if old is None or new is None or old == new:
            return out
        for n in type(self)._fields:
            shape = out.__dict__[n]
            if isinstance(shape, TensorShape) and shape.rank is not None:
                dims = shape.as_list()
                dims = dims[old - new:] if new < old else [None] * (new - old) + dims
                object.__setattr__(out, n, TensorShape(dims))
        return out


def batch_values(values, opname):
    """The values (all of one BatchableExtensionType, and one spec) as one batched value,
    each component stacked along a new axis 0, a TensorShape field gaining that axis."""
    first = values[0]
    if not isinstance(first, BatchableExtensionType):
        raise TypeError("%s: %s is not a BatchableExtensionType (only those batch)"
                        % (opname, type(first).__name__))
    columns = [v._to_components() for v in values]
    stacked = [stack(list(col)) for col in zip(*columns)]
    out = first._from_components(stacked)
    for n in type(first)._fields:
        shape = out.__dict__[n]
        if isinstance(shape, TensorShape) and shape.rank is not None:
            object.__setattr__(out, n, TensorShape([len(values)] + shape.as_list()[1:]))
    return out


def map_extension_rows(fn, value, opname):
    """``fn`` on each row of a batched extension value, the results batched again (extension
    values with ``batch_values``, tensors and structures of them stacked)."""
    outs = [fn(row) for row in unbatch_value(value, opname)]
    if not outs:
        raise ValueError("%s: %s has no rows to map over" % (opname, type(value).__name__))
    if isinstance(outs[0], ExtensionType):
        return batch_values(outs, opname)
    flats = [nest.flatten(o) for o in outs]
    return nest.pack_sequence_as(outs[0], [stack(list(col)) for col in zip(*flats)])


def unbatch_value(value, opname):
    """The rows (along axis 0) of a batched BatchableExtensionType value."""
    if not isinstance(value, BatchableExtensionType):
        raise TypeError("%s: %s is not a BatchableExtensionType (only those unbatch)"
                        % (opname, type(value).__name__))
    parts = value._to_components()
    if not parts:
        raise ValueError("%s: %s has no tensor fields to unbatch" % (opname,
                                                                     type(value).__name__))
    rows = [unstack(p) for p in parts]
    return [value._from_components(list(r)) for r in zip(*rows)]


def _constructing(cls, init):
    """``init`` with field assignment allowed while it runs, then the field check and
    ``__validate__`` (for the outermost constructor of a value)."""
    def __init__(self, *args, **kwargs):
        outer = _run_constructing(self, init, args, kwargs)
        if outer:
            missing = [n for n in type(self)._fields if n not in self.__dict__]
            if missing:
                raise ValueError("%s: the constructor did not set the field(s) %s"
                                 % (type(self).__name__, missing))
            validate = getattr(type(self), "__validate__", None)
            if validate is not None:
                validate(self)
    __init__.__qualname__ = init.__qualname__
    __init__.__doc__ = init.__doc__
    __init__.__wrapped__ = init
    return __init__


_SpecBase = ExtensionTypeSpec      # (the name other modules know the spec base by)


# -- the saved form of a value (fe.saved_model outputs) -------------------------------------
_registry = {}


def saved_form(value, what):
    """``value``'s class (by its registered name) and static fields as plain data, its
    components as ``{"part": k}``: what a saved model keeps to rebuild an output."""
    counter = iter(range(1 << 30))

    def form(v):
        if isinstance(v, TensorShape):
            return {"shape": list(v)}
        if isinstance(v, DType):
            return {"dtype": v.name}
        if v is None or isinstance(v, (bool, int, float, str)):
            return {"value": v}
        if isinstance(v, tuple):
            return {"tuple": [form(x) for x in v]}
        if isinstance(v, collections.abc.Mapping):
            return {"mapping": [[form(k), form(v[k])] for k in sorted(v, key=_key_order)]}
        if isinstance(v, _STATIC):
            raise _unsaveable(what, value, v)
        return {"part": next(counter)}
    return {"type": type(value)._registered_name,
            "fields": [[n, form(value.__dict__[n])] for n in type(value)._fields]}


def _unsaveable(what, value, v):
    return UnimplementedError("%s: a field of %s holds %r, which cannot be saved (expected "
                              "tensors, numbers, strings, shapes, dtypes, tuples and "
                              "mappings)" % (what, type(value).__name__, v))


def from_saved_form(form, parts, what):
    """The value ``saved_form`` described, with ``parts`` as its components."""
    try:
        cls = _registry.get(form["type"])
        if cls is None:
            raise NotFoundError("%s: the extension type %r is not defined in this program "
                                "(define or import the class before loading)"
                                % (what, form["type"]))

        def build(f):
            (tag, x), = f.items()
            if tag == "part":
                return parts[x]
            if tag == "shape":
                return TensorShape(x)
            if tag == "dtype":
                return as_dtype(x)
            if tag == "value":
                return x
            if tag == "tuple":
                return tuple(build(y) for y in x)
            if tag == "mapping":
                return _ImmutableDict((build(k), build(y)) for k, y in x)
            raise ValueError("unknown tag %r" % tag)
        out = object.__new__(cls)
        object.__setattr__(out, "_constructing", True)
        for name, f in form["fields"]:
            object.__setattr__(out, name, build(f))
        object.__setattr__(out, "_constructing", False)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise DataLossError("%s: bad saved extension value %.80r (%s)" % (what, form, e)) \
            from None
    if [n for n in cls._fields if n not in out.__dict__]:
        raise DataLossError("%s: the saved %s has other fields than the class (saved %s, "
                            "the class has %s)" % (what, form["type"],
                                                   [n for n, _ in form["fields"]],
                                                   list(cls._fields)))
    return out


# The classes here keep the module name they had before the move into fasteager._src
# (their printed types and saved references, pickles among them, name it), so that name
# still imports, as this module.
_sys.modules.setdefault("fasteager.extension_type", _sys.modules[__name__])
