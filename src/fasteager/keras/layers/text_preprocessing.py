"""Keras 3's vocabulary layers: StringLookup, IntegerLookup (one lookup core) and
TextVectorization (standardize, split, n-grams, then a StringLookup).

They follow Keras 3.15.1 (TensorFlow backend): the vocabulary order ``adapt`` builds
(most frequent first, ties by the larger token), the mask and OOV indices, OOV hashing
(``floormod`` for integers, FarmHash or salted SipHash for strings), the encodings
(int, one_hot, multi_hot, count, tf_idf with Keras's inverse document frequency), configs
and vocabulary files. The table is a Python dict over the tokens (bytes or ints).
"""
import collections
import math
import os

import numpy as np

from ... import dtypes, errors
from ... import strings as fe_strings
from ..._core import convert_to_tensor
from ...data import Dataset
from ...ragged import RaggedTensor
from .. import _serialization
from .. import backend as _backend
from .base import KerasTensor, Layer
from .preprocessing import _encode_categorical, _encode_rows

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
_INT64_MAX = np.iinfo(np.int64).max
# TextVectorization's strip_punctuation: the characters TensorFlow's regex removes
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


def _tolist(x):
    """A vocabulary or weights argument as plain Python lists (config form)."""
    if hasattr(x, "numpy"):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        x = x.tolist()
    return x


def _as_array(inputs):
    return np.asarray(inputs) if isinstance(inputs, (list, tuple, str, bytes, int)) \
        else inputs


def _refuse_vocabulary_file(config):
    """A saved config naming a vocabulary file would read any file on this machine:
    refused in safe mode, as Keras 3 refuses it."""
    vocabulary = config.get("vocabulary")
    if isinstance(vocabulary, str) and _serialization.in_safe_mode():
        raise ValueError("Requested the loading of a vocabulary file outside of the model "
                         "archive. This carries a potential risk of loading arbitrary and "
                         "sensitive files and thus it is disallowed by default. If you trust "
                         "the source of the artifact, you can override this error by "
                         "passing `safe_mode=False` to the loading function, or calling "
                         "`keras.config.enable_unsafe_deserialization()`. Vocabulary file: "
                         "'%s'" % vocabulary)


