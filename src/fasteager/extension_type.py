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
- a ``Spec`` nested class (``fe.type_spec_from_value``-style ``MaskedTensor.Spec.from_value``),
  printed with each tensor field's ``TensorSpec``.
- the composite protocol of ``fasteager.nest``: ``fe.function`` returns extension types
  through their tensor fields.
"""
import collections.abc
import types
import typing

import numpy as np

from . import _core
from .dtypes import DType, as_dtype
from .tensor_shape import TensorShape

__all__ = ["ExtensionType"]

_NO_DEFAULT = object()


def _type_name(t):
    return getattr(t, "__name__", None) or repr(t)


def _tensor_classes():
    from .ragged import RaggedTensor
    from .sparse import SparseTensor
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
        if isinstance(value, _tensor_classes()):
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
    from .strings import is_string_value
    return is_string_value(value)


def _string_tensor(value):
    from .strings import bytes_array
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
        from .sparse import to_dense
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


class _SpecBase:
    """The type of an extension value: the class and each field's spec (TensorSpec for a
    tensor field, the value itself for the others)."""

    value_type = None

    def __init__(self, **field_specs):
        self._specs = field_specs

    @classmethod
    def from_value(cls, value):
        from .data.structure import TensorSpec
        specs = {}
        for name in cls.value_type._fields:
            v = getattr(value, name)
            if isinstance(v, (_core.Tensor, _core.VariableBase)):
                t = _core.convert_to_tensor(v)
                specs[name] = TensorSpec(t.shape, t.dtype)
            elif isinstance(v, ExtensionType):
                specs[name] = type(v).Spec.from_value(v)
            else:
                specs[name] = v
        return cls(**specs)

    def __getattr__(self, name):
        try:
            return self.__dict__["_specs"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __eq__(self, other):
        return type(other) is type(self) and self._specs == other._specs

    def __hash__(self):
        return hash((type(self), tuple(sorted(map(repr, self._specs.items())))))

    def __repr__(self):
        inner = ", ".join("%s=%r" % (k, v) for k, v in self._specs.items())
        return "%s.Spec(%s)" % (self.value_type.__name__, inner)


class ExtensionType:
    """Base class of user-defined composite types (see the module docstring)."""

    _fields = ()
    _defaults = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fields, defaults = [], {}
        for klass in reversed(cls.__mro__):
            if klass is ExtensionType or not issubclass(klass, ExtensionType):
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
        try:
            hints = typing.get_type_hints(cls)
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
        spec = type("Spec", (_SpecBase,), {"value_type": cls, "__module__": cls.__module__,
                                           "__qualname__": cls.__qualname__ + ".Spec"})
        cls.Spec = spec

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

    # composite protocol of fasteager.nest (expand_composites): the tensor fields
    def _to_components(self):
        return tuple(getattr(self, n) for n in type(self)._fields
                     if isinstance(getattr(self, n), _core.Tensor))

    def _from_components(self, parts):
        out = object.__new__(type(self))
        object.__setattr__(out, "_constructing", True)
        it = iter(parts)
        for n in type(self)._fields:
            v = getattr(self, n)
            object.__setattr__(out, n, next(it) if isinstance(v, _core.Tensor) else v)
        object.__setattr__(out, "_constructing", False)
        return out


def _constructing(cls, init):
    """``init`` with field assignment allowed while it runs, then the field check and
    ``__validate__`` (for the outermost constructor of a value)."""
    def __init__(self, *args, **kwargs):
        outer = not self.__dict__.get("_constructing", False)
        object.__setattr__(self, "_constructing", True)
        try:
            init(self, *args, **kwargs)
        finally:
            if outer:
                object.__setattr__(self, "_constructing", False)
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
