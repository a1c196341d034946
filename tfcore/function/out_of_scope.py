"""Tensors that leaked out of a finished ``tf.function`` trace raise TF's errors when used.

TensorFlow builds a tf.function's graph from symbolic tensors; a graph tensor that Python code stores
outside the function (a global, a list, an attribute) is "out of scope" once the trace ends: an op that
receives it, eager or in another trace, raises ``TypeError: <tf.Tensor 'add:0' ...> is out of scope and
cannot be used here...``, and ``.numpy()`` raises ``AttributeError: 'SymbolicTensor' object has no
attribute 'numpy'`` (guide/function, "All outputs of a tf.function must be return values").

tfcore traces on real values, so such a tensor still holds the trace's value. When a trace ends,
:func:`expire` turns the tensors the trace's ops produced (except those the program keeps legitimately:
variables' values, placeholders, constants, and the outputs, which the caller gets as fresh tensors)
into :class:`OutOfScopeTensor` by switching their class: the eager hot path pays nothing (it never
sees one unless the program leaked it), and every use of the value goes through the subclass,
which raises TF's error. Shape, dtype and ``repr`` keep working, printing TF's symbolic form.
"""

import weakref

from ..framework import tensor_conversion_registry
from ..framework.errors import OperatorNotAllowedInGraphError
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape

_raw_array = Tensor._array  # the slot itself: the value stays readable for shape and repr
_info = {}  # id(tensor) -> (tensor name, graph name, graph id, weak reference that removes the entry)

_URL = "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"


def _forget(key):
    def callback(_ref):  # no lock: it may run inside any allocation (single dict operations are atomic)
        _info.pop(key, None)
    return callback


class OutOfScopeTensor(Tensor):
    """A tensor created while tracing a tf.function and kept by Python code after the trace ended."""

    __slots__ = ()
    _out_of_scope = True  # tf.Variable refuses one as its initial value (TF's "could not be lifted" ValueError)

    @property
    def _array(self):
        raise TypeError(out_of_scope_message(self))

    @property
    def shape(self):
        return TensorShape._from_tuple(_raw_array.__get__(self).shape)

    @property
    def ndim(self):
        return _raw_array.__get__(self).ndim

    @property
    def name(self):
        return _details(self)[0]

    def numpy(self):
        raise AttributeError("'SymbolicTensor' object has no attribute 'numpy'")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may indicate that "
            "you're trying to pass a Tensor to a NumPy call, which is not supported.")

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following "
            "resolutions to the problem: If you are running in Graph mode, use Eager execution mode or decorate "
            "this function with @tf.function. If you are using AutoGraph, you can try decorating this function "
            "with @tf.function. If that does not work, then you may be using an unsupported feature or your "
            "source code may not be visible to AutoGraph. See https://github.com/tensorflow/tensorflow/blob/"
            "master/tensorflow/python/autograph/g3doc/reference/limitations.md#access-to-source-code for more "
            "information.")

    def __int__(self):
        raise TypeError("int() argument must be a string, a bytes-like object or a real number, not "
                        "'SymbolicTensor'")

    def __float__(self):
        raise TypeError("float() argument must be a string or a real number, not 'SymbolicTensor'")

    def __index__(self):
        raise TypeError("list indices must be integers or slices, not SymbolicTensor")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please call `x.shape` "
                        "rather than `len(x)` for shape information.")

    def __iter__(self):
        raise TypeError(out_of_scope_message(self))

    def __getitem__(self, key):
        raise TypeError(out_of_scope_message(self))

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self._dtype.name}>"

    def __str__(self):
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self._dtype.name})'

    def __format__(self, spec):
        return format(str(self), spec)

    def __reduce__(self):
        raise TypeError(out_of_scope_message(self))


def _details(t):
    return _info.get(id(t), ("unknown:0", "unknown", 0, None))[:3]


def out_of_scope_message(t):
    """TF's TypeError text for a use of the leaked tensor ``t``."""
    name, graph_name, graph_id = _details(t)
    r = repr(t)
    return (f"{r} is out of scope and cannot be used here. Use return values, explicit Python locals or "
            f"TensorFlow collections to access it.\nPlease see {_URL} for more information.\n\n"
            f"The tensor {r} cannot be accessed from here, because it was defined in "
            f"FuncGraph(name={graph_name}, id={graph_id}), which is out of scope.")


def _refuse_conversion(value, dtype=None, name=None, as_ref=False):
    """Every op (``execute``'s conversion of a non-plain Tensor input) refuses a leaked tensor."""
    raise TypeError(out_of_scope_message(value))


tensor_conversion_registry.register_tensor_conversion_function(OutOfScopeTensor, _refuse_conversion, priority=0)


def _op_names(graph):
    """``{slot: 'add:0'}`` for the outputs of ``graph``'s op and call nodes, named as TF's graph names them
    (:meth:`FuncGraph.tensor_names`: ``a + 1`` is ``add:0``)."""
    names = graph.tensor_names()
    return {s: names[s] for node in graph.nodes if node.kind in ("op", "call") for s in node.outputs}


def _kept(graph, kept):
    """Ids of the values ``graph`` (and its sub-graphs) must leave usable: placeholders, constants, and the
    current values of the variables it created or assigned."""
    for s in graph.placeholders:
        kept.add(id(graph.slot_values[s]))
    for s in graph.constants:
        kept.add(id(graph.slot_values[s]))
    for var in graph.variables_created:
        kept.add(id(getattr(var, "_value", None)))
    for node in graph.nodes:
        if node.kind == "assign" and node.target is not None:
            kept.add(id(getattr(node.target, "_value", None)))
    for child in graph.children:
        _kept(child, kept)
    return kept


def produced(graph):
    """``[(tensor, name, graph)]``: the plain Tensors the ops of ``graph`` (and its sub-graphs) produced that
    must not stay usable after the trace. Call before ``graph.release_values()``."""
    kept = _kept(graph, set())
    out = []
    seen = set()

    def walk(g):
        names = _op_names(g)
        for s, name in names.items():
            v = g.slot_values[s]
            if type(v) is Tensor and id(v) not in kept and id(v) not in seen:
                seen.add(id(v))
                out.append((v, name, g))
        for child in g.children:
            walk(child)

    walk(graph)
    return out


def expire(tensors, root):
    """Turn each ``(tensor, name, graph)`` of :func:`produced` into an :class:`OutOfScopeTensor` named
    after its op, defined in ``root`` (the traced function's graph)."""
    for t, name, _g in tensors:
        key = id(t)
        _info[key] = (name, root.name, root.uid, weakref.ref(t, _forget(key)))
        t.__class__ = OutOfScopeTensor