class _IndexLookup(Layer):
    """Maps tokens to indices (or back, with ``invert``): index 0 the mask token when
    there is one (int mode), then ``num_oov_indices`` OOV slots, then the vocabulary."""

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype,
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 sparse=False, pad_to_max_tokens=False, oov_method="floormod", name=None,
                 salt=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If set, `max_tokens` must be greater than 1. Received: "
                             "max_tokens=%s" % (max_tokens,))
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. "
                             "Received: max_tokens=%s" % (max_tokens,))
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. "
                             "Received: num_oov_indices=%s" % (num_oov_indices,))
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError("The `oov_method` argument of %s must be one of 'floormod', "
                             "'farmhash'. Received: %s" % (type(self).__name__, oov_method))
        vocabulary_dtype = dtypes.as_dtype(vocabulary_dtype).name
        if salt is not None:
            if vocabulary_dtype != "string" and oov_method != "farmhash":
                raise ValueError("`salt` can only be used when `oov_method='farmhash'`. "
                                 "Received: oov_method=%s" % (oov_method,))
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                salt = list(salt)
            elif isinstance(salt, int):
                salt = [salt, salt]
            else:
                raise ValueError("The `salt` argument for `IndexLookup` can only be a tuple "
                                 "of 2 integers, or a single integer. Received: salt=%s."
                                 % (salt,))
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode == "tf-idf":
            output_mode = "tf_idf"
        if output_mode not in _MODES:
            raise ValueError("The `output_mode` argument of %s must be one of %s. "
                             "Received: %s" % (type(self).__name__,
                                               ", ".join(repr(m) for m in _MODES),
                                               output_mode))
        if invert and output_mode != "int":
            raise ValueError("`output_mode` must be `'int'` when `invert` is true. "
                             "Received: output_mode=%s" % (output_mode,))
        if sparse and output_mode == "int":
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, "
                             "`'multi_hot'`, `'count'` or `'tf_idf'`. Received: sparse=%s "
                             "and output_mode=%s" % (sparse, output_mode))
        if sparse:
            raise ValueError("%s: sparse=True output is not supported by fasteager's Keras "
                             "layers (use sparse=False)" % type(self).__name__)
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError("`idf_weights` should only be set if `output_mode` is "
                             "`'tf_idf'`. Received: idf_weights=%s and output_mode=%s"
                             % (idf_weights, output_mode))
        frozen_size = kwargs.pop("vocabulary_size", None)
        has_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        if kwargs:
            raise ValueError("Unrecognized keyword argument(s): %s" % (kwargs,))
        super().__init__(name=name)
        self.invert = invert
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.vocabulary_dtype = vocabulary_dtype
        self.oov_method = oov_method
        self.salt = salt
        self._frozen_vocab_size = frozen_size
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = has_vocabulary
        self._tokens = []            # the learned or given tokens, in index order
        self._table = {}
        self.idf_weights = None
        if output_mode == "tf_idf":
            if has_vocabulary and idf_weights is None:
                raise ValueError("When specifying the `vocabulary` argument, in TF-IDF "
                                 "output mode, the `idf_weights` argument must also be "
                                 "provided.")
            if idf_weights is not None:
                self.idf_weights = np.asarray(idf_weights, dtype=_backend.floatx())
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.reset_state()

    def __call__(self, inputs, *args, **kwargs):
        # Keras takes plain lists of tokens here (not only tensors)
        return super().__call__(_as_array(inputs), *args, **kwargs)

    # ---- keys ---------------------------------------------------------------------------
    def _key(self, token):
        """A token as the table holds it: bytes for strings, int for integers."""
        if self.vocabulary_dtype == "string":
            if isinstance(token, bytes):
                return token
            return str(token).encode(getattr(self, "encoding", "utf-8"))
        return int(token)

    def _text(self, key):
        """A table key as get_vocabulary returns it (str for strings)."""
        if isinstance(key, bytes):
            return key.decode(getattr(self, "encoding", "utf-8"))
        return key

    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    # ---- vocabulary ---------------------------------------------------------------------
    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary by index (mask and OOV tokens first unless
        ``include_special_tokens=False``)."""
        vocab = [self.oov_token] * self._token_start_index() + \
            [self._text(t) for t in self._tokens]
        if self.mask_token is not None and self.output_mode == "int":
            vocab[0] = self.mask_token
        if not include_special_tokens:
            vocab = vocab[self._token_start_index():]
        return vocab

    def vocabulary_size(self):
        """The number of indices, mask and OOV ones included."""
        return len(self._tokens) + self._token_start_index()

    def _record_vocabulary_size(self):
        if self.output_mode != "int" and not self.pad_to_max_tokens:
            size = self.vocabulary_size()
            if self._frozen_vocab_size is not None and size != self._frozen_vocab_size:
                raise RuntimeError(
                    "When using `output_mode=%s` and `pad_to_max_tokens=False`, the "
                    "vocabulary size cannot be changed after the layer is called. Old "
                    "vocab size is %d, new vocab size is %d"
                    % (self.output_mode, self._frozen_vocab_size, size))
        self._frozen_vocab_size = self.vocabulary_size()

    def _set_tokens(self, tokens):
        start = self._token_start_index()
        self._tokens = [self._key(t) for t in tokens]
        self._table = {t: start + i for i, t in enumerate(self._tokens)}

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (a list, array, tensor or the path of a text file with one
        token a line) and, for ``tf_idf``, its inverse document frequencies."""
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. "
                             "Received: output_mode=%s and idf_weights=%s"
                             % (self.output_mode, idf_weights))
        if isinstance(vocabulary, str):
            if not os.path.exists(vocabulary):
                raise ValueError("Vocabulary file %s does not exist." % vocabulary)
            if self.output_mode == "tf_idf":
                raise ValueError("output_mode `'tf_idf'` does not support loading a "
                                 "vocabulary from file.")
            with open(vocabulary, encoding="utf-8") as f:
                lines = f.read().splitlines()
            tokens = lines if self.vocabulary_dtype == "string" else [int(v) for v in lines]
            if self._find_repeated(tokens):
                raise errors.FailedPreconditionError(
                    "%s: the vocabulary file %s has repeated tokens: %s"
                    % (type(self).__name__, vocabulary, self._find_repeated(tokens)))
            self._set_tokens(tokens)
            self._record_vocabulary_size()
            return
        if hasattr(vocabulary, "numpy"):
            vocabulary = vocabulary.numpy()
        vocabulary = [self._text(v) if isinstance(v, bytes) else v
                      for v in np.asarray(vocabulary).tolist()]
        if hasattr(idf_weights, "numpy"):
            idf_weights = idf_weights.numpy()
        if not vocabulary:
            raise ValueError("Cannot set an empty vocabulary. Received: vocabulary=%s"
                             % (vocabulary,))
        start = self._token_start_index()
        special = [self.mask_token] * self._oov_start_index() + \
            [self.oov_token] * self.num_oov_indices
        found_special = vocabulary[:start] == special
        tokens = vocabulary[start:] if found_special else vocabulary
        repeated = self._find_repeated(tokens)
        if repeated:
            raise ValueError("The passed vocabulary has at least one repeated term. Please "
                             "uniquify your dataset. The repeated terms are: %s" % repeated)
        for token, name in ((self.mask_token, "mask"),
                            (self.oov_token if self.invert else None, "OOV")):
            if token is not None and token in tokens:
                where = len(vocabulary) - 1 - vocabulary[::-1].index(token)
                raise ValueError(
                    "Found reserved %s token at unexpected location in `vocabulary`. Note "
                    "that passed `vocabulary` does not need to include the OOV and mask "
                    "tokens. Either remove all mask and OOV tokens, or include them only at "
                    "the start of the vocabulary in precisely this order: %s. Received: "
                    "%s_token=%s at vocabulary index [%d]"
                    % (name, special, "mask" if name == "mask" else "oov", token, where))
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab "
                             "size. Received vocabulary size is %d; `max_tokens` is %d."
                             % (start + len(tokens), self.max_tokens))
        self._set_tokens(tokens)
        self._record_vocabulary_size()
        if self.output_mode == "tf_idf":
            if len(vocabulary) != len(idf_weights):
                raise ValueError("`idf_weights` must be the same length as vocabulary. "
                                 "len(idf_weights) is %d; len(vocabulary) is %d"
                                 % (len(idf_weights), len(vocabulary)))
            idf_weights = np.asarray(idf_weights)
            if idf_weights.ndim != 1:
                raise ValueError("TF-IDF data must be a 1-index array. Received: "
                                 "type(idf_weights)=%s" % type(idf_weights))
            front = 0 if found_special else start
            front_value = 0 if found_special else np.average(idf_weights)
            back = self.max_tokens - front - len(idf_weights) \
                if self.pad_to_max_tokens and self.max_tokens is not None else 0
            self.idf_weights = np.pad(idf_weights, (front, back), "constant",
                                      constant_values=(front_value, 0)) \
                .astype(_backend.floatx())

    @staticmethod
    def _find_repeated(tokens):
        counts = collections.Counter(tokens)
        return [t for t, c in counts.items() if c > 1] if len(counts) != len(tokens) else []

    # ---- assets (Keras's save_assets/load_assets: the vocabulary a config lacks) -------
    def save_assets(self, dir_path):
        """Write an adapted vocabulary (one token a line, special tokens first) and, for
        tf_idf, its weights, for ``Model.save``; a given vocabulary is in the config."""
        if self.input_vocabulary is not None:
            return
        vocabulary = self.get_vocabulary(include_special_tokens=True)
        with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(str(w) for w in vocabulary))
        if self.output_mode == "tf_idf" and self.idf_weights is not None:
            np.save(os.path.join(dir_path, "idf_weights.npy"),
                    np.asarray(self.idf_weights)[:len(vocabulary)])

    def load_assets(self, dir_path):
        """Set the vocabulary ``save_assets`` wrote (by ``load_model``)."""
        if self.input_vocabulary is not None:
            return
        path = os.path.join(dir_path, "vocabulary.txt")
        if not os.path.exists(path):
            return
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        values = lines if self.vocabulary_dtype == "string" else [int(v) for v in lines]
        idf = None
        if self.output_mode == "tf_idf":
            idf = np.load(os.path.join(dir_path, "idf_weights.npy"), allow_pickle=False)
        has_vocabulary = self._has_input_vocabulary
        self._has_input_vocabulary = True      # (set_vocabulary, then adapt may run again)
        try:
            self.set_vocabulary(values, idf_weights=idf)
        finally:
            self._has_input_vocabulary = has_vocabulary
        if self.output_mode == "tf_idf" and self.pad_to_max_tokens and \
                self.max_tokens is not None:
            self.idf_weights = np.pad(self.idf_weights,
                                      (0, self.max_tokens - self.idf_weights.size))

    # ---- adapt --------------------------------------------------------------------------
    def reset_state(self):
        if self._has_input_vocabulary:
            return
        self._token_counts = collections.Counter()
        self._document_counts = collections.Counter()
        self._num_documents = 0

    def _rows(self, data):
        """The batch as a list of documents (lists of keys): a rank-0 or rank-1 batch is
        one document, rows otherwise (ragged rows included)."""
        if isinstance(data, RaggedTensor):
            if data.ragged_rank != 1:
                data = data.merge_dims(1, -1) if hasattr(data, "merge_dims") else data
            values = np.asarray(data.flat_values.numpy()).reshape(-1)
            splits = np.asarray(data.row_splits.numpy())
            return [[self._key(v) for v in values[a:b]] for a, b in zip(splits[:-1],
                                                                         splits[1:])]
        arr = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
        if arr.ndim <= 1:
            arr = arr.reshape(1, -1)
        return [[self._key(v) for v in row.reshape(-1).tolist()] for row in arr]

    def update_state(self, data):
        """Count the tokens of one batch."""
        if self._has_input_vocabulary:
            raise ValueError("Cannot adapt layer '%s' after setting a static vocabulary via "
                             "`vocabulary` argument or `set_vocabulary()` method." % self.name)
        rows = self._rows(data)
        for row in rows:
            self._token_counts.update(row)
        if self.output_mode == "tf_idf":
            for row in rows:
                self._document_counts.update(set(row))
            self._num_documents += len(rows)

    def finalize_state(self):
        """Build the vocabulary from the counted tokens."""
        if self._has_input_vocabulary or not self._token_counts:
            self._record_vocabulary_size()
            return
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                self._token_counts.pop(self._key(special), None)
        # most frequent first, ties by the larger token (Keras's lexsort, reversed)
        tokens = sorted(self._token_counts, key=lambda t: (self._token_counts[t], t),
                        reverse=True)
        if self.max_tokens:
            tokens = tokens[:self.max_tokens - self._token_start_index()]
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            n = self._num_documents
            idf = np.array([math.log(1 + n / (1 + self._document_counts[t]))
                            for t in tokens]).astype(_backend.floatx())
            idf = np.pad(idf, (self._token_start_index(), 0), "constant",
                         constant_values=np.mean(idf, dtype=idf.dtype))
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.pad(idf, (0, self.max_tokens - idf.size), "constant")
            self.idf_weights = idf
        self.reset_state()
        self._record_vocabulary_size()

    def adapt(self, data, steps=None):
        """Build the vocabulary (and document frequencies) from ``data``: a batched
        dataset, an iterable of batches, or one array/list/tensor (its rows the
        documents)."""
        self.reset_state()
        if isinstance(data, Dataset) or (
                hasattr(data, "__iter__") and
                not isinstance(data, (list, tuple, np.ndarray, RaggedTensor)) and
                not hasattr(data, "numpy")):
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                self.update_state(batch)
        else:
            arr = data if isinstance(data, RaggedTensor) else np.asarray(
                data.numpy() if hasattr(data, "numpy") else data)
            if not isinstance(arr, RaggedTensor) and arr.ndim == 1:
                arr = arr.reshape(-1, 1)
            self.update_state(arr)
        self.finalize_state()

    # ---- call ---------------------------------------------------------------------------
    def _convert_input(self, x):
        if isinstance(x, RaggedTensor):
            return x
        if not hasattr(x, "numpy"):
            x = np.asarray(x)
        return convert_to_tensor(x)

    def _oov_ids(self, keys):
        """The OOV indices of keys (several OOV slots: floormod or a hash)."""
        n = self.num_oov_indices
        if self.vocabulary_dtype != "string" and self.oov_method != "farmhash":
            return np.array([k % n for k in keys], np.int64)
        values = keys if self.vocabulary_dtype == "string" else [str(k) for k in keys]
        values = convert_to_tensor(np.array(values, dtype=object))
        if self.salt is not None:
            out = fe_strings.to_hash_bucket_strong(values, n, key=self.salt)
        else:
            out = fe_strings.to_hash_bucket_fast(values, n)
        return np.asarray(out.numpy(), np.int64)

    def _lookup_flat(self, flat):
        """Lookups of a flat NumPy array of input values."""
        if self.invert:
            oov = self.oov_token
            out = [self._text(self._tokens[i - self._token_start_index()])
                   if self._token_start_index() <= i < self.vocabulary_size() else oov
                   for i in (int(v) for v in flat)]
            if self.mask_token is not None:
                out = [self.mask_token if int(v) == 0 else o for v, o in zip(flat, out)]
            if self.vocabulary_dtype == "string":
                return np.array([self._key(o) for o in out], dtype=object)
            return np.array(out, dtype=np.int64)
        keys = [self._key(v) for v in flat.tolist()]
        ids = np.array([self._table.get(k, -1) for k in keys], np.int64)
        missing = ids == -1
        if self.mask_token is not None:
            mask_key = self._key(self.mask_token)
            is_mask = np.array([k == mask_key for k in keys], bool)
            missing &= ~is_mask
            ids[is_mask] = 0 if self.output_mode == "int" else _INT64_MAX
        if missing.any():
            if self.num_oov_indices == 0:
                bad = [self._text(k) for k, m in zip(keys, missing) if m]
                raise errors.InvalidArgumentError(
                    "When `num_oov_indices=0` all inputs should be in vocabulary, found "
                    "OOV values %s, consider setting `num_oov_indices=1`." % (bad,))
            missing_keys = [k for k, m in zip(keys, missing) if m]
            if self.num_oov_indices == 1:
                ids[missing] = self._oov_start_index()
            else:
                ids[missing] = self._oov_ids(missing_keys) + self._oov_start_index()
        return ids

    def _lookup(self, inputs):
        """The lookup of a tensor or RaggedTensor, in the same structure."""
        if isinstance(inputs, RaggedTensor):
            flat = inputs.flat_values
            out = self._lookup_flat(np.asarray(flat.numpy()).reshape(-1))
            return inputs.with_flat_values(convert_to_tensor(out.reshape(
                flat.shape.as_list())))
        arr = np.asarray(inputs.numpy())
        return convert_to_tensor(self._lookup_flat(arr.reshape(-1)).reshape(arr.shape))

    def call(self, inputs):
        if self.output_mode != "int" and not self.pad_to_max_tokens and \
                self._frozen_vocab_size is None:
            raise RuntimeError(
                "When using `output_mode=%s` and `pad_to_max_tokens=False`, you must set "
                "the layer's vocabulary before calling it. Either pass a `vocabulary` "
                "argument to the layer, or call `adapt` with some sample data."
                % self.output_mode)
        lookups = self._lookup(inputs)
        if self.output_mode == "int":
            return lookups
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        if isinstance(lookups, RaggedTensor):
            output = _encode_rows(lookups, mode, depth)
        else:
            output = _encode_categorical(lookups, mode, depth, "int64")
        if self.output_mode == "tf_idf":
            if self.idf_weights is None:
                raise ValueError("When `output_mode` is `'tf_idf'`, `idf_weights` must be "
                                 "provided.")
            idf = convert_to_tensor(self.idf_weights)
            output = output.numpy().astype(idf.dtype.as_numpy_dtype) * self.idf_weights
            output = convert_to_tensor(output)
        return output

    def _infer_specs(self, inputs, args, kwargs):
        # a tf_idf layer rebuilt from its config has no weights until load_model hands it
        # its assets: its symbolic output comes from the shape rule (Keras's
        # compute_output_spec) rather than from a run
        if self.output_mode == "tf_idf" and self.idf_weights is None and \
                isinstance(inputs, KerasTensor):
            shape = self.compute_output_shape(tuple(inputs.shape.as_list()))
            spec = KerasTensor(list(shape), _backend.floatx())
            return spec, [spec]
        return super()._infer_specs(inputs, args, kwargs)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        shape = tuple(input_shape)
        if self.output_mode == "one_hot":
            if len(shape) > 1 and shape[-1] == 1:
                return shape[:-1] + (depth,)
            return shape + (depth,)
        return shape[:-1] + (depth,)

    @classmethod
    def from_config(cls, config):
        _refuse_vocabulary_file(config)
        return cls(**config)

    def get_config(self):
        config = super().get_config()
        config.update({
            "invert": self.invert, "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
            "mask_token": self.mask_token, "output_mode": self.output_mode,
            "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
            "vocabulary_dtype": self.vocabulary_dtype,
            "idf_weights": _tolist(self.input_idf_weights),
            "vocabulary": _tolist(self.input_vocabulary),
            "vocabulary_size": self._frozen_vocab_size,
            "oov_method": self.oov_method, "salt": self.salt})
        return config


