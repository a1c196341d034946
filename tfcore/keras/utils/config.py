"""``keras.utils.Config``: a dict with attribute access that can be frozen (Keras 3)."""

import copy
import json


class Config:
    """A dict-like container: ``config.a = 1`` / ``config["a"]``; :meth:`freeze` makes it read-only.

    >>> config = Config(learning_rate=0.1)
    >>> config.momentum = 0.9
    >>> config.freeze()
    >>> config.as_dict()
    {'learning_rate': 0.1, 'momentum': 0.9}
    """

    __attrs__ = None

    def __init__(self, **kwargs):
        self._config = kwargs
        self._frozen = False
        self.__attrs__ = set(dir(self))

    @property
    def frozen(self):
        """True while the config refuses changes."""
        return self._frozen

    def freeze(self):
        """Refuse further changes (setting, deleting, ``update``, ``pop``)."""
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
        attrs = object.__getattribute__(self, "__attrs__")
        if attrs is None or name in attrs:
            return object.__setattr__(self, name, value)
        self._raise_if_frozen()
        self._config[name] = value

    def __getattr__(self, name):
        attrs = object.__getattribute__(self, "__attrs__")
        if attrs is None or name in attrs:
            return object.__getattribute__(self, name)
        try:
            return self._config[name]
        except KeyError as e:
            raise AttributeError(f"Unknown attribute: '{name}'") from e

    def __setitem__(self, key, item):
        self._raise_if_frozen()
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __delitem__(self, key):
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item):
        return item in self._config

    def __len__(self):
        return len(self._config)

    def __iter__(self):
        return iter(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"
