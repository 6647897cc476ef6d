"""``fe.Module``: a named container of variables and sub-modules (TensorFlow's ``tf.Module``).

Any attribute holding a variable, a module, or a list/tuple/dict of them (nested) is
tracked automatically: ``variables``, ``trainable_variables`` and ``submodules`` find them
by walking the attributes, and ``fe.train.Checkpoint`` saves them by attribute path.
Order follows TensorFlow's ``_flatten``: the module's own attributes sorted by name (a
dict's entries by sorted key, a list's in order), then each sub-module found, depth first;
every object once.

>>> class Dense(fe.Module):
...     def __init__(self, n_in, n_out, name=None):
...         super().__init__(name=name)
...         self.w = fe.Variable(fe.random.normal([n_in, n_out]), name="w")
...         self.b = fe.Variable(fe.zeros([n_out]), name="b")
...     def __call__(self, x):
...         return fe.nn.relu(x @ self.w + self.b)
>>> [v.name for v in Dense(3, 2).variables]
['b:0', 'w:0']

``fe.name_scope(name)`` is a per-thread stack of scope names; a module remembers the
scope it was created in (``module.name_scope.name`` is ``'outer/dense/'``), and methods
decorated with ``fe.Module.with_name_scope`` run inside it.
"""
import functools
import re
import sys as _sys
import threading

from .variables import Variable

__all__ = ["Module", "name_scope"]

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CAMEL = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")

# Checkpoints (fasteager.train.checkpoint, a layer above) install these at their import:
# which attributes are edges of the checkpoint object graph, and what runs after an
# attribute is set (a value a restore left waiting takes its new variable).
_checkpoint_edge = None          # (name, value) -> bool
_after_setattr = None            # module -> None


def set_checkpoint_hooks(is_edge, after_setattr):
    """Called by fasteager.train.checkpoint: ``is_edge(name, value)`` picks the attributes
    ``_checkpoint_dependencies`` returns; ``after_setattr(module)`` runs after every set."""
    global _checkpoint_edge, _after_setattr
    _checkpoint_edge = is_edge
    _after_setattr = after_setattr


# ---- name scopes ------------------------------------------------------------------------------

_scopes = threading.local()


def _current_scope():
    return getattr(_scopes, "name", "")


class name_scope:
    """Context manager for a name scope: ``with fe.name_scope("block") as scope:`` gives
    ``scope == 'block/'`` (nested inside the current scope; a name ending in ``/`` is
    absolute, as in TensorFlow)."""

    def __init__(self, name, default_name=None, values=None):
        if name is None:
            name = default_name
        if name is not None and not isinstance(name, str):
            raise TypeError("name_scope: name must be a string (got %s)" % type(name).__name__)
        self._name = name or ""
        if self._name.endswith("/"):
            self.name = self._name
        elif self._name:
            self.name = _current_scope() + self._name + "/"
        else:
            self.name = ""
        self._saved = []

    def __enter__(self):
        self._saved.append(_current_scope())
        _scopes.name = self.name
        return self.name

    def __exit__(self, *exc):
        _scopes.name = self._saved.pop()
        return False

    def __repr__(self):
        return "<fe.name_scope %r>" % self.name


# ---- walking attributes ---------------------------------------------------------------------

def _is_variable(x):
    return isinstance(x, Variable)


def _is_trainable_variable(x):
    return isinstance(x, Variable) and x.trainable


def _is_non_trainable_variable(x):
    return isinstance(x, Variable) and not x.trainable


def _is_module(x):
    return isinstance(x, Module)


def _anything(x):
    return True


def _leaves(value, path=()):
    """(path, leaf) pairs of a nested list/tuple/dict, dict entries in sorted key order
    (as ``tf.nest``)."""
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        for k in keys:
            yield from _leaves(value[k], path + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))
    else:
        yield path, value


def _ignored(module):
    """The attributes of ``module`` never walked: its own bookkeeping (a Keras layer's
    caches included)."""
    return getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", frozenset()) | getattr(
        module, "_NOT_TRACKED", frozenset())


def _flatten_module(module, recursive, predicate, key, with_path, prefix, seen, stack):
    attributes = vars(module)
    ignored = _ignored(module)
    submodules = []
    if id(module) in stack:          # a cycle back to a module being walked
        recursive = False
    for name in sorted(attributes, key=key):
        if name in ignored:
            continue
        for leaf_path, leaf in _leaves(attributes[name]):
            leaf_path = prefix + (name,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((leaf_path, leaf))
    stack.append(id(module))
    for sub_path, sub in submodules:
        yield from _flatten_module(sub, recursive, predicate, key, with_path, sub_path, seen,
                                   stack)
    stack.pop()


class Module:
    """Base class of things that own variables and sub-modules (see the module docstring).

    Keras layers and models are Modules: ``isinstance(fe.keras.layers.Dense(2), fe.Module)``.
    """

    # attributes never walked (framework bookkeeping)
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_scope_name", "_name"))

    def __init__(self, name=None):
        if name is None:
            name = _CAMEL.sub(r"_\1", type(self).__name__).lower()
        elif not isinstance(name, str) or not _VALID_NAME.match(name):
            raise ValueError("%r is not a valid module name. Module names must be valid Python "
                             "3 identifiers (letters, digits and underscores, not starting "
                             "with a digit)." % (name,))
        object.__setattr__(self, "_name", name)
        with name_scope(name) as scope:
            object.__setattr__(self, "_scope_name", scope)

    # ---- identity ---------------------------------------------------------------------------
    @property
    def name(self):
        """The module's name (the class name in snake case unless given)."""
        return self._name

    @property
    def name_scope(self):
        """The name scope the module was created in, with its own name appended."""
        scope = self.__dict__.get("_scope_name")
        if scope is None:            # a subclass that did not call Module.__init__
            scope = self.name + "/"
        return name_scope(scope)

    # ---- tracking ---------------------------------------------------------------------------
    @property
    def variables(self):
        """Every variable of this module and its sub-modules (a tuple, each once)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        """The trainable variables of this module and its sub-modules."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self):
        """Every module reachable through attributes (not this one), depth first."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        """Yield the values (or ``(path, value)`` pairs) under this module's attributes that
        satisfy ``predicate``, in TensorFlow's order (see the module docstring)."""
        if predicate is None:
            predicate = _anything
        return _flatten_module(self, recursive, predicate, attribute_traversal_key, with_path,
                               (), {id(self)}, [])

    def _checkpoint_dependencies(self):
        """(attribute, value) edges of the checkpoint object graph, in assignment order."""
        if _checkpoint_edge is None:        # no checkpoint layer loaded: nothing to save
            return []
        return [(k, v) for k, v in vars(self).items()
                if k not in self._TF_MODULE_IGNORED_PROPERTIES and _checkpoint_edge(k, v)]

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        # a variable (or module) created after Checkpoint.restore takes its saved value now
        if _after_setattr is not None:
            _after_setattr(self)

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside the module's name scope."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped

# The classes keep the module name they had before the move to fasteager._src: it is
# what their repr and saved references (pickles) show, so that name still imports, as
# this module (fe.module, the attribute, warns: see the package root).
for _cls in (name_scope, Module):
    _cls.__module__ = "fasteager.module"
del _cls
_sys.modules.setdefault("fasteager.module", _sys.modules[__name__])
