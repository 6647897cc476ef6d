"""``fe.image.sample_distorted_bounding_box`` and its stateless form: TensorFlow's
random crop sampler for image augmentation (sample_distorted_bounding_box_op.cc).

Each attempt draws an aspect ratio in ``aspect_ratio_range``, then a height whose area
lies in ``area_range`` (as a fraction of the image), a width from the two, and an
offset; the first crop that covers at least ``min_object_covered`` of one of the
bounding boxes wins. After ``max_attempts`` failures the crop is the whole image. The
arithmetic is TensorFlow's, in float32 with its roundings, and the random numbers are
TensorFlow's too: Philox4x32-10 read one 32-bit word at a time (SimplePhilox), uniform
floats from 23 mantissa bits, uniform integers by rejection (ExactUniformInt). The
stateless op scrambles its seed pair as every TensorFlow stateless op does, so it gives
TensorFlow's crop. The stateful op with a seed gives TensorFlow's sequence of crops in
eager mode: its seeds are ``tf.random.get_seed``'s, and the state of the kernel TensorFlow
caches per seeds and attributes advances by ``max_attempts`` Philox steps a call until
``fe.random.set_seed``. With ``seed=0`` TensorFlow's kernel is seeded at random; here it
draws from fasteager's global stream.
"""
import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from . import _philox, random_ops

__all__ = ["sample_distorted_bounding_box", "stateless_sample_distorted_bounding_box"]

_F32 = np.float32
_U32 = 0xFFFFFFFF
_SIZE_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
_MAXINT32 = 2 ** 31 - 1


class _SimplePhilox:
    """TensorFlow's SimplePhilox: Philox words one at a time, four per counter step."""

    def __init__(self, key, counter):
        self._key, self._counter = key, counter
        self._buffer, self._step, self._next = None, 0, 64

    def rand32(self):
        if self._buffer is None or self._next == self._buffer.size:
            self._buffer = _philox.words(self._key, self._counter, 16, self._step).reshape(-1)
            self._step += 16
            self._next = 0
        value = int(self._buffer[self._next])
        self._next += 1
        return value

    def rand_float(self):
        # 23 random mantissa bits under exponent 0: a float in [1, 2), minus 1
        bits = np.array(0x3F800000 | (self.rand32() & 0x7FFFFF), np.uint32)
        return bits.view(np.float32)[()] - _F32(1)

    def uniform(self, n):
        """An integer uniform in [0, n) (ExactUniformInt: rejection, no modulo bias)."""
        if n & (n - 1) == 0:
            return self.rand32() & (n - 1)
        floor = (_U32 % n) + 1
        while True:
            r = self.rand32()
            if r >= floor:
                return r % n


def _lrintf(x):
    return int(np.rint(_F32(x)))


