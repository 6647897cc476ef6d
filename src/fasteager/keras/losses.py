"""Loss functions (``fe.keras.losses``) with Keras's reductions.

A loss object computes per-example losses (``call``), weights them by ``sample_weight``
and reduces: ``'sum_over_batch_size'`` (default: the sum divided by the number of
per-example losses), ``'sum'`` or ``'none'``. Probability inputs are clipped to
``[eps, 1 - eps]`` (eps = 1e-7) as Keras does; ``from_logits=True`` uses the fused,
stable ``fe.nn`` cross-entropy ops.

>>> loss = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
>>> loss([1, 0], [[0., 2.], [3., 1.]])
"""
import numpy as np

from .. import dtypes, errors, nn
from .. import math as fe_math
from .._core import convert_to_tensor
from .._src.state.variables import Variable
from ..ops import elementwise_ops
from ..ops.array_ops import (
    constant,
    expand_dims,
    fill,
    one_hot,
    ones_like,
    reshape,
    shape,
    squeeze,
    transpose,
    zeros_like,
)
from ..ops.elementwise_ops import (
    cast,
    clip_by_value,
    equal,
    log,
    logical_and,
    logical_not,
    maximum,
    minimum,
    not_equal,
    sigmoid,
    square,
    where,
)
from ..ops.linalg_ops import matmul
from ..ops.reduction_ops import reduce_logsumexp, reduce_max, reduce_mean, reduce_sum
from . import _ctc, _ops, _serialization, backend
from .layers.base import get_keras_mask, set_keras_mask

_REDUCTIONS = ("sum_over_batch_size", "sum", "none", None, "mean", "mean_with_sample_weight",
               "auto")


class Reduction:
    """The names of the loss reductions (``tf.keras.losses.Reduction``)."""
    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key: %s. Expected keys are \"%s\""
                             % (key, cls.all()))


def _t(x, dtype=None):
    if isinstance(x, Variable):
        x = x.read_value()
    t = convert_to_tensor(x)
    if dtype is not None and t.dtype != dtype:
        t = cast(t, dtype)
    return t


def _pred(y_pred):
    y = _t(y_pred)
    if not y.dtype.is_floating:
        y = cast(y, dtypes.float32)
    return y


def _match_ranks(y_true, y_pred):
    """Align ranks that differ by a trailing size-1 axis (Keras's squeeze_or_expand)."""
    rt, rp = y_true.shape.rank, y_pred.shape.rank
    if rt == rp - 1 and y_pred.shape[-1] == 1:
        y_true = expand_dims(y_true, -1)
    elif rp == rt - 1 and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, axis=-1)
    return y_true


# ---- function forms (per-example losses) -----------------------------------------------

