"""``TensorShape``: a tuple of dimensions that compares equal to tuples and lists."""


class TensorShape(tuple):
    """The shape of a tensor.

    A tuple of ints (``None`` for an unknown dimension, only inside ``fe.function``
    traces). ``TensorShape([2, 3]) == (2, 3) == [2, 3]``.

    >>> fe.zeros([1, 784]).shape.as_list()
    [1, 784]
    """

    __slots__ = ()

    def __new__(cls, dims=()):
        if dims is None:
            raise ValueError("TensorShape: unknown rank is not supported (expected a sequence of dims)")
        if isinstance(dims, int):
            dims = (dims,)
        return tuple.__new__(cls, tuple(None if d is None else int(d) for d in dims))

    @property
    def rank(self):
        return len(self)

    @property
    def ndims(self):
        return len(self)

    @property
    def dims(self):
        return list(self)

    def as_list(self):
        return list(self)

    def num_elements(self):
        n = 1
        for d in self:
            if d is None:
                return None
            n *= d
        return n

    def is_fully_defined(self):
        return all(d is not None for d in self)

    def is_compatible_with(self, other):
        other = TensorShape(other)
        if len(self) != len(other):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self, other))

    def assert_is_compatible_with(self, other):
        """Raise ValueError unless ``other`` is compatible (TensorFlow's message)."""
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, TensorShape(other)))

    def merge_with(self, other):
        """The shape with every dimension either shape knows (TensorFlow's ``merge_with``);
        ValueError when they disagree."""
        if other is None:                          # (an unknown rank tells nothing)
            return self
        other = TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        return TensorShape([b if a is None else a for a, b in zip(self, other)])

    def __eq__(self, other):
        if isinstance(other, (tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return TensorShape(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return TensorShape(tuple(self) + tuple(other))

    def concatenate(self, other):
        return self + other

    def __repr__(self):
        return "TensorShape(%s)" % list(self)

    def __str__(self):
        if len(self) == 1:
            return "(%s,)" % ("None" if self[0] is None else self[0])
        return "(%s)" % ", ".join("None" if d is None else str(d) for d in self)
