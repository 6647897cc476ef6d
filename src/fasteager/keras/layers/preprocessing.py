"""Keras 3's non-random preprocessing layers: Normalization, Rescaling, Resizing,
CenterCrop, CategoryEncoding, Discretization, Hashing, HashedCrossing and Pipeline.

They follow Keras 3.15.1 (TensorFlow backend): the same arguments, defaults, configs and
values; the arithmetic runs on ``fe.keras.ops`` (resizing on ``keras.ops.image.resize``).
"""
import math

import numpy as np

from ... import dtypes, errors
from ... import strings as fe_strings
from ..._core import convert_to_tensor
from ..._src.composite.farmhash import fingerprint64, fingerprint_cat64
from ...data import Dataset
from ...ops.array_ops import broadcast_to, reshape
from ...ops.elementwise_ops import cast, equal, where
from ...ragged import RaggedTensor
from .. import _image_utils, _serialization
from .. import backend as _backend
from .. import ops as _kops
from .base import Layer, get_keras_mask


class Normalization(Layer):
    """``(x - mean) / max(sqrt(variance), epsilon)`` per position of ``axis`` (or its
    inverse with ``invert=True``); ``mean``/``variance`` are given or found by ``adapt``
    (arrays, tensors, datasets or iterables of batches, merged batch by batch as Keras
    does)."""

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, (int, np.integer)):
            axis = (int(axis),)
        else:
            axis = tuple(axis)
        self.axis = axis
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        self.supports_masking = True
        self._build_input_shape = None
        self.mean = None
        self.variance = None
        if (mean is not None) != (variance is not None):
            raise ValueError("When setting values directly, both `mean` and `variance` "
                             "must be set. Received: mean=%s and variance=%s"
                             % (mean, variance))
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError("When setting values directly, `mean` and `variance` "
                                 "must have the same shape. Received: mean shape %s and "
                                 "variance shape %s" % (np.shape(mean), np.shape(variance)))
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError("The rank of `mean` must be less than or equal to the "
                                 "number of axes (%d). Received: mean shape %s for axis %s"
                                 % (len(self.axis), np.shape(mean), self.axis))

    def build(self, input_shape):
        if input_shape is None:
            return
        shape = list(input_shape)
        ndim = len(shape)
        self._build_input_shape = tuple(shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError("All `axis` values must be in the range [-ndim, ndim). "
                             "Received inputs with ndim=%d, while axis=%s"
                             % (ndim, self.axis))
        self._keep_axis = tuple(sorted(d % ndim for d in self.axis))
        for d in self._keep_axis:
            if shape[d] is None:
                raise ValueError("All `axis` values to be kept must have a known shape. "
                                 "Received axis=%s, inputs.shape=%s, with unknown axis at "
                                 "index %d" % (self.axis, tuple(shape), d))
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [shape[d] if d in self._keep_axis else 1
                                 for d in range(ndim)]
        self._mean_and_var_shape = tuple(shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=self._mean_and_var_shape,
                                              initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(
                name="variance", shape=self._mean_and_var_shape, initializer="ones",
                trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64",
                                         initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
            return
        mean = np.asarray(self.input_mean, dtype=np.float64)
        variance = np.asarray(self.input_variance, dtype=np.float64)
        if mean.ndim:
            # the given statistics sit on the last kept axes
            expanded = [1] * ndim
            for i in range(1, mean.ndim + 1):
                expanded[self._keep_axis[-i]] = mean.shape[-i]
            mean = mean.reshape(expanded)
            variance = variance.reshape(expanded)
        dtype = self.dtype
        self.mean = broadcast_to(cast(convert_to_tensor(mean), dtype), self._broadcast_shape)
        self.variance = broadcast_to(cast(convert_to_tensor(variance), dtype),
                                     self._broadcast_shape)
        self.built = True

    def adapt(self, data):
        """Find the mean and variance of ``data`` (an array or tensor, a batched
        ``fe.data.Dataset`` or an iterable of batches) over every axis but ``axis``."""
        iterable = False
        if isinstance(data, np.ndarray) or hasattr(data, "numpy") and \
                not isinstance(data, Dataset):
            input_shape = tuple(data.shape)
        elif isinstance(data, Dataset):
            spec = data.element_spec
            spec = spec[0] if isinstance(spec, tuple) else spec
            input_shape = tuple(spec.shape.as_list())
            if len(input_shape) == 1:
                data = data.batch(128)
                spec = data.element_spec
                spec = spec[0] if isinstance(spec, tuple) else spec
                input_shape = tuple(spec.shape.as_list())
            iterable = True
        elif hasattr(data, "__iter__"):
            batches = [b[0] if isinstance(b, tuple) else b for b in data]
            if not batches:
                raise ValueError("adapt() received an empty iterable (no batches). "
                                 "Expected at least one batch.")
            input_shape = getattr(batches[0], "shape", None)
            if input_shape is None:
                raise TypeError("adapt() expects an iterable that yields arrays or tensors "
                                "with a `.shape` attribute. Got an element of type %s."
                                % type(batches[0]).__name__)
            input_shape = tuple(input_shape)
            data, iterable = batches, True
        else:
            raise TypeError("Unsupported data type: %s. `adapt` supports `np.ndarray`, "
                            "tensors, `fe.data.Dataset` and iterables of batches."
                            % type(data))
        if not self.built:
            self.build(input_shape)
        else:
            for d in self._keep_axis:
                if input_shape[d] != self._build_input_shape[d]:
                    raise ValueError("The layer was built with input_shape=%s, but adapt() "
                                     "is being called with data with an incompatible "
                                     "shape, data.shape=%s"
                                     % (self._build_input_shape, input_shape))
        if not iterable:
            # one batch: NumPy's mean and (biased) variance, as Keras computes them
            values = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
            total_mean = np.mean(values, axis=self._reduce_axis)
            total_var = np.var(values, axis=self._reduce_axis)
        else:
            npdtype = dtypes.as_dtype(self.dtype).as_numpy_dtype
            total_mean = np.zeros(self._mean_and_var_shape, npdtype)
            total_var = np.zeros(self._mean_and_var_shape, npdtype)
            total_count = 0
            for batch in data:
                batch = batch[0] if isinstance(batch, tuple) else batch
                batch = np.asarray(batch.numpy() if hasattr(batch, "numpy") else batch,
                                   dtype=npdtype)
                for d in self._keep_axis:
                    if batch.shape[d] != self._build_input_shape[d]:
                        raise ValueError("adapt() yielded a batch with incompatible shape. "
                                         "Expected %s, got %s."
                                         % (self._build_input_shape, batch.shape))
                batch_mean = np.mean(batch, axis=self._reduce_axis)
                batch_var = np.var(batch, axis=self._reduce_axis)
                count = math.prod(batch.shape[d] for d in self._reduce_axis)
                total_count += count
                weight = float(count) / total_count
                keep = 1.0 - weight
                new_mean = total_mean * keep + batch_mean * weight
                total_var = (total_var + (total_mean - new_mean) ** 2) * keep + \
                    (batch_var + (batch_mean - new_mean) ** 2) * weight
                total_mean = new_mean
        self.adapt_mean.assign(np.asarray(total_mean).astype(
            self.adapt_mean.dtype.as_numpy_dtype))
        self.adapt_variance.assign(np.asarray(total_var).astype(
            self.adapt_variance.dtype.as_numpy_dtype))
        self.finalize_state()

    def finalize_state(self):
        if self.input_mean is not None or not self.built:
            return
        dtype = self.dtype
        self.mean = cast(reshape(self.adapt_mean, self._broadcast_shape), dtype)
        self.variance = cast(reshape(self.adapt_variance, self._broadcast_shape), dtype)

    def call(self, inputs):
        if self.mean is None:
            raise ValueError("You must call `.build(input_shape)` on the layer before "
                             "using it.")
        if self.input_mean is None:
            self.finalize_state()       # the variables may have been loaded or assigned
        inputs = cast(inputs, self.dtype)
        std = _kops.maximum(_kops.sqrt(self.variance), _backend.epsilon())
        if self.invert:
            return self.mean + inputs * std
        return (inputs - self.mean) / std

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"axis": list(self.axis), "invert": self.invert,
                       "mean": np.array(self.input_mean).tolist(),
                       "variance": np.array(self.input_variance).tolist()})
        return config


class Rescaling(Layer):
    """``inputs * scale + offset`` in the layer's dtype (``scale`` may be a list, one
    value per channel)."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True

    def call(self, inputs):
        dtype = self.dtype
        scale = cast(convert_to_tensor(self.scale), dtype)
        offset = cast(convert_to_tensor(self.offset), dtype)
        if scale.shape.rank and _backend.image_data_format() == "channels_first":
            scale = reshape(scale, scale.shape.as_list() + [1] * (3 - scale.shape.rank))
        return cast(inputs, dtype) * scale + offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"scale": _serialization.serialize_keras_object(self.scale),
                       "offset": _serialization.serialize_keras_object(self.offset)})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("scale", "offset"):
            config[key] = _serialization.deserialize_keras_object(
                config[key], custom_objects=custom_objects)
        return cls(**config)


def _saturate_cast(x, dtype):
    """Cast with the values first clipped to ``dtype``'s range (Keras's saturate cast of
    a resized integer image)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer or dtype == dtypes.bool:
        info = np.iinfo(dtype.as_numpy_dtype) if dtype.is_integer else None
        if info is not None:
            x = _kops.clip(x, float(info.min), float(info.max))
    return cast(x, dtype)


