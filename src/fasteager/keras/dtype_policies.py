"""``fe.keras.dtype_policies``: a layer's compute and variable dtypes (Keras 3's dtype
policies) and the process-wide default policy.

``DTypePolicy("mixed_float16")`` computes in float16 and keeps variables in float32: layers
with it cast floating inputs to float16 and read their float variables as float16 inside
their call (see ``Layer.__call__``). fasteager has no bfloat16 dtype, so
``"mixed_bfloat16"`` (and ``"bfloat16"``) raise a ValueError saying so. The quantized
policies (int8, float8, int4, GPTQ, AWQ) are not provided.
"""
import re

from . import _serialization, backend

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}
_global_policy = None        # None: DTypePolicy(floatx()), as Keras


def _parse_name(name):
    """(compute_dtype, variable_dtype) of a policy name."""
    if not isinstance(name, str):
        raise TypeError("'name' must be a string, such as 'mixed_float16'. Received: "
                        "name=%s (of type %s)" % (name, type(name)))
    compute, variable = _MIXED.get(name, (name, name))
    if compute == "bfloat16":
        raise ValueError("DTypePolicy %r: fasteager has no bfloat16 dtype; use "
                         "'mixed_float16' or a float dtype such as 'float32'" % name)
    try:
        compute = backend.standardize_dtype(compute)
    except (TypeError, ValueError):
        compute = None
    if compute is None or (name not in _MIXED and compute != name and
                           compute not in ("float16", "float32", "float64")):
        raise ValueError("Cannot convert '%s' to a mixed precision DTypePolicy. Valid "
                         "policies include 'mixed_float16', 'mixed_bfloat16', and the name "
                         "of any float dtype such as 'float32'." % name)
    return compute, backend.standardize_dtype(variable)


class DTypePolicy:
    """A layer's dtype policy: ``compute_dtype`` (its computation and outputs) and
    ``variable_dtype`` (its weights). ``name`` is a dtype name (both dtypes) or
    ``"mixed_float16"`` (float16 compute, float32 variables)."""

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._compute_dtype, self._variable_dtype = _parse_name(name)
        self._name = name
        self._quantization_mode = None

    @property
    def name(self):
        return self._name

    @property
    def compute_dtype(self):
        return self._compute_dtype

    @property
    def variable_dtype(self):
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """None: no quantized policies in fasteager."""
        return self._quantization_mode

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return '<DTypePolicy "%s">' % self._name

    def __eq__(self, other):
        if type(other) not in (DTypePolicy, FloatDTypePolicy):
            return False
        return self._name == other._name

    def __hash__(self):
        return hash(self._name)


class FloatDTypePolicy(DTypePolicy):
    """Keras's name for a non-quantized policy (the same as ``DTypePolicy``)."""


