"""Merging layers: combine a list of inputs (Add, Subtract, Multiply, Average, Maximum,
Minimum, Concatenate, Dot), and their function forms (``add([a, b])`` ...), as Keras 3.

>>> a, b = fe.keras.Input((4,)), fe.keras.Input((4,))
>>> fe.keras.layers.Concatenate()([a, b]).shape
TensorShape([None, 8])
"""
from ... import nn
from ...ops import elementwise_ops
from ...ops.array_ops import concat, expand_dims
from ...ops.elementwise_ops import add_n
from ...ops.linalg_ops import einsum
from ...tensor_shape import TensorShape
from .base import Layer, ListInput


def _bad(layer, msg):
    return ValueError("%s (layer %r): %s" % (type(layer).__name__, layer.name, msg))


def _shapes_of(layer, inputs, minimum):
    """The inputs' shapes, checking the layer got a list of at least ``minimum`` tensors."""
    if not isinstance(inputs, (list, tuple)) or isinstance(inputs, TensorShape):
        raise _bad(layer, "a merge layer must be called on a list of inputs (expected a list "
                   "of at least %d tensors, got %r)" % (minimum, inputs))
    if len(inputs) < minimum:
        raise _bad(layer, "a merge layer must be called on a list of at least %d inputs "
                   "(got %d)" % (minimum, len(inputs)))
    return [x if isinstance(x, TensorShape) else TensorShape(x.shape)
            for x in inputs]


class _Merge(ListInput, Layer):
    """Elementwise merges: the inputs broadcast against each other (batch included)."""

    _minimum = 1

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        shapes = _shapes_of(self, input_shape, self._minimum)
        for s in shapes[1:]:
            a, b = shapes[0].as_list(), s.as_list()
            for da, db in zip(reversed(a[1:]), reversed(b[1:])):
                if da is not None and db is not None and da != db and 1 not in (da, db):
                    raise _bad(self, "inputs with shapes %s and %s cannot be merged (expected "
                               "equal or broadcastable shapes)" % (tuple(a), tuple(b)))
        self.built = True

    def _merge(self, inputs):
        raise NotImplementedError

    def call(self, inputs):
        _shapes_of(self, inputs, self._minimum)
        return self._merge(list(inputs))


class Add(_Merge):
    """The sum of the inputs: ``Add()([a, b])``."""

    def _merge(self, inputs):
        return add_n(inputs) if len({tuple(x.shape.as_list()) for x in inputs}) == 1 \
            else _fold(elementwise_ops.add, inputs)


class Subtract(_Merge):
    """``a - b`` of exactly two inputs."""

    _minimum = 2

    def build(self, input_shape):
        if isinstance(input_shape, (list, tuple)) and len(input_shape) != 2:
            raise _bad(self, "Subtract must be called on exactly 2 inputs (got %d)"
                       % len(input_shape))
        super().build(input_shape)

    def _merge(self, inputs):
        if len(inputs) != 2:
            raise _bad(self, "Subtract must be called on exactly 2 inputs (got %d)"
                       % len(inputs))
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    """The elementwise product of the inputs."""

    def _merge(self, inputs):
        return _fold(elementwise_ops.multiply, inputs)


class Average(_Merge):
    """The elementwise mean of the inputs."""

    def _merge(self, inputs):
        return _fold(elementwise_ops.add, inputs) / float(len(inputs))


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""

    def _merge(self, inputs):
        return _fold(elementwise_ops.maximum, inputs)


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""

    def _merge(self, inputs):
        return _fold(elementwise_ops.minimum, inputs)


def _fold(fn, inputs):
    out = inputs[0]
    for x in inputs[1:]:
        out = fn(out, x)
    return out


class Concatenate(ListInput, Layer):
    """Join the inputs along ``axis`` (default the last); the other dimensions must match."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)
        self.supports_masking = True

    def build(self, input_shape):
        shapes = [s.as_list() for s in _shapes_of(self, input_shape, 1)]
        rank = len(shapes[0])
        if not -rank <= self.axis < rank:
            raise _bad(self, "axis %d is out of range for inputs of rank %d"
                       % (self.axis, rank))
        axis = self.axis % rank
        for s in shapes[1:]:
            if len(s) != rank or any(a is not None and b is not None and a != b
                                     for i, (a, b) in enumerate(zip(shapes[0], s))
                                     if i != axis):
                raise _bad(self, "a Concatenate layer requires inputs with matching shapes "
                           "except for the concatenation axis %d (got inputs shapes %s)"
                           % (self.axis, [tuple(x) for x in shapes]))
        self.built = True

    def call(self, inputs):
        _shapes_of(self, inputs, 1)
        return concat(list(inputs), axis=self.axis)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


class Dot(ListInput, Layer):
    """The dot product of two batches of tensors along ``axes`` (Keras's ``batch_dot``):
    ``Dot(axes=1)([a, b])`` of two (batch, n) inputs is (batch, 1). ``normalize=True``
    L2-normalizes both along the axes first (the cosine similarity)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axes, int):
            axes = (axes, axes)
        try:
            axes = tuple(int(a) for a in axes)
        except (TypeError, ValueError):
            axes = ()
        if len(axes) != 2:
            raise ValueError("Dot: axes must be an int or a pair of ints (got %r)" % (axes,))
        self.axes = axes
        self.normalize = bool(normalize)

    def _axes(self, shapes):
        axes = []
        for a, s in zip(self.axes, shapes):
            rank = len(s)
            if not -rank <= a < rank or a % rank == 0:
                raise _bad(self, "axes %s are out of range for inputs of shapes %s (expected "
                           "non-batch axes)" % (self.axes, [tuple(x) for x in shapes]))
            axes.append(a % rank)
        return axes

    def build(self, input_shape):
        shapes = [s.as_list() for s in _shapes_of(self, input_shape, 2)]
        if len(shapes) != 2:
            raise _bad(self, "Dot must be called on exactly 2 inputs (got %d)" % len(shapes))
        ax = self._axes(shapes)
        a, b = shapes[0][ax[0]], shapes[1][ax[1]]
        if a is not None and b is not None and a != b:
            raise _bad(self, "dimension incompatibility %s != %s (got input shapes %s and %s "
                       "along axes %s)" % (a, b, tuple(shapes[0]), tuple(shapes[1]),
                                           self.axes))
        self.built = True

    def call(self, inputs):
        shapes = [s.as_list() for s in _shapes_of(self, inputs, 2)]
        x, y = inputs
        ax = self._axes(shapes)
        if self.normalize:
            x = nn.l2_normalize(x, axis=ax[0])
            y = nn.l2_normalize(y, axis=ax[1])
        letters = "abcdefghijklmnopqrstuvw"
        xs = ["b"] + [letters[i] for i in range(len(shapes[0]) - 1)]
        ys = ["b"] + [letters[len(shapes[0]) + i] for i in range(len(shapes[1]) - 1)]
        ys[ax[1]] = xs[ax[0]] = "z"
        out = [c for c in xs if c != "z"] + [c for c in ys[1:] if c != "z"]
        result = einsum("%s,%s->%s" % ("".join(xs), "".join(ys), "".join(out)), x, y)
        if len(out) == 1:
            result = expand_dims(result, 1)
        return result

    def get_config(self):
        config = super().get_config()
        config.update(axes=list(self.axes), normalize=self.normalize)
        return config


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, normalize=False, **kwargs):
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