class Resizing(Layer):
    """Resize images (batched or not) to ``(height, width)`` with
    ``keras.ops.image.resize``'s interpolations, aspect-ratio crop or pad; integer images
    come back rounded to their dtype."""

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height = height
        self.width = width
        self.interpolation = interpolation
        self.data_format = _image_utils.standardize_data_format(data_format)
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)

    def call(self, inputs):
        images = convert_to_tensor(inputs)
        resized = _kops.image.resize(
            images, size=(self.height, self.width), interpolation=self.interpolation,
            antialias=self.antialias, data_format=self.data_format,
            crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            pad_to_aspect_ratio=self.pad_to_aspect_ratio, fill_mode=self.fill_mode,
            fill_value=self.fill_value)
        if resized.dtype == images.dtype:
            return resized
        if images.dtype.is_integer:
            resized = _kops.round(resized)
        return _saturate_cast(resized, images.dtype)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        h_axis, w_axis = (-3, -2) if self.data_format == "channels_last" else (-2, -1)
        shape[h_axis] = self.height
        shape[w_axis] = self.width
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width,
                       "interpolation": self.interpolation,
                       "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                       "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
                       "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                       "antialias": self.antialias, "data_format": self.data_format})
        return config


class CenterCrop(Layer):
    """The central ``(height, width)`` window of images (batched or not); an image smaller
    than the target is resized to it with an aspect-ratio-preserving crop (Keras's
    ``smart_resize``, bilinear)."""

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height = height
        self.width = width
        self.data_format = _image_utils.standardize_data_format(data_format)

    def call(self, inputs):
        inputs = cast(convert_to_tensor(inputs), self.dtype)
        shape = inputs.shape.as_list()
        rank = len(shape)
        if rank not in (3, 4):
            raise ValueError("CenterCrop: expected images of rank 3 (unbatched) or 4 "
                             "(batched). Received: inputs.shape=%s" % (tuple(shape),))
        if self.data_format == "channels_first":
            h_axis, w_axis = rank - 2, rank - 1
        else:
            h_axis, w_axis = rank - 3, rank - 2
        h_diff = shape[h_axis] - self.height
        w_diff = shape[w_axis] - self.width
        if h_diff >= 0 and w_diff >= 0:
            index = [slice(None)] * rank
            index[h_axis] = slice(h_diff // 2, h_diff // 2 + self.height)
            index[w_axis] = slice(w_diff // 2, w_diff // 2 + self.width)
            return inputs[tuple(index)]
        return _kops.image.resize(inputs, (self.height, self.width), interpolation="bilinear",
                                  crop_to_aspect_ratio=True, data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        if len(shape) not in (3, 4):
            raise ValueError("`input_shape` must be a non-nested tuple or list of rank-1 "
                             "with size 3 (unbatched) or 4 (batched). ")
        h_axis = len(shape) - (3 if self.data_format == "channels_last" else 2)
        shape[h_axis] = self.height
        shape[h_axis + 1] = self.width
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width,
                       "data_format": self.data_format})
        return config


def _encode_categorical(inputs, output_mode, depth, dtype, count_weights=None):
    """Keras's ``encode_categorical_inputs``: integer ids to one-hot, multi-hot or count
    vectors of ``depth`` (over the last axis; a rank-0 input is one id)."""
    if output_mode == "int":
        return cast(inputs, dtype)
    if inputs.shape.rank == 0:
        inputs = _kops.expand_dims(inputs, -1)
    if output_mode == "multi_hot":
        return _kops.nn.multi_hot(inputs, depth, dtype=dtype)
    if output_mode == "one_hot":
        shape = inputs.shape.as_list()
        if len(shape) > 1 and shape[-1] == 1:
            inputs = reshape(inputs, shape[:-1])
        return _kops.nn.one_hot(inputs, depth, dtype=dtype)
    axis = 1 if inputs.shape.rank > 1 else 0
    if count_weights is not None:
        dtype = count_weights.dtype
    encoded = _kops.nn.one_hot(inputs, depth, dtype=dtype)
    if count_weights is not None:
        encoded = encoded * _kops.expand_dims(count_weights, -1)
    return _kops.sum(encoded, axis=axis)


def _encode_rows(ids, mode, depth):
    """multi_hot/count of each row of a ragged batch of ids (Keras counts them with a
    bincount over the rows; ids at or past ``depth``, masks among them, drop)."""
    if mode == "one_hot":
        raise ValueError("one_hot output takes one token per example; got ragged token "
                         "lists (use multi_hot or count)")
    values = np.asarray(ids.flat_values.numpy()).reshape(-1)
    splits = np.asarray(ids.row_splits.numpy())
    out = np.zeros((len(splits) - 1, depth), np.int64)
    for r, (a, b) in enumerate(zip(splits[:-1], splits[1:])):
        row = values[a:b]
        np.add.at(out[r], row[row < depth], 1)
    if mode == "multi_hot":
        out = np.minimum(out, 1)
    return convert_to_tensor(out)


def _check_ids(inputs, output_mode):
    """Keras's TensorFlow path for multi_hot/count of rank <= 2 inputs counts with
    ``bincount``, which refuses negative ids (ids past the depth are dropped, as
    one-hot rows of zeros drop them everywhere else)."""
    if output_mode not in ("multi_hot", "count") or inputs.shape.rank > 2:
        return
    values = np.asarray(inputs.numpy())
    if values.size and values.min() < 0:
        raise errors.InvalidArgumentError(
            "bincount: input values must be non-negative ids (got %s)" % (values.min(),))


class CategoryEncoding(Layer):
    """Integer ids in ``[0, num_tokens)`` as one-hot, multi-hot or count vectors
    (``count_weights`` weight each id's count)."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError("Unknown arg for output_mode: %s" % (output_mode,))
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of "
                             "tokens is not known beforehand, use the IntegerLookup layer "
                             "instead.")
        if num_tokens < 1:
            raise ValueError("`num_tokens` must be >= 1. Received: num_tokens=%s."
                             % (num_tokens,))
        if sparse:
            raise ValueError("CategoryEncoding: sparse=True output is not supported by "
                             "fasteager's Keras layers (use sparse=False)")
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = sparse

    def _convert_input(self, x):
        return convert_to_tensor(x)       # ids keep their integer dtype

    def call(self, inputs, count_weights=None):
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError("`count_weights` is not used when `output_mode` is not "
                                 "`'count'`. Received `count_weights=%s`." % (count_weights,))
            count_weights = cast(convert_to_tensor(count_weights), self.dtype)
        _check_ids(inputs, self.output_mode)
        return _encode_categorical(inputs, self.output_mode, self.num_tokens, self.dtype,
                                   count_weights)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        if not shape:
            return (self.num_tokens,)
        if self.output_mode == "one_hot" and (shape[-1] != 1 or len(shape) == 1):
            return shape + (self.num_tokens,)
        return shape[:-1] + (self.num_tokens,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode})
        return config


class Discretization(Layer):
    """Bucket values by ``bin_boundaries`` (``digitize``), or by ``num_bins`` quantile
    boundaries that ``adapt`` estimates with Keras's summary algorithm (sorted samples
    every ``epsilon`` of the data, merged and compressed batch by batch); outputs ids
    (int32) or their one-hot/multi-hot/count encoding."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None):
        super().__init__(name=name, dtype=dtype)
        if sparse:
            raise ValueError("Discretization: sparse=True output is not supported by "
                             "fasteager's Keras layers (use sparse=False)")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError("The `output_mode` argument of Discretization must be one of "
                             "'int', 'one_hot', 'multi_hot', 'count'. Received: %s"
                             % (output_mode,))
        if num_bins is not None and num_bins < 0:
            raise ValueError("`num_bins` must be greater than or equal to 0. Received: "
                             "`num_bins=%s`" % (num_bins,))
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. "
                             "Received: `num_bins=%s` and `bin_boundaries=%s`"
                             % (num_bins, bin_boundaries))
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries = bin_boundaries
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse
        self.summary = None if bin_boundaries else np.array([[], []], dtype="float32")

    def _convert_input(self, x):
        return cast(convert_to_tensor(x), _backend.floatx())

    def adapt(self, data, steps=None):
        """Estimate ``num_bins`` quantile boundaries from ``data`` (an array, a batched
        dataset or an iterable of batches; ``steps`` batches at most)."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        self.reset_state()
        if isinstance(data, np.ndarray) or hasattr(data, "numpy") or \
                not hasattr(data, "__iter__"):
            self.update_state(data)
        else:
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                self.update_state(batch)
        self.finalize_state()

    def update_state(self, data):
        data = np.array(data.numpy() if hasattr(data, "numpy") else data).astype("float32")
        self.summary = _merge_summaries(_summarize(data, self.epsilon), self.summary,
                                        self.epsilon)

    def finalize_state(self):
        if self.num_bins is None:
            return
        self.bin_boundaries = _compress_summary(self.summary, 1.0 / self.num_bins)[0, :-1] \
            .tolist()

    def reset_state(self):
        if self.num_bins is None:
            return
        self.summary = np.array([[], []], dtype="float32")

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at "
                             "construction time or call `adapt(dataset)` before you can "
                             "start using the `Discretization` layer.")
        indices = _kops.digitize(inputs, self.bin_boundaries)
        out_dtype = self.dtype if self.output_mode != "int" else "int32"
        return _encode_categorical(indices, self.output_mode, len(self.bin_boundaries) + 1,
                                   out_dtype)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return input_shape
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None \
            else self.num_bins
        shape = tuple(input_shape)
        if self.output_mode == "one_hot":
            if shape and shape[-1] == 1 and len(shape) > 1:
                return shape[:-1] + (depth,)
            return shape + (depth,)
        if shape and len(shape) >= 2:
            return (shape[0],) + shape[2:] + (depth,)
        return (depth,)

    def get_config(self):
        # Keras's config of this layer has no `trainable`
        return {"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins,
                "epsilon": self.epsilon, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            boundaries = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = boundaries
            return layer
        return cls(**config)


def _summarize(values, epsilon):
    """A sorted sample of ``values`` every ``len/(1/epsilon)`` elements, with the weight
    each stands for: row 0 values, row 1 weights."""
    values = np.sort(np.reshape(values, [-1]))
    step = max(values.size / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1)::int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _merge_summaries(prev_summary, next_summary, epsilon):
    merged = np.concatenate((prev_summary, next_summary), axis=1)
    merged = np.take(merged, np.argsort(merged[0]), axis=1)
    return _compress_summary(merged, epsilon)


def _compress_summary(summary, epsilon):
    """Resample a summary at cumulative-weight fractions ``epsilon, 2 epsilon, ...``."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    fractions = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, fractions, summary[0])
    cum_weights = np.interp(percents, fractions, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


class Hashing(Layer):
    """Hash strings or integers into ``num_bins`` bins: FarmHash (``to_hash_bucket_fast``),
    or SipHash under ``salt`` (``to_hash_bucket_strong``); integers hash as their decimal
    strings (floats truncated first), ``mask_value`` goes to bin 0 and the rest to
    ``1..num_bins-1``, as Keras 3."""

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int",
                 sparse=False, **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else _backend.floatx()
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError("The `num_bins` for `Hashing` cannot be `None` or non-positive "
                             "values. Received: num_bins=%s." % (num_bins,))
        if output_mode == "int" and self.dtype not in ("int32", "int64"):
            raise ValueError("When `output_mode=\"int\"`, `dtype` should be an integer "
                             "type, 'int32' or 'in64'. Received: dtype=%s" % (kwargs["dtype"],))
        modes = ("int", "one_hot", "multi_hot", "count")
        if output_mode not in modes:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of %s. "
                             "Received: output_mode=%s" % (modes, output_mode))
        if sparse and output_mode == "int":
            raise ValueError("`sparse` may only be true if `output_mode` is `\"one_hot\"`, "
                             "`\"multi_hot\"`, or `\"count\"`. Received: sparse=%s and "
                             "output_mode=%s" % (sparse, output_mode))
        if sparse:
            raise ValueError("Hashing: sparse=True output is not supported by fasteager's "
                             "Keras layers (use sparse=False)")
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.strong_hash = salt is not None
        self.output_mode = output_mode
        self.sparse = sparse
        self.salt = None
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                self.salt = list(salt)
            elif isinstance(salt, int):
                self.salt = [salt, salt]
            else:
                raise ValueError("The `salt` argument for `Hashing` can only be a tuple of "
                                 "size 2 integers, or a single integer. Received: salt=%s."
                                 % (salt,))

    def _convert_input(self, x):
        return x if isinstance(x, RaggedTensor) else convert_to_tensor(x)

    def _hash_values_to_bins(self, values):
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = equal(values, convert_to_tensor(self.mask_value, dtype=values.dtype))
        if values.dtype.is_floating:
            values = cast(values, "int64")
        if values.dtype != dtypes.string:
            values = fe_strings.as_string(values)
        if self.strong_hash:
            out = fe_strings.to_hash_bucket_strong(values, bins, key=self.salt)
        else:
            out = fe_strings.to_hash_bucket_fast(values, bins)
        if mask is not None:
            out = where(mask, _kops.zeros_like(out), out + 1)
        return out

    def call(self, inputs):
        if isinstance(inputs, RaggedTensor):
            indices = inputs.with_flat_values(self._hash_values_to_bins(inputs.flat_values))
            if self.output_mode == "int":
                return indices
            return cast(_encode_rows(indices, self.output_mode, self.num_bins), self.dtype)
        if self.output_mode == "one_hot" and inputs.shape.rank and \
                inputs.shape.as_list()[-1] == 1:
            inputs = _kops.squeeze(inputs, axis=-1)
        indices = self._hash_values_to_bins(inputs)
        return _encode_categorical(indices, self.output_mode, self.num_bins, self.dtype)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        if len(input_shape) == 0:
            return (self.num_bins,)
        return tuple(input_shape[:-1]) + (self.num_bins,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "salt": self.salt,
                       "mask_value": self.mask_value, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config


# tf.sparse.cross_hashed's default key: the seed every crossed hash starts from
_CROSS_HASH_KEY = 0xDECAFCAFFE


def _feature_hash(value):
    """A crossed feature's hash: an integer is its own (as int64 bits), a string its
    Fingerprint64 (TensorFlow's SparseCross)."""
    if isinstance(value, bytes):
        return fingerprint64(value)
    return int(value) & (2 ** 64 - 1)


class HashedCrossing(Layer):
    """The crossed bin of several categorical features (each of shape ``()``, ``(batch,)``
    or ``(batch, 1)``): ``tf.sparse.cross_hashed``'s FingerprintCat64 chain of the
    features' hashes, modulo ``num_bins``; as ids (int64) or one-hot."""

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None,
                 **kwargs):
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype)
        if output_mode not in ("int", "one_hot"):
            raise ValueError("The `output_mode` argument of HashedCrossing must be one of "
                             "'int', 'one_hot'. Received: %s" % (output_mode,))
        if sparse:
            raise ValueError("HashedCrossing: sparse=True output is not supported by "
                             "fasteager's Keras layers (use sparse=False)")
        self.num_bins = num_bins
        self.output_mode = output_mode
        self.sparse = sparse

    def _convert_input(self, x):
        if not isinstance(x, (list, tuple)):
            # Keras's class for this call error
            raise ValueError("`HashedCrossing` should be called on a list or tuple of "  # noqa: TRY004
                             "inputs. Received: inputs=%s" % (x,))
        return [convert_to_tensor(v) for v in x]

    def call(self, inputs):
        if len(inputs) < 2:
            raise ValueError("`HashedCrossing` should be called on at least two inputs. "
                             "Received: inputs=%s" % (inputs,))
        first = tuple(inputs[0].shape.as_list())
        if len(first) > 2 or (len(first) == 2 and first[-1] != 1):
            raise ValueError("All `HashedCrossing` inputs should have shape `()`, "
                             "`(batch_size)` or `(batch_size, 1)`. Received: inputs=%s"
                             % (inputs,))
        if not all(tuple(x.shape.as_list()) == first for x in inputs[1:]):
            raise ValueError("All `HashedCrossing` inputs should have equal shape. "
                             "Received: inputs=%s" % (inputs,))
        for x in inputs:
            if not (x.dtype.is_integer or x.dtype == dtypes.string):
                raise TypeError("HashedCrossing: inputs must be integer or string tensors "
                                "(got %s)" % (x.dtype.name,))
        columns = [np.asarray(x.numpy()).reshape(-1) for x in inputs]
        ids = np.empty(columns[0].shape, np.int64)
        for row in range(ids.size):
            h = _CROSS_HASH_KEY
            for col in columns:
                h = fingerprint_cat64(h, _feature_hash(col[row]))
            ids[row] = h % self.num_bins
        out = convert_to_tensor(ids.reshape(first))
        out = _encode_categorical(out, self.output_mode, self.num_bins, self.dtype)
        return cast(out, self.dtype)

    def compute_output_shape(self, input_shape):
        first = tuple(input_shape[0])
        if self.output_mode == "int":
            return first
        if first and first[-1] != 1:
            return first + (self.num_bins,)
        return first[:-1] + (self.num_bins,)

    def get_config(self):
        # Keras's config of this layer has no `trainable`
        return {"num_bins": self.num_bins, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}


