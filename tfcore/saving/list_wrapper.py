"""TF's ``ListWrapper``: a list assigned to a ``tf.train.Checkpoint`` attribute, tracked as a container.

TF wraps a list attribute of a trackable so that the variables later appended to it are checkpointed
under their index and, when a ``restore`` ran before they existed, restored as they are appended
(``restore.listed = []; restore.listed.append(v)`` gives ``v`` its saved value). Appending, extending
and assigning an index announce the new element to the deferred-restoration registry.
"""

from ..framework import deferred
from . import graph


class ListWrapper(list):
    """A ``list`` whose trackable elements are checkpoint children named by their index."""

    def _tfc_checkpoint_children(self):
        return [(str(i), v) for i, v in enumerate(self) if graph.is_trackable(v)]

    def _announce(self, start):
        for i in range(start, len(self)):
            deferred.created(self, str(i), list.__getitem__(self, i))

    def append(self, value):
        list.append(self, value)
        self._announce(len(self) - 1)

    def extend(self, values):
        start = len(self)
        list.extend(self, values)
        self._announce(start)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __setitem__(self, index, value):
        list.__setitem__(self, index, value)
        if isinstance(index, int):
            deferred.created(self, str(index % len(self)), value)

    def __repr__(self):
        return f"ListWrapper({list.__repr__(self)})"