class StringLookup(_IndexLookup):
    """String tokens to indices (or back with ``invert``); see ``_IndexLookup``."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", name=None,
                 salt=None, **kwargs):
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, name=name,
                         salt=salt, vocabulary_dtype="string", **kwargs)

    def get_config(self):
        config = super().get_config()
        del config["vocabulary_dtype"]
        config["encoding"] = self.encoding
        return config


class IntegerLookup(_IndexLookup):
    """Integer tokens to indices (or back with ``invert``); several OOV slots take
    ``token % num_oov_indices`` (``oov_method='floormod'``) or a hash of the decimal
    string (``'farmhash'``, salted with ``salt``)."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, name=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If `max_tokens` is set for `IntegerLookup`, it must be "
                             "greater than 1. Received: max_tokens=%s" % (max_tokens,))
        if num_oov_indices < 0:
            raise ValueError("The value of `num_oov_indices` argument for `IntegerLookup` "
                             "must >= 0. Received: num_oov_indices=%s" % (num_oov_indices,))
        if vocabulary_dtype != "int64":
            raise ValueError("Only `vocabulary_dtype='int64'` is supported at this time. "
                             "Received: vocabulary_dtype=%s" % (vocabulary_dtype,))
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         vocabulary_dtype=vocabulary_dtype, idf_weights=idf_weights,
                         invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method,
                         salt=salt, name=name, **kwargs)

    def _convert_input(self, x):
        x = super()._convert_input(x)
        if isinstance(x, RaggedTensor) or x.dtype == dtypes.int64:
            return x
        if not x.dtype.is_integer:
            raise TypeError("IntegerLookup: inputs must be integers (got %s)" % x.dtype.name)
        return convert_to_tensor(np.asarray(x.numpy(), np.int64))

    def get_config(self):
        config = super().get_config()
        for key in ("oov_token", "mask_token"):
            if config[key] is not None:
                config[key] = int(config[key])
        if config["vocabulary"] is not None:
            config["vocabulary"] = [int(v) for v in config["vocabulary"]]
        return config