class Pipeline(Layer):
    """Apply ``layers`` in turn (each gets the previous one's output, its mask where the
    layer takes one, and ``training`` where it takes one); unlike a Sequential model it
    is a plain layer, for data pipelines."""

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        self._pipeline_layers = layers

    @property
    def layers(self):
        return self._pipeline_layers

    def _convert_input(self, x):
        return x                   # each layer converts what it takes

    def __call__(self, inputs, *args, **kwargs):
        # Keras lets a pipeline take any structure (dicts of images and labels...)
        if isinstance(inputs, (list, tuple)) and not args and not kwargs.get("mask"):
            inputs = np.asarray(inputs) if not any(hasattr(v, "numpy") or isinstance(v, dict)
                                                   for v in inputs) else inputs
        return super().__call__(inputs, *args, **kwargs)

    def call(self, inputs, training=True, mask=None):
        outputs = inputs
        for layer in self._pipeline_layers:
            kwargs = {}
            if layer._call_takes_mask:
                kwargs["mask"] = mask
            if layer._call_takes_training and training is not None:
                kwargs["training"] = training
            outputs = layer(inputs, **kwargs)
            inputs = outputs
            mask = get_keras_mask(outputs) if not isinstance(outputs, (dict, list, tuple)) \
                else None
        return outputs

    def get_config(self):
        # Keras's config of this layer: its layers and name only
        return {"layers": [_serialization.serialize_keras_object(layer)
                           for layer in self._pipeline_layers],
                "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError("`Pipeline` config must contain a `layers` key mapping to a list "  # noqa: TRY004
                             "of serialized layers. Received config with layers=%s." % (layers,))
        config = dict(config)
        # (a nested load hands the layers already rebuilt)
        config["layers"] = [x if isinstance(x, Layer) else
                            _serialization.deserialize_keras_object(
                                x, custom_objects=custom_objects) for x in layers]
        return cls(**config)
