"""``Layer``: the base of every Keras layer and model, and ``Input``/``InputLayer``.

A layer owns variables (made with ``add_weight`` in ``build``, or assigned as attributes),
builds itself lazily on its first call from the input's shape, and tracks the variables
and layers assigned to its attributes (also inside lists, tuples and dicts), as
``tf.Module`` does. ``weights`` lists the layer's own variables first (trainable ones, then
the others, each in creation order), then those of its sub-layers, in the order they were
assigned (Keras 3's order).

>>> class Scale(fe.keras.layers.Layer):
...     def build(self, input_shape):
...         self.w = self.add_weight(shape=[input_shape[-1]], initializer="ones", name="w")
...     def call(self, x):
...         return x * self.w
>>> Scale()(fe.ones([2, 3])).shape
TensorShape([2, 3])
"""
import inspect
import itertools
import re
import sys
import threading

import numpy as np

from ... import _core, dtypes, errors, nest
from ..._core import Tensor, convert_to_tensor
from ..._src.state.module import Module
from ..._src.state.variables import Variable
from ..._src.tracing.autograph.transformer import converted_callable
from ..._src.tracing.py_function import init_scope
from ...distribute import strategy as _distribute
from ...ops import array_ops
from ...ops.array_ops import zeros
from ...ops.elementwise_ops import cast
from ...ragged import RaggedTensor
from ...sparse import SparseTensor
from ...tensor_shape import TensorShape
from ...train import checkpoint as _ckpt
from .. import _naming, backend
from .. import dtype_policies as _dtype_policies
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._serialization import serialize_keras_object
from .input_spec import assert_input_compatibility


def _snake(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return re.sub(r"2_d", "2d", re.sub(r"1_d", "1d", s))


class _CallContext(threading.local):
    def __init__(self):
        self.training = None     # the training flag of the outermost call in progress
        self.depth = 0


_CONTEXT = _CallContext()
_AUTOCAST = _naming.AUTOCAST


def _is_tensor_like(x):
    return isinstance(x, (Tensor, Variable, np.ndarray, float, int, list))


# Tracking is cached: every structural change (an attribute set on any layer, a weight
# added, a tracked list or dict mutated) bumps this counter, and the cached variable and
# layer lists of every layer are rebuilt on their next use. Walking the attributes on each
# training step cost more than the MLP's matmuls.
_STRUCTURE = [0]


def _changed():
    _STRUCTURE[0] += 1


class _TrackedList(list):
    """A list attribute of a layer: mutations invalidate the tracking caches."""

    def _mut(name):
        def method(self, *args, **kwargs):
            _changed()
            return getattr(list, name)(self, *args, **kwargs)
        method.__name__ = name
        return method

    for _n in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
               "__setitem__", "__delitem__", "__iadd__", "__imul__"):
        locals()[_n] = _mut(_n)
    del _n, _mut


class _TrackedDict(dict):
    """A dict attribute of a layer: mutations invalidate the tracking caches."""

    def _mut(name):
        def method(self, *args, **kwargs):
            _changed()
            return getattr(dict, name)(self, *args, **kwargs)
        method.__name__ = name
        return method

    for _n in ("__setitem__", "__delitem__", "pop", "popitem", "clear", "update",
               "setdefault"):
        locals()[_n] = _mut(_n)
    del _n, _mut


# ---- masks on tensors between eager layer calls -----------------------------------------------
# Keras 3 sets ``_keras_mask`` on a layer's output (Embedding(mask_zero=True), Masking, RNNs
# with return_sequences) and the next layer called on that tensor receives it as ``mask=``,
# so ``rnn(emb(ids))`` skips the padding outside a model too. fasteager's Tensor has no
# attribute dict, so the masks live in this table: id(tensor) -> (tensor, mask). An entry
# holds its tensor (an id is never matched to another object) and is dropped once nothing
# else holds the tensor (no later call can pass it), checked whenever a mask is added.
_MASKS = {}
_MASKS_MAX = 4096             # a bound even if every masked output were kept alive


def _held(entry):
    return sys.getrefcount(entry[0])


_HELD_ONLY_BY_TABLE = _held((object(), None))   # the entry's and the argument's references


def get_keras_mask(x):
    """The Keras mask that travels on ``x`` (a layer's output), or None."""
    entry = _MASKS.get(id(x))
    return entry[1] if entry is not None and entry[0] is x else None


def set_keras_mask(x, mask):
    """Attach ``mask`` to the tensor ``x`` (None removes it)."""
    for key, entry in list(_MASKS.items()):
        if _held(entry) <= _HELD_ONLY_BY_TABLE:
            _MASKS.pop(key, None)
    if mask is None:
        entry = _MASKS.get(id(x))
        if entry is not None and entry[0] is x:
            del _MASKS[id(x)]
        return
    while len(_MASKS) >= _MASKS_MAX:
        del _MASKS[next(iter(_MASKS))]
    _MASKS[id(x)] = (x, mask)


def _input_masks(inputs):
    """The masks travelling on a call's first argument (a tensor or a list of them), or
    None when it carries none."""
    if isinstance(inputs, (list, tuple)):
        masks = [get_keras_mask(v) for v in inputs]
        return masks if any(m is not None for m in masks) else None
    return get_keras_mask(inputs)


