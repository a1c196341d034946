"""``tf.Variable``: a named, mutable, device-resident value that tapes watch.

A Variable holds its current value as an immutable Tensor and replaces it on
``assign*``: tensors read earlier (and saved by tapes) keep the value they saw,
and a failed assignment leaves the old value in place.
"""

import contextlib
import enum
import itertools
import threading

from . import context as _ctx
from . import device_spec, dtypes, recording, tensor_conversion_registry, tracing
from .errors import InvalidArgumentError
from .tensor import Tensor, _Reference
from .tensor_conversion import convert_to_tensor
from .tensor_shape import TensorShape, as_shape

_ACTIVE = _ctx.ACTIVE
_TRACING = tracing.ACTIVE


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


_uid = itertools.count()
_LOCK_INIT = threading.Lock()  # guards the lazy creation of a per-variable update lock

# tf.Variable's arguments in order: positional arguments become keywords for variable creators.
_VARIABLE_ARGS = ("initial_value", "trainable", "validate_shape", "caching_device", "name", "variable_def", "dtype",
                  "import_scope", "constraint", "synchronization", "aggregation", "shape",
                  "experimental_enable_variable_lifting", "device")


class _CreatorState(threading.local):
    creators = ()  # innermost last; each is creator(next_creator, **kwargs)


_creator_state = _CreatorState()


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """``tf.variable_creator_scope``: ``tf.Variable(...)`` calls ``variable_creator(next_creator, **kwargs)``.

    Thread-local, as in TF (distribution strategies install their creator in ``scope()``; their
    replica threads inherit the caller's creators through :func:`variable_creators_scope`).
    """
    saved = _creator_state.creators
    _creator_state.creators = saved + (variable_creator,)
    try:
        yield
    finally:
        _creator_state.creators = saved


def variable_creators():
    """The creators in effect on this thread (innermost last)."""
    return _creator_state.creators


@contextlib.contextmanager
def variable_creators_scope(creators):
    """Run the body with exactly ``creators`` in effect (a replica thread adopting its caller's)."""
    saved = _creator_state.creators
    _creator_state.creators = tuple(creators)
    try:
        yield
    finally:
        _creator_state.creators = saved


def _default_creator(**kwargs):
    v = object.__new__(ResourceVariable)
    v.__init__(**kwargs)
    v._built_by_creator = True  # Python calls __init__ once more on what Variable.__new__ returns
    return v


def _create_through(creators, kwargs):
    def call(i, **kw):
        if i < 0:
            return _default_creator(**kw)
        return creators[i](lambda **k: call(i - 1, **k), **kw)

    return call(len(creators) - 1, **kwargs)


