"""Attention layers: ``MultiHeadAttention`` and ``Attention`` (Luong-style), as Keras 3.

``MultiHeadAttention`` keeps Keras's weights: four projection sub-layers named ``query``,
``key``, ``value`` and ``attention_output`` whose kernels have Keras's EinsumDense shapes
((dim, heads, key_dim) for the inputs, (heads, value_dim, out) for the output), so weights
copy over with ``set_weights``. The attention itself is the fused op
``scaled_dot_product_attention`` unless attention dropout is active in training or the
scores are asked for; then the same computation runs as separate ops.

>>> mha = fe.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
>>> mha(fe.zeros([1, 5, 8]), fe.zeros([1, 7, 8])).shape
TensorShape([1, 5, 8])
"""
import numpy as np

from ... import dtypes, errors
from ...ops import attention_ops
from ...ops.array_ops import constant, expand_dims, reshape, transpose, zeros_like
from ...ops.elementwise_ops import sigmoid, tanh, where
from ...ops.indexing_ops import repeat
from ...ops.linalg_ops import matmul
from ...ops.reduction_ops import reduce_sum
from ...tensor_shape import TensorShape
from .. import _ops, constraints, initializers, regularizers
from ..ops import nn as _kops_nn
from .base import Layer, ListInput


class _Projection(Layer):
    """Keras's EinsumDense for attention: contract the last ``len(in_dims)`` axes of the
    input with the kernel (in_dims + out_dims), add a bias of shape out_dims. Computed as
    one GEMM on reshaped operands."""

    def __init__(self, out_dims, n_in, use_bias, kernel_initializer, bias_initializer,
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.out_dims = tuple(int(d) for d in out_dims)
        self.n_in = n_in
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer

    def build(self, input_shape):
        in_dims = TensorShape(input_shape).as_list()[-self.n_in:]
        if any(d is None for d in in_dims):
            raise ValueError("%s: the feature dimensions of the input must be known (got input "
                             "shape %s)" % (self.name, TensorShape(input_shape)))
        self.kernel = self._add_weight("kernel", in_dims + list(self.out_dims),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._add_weight("bias", list(self.out_dims),
                                    initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        shape = inputs.shape.as_list()
        k = self.kernel.shape.as_list()
        n_in = int(np.prod(k[:self.n_in]))
        n_out = int(np.prod(self.out_dims))
        if shape[-self.n_in:] != k[:self.n_in]:
            raise errors.InvalidArgumentError(
                "%s: the input's last dimensions must be %s, as the kernel was built for "
                "(kernel shape %s, got input shape %s)" % (self.name, k[:self.n_in], k, shape))
        y = matmul(reshape(inputs, [-1, n_in]), reshape(self.kernel, [n_in, n_out]))
        y = reshape(y, shape[:-self.n_in] + list(self.out_dims))
        return y + self.bias if self.use_bias else y


def _as_mask(mask, where):
    """A mask argument as a boolean array (True = attend), or None."""
    if mask is None:
        return None
    m = np.asarray(mask.numpy() if hasattr(mask, "numpy") else mask)
    if m.dtype.kind not in "biuf":
        raise TypeError("%s: attention_mask must be boolean or numeric (got %s)"
                        % (where, m.dtype))
    return m.astype(bool)


def _masked_softmax(scores, mask):
    """Keras's masked softmax: masked scores get a large negative number added."""
    if mask is not None:
        scores = scores + attention_ops.mask_to_bias(mask, scores.dtype.as_numpy_dtype)
    return _ops.softmax(scores, axis=-1)


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al., 2017) with Keras 3's signature and weights.

    ``call(query, value, key=None, attention_mask=None, return_attention_scores=False,
    training=None, use_causal_mask=False)``: query (batch, Tq, dim), value and key (batch,
    Tv, dim); ``attention_mask`` (batch, Tq, Tv), True (or 1) where a query may attend.
    Inputs of higher rank attend over all their middle axes (``attention_axes=None``).
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for argname, v in (("num_heads", num_heads), ("key_dim", key_dim),
                           ("value_dim", key_dim if value_dim is None else value_dim)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
                raise ValueError("MultiHeadAttention: %s must be a positive int (got %r)"
                                 % (argname, v))
        if not 0 <= float(dropout) < 1:
            raise ValueError("MultiHeadAttention: dropout must be in [0, 1) (got %r)"
                             % (dropout,))
        self.num_heads = int(num_heads)
        self.key_dim = int(key_dim)
        self.value_dim = int(value_dim) if value_dim is not None else self.key_dim
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        if output_shape is not None:
            output_shape = (int(output_shape),) if isinstance(output_shape, (int, np.integer)) \
                else tuple(int(d) for d in output_shape)
        self._output_shape_arg = output_shape
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self.supports_masking = True

    def _projection(self, name, out_dims, n_in=1):
        return _Projection(out_dims, n_in, self.use_bias, self.kernel_initializer,
                           self.bias_initializer, self.kernel_regularizer,
                           self.bias_regularizer, self.kernel_constraint, self.bias_constraint,
                           name=name, dtype=self.dtype_policy)

    def build(self, query_shape, value_shape=None, key_shape=None):
        query_shape = TensorShape(query_shape)
        value_shape = query_shape if value_shape is None else TensorShape(value_shape)
        key_shape = value_shape if key_shape is None else TensorShape(key_shape)
        rank = query_shape.rank
        axes = self.attention_axes
        if axes is not None and sorted(a % rank for a in axes) != list(range(1, rank - 1)):
            raise errors.UnimplementedError(
                "MultiHeadAttention: attention_axes=%s is not supported (expected None or all "
                "the axes between batch and features, %s, for inputs of rank %d)"
                % (axes, tuple(range(1, rank - 1)), rank))
        self._query_dense = self._projection("query", (self.num_heads, self.key_dim))
        self._key_dense = self._projection("key", (self.num_heads, self.key_dim))
        self._value_dense = self._projection("value", (self.num_heads, self.value_dim))
        self._query_dense.build(query_shape)
        self._key_dense.build(key_shape)
        self._value_dense.build(value_shape)
        out = self._output_shape_arg or (query_shape[-1],)
        self._output_dense = self._projection("attention_output", out, n_in=2)
        self._output_dense.build([None, None, self.num_heads, self.value_dim])
        self.built = True

    def _maybe_build(self, inputs):
        # built in call(), from the shapes of query, value and key together
        pass

    def __call__(self, query, value=None, key=None, **kwargs):
        if value is None:
            raise TypeError("MultiHeadAttention: call(query, value, key=None, ...) needs value "
                            "(got only query)")
        return super().__call__(query, value, key, **kwargs)

    @staticmethod
    def _flatten_middle(x):
        """(batch, d1, ..., dn, features) -> (batch, d1*...*dn, features)."""
        shape = x.shape.as_list()
        if len(shape) == 3:
            return x
        return reshape(x, [shape[0], int(np.prod(shape[1:-1])), shape[-1]])

    def call(self, query, value, key=None, attention_mask=None, return_attention_scores=False,
             training=None, use_causal_mask=False, query_mask=None, value_mask=None,
             key_mask=None):
        value = self._convert_input(value)
        key = value if key is None else self._convert_input(key)
        if not self.built:
            self.build(query.shape, value.shape, key.shape)
        q_shape = query.shape.as_list()
        if query.shape.rank < 3 or value.shape.rank != query.shape.rank or \
                key.shape.rank != query.shape.rank:
            raise errors.InvalidArgumentError(
                "MultiHeadAttention (layer %r): query, value and key must have the same rank "
                ">= 3 (got shapes %s, %s and %s)" % (self.name, q_shape, value.shape.as_list(),
                                                     key.shape.as_list()))
        q = self._query_dense(self._flatten_middle(query))       # (B, Tq, H, kd)
        k = self._key_dense(self._flatten_middle(key))           # (B, Tk, H, kd)
        v = self._value_dense(self._flatten_middle(value))       # (B, Tk, H, vd)
        tq, tk = q.shape[1], k.shape[1]
        mask = self._mask(attention_mask, q_shape[0], tq, tk, use_causal_mask, query_mask,
                          value_mask if value_mask is not None else key_mask)
        q, k, v = (transpose(t, [0, 2, 1, 3]) for t in (q, k, v))   # (B, H, T, d)
        scale = 1.0 / float(np.sqrt(self.key_dim))
        dropping = bool(training) and self.dropout > 0
        if return_attention_scores or dropping:
            scores = _masked_softmax(matmul(q * scale, k, transpose_b=True),
                                     None if mask is None else mask[:, None])
            weights = _ops.dropout(scores, self.dropout, seed=self.seed) if dropping \
                else scores
            out = matmul(weights, v)
        else:
            scores = None
            out = attention_ops.scaled_dot_product_attention(
                q, k, v, mask=None if mask is None else mask[:, None], scale=scale)
        out = self._output_dense(transpose(out, [0, 2, 1, 3]))    # (B, Tq, out...)
        if len(q_shape) > 3:
            out = reshape(out, q_shape[:-1] + out.shape.as_list()[2:])
        if return_attention_scores:
            return out, scores
        return out

    def _mask(self, attention_mask, batch, tq, tk, causal, query_mask, value_mask):
        """The combined boolean mask (batch, Tq, Tk), or None when nothing is masked."""
        where = "MultiHeadAttention (layer %r)" % self.name
        mask = _as_mask(attention_mask, where)
        if mask is not None:
            if mask.ndim > 3:    # inputs of higher rank: flatten the query and key axes
                mask = mask.reshape(mask.shape[0], tq, tk)
            try:
                mask = np.broadcast_to(mask, (batch, tq, tk))
            except ValueError:
                raise errors.InvalidArgumentError(
                    "%s: attention_mask must broadcast to (batch, Tq, Tv) = %s (got shape %s)"
                    % (where, (batch, tq, tk), list(mask.shape))) from None
        extra = []
        if query_mask is not None:
            extra.append(_as_mask(query_mask, where).reshape(batch, tq, 1))
        if value_mask is not None:
            extra.append(_as_mask(value_mask, where).reshape(batch, 1, tk))
        if causal:
            extra.append(attention_ops.causal_mask(tq, tk)[None])
        for m in extra:
            mask = np.broadcast_to(m, (batch, tq, tk)) if mask is None else mask & m
        return mask

    def get_config(self):
        config = super().get_config()
        config.update(num_heads=self.num_heads, key_dim=self.key_dim,
                      value_dim=self.value_dim, dropout=self.dropout, use_bias=self.use_bias,
                      output_shape=None if self._output_shape_arg is None
                      else list(self._output_shape_arg),
                      attention_axes=None if self.attention_axes is None
                      else list(self.attention_axes), seed=self.seed)
        config.update(self._serialized("kernel_initializer", "bias_initializer",
                                       "kernel_regularizer", "bias_regularizer",
                                       "kernel_constraint", "bias_constraint"))
        return config


class Attention(ListInput, Layer):
    """Dot-product (Luong-style) attention: ``Attention()([query, value])`` or ``[query,
    value, key]``; scores ``query @ key^T`` ('dot') or ``sum(tanh(query + key))``
    ('concat'), softmax over the value steps, then the weighted sum of ``value``.

    ``use_scale`` adds a trainable scalar ``scale`` multiplying the scores;
    ``mask=[query_mask, value_mask]`` masks padded steps; ``use_causal_mask`` lets query
    i see values 0..i only.
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Attention: score_mode must be 'dot' or 'concat' (got %r)"
                             % (score_mode,))
        if not 0 <= float(dropout) < 1:
            raise ValueError("Attention: dropout must be in [0, 1) (got %r)" % (dropout,))
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        self.supports_masking = True

    def _split(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError("Attention (layer %r): inputs must be a list [query, value] or "
                             "[query, value, key] (got %r)" % (self.name, inputs))
        return inputs[0], inputs[1], inputs[2] if len(inputs) == 3 else inputs[1]

    def build(self, input_shape):
        q, v, k = self._split(input_shape)
        self.scale = self._add_weight("scale", [], initializer="ones") if self.use_scale \
            else None
        self.concat_score_weight = self._add_weight("concat_score_weight", [],
                                                   initializer="ones") \
            if self.score_mode == "concat" else None
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        summed = expand_dims(query, -2) + expand_dims(key, -3)
        if self.scale is not None:
            summed = self.scale * summed
        return self.concat_score_weight * reduce_sum(tanh(summed), axis=-1)

    def call(self, inputs, mask=None, training=None, return_attention_scores=False,
             use_causal_mask=False):
        query, value, key = self._split(inputs)
        for t in (query, value, key):
            if t.shape.rank != 3:
                raise errors.InvalidArgumentError(
                    "Attention (layer %r): query, value and key must be 3-D (batch, steps, "
                    "features) (got shapes %s)" % (self.name, [x.shape.as_list() for x in
                                                               (query, value, key)]))
        scores = self._scores(query, key)
        q_mask, v_mask = (mask if isinstance(mask, (list, tuple)) else (None, mask)) \
            if mask is not None else (None, None)
        tq, tv = scores.shape[1], scores.shape[2]
        score_mask = None
        if v_mask is not None:
            score_mask = _as_mask(v_mask, "Attention")[:, None, :]
        if use_causal_mask:
            causal = attention_ops.causal_mask(tq, tv)[None]
            score_mask = causal if score_mask is None else score_mask & causal
        weights = _masked_softmax(scores, score_mask)
        if training and self.dropout > 0:
            weights = _ops.dropout(weights, self.dropout, seed=self.seed)
        out = matmul(weights, value)
        if q_mask is not None:
            out = out * constant(_as_mask(q_mask, "Attention")[..., None],
                                    dtype=out.dtype)
        if return_attention_scores:
            return out, weights
        return out

    def get_config(self):
        config = super().get_config()
        config.update(use_scale=self.use_scale, score_mode=self.score_mode,
                      dropout=self.dropout, seed=self.seed)
        return config


class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention: scores ``sum(scale * tanh(query + key))`` over
    the features, with ``scale`` a trainable vector of the feature size when
    ``use_scale`` (the default); otherwise as Attention."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        q, _, _ = self._split(input_shape)
        self.scale = self._add_weight("scale", [q[-1]], initializer="glorot_uniform") \
            if self.use_scale else None
        self.concat_score_weight = None
        self.built = True

    def _scores(self, query, key):
        t = tanh(expand_dims(query, -2) + expand_dims(key, -3))
        return reduce_sum(self.scale * t if self.scale is not None else t, axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config


class GroupedQueryAttention(Layer):
    """Grouped-query attention (Ainslie et al., 2023), Keras 3's ``GroupQueryAttention``:
    ``num_query_heads`` query heads share ``num_key_value_heads`` key/value heads (each
    key/value head serves ``num_query_heads // num_key_value_heads`` query heads).

    ``call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
    attention_mask=None, return_attention_scores=False, training=None,
    use_causal_mask=False)`` on (batch, T, dim) inputs; projections ``query``, ``key``,
    (``gate`` with ``use_gate``), ``value`` and ``attention_output`` with Keras's kernel
    shapes; ``sliding_window`` limits each query to keys less than that many steps away.
    """

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0,
                 use_bias=True, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        self.head_dim = head_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        if num_query_heads % num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        self.num_repeats = num_query_heads // num_key_value_heads
        self.dropout = dropout
        self.use_bias = use_bias
        self.use_gate = use_gate
        if sliding_window is not None and (isinstance(sliding_window, bool) or not
                                           isinstance(sliding_window, int) or
                                           sliding_window <= 0):
            raise ValueError("`sliding_window` must be `None` or a positive integer. "
                             "Received: sliding_window=%s" % (sliding_window,))
        self.sliding_window = sliding_window
        # (flash attention is a kernel choice on accelerators; the values are the same,
        # and, as Keras, it rules out dropout and returned scores)
        self._flash_attention = bool(flash_attention)
        if self._flash_attention and self.dropout > 0.0:
            raise ValueError("Dropout is not supported when flash attention is enabled. "
                             "Please set dropout to 0.0 to use flash attention.")
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed

    _projection = MultiHeadAttention._projection
    _maybe_build = MultiHeadAttention._maybe_build

    def __call__(self, query, value=None, key=None, **kwargs):
        if value is None:
            raise TypeError("GroupedQueryAttention: call(query, value, key=None, ...) needs "
                            "value (got only query)")
        return super().__call__(query, value, key, **kwargs)

    def build(self, query_shape, value_shape=None, key_shape=None):
        query_shape = TensorShape(query_shape)
        value_shape = query_shape if value_shape is None else TensorShape(value_shape)
        key_shape = value_shape if key_shape is None else TensorShape(key_shape)
        self.feature_dim = query_shape[-1]
        q_heads = (self.num_query_heads, self.head_dim)
        kv_heads = (self.num_key_value_heads, self.head_dim)
        self._query_dense = self._projection("query", q_heads)
        self._query_dense.build(query_shape)
        self._key_dense = self._projection("key", kv_heads)
        self._key_dense.build(key_shape)
        if self.use_gate:
            self._gate_dense = self._projection("gate", q_heads)
            self._gate_dense.build(query_shape)
        self._value_dense = self._projection("value", kv_heads)
        self._value_dense.build(value_shape)
        self._output_dense = self._projection("attention_output", (self.feature_dim,), n_in=2)
        self._output_dense.build([None, None, self.num_query_heads, self.head_dim])
        self.built = True

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        if self._flash_attention and return_attention_scores:
            raise ValueError("Returning attention scores is not supported when flash "
                             "attention is enabled. Please disable flash attention to "
                             "access attention scores.")
        value = self._convert_input(value)
        key = value if key is None else self._convert_input(key)
        if not self.built:
            self.build(query.shape, value.shape, key.shape)
        for t in (query, value, key):
            if t.shape.rank != 3:
                raise errors.InvalidArgumentError(
                    "GroupedQueryAttention (layer %r): query, value and key must be 3-D "
                    "(batch, steps, features) (got shapes %s)"
                    % (self.name, [x.shape.as_list() for x in (query, value, key)]))
        batch, tq, tk = query.shape[0], query.shape[1], value.shape[1]
        mask = MultiHeadAttention._mask(self, attention_mask, batch, tq, tk, use_causal_mask,
                                        query_mask, value_mask)
        if key_mask is not None:
            km = _as_mask(key_mask, "GroupedQueryAttention").reshape(batch, 1, tk)
            mask = np.broadcast_to(km, (batch, tq, tk)) if mask is None else mask & km
        if self.sliding_window is not None:
            steps = np.arange(max(tq, tk))
            band = (np.abs(steps[:tq, None] - steps[None, :tk]) < self.sliding_window)[None]
            mask = np.broadcast_to(band, (batch, tq, tk)) if mask is None else mask & band
        gate = sigmoid(self._gate_dense(query)) if self.use_gate else None
        q = self._query_dense(query)                                   # (B, Tq, Hq, d)
        k = repeat(self._key_dense(key), self.num_repeats, axis=2)
        v = repeat(self._value_dense(value), self.num_repeats, axis=2)
        scale = 1.0 / float(np.sqrt(float(self.head_dim)))
        mask = None if mask is None else mask[:, None]                 # (B, 1, Tq, Tk)
        dropping = bool(training) and self.dropout > 0
        # masked scores are replaced (not offset) by -1e9, as Keras's Softmax and
        # dot_product_attention: no gradient reaches them; a fully masked row is uniform
        # in the fused path and zero in the scores path, as in Keras
        if return_attention_scores or dropping:
            q, k, v = (transpose(t, [0, 2, 1, 3]) for t in (q, k, v))   # (B, H, T, d)
            logits = matmul(q * scale, k, transpose_b=True)
            keep = None if mask is None else np.broadcast_to(mask, logits.shape)
            if keep is not None:
                logits = where(keep, logits,
                               constant(-3e4 if logits.dtype == dtypes.float16 else -1e9,
                                        logits.dtype))
            scores = _ops.softmax(logits, axis=-1)
            if keep is not None:       # (Keras's Softmax zeroes a fully masked row here)
                scores = where(keep, scores, zeros_like(scores))
            weights = _ops.dropout(scores, self.dropout, seed=self.seed) if dropping \
                else scores
            out = transpose(matmul(weights, v), [0, 2, 1, 3])          # (B, Tq, Hq, d)
        else:
            scores = None
            out = _kops_nn.dot_product_attention(q, k, v, mask=mask, scale=scale)
        if gate is not None:
            out = out * gate
        out = self._output_dense(out)
        if return_attention_scores:
            return out, scores
        return out

    def compute_output_shape(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        if query_shape[-1] != value_shape[-1]:
            raise ValueError("The last dimension of `query_shape` and `value_shape` must be "
                             "equal, but are %s, %s. Received: query_shape=%s, value_shape=%s"
                             % (query_shape[-1], value_shape[-1], query_shape, value_shape))
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError("All dimensions of `value` and `key`, except the last one, must "
                             "be equal. Received: value_shape=%s and key_shape=%s"
                             % (value_shape, key_shape))
        return query_shape

    def get_config(self):
        config = super().get_config()
        config.update(head_dim=self.head_dim, num_query_heads=self.num_query_heads,
                      num_key_value_heads=self.num_key_value_heads, use_bias=self.use_bias,
                      use_gate=self.use_gate, sliding_window=self.sliding_window,
                      dropout=self.dropout, seed=self.seed)
        config.update(self._serialized("kernel_initializer", "bias_initializer",
                                       "kernel_regularizer", "bias_regularizer",
                                       "activity_regularizer", "kernel_constraint",
                                       "bias_constraint"))
        return config


GroupQueryAttention = GroupedQueryAttention