def _ngrams(rows, widths):
    """Each row's n-grams of each width in turn (joined by a space; rows shorter than a
    width give none of it), as ``tf.strings.ngrams``."""
    out = []
    for row in rows:
        grams = []
        for w in widths:
            grams.extend(b" ".join(row[i:i + w]) for i in range(len(row) - w + 1))
        out.append(grams)
    return out


def _ragged_strings(rows):
    splits = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    values = np.empty(int(splits[-1]), dtype=object)
    values[:] = [v for r in rows for v in r]
    return RaggedTensor.from_row_splits(convert_to_tensor(values), convert_to_tensor(splits))


class TextVectorization(Layer):
    """Strings to token ids or token-count vectors: ``standardize`` (lower case, strip
    punctuation, or a callable), ``split`` (whitespace, characters, or a callable),
    optional ``ngrams``, then a StringLookup with the empty string as mask (index 0)."""

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int",
                 output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None,
                 **kwargs):
        if not (standardize is None or callable(standardize) or standardize in
                ("lower_and_strip_punctuation", "lower", "strip_punctuation")):
            raise ValueError("The `standardize` argument of TextVectorization must be one "
                             "of 'lower_and_strip_punctuation', 'lower', "
                             "'strip_punctuation', None or a callable. Received: %s"
                             % (standardize,))
        if not (split is None or callable(split) or split in ("whitespace", "character")):
            raise ValueError("The `split` argument of TextVectorization must be one of "
                             "'whitespace', 'character', None or a callable. Received: %s"
                             % (split,))
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode == "tf-idf":
            output_mode = "tf_idf"
        if output_mode not in _MODES:
            raise ValueError("The `output_mode` argument of TextVectorization must be one "
                             "of %s. Received: %s"
                             % (", ".join(repr(m) for m in _MODES), output_mode))
        if not (ngrams is None or isinstance(ngrams, int) or
                isinstance(ngrams, tuple) and all(isinstance(i, int) for i in ngrams)):
            raise ValueError("`ngrams` must be None, an integer, or a tuple of integers. "
                             "Received: ngrams=%s" % (ngrams,))
        if output_mode == "int" and not (isinstance(output_sequence_length, int) or
                                         output_sequence_length is None):
            raise ValueError("`output_sequence_length` must be either None or an integer "
                             "when `output_mode` is 'int'. Received: "
                             "output_sequence_length=%s" % (output_sequence_length,))
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is "
                             "not 'int'. Received output_sequence_length=%s."
                             % (output_sequence_length,))
        if ragged and output_mode != "int":
            raise ValueError("`ragged` must not be true if `output_mode` is `'int'`. "
                             "Received: ragged=%s and output_mode=%s" % (ragged, output_mode))
        self._max_tokens = max_tokens
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged = ragged
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        has_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
            sparse=sparse, has_input_vocabulary=has_vocabulary, encoding=encoding,
            vocabulary_size=vocabulary_size)

    def __call__(self, inputs, *args, **kwargs):
        # Keras takes plain lists of strings here (not only tensors)
        return super().__call__(_as_array(inputs), *args, **kwargs)

    def _convert_input(self, x):
        if isinstance(x, RaggedTensor) or hasattr(x, "numpy"):
            return x
        return convert_to_tensor(np.asarray(x))

    def _infer_specs(self, inputs, args, kwargs):
        # (as the lookup's: a tf_idf layer waiting for its assets is not run)
        lookup = self._lookup_layer
        if self._output_mode == "tf_idf" and lookup.idf_weights is None and \
                isinstance(inputs, KerasTensor):
            depth = lookup.max_tokens if lookup.pad_to_max_tokens else \
                lookup._frozen_vocab_size
            spec = KerasTensor([inputs.shape.as_list()[0], depth], _backend.floatx())
            return spec, [spec]
        return super()._infer_specs(inputs, args, kwargs)

    def compute_output_shape(self, input_shape):
        if self._output_mode == "int":
            return (input_shape[0], self._output_sequence_length)
        shape = tuple(input_shape)
        if self._split is None:
            if len(shape) <= 1:
                shape = shape + (1,)
        else:
            shape = shape + (None,)
        return self._lookup_layer.compute_output_shape(shape)

    # ---- vocabulary ---------------------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None):
        """Build the vocabulary from ``data`` (strings: an array, list, tensor, batched
        dataset or iterable of batches) after standardizing and splitting it."""
        self.reset_state()
        if isinstance(data, Dataset) or (
                hasattr(data, "__iter__") and not isinstance(data, (list, tuple, np.ndarray))
                and not hasattr(data, "numpy")):
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                self.update_state(batch)
        else:
            arr = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
            if arr.ndim == 1:
                arr = arr.reshape(-1, 1)
            self.update_state(arr)
        self.finalize_state()

    def update_state(self, data):
        self._lookup_layer.update_state(self._preprocess(data))

    def finalize_state(self):
        self._lookup_layer.finalize_state()

    def reset_state(self):
        self._lookup_layer.reset_state()

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary by index ('' the padding, '[UNK]' the OOV token first)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (and ``tf_idf`` weights) directly."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    # ---- call ---------------------------------------------------------------------------
    def _preprocess(self, inputs):
        if not isinstance(inputs, RaggedTensor):
            inputs = inputs if hasattr(inputs, "numpy") else convert_to_tensor(
                np.asarray(inputs))
            if inputs.dtype != dtypes.string:
                raise TypeError("TextVectorization: inputs must be strings (got %s)"
                                % inputs.dtype.name)
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            inputs = fe_strings.lower(inputs)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            inputs = fe_strings.regex_replace(inputs, _PUNCTUATION, "")
        if callable(self._standardize):
            inputs = self._standardize(inputs)
        if self._split is not None:
            rank = inputs.shape.rank
            if rank is not None and rank > 1:
                if inputs.shape.as_list()[-1] != 1:
                    raise ValueError("When using `TextVectorization` to tokenize strings, "
                                     "the input rank must be 1 or the last shape dimension "
                                     "must be 1. Received: inputs.shape=%s with rank=%d"
                                     % (tuple(inputs.shape.as_list()), rank))
                inputs = convert_to_tensor(np.asarray(inputs.numpy()).reshape(
                    inputs.shape.as_list()[:-1]))
            if self._split == "whitespace":
                inputs = fe_strings.split(inputs)
            elif self._split == "character":
                inputs = fe_strings.unicode_split(inputs, "UTF-8")
            else:
                inputs = self._split(inputs)
        if self._ngrams is not None:
            if isinstance(inputs, RaggedTensor):
                values = np.asarray(inputs.flat_values.numpy()).reshape(-1).tolist()
                splits = np.asarray(inputs.row_splits.numpy()).tolist()
                rows = [values[a:b] for a, b in zip(splits[:-1], splits[1:])]
            else:
                arr = np.asarray(inputs.numpy())
                rows = [list(r) for r in arr.reshape(-1, arr.shape[-1] if arr.ndim else 1)]
            inputs = _ragged_strings(_ngrams(rows, self._ngrams))
        return inputs

    def call(self, inputs):
        lookups = self._lookup_layer(self._preprocess(inputs))
        if self._output_mode != "int":
            return lookups
        length = self._output_sequence_length
        if isinstance(lookups, RaggedTensor):
            if self._ragged:
                if length is None:
                    return lookups
                values = np.asarray(lookups.flat_values.numpy())
                splits = np.asarray(lookups.row_splits.numpy())
                starts, ends = splits[:-1], np.minimum(splits[1:], splits[:-1] + length)
                keep = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends)]
                                      or [np.zeros(0, np.int64)]).astype(np.int64)
                new_splits = np.concatenate([[0], np.cumsum(ends - starts)])
                return RaggedTensor.from_row_splits(convert_to_tensor(values[keep]),
                                                    convert_to_tensor(new_splits))
            return lookups.to_tensor(default_value=0, shape=[None, length])
        if length is not None:
            arr = np.asarray(lookups.numpy())[..., :length]
            pad = [(0, 0)] * (arr.ndim - 1) + [(0, length - arr.shape[-1])]
            lookups = convert_to_tensor(np.pad(arr, pad))
        return lookups

    def get_config(self):
        config = super().get_config()
        config.update({
            "max_tokens": self._lookup_layer.max_tokens, "standardize": self._standardize,
            "split": self._split, "ngrams": self._ngrams_arg,
            "output_mode": self._output_mode,
            "output_sequence_length": self._output_sequence_length,
            "pad_to_max_tokens": self._lookup_layer.pad_to_max_tokens,
            "sparse": self._lookup_layer.sparse, "ragged": self._ragged,
            "vocabulary": _tolist(self._lookup_layer.input_vocabulary),
            "idf_weights": _tolist(self._lookup_layer.input_idf_weights),
            "encoding": self._encoding, "vocabulary_size": self.vocabulary_size()})
        return config

    @classmethod
    def from_config(cls, config):
        _refuse_vocabulary_file(config)
        config = dict(config)
        for key in ("standardize", "split"):
            if config.get(key) is not None and not isinstance(config[key], str):
                config[key] = _serialization.deserialize_keras_object(config[key])
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)