def _random_crop(width, height, min_rel, max_rel, aspect, rng):
    """(x, y, w, h) of a crop of area fraction in [min_rel, max_rel] and aspect ratio
    ``aspect``, or None (GenerateRandomCrop)."""
    if max_rel <= 0 or aspect <= 0 or width <= 0 or height <= 0 or min_rel > max_rel:
        return None
    min_area = min_rel * _F32(width) * _F32(height)
    max_area = max_rel * _F32(width) * _F32(height)
    h = _lrintf(np.sqrt(min_area / aspect))
    max_h = _lrintf(np.sqrt(max_area / aspect))
    if _lrintf(_F32(max_h) * aspect) > width:
        max_h = int((width + 0.5 - float(_F32(1e-7))) / float(aspect))
        if _lrintf(_F32(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += rng.uniform(max_h - h + 1)
    w = _lrintf(_F32(h) * aspect)
    area = _F32(w * h)
    # rounding may leave the area just outside the range: one step up, then one down
    if area < min_area:
        h += 1
        w = _lrintf(_F32(h) * aspect)
        area = _F32(w * h)
    if area > max_area:
        h -= 1
        w = _lrintf(_F32(h) * aspect)
        area = _F32(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = rng.uniform(height - h) if h < height else 0
    x = rng.uniform(width - w) if w < width else 0
    return x, y, w, h


def _covers(crop, boxes, min_covered):
    """Whether the crop (x0, y0, x1, y1) covers at least ``min_covered`` of one box of
    at least one pixel (SatisfiesOverlapConstraints)."""
    x0, y0, x1, y1 = crop
    if _F32((x1 - x0) * (y1 - y0)) < 1:
        return False
    for bx0, by0, bx1, by1 in boxes:
        area = _F32((bx1 - bx0) * (by1 - by0))
        if area < 1:
            continue
        ix0, iy0, ix1, iy1 = max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1)
        inter = _F32((ix1 - ix0) * (iy1 - iy0)) if ix0 <= ix1 and iy0 <= iy1 else _F32(0)
        if inter / area >= min_covered:
            return True
    return False


def _pair(opname, what, value, default):
    v = np.asarray(default if value is None else value, np.float32).reshape(-1)
    if v.size != 2:
        raise InvalidArgumentError("%s: %s field must specify 2 dimensions (got %d)"
                                   % (opname, what, v.size))
    return v


def _sample(opname, image_size, bounding_boxes, make_rng, min_object_covered,
            aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes):
    """The op's outputs; ``make_rng(attrs)`` gives the SimplePhilox once the arguments
    are valid (``attrs``: the kernel attributes TensorFlow caches a stateful kernel by)."""
    size_t = _core.convert_to_tensor(image_size)
    size = np.asarray(size_t._value)
    if size.dtype.name not in _SIZE_DTYPES:
        raise InvalidArgumentError("%s: image_size must be uint8, int8, int16, int32 or int64 "
                                   "(got %s)" % (opname, size.dtype.name))
    if size.ndim != 1:
        raise InvalidArgumentError("%s: image_size must be 1-dimensional (got shape %s)"
                                   % (opname, list(size.shape)))
    if size.shape[0] != 3:
        raise InvalidArgumentError("%s: image_size must contain 3 elements (got %d)"
                                   % (opname, size.shape[0]))
    boxes = np.asarray(_core.convert_to_tensor(bounding_boxes, dtype="float32")._value)
    if boxes.ndim != 3:
        raise InvalidArgumentError("%s: input boxes must be 3-dimensional [batch, num_boxes, "
                                   "coords]: %s" % (opname, list(boxes.shape)))
    if boxes.shape[2] != 4:
        raise InvalidArgumentError("%s: bounding boxes must have shape [4] or [*, 4], got %s"
                                   % (opname, list(boxes.shape)))
    covered = _F32(np.asarray(_core.convert_to_tensor(min_object_covered)._value))
    if not covered >= 0:
        raise InvalidArgumentError("%s: Min object covered must be non-negative: %s"
                                   % (opname, covered))
    aspect = _pair(opname, "Aspect ratio range", aspect_ratio_range, (0.75, 1.33))
    area = _pair(opname, "Area range", area_range, (0.05, 1.0))
    if not (aspect > 0).all():
        raise InvalidArgumentError("%s: Aspect ratio range must be positive: %s"
                                   % (opname, aspect.tolist()))
    if not (area > 0).all():
        raise InvalidArgumentError("%s: Area range must be positive: %s"
                                   % (opname, area.tolist()))
    if not (area <= 1).all():
        raise InvalidArgumentError("%s: Area range must be less than or equal to 1.0: %s"
                                   % (opname, area.tolist()))
    attempts = 100 if max_attempts is None else int(max_attempts)
    if attempts <= 0:
        raise InvalidArgumentError("%s: Max attempts must be positive (got %d)"
                                   % (opname, attempts))
    height, width = int(size[0]), int(size[1])
    if height < 0 or width < 0:
        raise InvalidArgumentError("%s: image_size must be non-negative (got %s)"
                                   % (opname, size.tolist()))
    rects = []
    for b in boxes.reshape(-1, 4):
        bad = b[(b < 0) | (b > 1) | np.isnan(b)]
        if bad.size:
            raise InvalidArgumentError("%s: All bounding box coordinates must be in [0.0, "
                                       "1.0]: %s" % (opname, bad[0]))
        rects.append((int(b[1] * _F32(width)), int(b[0] * _F32(height)),
                      int(b[3] * _F32(width)), int(b[2] * _F32(height))))
    whole = (0, 0, width, height)
    if not rects:
        if not use_image_if_no_bounding_boxes:
            raise InvalidArgumentError(
                "%s: No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding "
                "boxes." % opname)
        rects.append(whole)
    rng = make_rng((size.dtype.name, tuple(aspect.tolist()), tuple(area.tolist()), attempts,
                    bool(use_image_if_no_bounding_boxes)))
    crop = whole
    for _ in range(attempts):
        ratio = rng.rand_float() * (aspect[1] - aspect[0]) + aspect[0]
        found = _random_crop(width, height, area[0], area[1], ratio, rng)
        if found is not None:
            x, y, w, h = found
            if _covers((x, y, x + w, y + h), rects, covered):
                crop = (x, y, x + w, y + h)
                break
    x0, y0, x1, y1 = crop
    dt = size.dtype
    begin = np.array([y0, x0, 0], np.int64).astype(dt)
    extent = np.array([y1 - y0, x1 - x0, -1], np.int64).astype(dt)
    with np.errstate(invalid="ignore", divide="ignore"):     # a 0-pixel side is 0/0
        bbox = np.array([y0, x0, y1, x1], np.float32) / np.array(
            [height, width, height, width], np.float32)
    return _core.wrap(begin), _core.wrap(extent), _core.wrap(bbox.reshape(1, 1, 4))


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop of an image of ``image_size`` ([height, width, channels]) that covers
    at least ``min_object_covered`` of one of ``bounding_boxes`` ([batch, N, 4] of
    normalised [ymin, xmin, ymax, xmax]): ``(begin, size, bboxes)`` for ``fe.slice``
    (``begin`` [y, x, 0], ``size`` [h, w, -1] in image_size's dtype) and the crop as a
    [1, 1, 4] float32 box. After ``max_attempts`` (100) failed draws it is the whole
    image. A nonzero ``seed`` gives TensorFlow's sequence of crops (the kernel's state
    carries from call to call until ``fe.random.set_seed``); ``seed`` 0 draws from the
    global stream.

    >>> begin, size, box = fe.image.sample_distorted_bounding_box(
    ...     [64, 64, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=1)
    """
    seed = int(seed)

    def make_rng(attrs):
        if not seed:
            # TensorFlow seeds this kernel at random; fasteager draws the key from its
            # global stream (so fe.random.set_seed makes it reproducible)
            words = random_ops._rng_for(None).integers(0, 2 ** 32, size=4)
            return _SimplePhilox((int(words[0]), int(words[1])),
                                 (0, 0, int(words[2]), int(words[3])))
        # TensorFlow's get_seed: (global seed or its default, op seed), each mod 2**31-1
        g = random_ops.get_global_seed()
        seeds = ((random_ops._DEFAULT_GLOBAL_SEED if g is None else g) % _MAXINT32,
                 seed % _MAXINT32)
        if seeds == (0, 0):
            seeds = (0, _MAXINT32)
        # the kernel TensorFlow caches for these seeds and attributes keeps one Philox
        # state (key = seed, counter = seed2) and reserves max_attempts steps a call;
        # fe.random.set_seed forgets it, as TensorFlow clears its kernel cache
        key = ("sample_distorted_bounding_box", seeds, attrs)
        with random_ops._lock:
            calls = random_ops._op_streams.get(key, 0)
            random_ops._op_streams[key] = calls + 1
        s1, s2 = seeds
        counter = _philox.skip((0, 0, s2 & _U32, s2 >> 32), calls * attrs[3])
        return _SimplePhilox((s1 & _U32, s1 >> 32), counter)
    return _sample("sample_distorted_bounding_box", image_size, bounding_boxes, make_rng,
                   min_object_covered, aspect_ratio_range, area_range, max_attempts,
                   use_image_if_no_bounding_boxes)


def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """``sample_distorted_bounding_box`` as a function of ``seed`` (shape [2] ints): the
    same seed gives the same crop, TensorFlow's crop.

    >>> begin, size, box = fe.image.stateless_sample_distorted_bounding_box(
    ...     [64, 64, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=[1, 2])
    """
    opname = "stateless_sample_distorted_bounding_box"
    seed_v = np.asarray(_core.convert_to_tensor(seed)._value)
    if seed_v.dtype.kind not in "iu":
        raise InvalidArgumentError("%s: seed must be integers (got %s)"
                                   % (opname, seed_v.dtype.name))
    if seed_v.shape != (2,):
        raise InvalidArgumentError("%s: seed must have shape [2], not %s"
                                   % (opname, list(seed_v.shape)))
    key, counter = _philox.scramble_seed(int(seed_v[0]), int(seed_v[1]))
    return _sample(opname, image_size, bounding_boxes,
                   lambda attrs: _SimplePhilox(key, counter), min_object_covered,
                   aspect_ratio_range, area_range, max_attempts,
                   use_image_if_no_bounding_boxes)
