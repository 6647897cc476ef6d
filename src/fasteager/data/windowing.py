"""Datasets of datasets and back: ``window`` (elements become datasets of consecutive
elements), ``flat_map`` and ``interleave`` (datasets made from elements, read in
sequence or in turns)."""
import collections
import os

from ..errors import InvalidArgumentError
from . import structure as S
from .dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset, register
from .transforms import _call, _count


class _VariantDataset(Dataset):
    """A window: a dataset over elements already read (TensorFlow prints a window with
    this class name too)."""

    def __init__(self, elements, spec):
        self._elements, self._spec = elements, spec

    def _iter(self):
        return iter(self._elements)

    def _cardinality(self):
        return len(self._elements)

    def _element_spec(self):
        return self._spec


def _window_starts(stream, size, shift, stride, drop_remainder):
    """Lists of the elements of each window: window ``k`` holds elements ``k * shift +
    j * stride`` for ``j < size``; windows stop at the first one that would start past
    the end (or, with ``drop_remainder``, at the first incomplete one)."""
    span = (size - 1) * stride + 1
    buffer = collections.deque()    # elements from position `base` on
    base, start, ended = 0, 0, False
    while True:
        while not ended and base + len(buffer) < start + span:
            try:
                buffer.append(next(stream))
            except StopIteration:
                ended = True
        while buffer and base < start:
            buffer.popleft()
            base += 1
        if base < start or not buffer:     # the window would start past the end
            return
        picked = list(buffer)[::stride][:size]
        if len(picked) < size and drop_remainder:
            return
        yield picked
        start += shift


@register
class Window(Dataset):
    def __init__(self, input, size, shift, stride, drop_remainder):
        self._size = _count("window: size", size)
        self._shift = self._size if shift is None else _count("window: shift", shift)
        self._stride = _count("window: stride", stride)
        for name, value in (("size", self._size), ("shift", self._shift),
                            ("stride", self._stride)):
            if value <= 0:
                raise InvalidArgumentError("window: %s must be positive (expected > 0, got %d)"
                                           % (name, value))
        self._input, self._drop = input, bool(drop_remainder)

    def _iter(self):
        spec = None
        for picked in _window_starts(self._input._iter(), self._size, self._shift,
                                     self._stride, self._drop):
            if spec is None:
                spec = S.flatten(self._input._element_spec())
            columns = zip(*(S.flatten(e) for e in picked))
            yield S.pack(picked[0], [_VariantDataset(list(c), s)
                                     for c, s in zip(columns, spec)])

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _element_spec(self):
        return S.map_structure(S.DatasetSpec, self._input._element_spec())


def _dataset_of(map_func, element, opname):
    result = _call(map_func, element)
    if not isinstance(result, Dataset):
        raise TypeError("%s: map_func must return a Dataset (got %s)"
                        % (opname, type(result).__name__))
    return result


@register
class FlatMap(Dataset):
    def __init__(self, input, map_func):
        if not callable(map_func):
            raise TypeError("flat_map: map_func must be callable (got %s)"
                            % type(map_func).__name__)
        self._input, self._fn = input, map_func

    def _iter(self):
        for element in self._input._iter():
            yield from _dataset_of(self._fn, element, "flat_map")._iter()

    def _cardinality(self):
        return UNKNOWN


@register
class Interleave(Dataset):
    """tf.data's interleave order: ``cycle_length`` slots, each reading a dataset made
    from the next input element; ``block_length`` elements are taken from a slot before
    moving to the next one; an exhausted slot is refilled from the input when the cycle
    comes back to it."""

    def __init__(self, input, map_func, cycle_length, block_length):
        if not callable(map_func):
            raise TypeError("interleave: map_func must be callable (got %s)"
                            % type(map_func).__name__)
        cycle = AUTOTUNE if cycle_length is None else _count("interleave: cycle_length",
                                                               cycle_length)
        if cycle == AUTOTUNE:
            cycle = os.cpu_count() or 1
        block = 1 if block_length is None else _count("interleave: block_length",
                                                      block_length)
        if cycle <= 0 or block <= 0:
            raise InvalidArgumentError("interleave: cycle_length and block_length must be "
                                       "positive (expected > 0, got %d and %d)" % (cycle, block))
        self._input, self._fn, self._cycle, self._block = input, map_func, cycle, block

    def _iter(self):
        source = self._input._iter()
        slots = [None] * self._cycle
        open_slots, index, taken, source_ended = 0, 0, 0, False
        while not source_ended or open_slots:
            current = slots[index]
            if current is not None:
                try:
                    element = next(current)
                except StopIteration:
                    slots[index] = None
                    open_slots -= 1
                else:
                    yield element
                    taken += 1
                    if taken < self._block:
                        continue
                index, taken = (index + 1) % self._cycle, 0
            elif not source_ended:
                try:
                    element = next(source)
                except StopIteration:
                    source_ended = True
                    continue
                slots[index] = _dataset_of(self._fn, element, "interleave")._iter()
                open_slots += 1
            else:
                index, taken = (index + 1) % self._cycle, 0

    def _cardinality(self):
        return INFINITE if self._input._cardinality() == INFINITE else UNKNOWN