def mean_squared_error(y_true, y_pred):
    y_pred = _pred(y_pred)
    y_true = _match_ranks(_t(y_true, y_pred.dtype), y_pred)
    return reduce_mean(square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_pred = _pred(y_pred)
    y_true = _match_ranks(_t(y_true, y_pred.dtype), y_pred)
    return reduce_mean(elementwise_ops.abs(y_pred - y_true), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    y_pred = _pred(y_pred)
    y_true = _match_ranks(_t(y_true, y_pred.dtype), y_pred)
    err = y_pred - y_true
    a = elementwise_ops.abs(err)
    quad = 0.5 * square(err)
    lin = delta * a - 0.5 * delta * delta
    return reduce_mean(where(a <= delta, quad, lin), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """Per-example cross-entropy of integer labels. With ``ignore_class``, the entries whose
    label is that class lose 0 (and pass no gradient), and the result carries a Keras mask
    of the valid entries, so that the loss object averages over those alone."""
    y_pred = _pred(y_pred)
    rank = len(y_pred._value.shape)
    if axis not in (-1, rank - 1):
        raise ValueError("sparse_categorical_crossentropy: Only axis=-1 is currently "
                         "supported. Received: axis=%s" % (axis,))
    labels = _t(y_true)
    if len(labels._value.shape) == rank and rank > 0 and labels._value.shape[-1] == 1:
        labels = squeeze(labels, axis=-1)
    if labels._value.dtype.kind == "f":
        labels = cast(labels, dtypes.int64)
    valid = None
    if ignore_class is not None:
        valid = not_equal(labels, cast(ignore_class, labels.dtype))
        # Keras sends the ignored rows through as label 0 and all-zero predictions, then
        # zeroes their losses (the where() also stops their gradient)
        labels = where(valid, labels, zeros_like(labels))
        y_pred = where(expand_dims(valid, -1), y_pred, zeros_like(y_pred))
    # (labels outside [0, classes) are refused by the cross-entropy kernel, naming the row)
    if from_logits:
        res = _ops.sparse_softmax_xent(labels, y_pred)
    else:
        eps = backend.epsilon()
        p = clip_by_value(y_pred, eps, 1.0 - eps)
        # Keras takes log(clipped p) as logits: -log(p[label] / sum(p))
        res = _ops.sparse_softmax_xent(labels, log(p))
    if valid is not None:
        res = where(valid, res, zeros_like(res))
        _set_mask(res, valid)
    return res


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_pred = _pred(y_pred)
    y_true = _t(y_true, y_pred.dtype)
    if y_true.shape.as_list() != y_pred.shape.as_list():
        raise errors.InvalidArgumentError(
            "categorical_crossentropy: y_true and y_pred must have the same shape (got %s and "
            "%s); use sparse_categorical_crossentropy for integer labels"
            % (y_true.shape.as_list(), y_pred.shape.as_list()))
    if label_smoothing:
        k = y_pred.shape[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / k
    if from_logits:
        return _ops.softmax_xent(y_true, y_pred, axis=axis)
    eps = backend.epsilon()
    p = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    p = clip_by_value(p, eps, 1.0 - eps)
    return -reduce_sum(y_true * log(p), axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_pred = _pred(y_pred)
    y_true = _match_ranks(_t(y_true, y_pred.dtype), y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return reduce_mean(_ops.sigmoid_xent(y_true, y_pred), axis=axis)
    eps = backend.epsilon()
    p = clip_by_value(y_pred, eps, 1.0 - eps)
    # Keras 3 clips and takes the logs as they are (Keras 2 added eps inside them)
    bce = y_true * log(p) + (1.0 - y_true) * log(1.0 - p)
    return -reduce_mean(bce, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error


def _pair(y_true, y_pred, match_ranks=True):
    """(y_true, y_pred) as tensors of y_pred's float dtype, ranks aligned as Keras does."""
    y_pred = _pred(y_pred)
    y_true = _t(y_true, y_pred.dtype)
    if match_ranks:
        y_true, y_pred = same_rank(y_true, y_pred)
    return y_true, y_pred


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    denom = maximum(elementwise_ops.abs(y_true), constant(backend.epsilon(), y_pred.dtype))
    return 100.0 * reduce_mean(elementwise_ops.abs((y_true - y_pred) / denom), axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    eps = constant(backend.epsilon(), y_pred.dtype)
    first = fe_math.log(maximum(y_pred, eps) + 1.0)
    second = fe_math.log(maximum(y_true, eps) + 1.0)
    return reduce_mean(square(first - second), axis=-1)


def _l2_normalize(x, axis):
    # Keras's normalize: x * min(rsqrt(sum(x^2)), 1/eps), so a zero vector stays zero
    inv = fe_math.rsqrt(reduce_sum(square(x), axis=axis, keepdims=True))
    return x * minimum(inv, constant(1.0 / backend.epsilon(), x.dtype))


def cosine_similarity(y_true, y_pred, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    return -reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis),
                          axis=axis)


def log_cosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    # log(cosh(x)) = x + softplus(-2x) - log(2), stable for large |x|
    return reduce_mean(x + nn.softplus(x * -2.0) - float(np.log(2.0)), axis=-1)


def _hinge_labels(y_true):
    """Keras turns {0, 1} labels into {-1, 1}; other labels pass unchanged."""
    v = y_true._value
    if np.all((v == 0) | (v == 1)):
        return 2.0 * y_true - 1.0
    return y_true


def hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    y_true = _hinge_labels(y_true)
    return reduce_mean(maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    y_true = _hinge_labels(y_true)
    return reduce_mean(square(maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    pos = reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(neg - pos + 1.0, 0.0)


def kl_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    eps = backend.epsilon()
    y_true = clip_by_value(y_true, eps, 1.0)
    y_pred = clip_by_value(y_pred, eps, 1.0)
    return reduce_sum(y_true * fe_math.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    return reduce_mean(y_pred - y_true * fe_math.log(y_pred + backend.epsilon()), axis=-1)


def _bool_axis(axis):
    if isinstance(axis, bool):
        raise ValueError("`axis` must be of type `int`. Received: axis=%s of type %s"
                         % (axis, type(axis)))


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        # (Keras takes the sigmoid, then the clipped probability path)
        y_pred = sigmoid(y_pred)
    eps = backend.epsilon()
    p = clip_by_value(y_pred, eps, 1.0 - eps)
    bce = -(y_true * fe_math.log(p + eps) + (1.0 - y_true) * fe_math.log(1.0 - p + eps))
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = elementwise_ops.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return reduce_mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    _bool_axis(axis)
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    if label_smoothing:
        k = y_true.shape[-1]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / k
    if from_logits:
        y_pred = nn.softmax(y_pred, axis=axis)
    eps = backend.epsilon()
    out = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    out = clip_by_value(out, eps, 1.0 - eps)
    cce = -y_true * fe_math.log(out)
    weight = elementwise_ops.pow(1.0 - out, gamma) * _t(alpha, out.dtype)
    return reduce_sum(weight * cce, axis=axis)


def dice(y_true, y_pred, axis=None):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    inter = reduce_sum(y_true * y_pred, axis=axis)
    denom = (reduce_sum(y_true, axis=axis) + reduce_sum(y_pred, axis=axis)
             + backend.epsilon())
    return 1.0 - 2.0 * inter / denom


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    y_true, y_pred = _pair(y_true, y_pred, match_ranks=False)
    inter = reduce_sum(y_true * y_pred, axis=axis)
    fp = reduce_sum((1.0 - y_pred) * y_true, axis=axis)
    fn = reduce_sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - inter / (inter + fp * alpha + fn * beta + backend.epsilon())


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True,
           gamma=80, margin=0.4):
    """Circle loss of L2-normalised embeddings ``y_pred`` with integer labels ``y_true``;
    the result carries a Keras mask of its positive entries (Keras averages over those)."""
    y_pred = _pred(y_pred)
    y_true = _t(y_true, dtypes.int32)
    ref_emb = y_pred if ref_embeddings is None else _pred(ref_embeddings)
    ref_labels = y_true if ref_labels is None else _t(ref_labels, dtypes.int32)
    dist = maximum(1.0 - matmul(y_pred, transpose(ref_emb)), 0.0)
    q = reshape(y_true, [-1, 1]) if y_true.shape.rank == 1 else y_true
    k = reshape(ref_labels, [-1, 1]) if ref_labels.shape.rank == 1 else ref_labels
    pos = equal(q, transpose(k))
    neg = logical_not(pos)
    if remove_diagonal:
        n, m = int(q._value.size), int(k._value.size)
        pos = logical_and(pos, constant(~np.eye(n, m, dtype=bool)))
    posf, negf = cast(pos, dist.dtype), cast(neg, dist.dtype)
    pos_w = maximum((margin + dist) * posf, 0.0)
    neg_w = maximum((1.0 + margin - dist) * negf, 0.0)
    pos_wd = -1.0 * gamma * pos_w * (margin - dist)
    neg_wd = gamma * neg_w * ((1.0 - margin) - dist)
    ninf = fill(shape(dist), constant(-np.inf, dist.dtype))
    p_loss = reduce_logsumexp(where(pos, pos_wd, ninf), axis=1)
    n_loss = reduce_logsumexp(where(neg, neg_wd, ninf), axis=1)
    res = nn.softplus(p_loss + n_loss)
    _set_mask(res, res > 0)
    return res


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    y_pred = _pred(y_pred)
    onehot = one_hot(cast(_t(y_true), dtypes.int32), y_pred.shape[-1], dtype=y_pred.dtype)
    p = reduce_sum(y_pred * onehot, axis=-1)
    return (1.0 - elementwise_ops.pow(p, q)) / q



def ctc(y_true, y_pred):
    """CTC loss: ``y_true`` (batch, max_length) integer labels, 0 the blank/padding;
    ``y_pred`` (batch, max_length, num_classes) logits (not softmaxed)."""
    y_true = _t(y_true)
    y_pred = _pred(y_pred)
    if y_true.shape.rank != 2:
        raise ValueError("Targets `y_true` are expected to be a tensor of shape "
                         "`(batch_size, max_length)` in integer format. Received: "
                         "y_true.shape=%s" % (tuple(y_true.shape.as_list()),))
    if y_pred.shape.rank != 3:
        raise ValueError("Logits `y_pred` are expected to be a tensor of shape "
                         "`(batch_size, max_length, num_classes)`. Received: "
                         "y_pred.shape=%s" % (tuple(y_pred.shape.as_list()),))
    labels = y_true._value.astype(np.int64)
    num_classes = y_pred.shape[-1]
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise errors.InvalidArgumentError(
            "ctc: labels must lie in [0, %d) (num_classes of y_pred); got values in [%d, %d]"
            % (num_classes, labels.min(), labels.max()))
    # (Keras counts the non-blank labels of a row and takes that many from its start)
    label_length = (labels != 0).sum(axis=-1)
    return _ctc.ctc_loss(labels, label_length, y_pred)


# the aliases Keras 3 (and its legacy module) give these functions
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
bce = BCE = binary_crossentropy


# ---- reduction ----------------------------------------------------------------------------

def _get_mask(x):
    return get_keras_mask(x)


def _set_mask(x, mask):
    set_keras_mask(x, mask)


def same_rank(x1, x2, expand_rank_1=True):
    """Keras's squeeze_or_expand_to_same_rank: where the ranks differ by one and the longer
    ends in a size-1 axis, squeeze that axis (or, where the other is a vector, expand it)."""
    r1, r2 = x1.shape.rank, x2.shape.rank
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, axis=-1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, axis=-1)
    return x1, x2


def apply_mask(sample_weight, mask, dtype, reduction):
    """Merge a Keras mask into the sample weights. For the mean reductions the valid
    entries weigh total/valid, so that the mean over the batch is the mean over the valid
    entries (0 where none is valid)."""
    if mask is None:
        return sample_weight
    mask = _t(mask)
    if mask.dtype != dtypes.bool:
        mask = cast(mask, dtypes.bool)
    if reduction in ("mean", "sum_over_batch_size"):
        total = float(mask._value.size)
        valid = reduce_sum(cast(mask, dtype))
        scale = fe_math.divide_no_nan(constant(total, dtype), valid)
        float_mask = where(mask, scale * ones_like(mask, dtype=dtype),
                              zeros_like(mask, dtype=dtype))
    else:
        float_mask = cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    float_mask, sample_weight = same_rank(float_mask, _t(sample_weight, dtype))
    return sample_weight * float_mask


def reduce_losses(losses, reduction, sample_weight=None):
    if reduction in (None, "none"):
        return losses
    if reduction == "sum":
        return reduce_sum(losses)
    if losses._value.size == 0:
        return reduce_sum(losses) * 0.0
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        return fe_math.divide_no_nan(reduce_sum(losses), reduce_sum(sample_weight))
    return reduce_mean(losses)        # the sum over the batch size, in one op


def reduce_weighted_values(losses, sample_weight=None, mask=None,
                           reduction="sum_over_batch_size"):
    """Weight ``losses`` by ``sample_weight`` and ``mask`` and reduce them, as Keras 3."""
    sample_weight = apply_mask(sample_weight, mask, losses.dtype, reduction)
    if sample_weight is not None:
        losses, sample_weight = same_rank(losses, _t(sample_weight, losses.dtype))
        losses = losses * sample_weight
    return reduce_losses(losses, reduction, sample_weight)


class Loss:
    """Base class: subclasses implement ``call(y_true, y_pred)`` (per-example losses)."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        if reduction not in _REDUCTIONS:
            # (a Keras 2 habit: Loss(reduction, name) positionally)
            if isinstance(name, str) and name in _REDUCTIONS and isinstance(reduction, str):
                name, reduction = reduction, name
            else:
                raise ValueError(
                    "Invalid value for argument `reduction`. Expected one of %s. Received: "
                    "reduction=%s" % (", ".join(repr(r) for r in _REDUCTIONS), reduction))
        self.reduction = "sum_over_batch_size" if reduction == "auto" else reduction
        self.name = name
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None

    @property
    def dtype(self):
        return (self._dtype or dtypes.float32).name

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        in_mask = _get_mask(y_pred)
        if self._dtype is not None:
            y_pred = _t(y_pred, self._dtype)
        elif getattr(y_pred, "dtype", None) == dtypes.float16:
            # a mixed-precision model's float16 output: Keras computes losses in floatx
            y_pred = cast(y_pred, dtypes.float32)
        losses = self.call(y_true, y_pred)
        out_mask = _get_mask(losses)
        if in_mask is not None and out_mask is not None:
            mask = logical_and(cast(in_mask, dtypes.bool), cast(out_mask, dtypes.bool))
        else:
            mask = in_mask if out_mask is None else out_mask
        return reduce_weighted_values(losses, sample_weight, mask, self.reduction)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A loss object around a function ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name or fn.__name__, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = super().get_config()
        config.update(self._fn_kwargs)
        return config


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 axis=-1, name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, reduction, name, dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, reduction, name, dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, reduction, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error",
                 dtype=None):
        super().__init__(mean_squared_error, reduction, name, dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error",
                 dtype=None):
        super().__init__(mean_absolute_error, reduction, name, dtype)


class Huber(LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss",
                 dtype=None):
        super().__init__(huber, reduction, name, dtype, delta=delta)



class MeanAbsolutePercentageError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, reduction, name, dtype)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, reduction, name, dtype)


class CosineSimilarity(LossFunctionWrapper):
    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity",
                 dtype=None):
        super().__init__(cosine_similarity, reduction, name, dtype, axis=axis)

    def get_config(self):
        # Keras 3.15.1 leaves `axis` out of this config (from_config restores axis=-1)
        return Loss.get_config(self)


class LogCosh(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, reduction, name, dtype)


class Hinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, reduction, name, dtype)


class SquaredHinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, reduction, name, dtype)


class CategoricalHinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge",
                 dtype=None):
        super().__init__(categorical_hinge, reduction, name, dtype)


class KLDivergence(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, reduction, name, dtype)


class Poisson(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, reduction, name, dtype)


class BinaryFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                 label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_focal_crossentropy", dtype=None):
        super().__init__(binary_focal_crossentropy, reduction, name, dtype,
                         apply_class_balancing=apply_class_balancing, alpha=alpha,
                         gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy",
                 dtype=None):
        super().__init__(categorical_focal_crossentropy, reduction, name, dtype, alpha=alpha,
                         gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class Dice(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, reduction, name, dtype, axis=axis)


class Tversky(LossFunctionWrapper):
    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None, dtype=None):
        super().__init__(tversky, reduction, name, dtype, alpha=alpha, beta=beta, axis=axis)


class Circle(LossFunctionWrapper):
    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True,
                 reduction="sum_over_batch_size", name="circle", dtype=None):
        super().__init__(circle, reduction, name, dtype, gamma=gamma, margin=margin,
                         remove_diagonal=remove_diagonal)


class CTC(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, reduction, name, dtype)


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy", dtype=None):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(categorical_generalized_cross_entropy, reduction, name, dtype, q=q)


_BY_NAME = {
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
    "huber": huber, "huber_loss": huber,
    "bce": binary_crossentropy, "BCE": binary_crossentropy,
    "MSE": mean_squared_error, "MAE": mean_absolute_error,
    "kld": kl_divergence, "KLD": kl_divergence, "kl_divergence": kl_divergence,
    "mape": mean_absolute_percentage_error, "MAPE": mean_absolute_percentage_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "msle": mean_squared_logarithmic_error, "MSLE": mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "poisson": poisson, "cosine_similarity": cosine_similarity, "log_cosh": log_cosh,
    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge,
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy,
    "dice": dice, "tversky": tversky, "circle": circle, "ctc": ctc,
}
_CLASSES = {c.__name__: c for c in (SparseCategoricalCrossentropy, CategoricalCrossentropy,
                                    BinaryCrossentropy, MeanSquaredError, MeanAbsoluteError,
                                    Huber, MeanAbsolutePercentageError,
                                    MeanSquaredLogarithmicError, CosineSimilarity, LogCosh,
                                    Hinge, SquaredHinge, CategoricalHinge, KLDivergence,
                                    Poisson, BinaryFocalCrossentropy,
                                    CategoricalFocalCrossentropy, Dice, Tversky, Circle, CTC,
                                    CategoricalGeneralizedCrossEntropy)}


def get(identifier):
    """A loss from a name ('mse', 'SparseCategoricalCrossentropy'), a Loss or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier in _BY_NAME:
            return _BY_NAME[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        raise ValueError("losses.get: unknown loss %r (known: %s)"
                         % (identifier, ", ".join(sorted(list(_BY_NAME) + list(_CLASSES)))))
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError("losses.get: cannot interpret %r as a loss" % (identifier,))


def serialize(loss):
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return getattr(loss, "__name__", repr(loss))


def deserialize(name, custom_objects=None):
    """The loss a name or a serialized dict names: a function for a function's name, an
    instance for a class name or a ``{"class_name", "config"}`` dict (Keras 3's form,
    ``{"class_name": "function", "config": "hinge"}`` included); ``custom_objects`` first."""
    custom = dict(custom_objects or {})
    if isinstance(name, str):
        if name in custom:
            obj = custom[name]
        elif name in _BY_NAME:
            return _BY_NAME[name]
        elif name in _CLASSES:
            obj = _CLASSES[name]
        else:
            raise ValueError("losses.deserialize: unknown loss %r (known: %s)"
                             % (name, ", ".join(sorted(list(_BY_NAME) + list(_CLASSES)))))
        return obj() if isinstance(obj, type) else obj
    if isinstance(name, dict) and "class_name" in name:
        cls_name, config = name["class_name"], name.get("config", {})
        if cls_name == "function" and isinstance(config, str):
            return deserialize(config, custom_objects)
        cls = custom.get(cls_name) or _CLASSES.get(cls_name)
        if cls is None or not isinstance(config, dict):
            raise ValueError("losses.deserialize: cannot build %r (expected a known loss "
                             "class with a config dict; known: %s)"
                             % (cls_name, ", ".join(sorted(_CLASSES))))
        return cls.from_config(config)
    raise ValueError("losses.deserialize: cannot interpret %r as a loss" % (name,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("losses", globals(), Loss)
_serialization.register_functions("losses", _BY_NAME)