class Variable:
    """A mutable tensor-valued state, usable wherever a tensor is (as ``tf.Variable``)."""

    def __new__(cls, *args, **kwargs):
        if cls is Variable:
            if creators := _creator_state.creators:
                kwargs.update(zip(_VARIABLE_ARGS, args))
                return _create_through(creators, kwargs)
            return object.__new__(ResourceVariable)  # as TF: tf.Variable(...) is a ResourceVariable
        return super().__new__(cls)

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                 name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE,
                 shape=None, experimental_enable_variable_lifting=True, device=None):
        if self.__dict__.pop("_built_by_creator", False):
            return  # already initialised by the default creator under a variable_creator_scope
        if initial_value is None:
            raise ValueError("The initial value must be specified.")
        if callable(initial_value) and not isinstance(initial_value, Tensor | Variable):
            initial_value = initial_value()
        if isinstance(device, _ctx.Device):
            dev = device
        elif device is not None:
            dev = _ctx.context.resolve(device_spec.parse(device))
        else:
            dev = _ctx.current_device() or _ctx.default_device()
        value = convert_to_tensor(initial_value, dtype=dtype, device=dev)
        if getattr(value, "_out_of_scope", False):  # a tensor leaked out of a finished tf.function trace
            raise ValueError(
                f"Argument `initial_value` ({value}) could not be lifted out of a `tf.function`. (Tried to create "
                f"variable with name='{name}'). To avoid this error, when constructing `tf.Variable`s inside of "
                "`tf.function` you can create the `initial_value` tensor in a `tf.init_scope` or pass a callable "
                "`initial_value` (e.g., `tf.Variable(lambda : tf.truncated_normal([10, 40]))`). Please file a feature "
                "request if this restriction inconveniences you.")
        dev = _ctx.placement_for(value._dtype, dev)
        if value._device is not dev:
            value = value._copy_to(dev)
        if synchronization == VariableSynchronization.ON_READ and trainable:
            raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ "
                             "only for non-trainable variables.")
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        self._value = value
        self._trainable = bool(trainable)
        self._shape = as_shape(shape) if shape is not None else (
            value.shape if validate_shape else TensorShape(None))
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Variable: initial value shape {value.shape} is incompatible with shape {self._shape}")
        base = name if name is not None else "Variable"
        base = base[:-2] if base.endswith(":0") else base
        scope = _ctx.current_name_scope()
        self._name = f"{scope}/{base}:0" if scope else f"{base}:0"
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._uid = next(_uid)
        self._update_lock = threading.RLock()
        if _TRACING[0]:
            tracing.variable_created(self)

    # -- reading -------------------------------------------------------------
    def _tfc_read(self):
        """The current value as a Tensor; active tapes see the access."""
        if _ACTIVE[0] and recording._state.tapes:  # ACTIVE: no thread has tapes -> skip the thread-local
            recording.variable_accessed(self)
        if _TRACING[0]:
            return tracing.read_variable(self)
        return self._value

    def _current(self):
        """The value an update starts from (a read the tracing graph sees; no tape notification)."""
        return tracing.read_variable(self) if _TRACING[0] else self._value

    def read_value(self):
        return self._tfc_read()

    def value(self):
        return self._tfc_read()

    def numpy(self):
        return self._value.numpy()

    # -- metadata ------------------------------------------------------------
    # A Keras 3 variable (``Layer.add_weight``, optimizer and metric variables) is a tf.Variable with a
    # ``path`` ("dense/kernel", set by ``tfcore.keras.engine.keras_variables``): its ``name`` is the last
    # part of the path, its ``dtype`` a str and its repr Keras 3's, as ``keras.Variable`` on TF 2.21.
    _keras_path = None

    @property
    def name(self):
        path = self._keras_path
        return self._name if path is None else path.rpartition("/")[2]

    @property
    def path(self):
        """Keras 3's ``Variable.path`` ("dense/kernel"); a plain ``tf.Variable`` has none (AttributeError)."""
        path = self._keras_path
        if path is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'path' (only Keras variables "
                                 "have one)")
        return path

    @property
    def dtype(self):
        if self._keras_path is None:
            return self._value._dtype
        return keras_dtype_name(self._value._dtype)

    @property
    def shape(self):
        return self._value.shape if self._shape.rank is not None and self._shape.is_fully_defined() \
            else self._shape

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def device(self):
        return self._value._device.name

    @property
    def _device(self):
        return self._value._device

    @property
    def trainable(self):
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def initial_value(self):
        return self._value

    def ref(self):
        return _Reference(self)

    def experimental_ref(self):
        return self.ref()

    # -- writing -------------------------------------------------------------
    def _coerce(self, value, op_name):
        """Validate ``value`` for assignment: same dtype (Python values converted), shape compatible."""
        dev = self._value._device
        if type(value) is Tensor and value._device is dev and value._dtype is self._value._dtype:
            return value  # the common case (optimizer and metric updates): nothing to convert
        try:
            t = convert_to_tensor(value, dtype=self._value._dtype if not isinstance(value, Tensor) and
                                  not isinstance(value, Variable) else None, device=dev)
        except TypeError as e:
            raise InvalidArgumentError(f"{op_name}: cannot convert {value!r} to {self.dtype.name}: {e}") from e
        if t._dtype is not self._value._dtype:
            raise InvalidArgumentError(
                f"{op_name}: variable {self._name} has dtype {self.dtype.name} shape {self._value.shape}; "
                f"value has dtype {t._dtype.name} shape {t.shape}")
        if t._device is not dev:
            t = t._copy_to(dev)
        return t

    def _set(self, t, op_name):
        # Same shape as the current value: compatible by construction (skips TensorShape work per update).
        if t._array.shape != self._value._array.shape and not self._shape.is_compatible_with(t.shape):
            if op_name == "AssignVariableOp":  # TF's assign checks shapes in Python: ValueError, TF's message
                raise ValueError(f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable shape "
                                 f"{self._shape}, and the assigned value shape {t.shape} are incompatible.")
            raise InvalidArgumentError(
                f"{op_name}: cannot assign a value of shape {t.shape} dtype {t.dtype.name} to variable "
                f"{self._name} of shape {self._shape} dtype {self.dtype.name}")
        if _TRACING[0] and tracing.write_variable(self, t):
            return
        self._value = t

    def _lock(self):
        """The lock that makes this variable's read-modify-write updates atomic across threads (as TF's)."""
        lock = self.__dict__.get("_update_lock")
        if lock is None:  # a subclass that did not run Variable.__init__
            with _LOCK_INIT:
                lock = self.__dict__.setdefault("_update_lock", threading.RLock())
        return lock

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value (shape and dtype must match); returns the variable."""
        t = self._coerce(value, "AssignVariableOp")
        with self._lock():
            self._set(t, "AssignVariableOp")
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add ``delta`` in place; atomic with respect to other updates from any thread."""
        delta = self._coerce(delta, "AssignAddVariableOp")
        with self._lock():
            with recording.stop_recording():
                new = self._current() + delta
            if new._array.shape != self._value._array.shape and self._shape.is_fully_defined():
                raise InvalidArgumentError(
                    f"AssignAddVariableOp: variable {self._name} shape {self._value.shape} cannot add delta "
                    f"of shape {delta.shape}")
            self._set(new, "AssignAddVariableOp")
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract ``delta`` in place; atomic with respect to other updates from any thread."""
        delta = self._coerce(delta, "AssignSubVariableOp")
        with self._lock():
            with recording.stop_recording():
                new = self._current() - delta
            if new._array.shape != self._value._array.shape and self._shape.is_fully_defined():
                raise InvalidArgumentError(
                    f"AssignSubVariableOp: variable {self._name} shape {self._value.shape} cannot subtract "
                    f"delta of shape {delta.shape}")
            self._set(new, "AssignSubVariableOp")
        return self if read_value else None

    # -- Python protocols (delegate to the value) --------------------------------
    def __array__(self, dtype=None, copy=None):
        return self._value.__array__(dtype)

    def __len__(self):
        return len(self._value)

    def __iter__(self):
        return iter(self._tfc_read())

    def __bool__(self):
        return bool(self._value)

    def __float__(self):
        return float(self._value)

    def __int__(self):
        return int(self._value)

    def __index__(self):
        return self._value.__index__()

    def __format__(self, spec):
        return format(self._value, spec)

    __hash__ = None
    __array_priority__ = 100

    def __repr__(self):
        if self._keras_path is not None:
            return keras_variable_repr(self)
        if tracing.is_tracing():  # TF prints a variable without its value inside a tf.function's trace
            return f"<tf.Variable '{self._name}' shape={self._value.shape} dtype={self.dtype.name}>"
        return (f"<tf.Variable '{self._name}' shape={self._value.shape} dtype={self.dtype.name}, "
                f"numpy={self._value.__repr__().split('numpy=', 1)[1][:-1]}>")

    def __reduce__(self):
        return (_rebuild_variable, (self.numpy(), self.dtype.name, self._trainable, self._name))

    @classmethod
    def _override_operator(cls, name, fn):
        setattr(cls, name, fn)


class ResourceVariable(Variable):
    """The class of every plain ``tf.Variable(...)``, as in TF 2.21 (``type(v).__name__`` is
    ``'ResourceVariable'``); ``tf.Variable`` stays the public base class that ``isinstance`` checks."""


class KerasDTypeName(str):
    """Keras 3's ``Variable.dtype``: the dtype's name as a ``str`` (prints ``float32``, equals ``'float32'``
    and ``tf.float32`` and hashes as both, as on TF 2.21).

    Unlike Keras 3's plain str it still answers ``tf.DType``'s attributes (``is_floating``,
    ``as_numpy_dtype``, ``base_dtype``, ...), so code written against a ``tf.Variable``'s DType, tfcore's
    own optimizers and savers included, keeps working with Keras weights.
    """

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(dtypes.as_dtype(str(self)), attr)

    def __reduce__(self):
        return (str, (str(self),))


_KERAS_DTYPE_NAMES = {}


def keras_dtype_name(dtype):
    """The :class:`KerasDTypeName` of a DType (one shared instance per dtype)."""
    name = _KERAS_DTYPE_NAMES.get(dtype)
    if name is None:
        name = _KERAS_DTYPE_NAMES[dtype] = KerasDTypeName(dtype.name)
    return name


def keras_variable_repr(var):
    """Keras 3's repr: ``<Variable path=dense/kernel, shape=(2, 3), dtype=float32, value=[...]>``; inside a
    tf.function's trace without the value (Keras 3 cannot read a symbolic value there)."""
    if tracing.is_tracing():
        return f"<Variable path={var.path}, shape={var.shape}, dtype={var.dtype}>"
    try:
        value = f", value={var.numpy()}"
    except Exception:  # noqa: BLE001 - as Keras 3: a value that cannot be read is left out
        value = ""
    return f"<Variable path={var.path}, shape={var.shape}, dtype={var.dtype}{value}>"


def _rebuild_variable(value, dtype_name, trainable, name):
    return Variable(value, dtype=dtypes.as_dtype(dtype_name), trainable=trainable, name=name.split(":")[0])


def _variable_to_tensor(var, dtype=None, name=None, as_ref=False):
    """Variables convert to their current value; active tapes see the read."""
    return var._tfc_read()


tensor_conversion_registry.register_tensor_conversion_function(Variable, _variable_to_tensor)
