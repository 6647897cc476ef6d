"""``keras.utils.Config``: a dict of named values read and set as attributes, which can be
frozen against change (Keras's container for hyper-parameters)."""
import copy
import difflib
import json


class Config:
    """``Config(a=1).a == 1``; ``freeze()`` makes every change raise ``ValueError``."""

    def __init__(self, **kwargs):
        self._config = kwargs
        self._frozen = False
        # names that are real attributes; every other attribute is a config entry
        self.__attrs__ = set(dir(self))

    @property
    def frozen(self):
        return self._frozen

    def freeze(self):
        self._frozen = True

    def unfreeze(self):
        self._frozen = False

    def _raise_if_frozen(self):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self):
        return copy.copy(self._config)

    def to_json(self):
        return json.dumps(self._config)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def pop(self, *args):
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        self._raise_if_frozen()
        return self._config.update(*args, **kwargs)

    def get(self, keyname, value=None):
        return self._config.get(keyname, value)

    def __setattr__(self, name, value):
        attrs = self.__dict__.get("__attrs__")
        if attrs is None or name in attrs:
            return object.__setattr__(self, name, value)
        self._raise_if_frozen()
        self._config[name] = value

    def __getattr__(self, name):
        # only called for names that are not real attributes
        config = self.__dict__.get("_config", {})
        if name in config:
            return config[name]
        msg = "Unknown attribute: '%s'." % name
        close = difflib.get_close_matches(name, config.keys(), n=1, cutoff=0.7)
        if close:
            msg += " Did you mean '%s'?" % close[0]
        raise AttributeError(msg)

    def __setitem__(self, key, item):
        self._raise_if_frozen()
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __repr__(self):
        return "<Config %s>" % (self._config,)

    def __iter__(self):
        yield from sorted(self._config.keys())

    def __len__(self):
        return len(self._config)

    def __delitem__(self, key):
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item):
        return item in self._config