class DTypePolicyMap(DTypePolicy):
    """Policies by layer path: ``policy_map[path]`` is the entry whose key equals the path,
    else the one key matching it as a regular expression (``re.fullmatch``), else
    ``default_policy`` (the global policy when not given)."""

    def __init__(self, default_policy=None, policy_map=None):
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError("`default_policy` cannot be a `DTypePolicyMap`.")
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError("If specified, `policy_map` must be a dict. Received: "
                            "policy_map=%s of type %s" % (policy_map, type(policy_map)))
        self._default_policy_arg = default_policy
        self._default_policy = get(default_policy)
        self._policy_map = {k: get(v) for k, v in (policy_map or {}).items()}
        self._quantization_mode = None

    @property
    def name(self):
        return "map_" + self.default_policy.name

    @property
    def default_policy(self):
        return get(self._default_policy)

    @property
    def compute_dtype(self):
        return self.default_policy.compute_dtype

    @property
    def variable_dtype(self):
        return self.default_policy.variable_dtype

    def __getitem__(self, key):
        if key in self._policy_map:
            return self._policy_map[key]
        matching = [p for p in self._policy_map if re.fullmatch(p, key)]
        if len(matching) > 1:
            raise ValueError("Path '%s' matches multiple dtype policy specification keys: "
                             "%s. Please make sure each path only matches at most one dtype "
                             "policy specification key in the DTypePolicyMap."
                             % (key, matching))
        if matching:
            return self._policy_map[matching[0]]
        return self.default_policy

    def __setitem__(self, key, policy):
        if key in self._policy_map:
            raise ValueError("%s already exist in the DTypePolicyMap with value %s. Please "
                             "make sure to not use duplicated keys."
                             % (key, self._policy_map[key]))
        try:
            policy = get(policy)
        except (TypeError, ValueError):
            raise ValueError("Cannot interpret the assigned value by "
                             "`keras.dtype_policies.get`. Received: %s of type %s"
                             % (policy, type(policy))) from None
        self._policy_map[key] = policy

    def __delitem__(self, key):
        return self._policy_map.pop(key)

    def __contains__(self, key):
        return key in self._policy_map

    def __iter__(self):
        return iter(self._policy_map)

    def __len__(self):
        return len(self._policy_map)

    def keys(self):
        return self._policy_map.keys()

    def values(self):
        return self._policy_map.values()

    def items(self):
        return self._policy_map.items()

    def get_config(self):
        return {"default_policy": self._default_policy_arg,
                "policy_map": {k: serialize(v) for k, v in self._policy_map.items()}}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["policy_map"] = {k: deserialize(v, custom_objects)
                                for k, v in (config.get("policy_map") or {}).items()}
        return cls(**config)

    def __repr__(self):
        return "<DTypePolicyMap at 0x%x>" % id(self)

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


_CLASSES = {"DTypePolicy": DTypePolicy, "FloatDTypePolicy": FloatDTypePolicy,
            "DTypePolicyMap": DTypePolicyMap}


def serialize(dtype_policy):
    """A policy's Keras 3 config dict (``module``, ``class_name``, ``config``,
    ``registered_name``)."""
    if not isinstance(dtype_policy, DTypePolicy):
        raise TypeError("dtype_policies.serialize: expected a DTypePolicy, got %r"
                        % (dtype_policy,))
    module = "keras.dtype_policies" if isinstance(dtype_policy, DTypePolicyMap) else "keras"
    return {"module": module, "class_name": type(dtype_policy).__name__,
            "config": dtype_policy.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """The policy of ``serialize``'s dict (or a class name with a ``config``)."""
    if isinstance(config, DTypePolicy):
        return config
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError("dtype_policies.deserialize: expected a dict with 'class_name' "
                         "and 'config', got %r" % (config,))
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError("dtype_policies.deserialize: unknown class %r (expected one of %s)"
                         % (name, sorted(_CLASSES)))
    if cls is DTypePolicyMap:
        return cls.from_config(config.get("config") or {}, custom_objects)
    return cls.from_config(config.get("config") or {})


def get(identifier):
    """A policy from None (the global one), a policy, a serialized dict or a name."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    try:
        name = backend.standardize_dtype(identifier)
    except (TypeError, ValueError):
        raise ValueError("Cannot interpret `dtype` argument. Expected a string or an "
                         "instance of DTypePolicy. Received: dtype=%s" % (identifier,)
                         ) from None
    return DTypePolicy(name)


def dtype_policy():
    """The global policy (``DTypePolicy(floatx())`` unless one was set)."""
    if _global_policy is None:
        return DTypePolicy(backend.floatx())
    return _global_policy


def set_dtype_policy(policy):
    """Set the global policy that layers made later take (a policy or a name such as
    ``"mixed_float16"``)."""
    global _global_policy
    if not isinstance(policy, DTypePolicy):
        if isinstance(policy, str):
            policy = DTypePolicy(policy)
        else:
            raise ValueError("Invalid `policy` argument. Expected the string name of a "
                             "policy (such as 'mixed_float16') or a `DTypePolicy` instance. "
                             "Received: policy=%s (of type %s)" % (policy, type(policy)))
    _global_policy = policy


_serialization.register_builtins("dtype_policies", globals(), DTypePolicy)