def _walk(value, seen):
    """Yield the Variables and Layers reachable through containers, in order."""
    if isinstance(value, (Variable, Layer)):
        if id(value) not in seen:
            seen.add(id(value))
            yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v, seen)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk(v, seen)


def _shape_of(x):
    if isinstance(x, (Tensor, Variable, KerasTensor)):
        return TensorShape(x.shape)
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], (Tensor, KerasTensor)):
        return [_shape_of(v) for v in x]
    return TensorShape(np.shape(x))


def _json_value(v):
    """Whether ``v`` is a value a saved config holds as it is (Keras 3's auto config keeps
    only such constructor arguments)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    if isinstance(v, (list, tuple)):
        return all(_json_value(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _json_value(x) for k, x in v.items())
    return False


_init_signatures = {}


def _user_init(cls):
    """The first ``__init__`` in ``cls``'s MRO defined outside fasteager, or None."""
    for base in cls.__mro__:
        init = base.__dict__.get("__init__")
        if init is not None:
            module = getattr(base, "__module__", "") or ""
            return None if module.startswith("fasteager.") else init
    return None


def _auto_config(cls, args, kwargs):
    """Keras 3's automatic config of a user's layer or model: the arguments its
    ``__init__`` was called with, by name, when all of them are plain values (else None:
    ``get_config`` must then be written by hand)."""
    init = _user_init(cls)
    if init is None:
        return None
    sig = _init_signatures.get(init)
    if sig is None:
        try:
            sig = _init_signatures[init] = inspect.signature(init)
        except (TypeError, ValueError):
            return None
    try:
        bound = sig.bind(None, *args, **kwargs)
    except TypeError:
        return None
    config = {}
    for name, value in list(bound.arguments.items())[1:]:
        kind = sig.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                return None             # no name to rebuild it by
            continue
        items = value.items() if kind is inspect.Parameter.VAR_KEYWORD else [(name, value)]
        for k, v in items:
            if not _json_value(v):
                return None
            config[k] = list(v) if isinstance(v, tuple) else v
    return config


def user_build(cls):
    """Whether ``cls`` has a ``build`` of its own, defined outside fasteager."""
    for base in cls.__mro__:
        if "build" in base.__dict__:
            return not (getattr(base, "__module__", "") or "").startswith("fasteager.")
    return False


def _wrap_build(build):
    """A user's ``build`` as Keras 3 runs it, called directly or on the first call: under
    the layer's name scope (weights named 'layer/w'), marking the layer built after."""
    def wrapper(self, *args, **kwargs):
        scoped = _naming.enter(self, self._name)
        outer = not self.__dict__.get("_in_user_build")
        object.__setattr__(self, "_in_user_build", True)   # (Model.build reads it)
        try:
            with _distribute.owner_scope(self):
                out = build(self, *args, **kwargs)
        finally:
            if outer:
                object.__setattr__(self, "_in_user_build", False)
            if scoped:
                _naming.leave()
        self.built = True
        return out
    wrapper.__name__, wrapper.__qualname__ = build.__name__, build.__qualname__
    wrapper.__doc__, wrapper.__wrapped__ = build.__doc__, build
    wrapper._fe_build_wrapper = True
    return wrapper


class Layer(Module):
    """Base class of layers: override ``build(input_shape)`` and ``call(inputs)``."""

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        object.__setattr__(obj, "_auto_config", _auto_config(cls, args, kwargs))
        return obj

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and callable(build) and \
                not getattr(build, "_fe_build_wrapper", False) and \
                not (cls.__module__ or "").startswith("fasteager."):
            cls.build = _wrap_build(build)

    # attributes the framework itself sets, never walked for variables or layers
    _NOT_TRACKED = frozenset(["_own_weights", "_regularizer_fns", "_call_losses",
                              "_tracking_cache",
                              "_inbound_shape", "_output_shape", "_call_args",
                              "_inbound_nodes", "_auto_config"])
    # the input ranks the layer accepts (Keras's InputSpec ndim / min_ndim), checked on
    # every call: Dense on a rank-1 input would otherwise return a wrong-rank result
    _input_ndim = None
    _input_min_ndim = None
    activity_regularizer = None     # a penalty on the outputs, added to losses per call

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False,
                 input_shape=None, batch_input_shape=None, batch_size=None, input_dim=None,
                 **kwargs):
        unknown = set(kwargs) - {"autocast", "activity_regularizer", "weights"}
        if unknown:
            raise TypeError("%s: unexpected keyword argument(s) %s"
                            % (type(self).__name__, ", ".join(sorted(unknown))))
        object.__setattr__(self, "_own_weights", [])
        object.__setattr__(self, "_regularizer_fns", [])
        if kwargs.get("autocast") is False:     # its float variables keep their dtype
            object.__setattr__(self, "_autocast", False)
        if kwargs.get("activity_regularizer") is not None:
            self.activity_regularizer = _regularizers.get(kwargs["activity_regularizer"])
        object.__setattr__(self, "_call_losses", [])
        object.__setattr__(self, "_output_shape", None)
        # a layer made in strategy.scope() builds its weights under that strategy later
        object.__setattr__(self, "_distribute_strategy", _distribute.current_strategy())
        object.__setattr__(self, "_inbound_nodes", [])     # symbolic calls (functional API)
        self._trainable = bool(trainable)
        if name is not None and not isinstance(name, str):
            raise ValueError("%s: name must be a string (got %r)" % (type(self).__name__, name))
        # (Keras 3 keeps an empty name: the guides name Models "" and summary() shows it)
        self._name = name if name is not None else backend.unique_name(
            _snake(type(self).__name__))
        self._set_dtype_policy(dtype)
        self.built = False
        self.supports_masking = False
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            self._batch_input_shape = tuple(batch_input_shape)
        elif input_shape is not None:
            self._batch_input_shape = (batch_size,) + tuple(input_shape)
        else:
            self._batch_input_shape = None
        sig = inspect.signature(self.call).parameters
        self._call_takes_training = "training" in sig or any(
            p.kind == p.VAR_KEYWORD for p in sig.values())
        self._call_takes_mask = "mask" in sig

    # ---- identity -------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        """The variables' dtype (Keras: an alias of ``variable_dtype``)."""
        return self._variable_dtype.name

    @property
    def compute_dtype(self):
        """The dtype the layer casts floating inputs to and computes in."""
        return self._dtype.name

    @property
    def variable_dtype(self):
        """The dtype of the layer's weights."""
        return self._variable_dtype.name

    @property
    def dtype_policy(self):
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        self._set_dtype_policy(value)

    def _dtype_config(self):
        """The config's ``dtype``: the dtype name for a one-dtype policy (Keras's
        from_config takes it), the serialized policy for a mixed one or a map."""
        policy = self._dtype_policy
        if type(policy) in (_dtype_policies.DTypePolicy, _dtype_policies.FloatDTypePolicy) \
                and not self._mixed:
            return self._variable_dtype.name
        return _dtype_policies.serialize(policy)

    def _set_dtype_policy(self, dtype):
        """The policy of ``dtype`` (None: the global one; a name, a DTypePolicy, a dict,
        a dtype): ``_dtype`` is its compute dtype (inputs are cast to it),
        ``_variable_dtype`` the weights' dtype; ``_mixed`` when they differ."""
        policy = _dtype_policies.get(dtype)
        if isinstance(policy, _dtype_policies.DTypePolicyMap):
            # a map gives the policy of this layer's path (its name, at the top level)
            object.__setattr__(self, "_dtype_policy", policy)
            policy = policy[self._name]
        else:
            object.__setattr__(self, "_dtype_policy", policy)
        object.__setattr__(self, "_dtype", dtypes.as_dtype(policy.compute_dtype))
        object.__setattr__(self, "_variable_dtype", dtypes.as_dtype(policy.variable_dtype))
        object.__setattr__(self, "_mixed", self._dtype != self._variable_dtype)

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        for layer in self._flatten_layers(include_self=False):
            layer._trainable = bool(value)

    def __repr__(self):
        return "<%s name=%s, built=%s>" % (type(self).__name__, self._name, self.built)

    # ---- tracking -------------------------------------------------------------------------
    def __setattr__(self, name, value):
        if "_own_weights" not in self.__dict__ and isinstance(value, (Variable, Layer)):
            raise RuntimeError("%s: call super().__init__() before assigning variables or "
                               "layers as attributes" % type(self).__name__)
        if type(value) is list:
            value = _TrackedList(value)
        elif type(value) is dict:
            value = _TrackedDict(value)
        # only what can hold variables or layers changes the structure: a per-call
        # attribute (``built``, an output shape) must not rebuild every cache each step
        if name == "_trainable" or _may_hold_trackables(value) or \
                _may_hold_trackables(self.__dict__.get(name)):
            _changed()
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        _changed()
        object.__delattr__(self, name)

    @property
    def input_spec(self):
        """The InputSpec (or a structure of them, one per input) every call's inputs are
        checked against, as Keras's; None: no check beyond the layer's own."""
        return self.__dict__.get("_layer_input_spec")

    @input_spec.setter
    def input_spec(self, value):
        object.__setattr__(self, "_layer_input_spec", value)

    def _cached(self, key, compute):
        cache = self.__dict__.get("_tracking_cache")
        if cache is None or cache[0] != _STRUCTURE[0]:
            cache = (_STRUCTURE[0], {})
            object.__setattr__(self, "_tracking_cache", cache)
        hit = cache[1].get(key)
        if hit is None:
            hit = cache[1][key] = compute()
        return hit

    def _tracked(self):
        """Variables and layers assigned to attributes, in assignment order."""
        seen = set()
        for key, value in list(self.__dict__.items()):
            if key in self._NOT_TRACKED:
                continue
            yield from _walk(value, seen)

    def _checkpoint_dependencies(self):
        """(name, object) edges of the checkpoint object graph: tracked attributes by name,
        then weights made by ``add_weight`` that no attribute holds, by their short name."""
        out = []
        reached = set()
        for key, value in list(self.__dict__.items()):
            if key in self._NOT_TRACKED:
                continue
            found = list(_walk(value, set()))
            if found:
                out.append((key, value))
                reached.update(id(v) for v in found)
        for v in self._own_weights:
            if id(v) not in reached:
                short = v.name.rsplit("/", 1)[-1].split(":")[0]
                out.append((short, v))
        return out

    def _direct_layers(self):
        return self._cached("direct", lambda: [v for v in self._tracked()
                                               if isinstance(v, Layer) and v is not self])

    def _flatten_layers(self, include_self=True):
        return list(self._flat_layers_cached(include_self))

    def _flat_layers_cached(self, include_self=True):
        """The cached list behind ``_flatten_layers`` (not to be modified)."""
        return self._cached(("flat", include_self),
                            lambda: self._flatten_layers_uncached(include_self))

    def _flatten_layers_uncached(self, include_self):
        seen = set()
        out = []

        def visit(layer):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            out.append(layer)
            for sub in layer._direct_layers():
                visit(sub)
        if include_self:
            visit(self)
        else:
            seen.add(id(self))
            for sub in self._direct_layers():
                visit(sub)
        return out

    def _collect(self, parent_trainable=True, seen=None):
        """(variable, effectively trainable, owning layer's id) triples: own variables
        first, then sub-layers'."""
        seen = set() if seen is None else seen
        eff = parent_trainable and self._trainable
        out = []
        own = list(self._own_weights) + [v for v in self._tracked()
                                         if isinstance(v, Variable)]
        for v in own:
            if id(v) not in seen:
                seen.add(id(v))
                out.append((v, eff, id(self)))
        for layer in self._direct_layers():
            out.extend(layer._collect(eff, seen))
        return out

    @property
    def weights(self):
        """Every variable of the layer, as Keras 3 orders them: layer by layer (the layer's
        own, then its sub-layers' in order), each layer's trainable variables before its
        non-trainable ones (a BatchNormalization's moving statistics right after its gamma
        and beta, not at the end of the model as Keras 2 listed them)."""
        out = []
        for _, group in itertools.groupby(self._weights_split(), key=lambda p: p[2]):
            group = [p[0] for p in group]
            out += [v for v in group if v.trainable] + [v for v in group if not v.trainable]
        return out

    @property
    def variables(self):
        return self.weights

    def _weights_split(self):
        # (variable.trainable may be flipped without a structural change: keep it in the key)
        pairs = self._cached("collect", self._collect)
        return pairs

    @property
    def trainable_weights(self):
        return [v for v, t, _ in self._weights_split() if t and v.trainable]

    @property
    def non_trainable_weights(self):
        return [v for v, t, _ in self._weights_split() if not (t and v.trainable)]

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    @property
    def submodules(self):
        return self._flatten_layers(include_self=False)

    def count_params(self):
        """The number of scalars in the layer's weights (the layer must be built)."""
        if not self.built:
            raise ValueError("%s: you tried to call count_params on layer %r, but the layer "
                             "isn't built. Build it by calling it on data first."
                             % (type(self).__name__, self._name))
        return int(sum(int(np.prod(v.shape.as_list())) for v in self.weights))

    def get_weights(self):
        """The weights' values as a list of NumPy arrays."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights):
        """Assign ``weights`` (a list of arrays in the order of ``get_weights``)."""
        params = self.weights
        if len(weights) != len(params):
            raise ValueError("%s.set_weights: expected %d arrays, got %d"
                             % (self._name, len(params), len(weights)))
        for v, w in zip(params, weights):
            if tuple(np.shape(w)) != tuple(v.shape.as_list()):
                raise ValueError("%s.set_weights: shape mismatch for %s (expected %s, got %s)"
                                 % (self._name, v.name, v.shape.as_list(), list(np.shape(w))))
        for v, w in zip(params, weights):
            v.assign(np.asarray(w, dtype=v.dtype.as_numpy_dtype))

    # ---- weights --------------------------------------------------------------------------
    def add_weight(self, *args, shape=None, initializer=None, dtype=None, trainable=True,
                   autocast=True, regularizer=None, constraint=None, aggregation="none",
                   overwrite_with_gradient=False, name=None):
        """Create a variable owned by this layer (Keras 3's signature: the shape may come
        first, the rest by keyword), named as Keras 3 names it: ``name`` (``'kernel'``) and
        ``path`` (``'dense/kernel'``, under the layers being called)."""
        if args:
            if isinstance(args[0], str):
                # Keras 3's error for Keras 2's add_weight("kernel", ...)
                raise ValueError("`name` must be passed as a keyword argument. Received: "
                                 "add_weight(%r, ...). Use: add_weight(shape=..., name=%r)."
                                 % (args[0], args[0]))
            if len(args) > 1 or shape is not None:
                raise TypeError("%s.add_weight: only the shape may be passed positionally "
                                "(got %d positional arguments)"
                                % (type(self).__name__, len(args)))
            shape = args[0]
        return self._add_weight(name, shape, dtype, initializer, regularizer, trainable,
                                constraint, autocast=autocast)

    def _add_weight(self, name=None, shape=None, dtype=None, initializer=None,
                    regularizer=None, trainable=None, constraint=None, **kwargs):
        """add_weight with the name first (fasteager's layers call it so)."""
        shape = () if shape is None else tuple(int(d) for d in shape)
        dtype = dtypes.as_dtype(dtype) if dtype is not None else self._variable_dtype
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = _initializers.get(initializer)
        if trainable is None:
            trainable = True
        with _distribute.owner_scope(self):
            name = name or "w"
            # the initial value is computed outside any trace, as TensorFlow lifts variable
            # initializers out of tf.function (init_scope): a layer built inside a traced
            # step draws the same weights as eagerly, and the graph keeps no step for them
            with init_scope():
                value = init(shape, dtype=dtype)
            # a mixed-precision layer's float weights read as its compute dtype in calls
            cls = _naming.AutocastVariable if self._mixed and dtype.is_floating and \
                kwargs.get("autocast", True) else _naming.KerasVariable
            var = cls(value, trainable=trainable, name=name, dtype=dtype,
                      path=_naming.path_for(self, self._name, name),
                      constraint=_constraints.get(constraint))
        self._own_weights.append(var)
        _changed()
        reg = _regularizers.get(regularizer)
        if reg is not None:
            self._regularizer_fns.append((reg, var))
        return var

    add_variable = add_weight

    # ---- losses ---------------------------------------------------------------------------
    def add_loss(self, loss):
        """Add a loss (a tensor or a zero-argument callable) to ``layer.losses``."""
        self._call_losses.append(loss)

    @property
    def losses(self):
        """Regularization penalties of this layer and its sub-layers, plus ``add_loss`` terms."""
        out = []
        for layer in self._flatten_layers():
            for reg, var in layer._regularizer_fns:
                out.append(reg(var))
            for loss in layer._call_losses:
                out.append(loss() if callable(loss) else convert_to_tensor(loss))
        return out

    # ---- build and call -------------------------------------------------------------------
    def _check_rank(self, shape):
        """Raise unless ``shape`` has a rank this layer accepts (unknown ranks pass)."""
        if isinstance(shape, list) or (self._input_ndim is None and
                                       self._input_min_ndim is None):
            return                        # several inputs (checked by the layer), or no rule
        rank = len(shape) if type(shape) is tuple else TensorShape(shape).rank
        if rank is None:
            return
        if self._input_ndim is not None and rank != self._input_ndim:
            expected = "ndim=%d" % self._input_ndim
        elif self._input_min_ndim is not None and rank < self._input_min_ndim:
            expected = "min_ndim=%d" % self._input_min_ndim
        else:
            return
        raise errors.InvalidArgumentError(
            "%s (layer %r): input 0 is incompatible with the layer (expected %s, got ndim=%d; "
            "full shape received: %s)" % (type(self).__name__, self._name, expected, rank,
                                          tuple(TensorShape(shape).as_list())))

    def build(self, input_shape):
        """Create the layer's weights for inputs of ``input_shape`` (override)."""
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The layer's computation (override)."""
        return inputs

    def compute_mask(self, inputs, mask=None):
        """The mask of the output (Keras's default: the input's mask through a layer that
        supports masking, None through any other)."""
        return mask if self.supports_masking else None

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape`` (a list of shapes for several inputs), with
        ``None`` for sizes that depend on unknown ones: found by running the layer, as a
        call on KerasTensors does (see ``_call_symbolic``)."""
        several = isinstance(input_shape, (list, tuple)) and input_shape and \
            not isinstance(input_shape, TensorShape) and \
            all(isinstance(s, (list, tuple, TensorShape)) for s in input_shape)
        specs = [KerasTensor(s) for s in input_shape] if several else KerasTensor(input_shape)
        packed, _ = self._infer_specs(specs, (), {})
        return nest.map_structure(lambda t: t.shape, packed)

    def _convert_input(self, x):
        if type(x) is Tensor:     # the common call: only the autocast below applies
            dtype = x.dtype
            if dtype is self._dtype or not (dtype.is_floating and self._dtype.is_floating):
                return x
            return cast(x, self._dtype)
        if isinstance(x, Variable):
            x = x.read_value()
        if not isinstance(x, Tensor):
            if isinstance(x, (list, tuple)) and x and isinstance(x[0], (Tensor, Variable)):
                return type(x)(self._convert_input(v) for v in x)
            if isinstance(x, dict):
                return {k: self._convert_input(v) for k, v in x.items()}
            if isinstance(x, (SparseTensor, RaggedTensor)):
                kind = "sparse" if isinstance(x, SparseTensor) else "ragged"
                if not getattr(self, "_accepts_" + kind, False):
                    raise ValueError("%s (layer %r): does not take a %s input (convert it "
                                     "first: %s)" % (type(self).__name__, self.name,
                                                     type(x).__name__,
                                                     "fe.sparse.to_dense(x)" if kind ==
                                                     "sparse" else "x.to_tensor()"))
                return x          # Keras's layers that take it: Dense (sparse), Embedding
            x = convert_to_tensor(x)
        # Keras autocasts floating inputs to the layer's dtype (float64 NumPy -> float32)
        if x.dtype.is_floating and self._dtype.is_floating and x.dtype != self._dtype:
            x = cast(x, self._dtype)
        return x

    def _maybe_build(self, inputs):
        if self.built:
            return
        shape = _shape_of(inputs)
        scoped = _naming.enter(self, self._name)    # a symbolic call builds here directly
        try:
            with _distribute.owner_scope(self):
                self.build(shape)
        finally:
            if scoped:
                _naming.leave()
        self.built = True

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, KerasTensor) or (
                (args or kwargs or isinstance(inputs, (list, tuple, dict)))
                and _any_symbolic(inputs, args, kwargs)):
            return self._call_symbolic(inputs, args, kwargs)
        if type(inputs) is not Tensor or args:
            _check_positional(inputs, args)
        # the masks travelling on the inputs (Keras's _keras_mask): the call's mask= when
        # it takes one and none is given, and what compute_mask hands on
        in_mask = _input_masks(inputs) if _MASKS else None
        if in_mask is not None and self._call_takes_mask and kwargs.get("mask") is None:
            kwargs["mask"] = in_mask
        raw_inputs = inputs
        inputs = self._convert_input(inputs)
        if isinstance(inputs, Tensor):
            self._check_rank(inputs._value.shape)
        spec = self.__dict__.get("_layer_input_spec")
        if spec:
            assert_input_compatibility(spec, inputs, self.name)
        training = kwargs.pop("training", None)
        ctx = _CONTEXT
        outer = ctx.depth == 0
        if outer:
            for layer in self._flat_layers_cached():
                del layer._call_losses[:]
        if training is None:
            training = ctx.training
        saved = ctx.training
        ctx.training = training
        ctx.depth += 1
        was_built = self.built
        autocast = _AUTOCAST.dtype
        scoped_cast = autocast is not None or self._mixed    # (False for float32 layers)
        if scoped_cast:
            # Keras's AutocastScope: a mixed layer's variables read as its compute dtype,
            # a nested layer computing in another float dtype reads its own
            _AUTOCAST.dtype = self._dtype if self._dtype.is_floating and \
                self.__dict__.get("_autocast", True) else None
        scoped = _naming.enter(self, self._name)    # weights built inside take its path
        try:
            if not was_built:
                self._maybe_build(inputs)
                # weights made by build() take values a restore left pending, before use
                _ckpt.restore_deferred(self)
                # (again: build may have set the spec, as Keras's layers do)
                if self.__dict__.get("_layer_input_spec"):
                    assert_input_compatibility(self._layer_input_spec, inputs, self.name)
            if self._call_takes_training:
                kwargs["training"] = training
            call = self.call
            if _core.get_tracer() is not None:
                # inside fe.function (fit's train step included): AutoGraph converts a
                # user's call as TensorFlow's Keras does, so Python control flow on
                # tensors in it is traced once per signature
                call = converted_callable(call)
            out = call(inputs, *args, **kwargs)
        finally:
            if scoped:
                _naming.leave()
            ctx.depth -= 1
            ctx.training = saved
            if scoped_cast:
                _AUTOCAST.dtype = autocast
        if not was_built:
            # variables created by this first call take values a restore left pending
            _ckpt.restore_deferred(self)
        if self.activity_regularizer is not None:
            self._add_activity_losses(out)
        if self.supports_masking and (in_mask is not None or
                                      type(self).compute_mask is not Layer.compute_mask):
            # (the default compute_mask of an unmasked input gives no mask: skipped)
            self._set_output_masks(raw_inputs, out, in_mask)
        if isinstance(out, Tensor):
            dims = out._value.shape
            if dims != self.__dict__.get("_output_dims"):     # build the shape on changes only
                object.__setattr__(self, "_output_dims", dims)
                self._output_shape = TensorShape((None,) + tuple(dims[1:])) \
                    if dims else TensorShape(())
        return out

    def _add_activity_losses(self, out):
        """Keras 3's activity regularization: the regularizer of each output tensor,
        divided by the batch size, goes to ``losses`` (with its gradient)."""
        for t in (out if isinstance(out, (list, tuple)) else [out]):
            if isinstance(t, Tensor) and t.dtype.is_floating:
                loss = self.activity_regularizer(t)
                if t.shape.rank:
                    loss = loss / cast(array_ops.shape(t)[0], loss.dtype)
                self.add_loss(loss)

    def _set_output_masks(self, inputs, out, in_mask):
        """Attach ``compute_mask``'s masks to the outputs that carry none yet (Keras 3's
        _set_mask_metadata)."""
        flat = out if isinstance(out, (list, tuple)) else [out]
        if all(get_keras_mask(t) is not None for t in flat):
            return
        masks = self.compute_mask(inputs, in_mask)
        if masks is None:
            return
        masks = masks if isinstance(out, (list, tuple)) and isinstance(masks, (list, tuple)) \
            else [masks]
        for t, m in zip(flat, masks):
            if m is not None and isinstance(t, Tensor) and get_keras_mask(t) is None:
                set_keras_mask(t, m)

    def _call_symbolic(self, inputs, args, kwargs):
        """A call on KerasTensors (``Input`` specs): build, infer the output specs, and
        record the call as a node of the layer graph that ``Model(inputs, outputs)`` runs.

        Output shapes come from running the layer itself on zeros twice, with two different
        sizes for every unknown dimension: a dimension that differs between the two runs
        depends on an unknown one and is unknown (``None``) in the output spec. Running the
        real code is robust for every layer (user layers too) without a shape rule for each;
        sizes of 1 for the unknown ones broke convolutions with windows larger than 1.
        """
        packed, specs = self._infer_specs(inputs, args, kwargs)
        node = Node(self, inputs, args, kwargs, specs)
        for i, spec in enumerate(specs):
            spec._history = (self, len(self._inbound_nodes), i)
        self._inbound_nodes.append(node)
        object.__setattr__(self, "_output_shape",
                           specs[0].shape if len(specs) == 1 else None)
        return packed

    def _infer_specs(self, inputs, args, kwargs):
        """(the output KerasTensors in the call's structure, the same flat), from two runs
        of the layer on zeros (see ``_call_symbolic``)."""
        if isinstance(inputs, KerasTensor):
            self._check_rank(inputs.shape)
        if not self.built and type(self)._maybe_build is Layer._maybe_build:
            # build from the symbolic shape (unknown dimensions as None), as Keras does, so a
            # weight never takes its size from a probe; models build as they run instead
            self._maybe_build(inputs)
            _ckpt.restore_deferred(self)
        training = kwargs.get("training")
        runs = []
        for probe in (0, 1):
            concrete = nest.map_structure(
                lambda v: _probe_value(v, probe) if isinstance(v, KerasTensor) else v,
                (inputs, args, dict(kwargs, training=bool(training))))
            runs.append(self(concrete[0], *concrete[1], **concrete[2]))
        first, second = (nest.flatten(r) for r in runs)
        specs = []
        for a, b in zip(first, second):
            if not isinstance(a, Tensor):
                raise TypeError("%s (layer %r): a layer called on symbolic inputs must return "
                                "tensors (got %r)" % (type(self).__name__, self._name, a))
            shape = [da if da == db else None
                     for da, db in zip(a.shape.as_list(), b.shape.as_list())]
            specs.append(KerasTensor(shape, a.dtype))
        return nest.pack_sequence_as(runs[0], specs), specs

    @property
    def output_shape(self):
        if self._output_shape is None:
            raise AttributeError("%s: the layer has not been called yet, so it has no "
                                 "output shape" % self._name)
        return tuple(self._output_shape.as_list())

    # ---- config ---------------------------------------------------------------------------
    def _serialized(self, *names):
        """The attributes ``names`` (initializers, regularizers) as config entries."""
        return {n: serialize_keras_object(getattr(self, n)) for n in names}

    def get_config(self):
        config = {"name": self._name, "trainable": self._trainable,
                  "dtype": self._dtype_config()}
        if self.activity_regularizer is not None:
            config.update(self._serialized("activity_regularizer"))
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        if type(self).get_config is Layer.get_config and _user_init(type(self)) is not None:
            # a user's class without get_config: its constructor arguments, as Keras 3
            auto = getattr(self, "_auto_config", None)
            if auto is None:
                params = [n for n in inspect.signature(_user_init(type(self))).parameters
                          if n not in ("self", "args", "kwargs")]
                raise NotImplementedError(
                    "Layer %s has arguments %s in `__init__()` and therefore must override "
                    "`get_config()` (its arguments are not all plain values, so they cannot "
                    "be saved automatically)" % (type(self).__name__, params))
            return dict(auto, **config)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class ListInput:
    """Mixin for layers called on a list of tensors (merges, Attention, operators): each
    element converts on its own, so a list of equal-shape arrays stays several inputs and
    is not stacked into one tensor."""

    def _convert_input(self, x):
        if isinstance(x, (list, tuple)):
            return [Layer._convert_input(self, v) for v in x]
        return Layer._convert_input(self, x)


def _is_input_value(v):
    return v is None or isinstance(v, (Tensor, Variable, np.ndarray, KerasTensor,
                                       SparseTensor, RaggedTensor)) or \
        hasattr(type(v), "_to_components")          # (extension types)


def _check_positional(inputs, args):
    """Keras 3's rule: positional arguments of a layer call are tensors (or arrays, or
    structures of them); a Python number, string or bool goes by keyword."""
    for v in nest.flatten((inputs, args)):
        if not _is_input_value(v):
            raise ValueError("Only input tensors may be passed as positional arguments. The "
                             "following argument value should be passed as a keyword "
                             "argument: %s (of type %s)" % (v, type(v)))


def _any_symbolic(inputs, args, kwargs):
    """Whether a KerasTensor is among a call's arguments. Runs on every call that passes
    keywords (``training=``) or a list, so it looks at plain values once and walks only
    containers."""
    for v in (inputs, *args, *kwargs.values()):
        if isinstance(v, KerasTensor) or (isinstance(v, (list, tuple, dict))
                                          and _symbolic_leaves(v)):
            return True
    return False


def _symbolic_leaves(structure):
    return [v for v in nest.flatten(structure) if isinstance(v, KerasTensor)]


# sizes given to unknown dimensions in the two runs of a symbolic call: the batch, then the
# others (large enough for the usual convolution windows and strides)
_PROBE_BATCH = (2, 3)
_PROBE_SIZE = (32, 37)


def _probe_value(spec, probe):
    shape = [d if d is not None else (_PROBE_BATCH if i == 0 else _PROBE_SIZE)[probe]
             for i, d in enumerate(spec.shape.as_list())]
    return zeros(shape, dtype=spec.dtype)


_symbolic_op = [None]


def set_symbolic_op(fn):
    """Install ``fn(op, a, b, reverse)``, which records an operator on KerasTensors."""
    _symbolic_op[0] = fn


class KerasTensor:
    """A symbolic tensor: a shape (``None`` for unknown dimensions) and a dtype, no value.

    ``fe.keras.Input((784,))`` returns one; calling a layer on KerasTensors builds the layer
    and returns the output KerasTensors, and ``fe.keras.Model(inputs, outputs)`` runs the
    graph of those calls. ``_history`` is ``(layer, node_index, tensor_index)``: the call
    that made the tensor, as Keras's ``keras_history``.
    """

    def __init__(self, shape, dtype=None, name=None):
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32
        self.name = name
        self._history = None
        self.sparse = self.ragged = False   # an Input's value: a SparseTensor/RaggedTensor

    @property
    def ndim(self):
        return self.shape.rank

    # operators record a TensorOp layer in the graph: functional.py, which defines that
    # layer on top of this module, installs the recorder (set_symbolic_op)
    def _op(self, op, other=None, reverse=False):
        return _symbolic_op[0](op, self, other, reverse)

    def __add__(self, other):
        return self._op("add", other)

    def __radd__(self, other):
        return self._op("add", other, True)

    def __sub__(self, other):
        return self._op("subtract", other)

    def __rsub__(self, other):
        return self._op("subtract", other, True)

    def __mul__(self, other):
        return self._op("multiply", other)

    def __rmul__(self, other):
        return self._op("multiply", other, True)

    def __truediv__(self, other):
        return self._op("truediv", other)

    def __rtruediv__(self, other):
        return self._op("truediv", other, True)

    def __pow__(self, other):
        return self._op("pow", other)

    def __matmul__(self, other):
        return self._op("matmul", other)

    def __neg__(self):
        return self._op("negative")

    def __abs__(self):
        return self._op("abs")

    def __getitem__(self, index):
        return self._op("getitem", index)

    def __repr__(self):
        return "<KerasTensor: shape=%s, dtype=%s%s>" % (
            self.shape, self.dtype.name, ", name=%s" % self.name if self.name else "")


backend._keras_tensor_class.append(KerasTensor)


class Node:
    """One call of a layer on KerasTensors: the call's arguments as given (KerasTensors
    nested in them, other values kept) and the output KerasTensors, flat."""

    def __init__(self, layer, inputs, args, kwargs, outputs):
        self.layer = layer
        self.call_args = (inputs, tuple(args), dict(kwargs))
        self.outputs = list(outputs)

    @property
    def input_tensors(self):
        return _symbolic_leaves(self.call_args)


class InputLayer(Layer):
    """The layer behind ``Input``: it declares a model input and passes it through."""

    _accepts_sparse = _accepts_ragged = True

    def __init__(self, shape=None, batch_size=None, dtype=None, batch_shape=None, name=None,
                 input_shape=None, batch_input_shape=None, sparse=None, ragged=None,
                 optional=False, **kwargs):
        if optional:
            # (Keras 3.15's configs carry optional=False; Input refuses True the same way)
            raise errors.UnimplementedError("InputLayer: optional=True is not supported")
        if shape is None:
            shape = input_shape
        if batch_shape is None:
            batch_shape = batch_input_shape
        if batch_shape is None:
            if shape is None:
                raise ValueError("InputLayer: give shape (without the batch dimension) or "
                                 "batch_shape")
            batch_shape = (batch_size,) + tuple(_input_dims("InputLayer", "shape", shape))
        batch_shape = tuple(_input_dims("InputLayer", "batch_shape", batch_shape))
        if sparse and ragged:
            raise ValueError("InputLayer: an input cannot have sparse=True and ragged=True "
                             "at the same time")
        super().__init__(name=name or backend.unique_name("input_layer"), dtype=dtype,
                         **kwargs)
        self._batch_input_shape = batch_shape
        self.built = True
        tensor = KerasTensor(batch_shape, self._dtype, self._name)
        tensor._history = (self, 0, 0)
        tensor.sparse, tensor.ragged = bool(sparse), bool(ragged)
        self._inbound_nodes.append(Node(self, [], (), {}, [tensor]))
        object.__setattr__(self, "_output_shape", tensor.shape)

    @property
    def output(self):
        """The KerasTensor this layer feeds into the model."""
        return self._inbound_nodes[0].outputs[0]

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": list(self._batch_input_shape), "dtype": self.dtype,
                "sparse": self.output.sparse, "ragged": self.output.ragged, "name": self._name}


def _input_dims(where, argname, shape):
    """A shape argument as a list of non-negative ints and Nones, or a typed error."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = list(shape)
    except TypeError:
        raise ValueError("%s: %s must be a tuple of ints or None (got %r)"
                         % (where, argname, shape)) from None
    for d in dims:
        if d is not None and (isinstance(d, bool) or not isinstance(d, (int, np.integer))
                              or d < 0):
            raise ValueError("%s: %s must hold non-negative ints or None (expected e.g. "
                             "(None, 28, 28, 1), got %r)" % (where, argname, tuple(dims)))
    return [None if d is None else int(d) for d in dims]


def Input(shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, name=None,
          tensor=None, optional=False, ragged=False, **kwargs):
    """A symbolic model input of ``shape`` (without the batch dimension; ``None`` for an
    unknown size), to call layers on and to give ``fe.keras.Model(inputs, outputs)``.

    >>> x = fe.keras.Input(shape=(None, None, 1))
    >>> fe.keras.layers.Conv2D(8, 3)(x).shape
    TensorShape([None, None, None, 8])
    """
    if tensor is not None or optional:
        raise errors.UnimplementedError("Input: tensor= and optional= are not supported")
    if "batch_input_shape" in kwargs:
        batch_shape = kwargs.pop("batch_input_shape")
    if kwargs:
        raise TypeError("Input: unexpected keyword argument(s) %s" % ", ".join(sorted(kwargs)))
    if batch_shape is None and shape is None:
        raise ValueError("Input: give shape (without the batch dimension) or batch_shape")
    return InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                      ragged=ragged, batch_shape=batch_shape, name=name).output


# attribute values that can hold (or be) tracked variables and layers
_TRACKABLE = (Variable, Layer, list, tuple, dict)


def _may_hold_trackables(value):
    return isinstance(value, _TRACKABLE) and not isinstance(value, TensorShape)
