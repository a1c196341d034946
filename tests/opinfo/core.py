"""The op-info table's data model (issue 27 item 2; Chainer's ``FunctionTestCase``, PyTorch's ``OpInfo``).

One :class:`OpInfo` per registered op (keyed by TF's op name, as ``tf.raw_ops`` spells it) holds every
fact the generic tests in ``tests/opinfo/`` need about it:

- ``samples``: public calls of the op (:class:`Sample`) run on ``CPU:0`` and on a GPU device (the
  emulated GPU in strict CuPy mode, or a real one) and compared, gradients included for ``grad=True``;
- ``ref``: a float64 NumPy reference of the op's element-wise value, checked on ragged and edge shapes
  (empty, size 1, broadcasting; or ``ref_shapes``) with inputs drawn from ``domain``, in each of ``dtypes``;
- ``grad``: a float64 finite-difference case (:class:`GradCase`) for the first AND second gradient;
- ``kernels``: the name prefixes of our CUDA kernels the first sample must launch on a GPU device;
- ``saved_model``: the first sample, traced in a ``tf.function``, survives a SavedModel round trip.

Public functions built from several ops (``tf.nn.gelu``, ``tf.image.psnr``) are not the entry of one
op: they are :data:`COMPOSITES`, compared across devices like samples. Kernel-family facts (racecheck
runs, ptxas no-spill prefixes, tile constants) live in ``tests/opinfo/kernel_families.py``.
"""

import dataclasses

import numpy as np

import tfcore as tf


@dataclasses.dataclass
class Sample:
    """``fn(*tensors made from arrays)``: one call compared between CPU and GPU (outputs and, with
    ``grad``, gradients of a weighted sum of the float outputs w.r.t. the float inputs). ``host``: the op
    has no GPU kernel (as in TF), so on a GPU device it runs on ``CPU:0`` and its outputs stay there."""

    id: str
    fn: object
    arrays: tuple
    grad: bool = False
    tol: float = 1e-5
    op: str = None
    host: bool = False


@dataclasses.dataclass
class GradCase:
    """``fn`` of float64 tensors, its NumPy inputs and ``check_gradients`` options (``eps``, ``rtol``...)."""

    fn: object
    inputs: list
    options: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class OpInfo:
    op: str
    samples: list = dataclasses.field(default_factory=list)
    ref: object = None            # float64 NumPy function of the op's inputs (element-wise ops)
    public: object = None         # the public function that ref describes (default: the first sample's fn)
    arity: int = 1
    domain: tuple = (-2.0, 2.0)   # where ref's inputs are drawn from (each input, or one pair per input)
    dtypes: tuple = ("float32", "float64")
    ref_shapes: tuple = None      # input shape tuples for ref (None: test_references.py's edge shapes)
    exact: bool = False           # ref takes the inputs in the tested dtype and must match bit for bit
    ref_tol: dict = None          # {dtype name: (rtol, atol)} overriding test_references.py's TOL
    grad: GradCase = None
    kernels: tuple = ()           # CUDA kernel name prefixes the first sample launches on a GPU
    saved_model: bool = False


OPS = {}
COMPOSITES = []


def entry(op, **facts):
    """The table's entry of ``op`` (created on first use); ``facts`` set its fields."""
    info = OPS.get(op)
    if info is None:
        info = OPS[op] = OpInfo(op)
    for key, value in facts.items():
        if not hasattr(info, key):
            raise AttributeError(f"OpInfo has no field {key!r}")
        setattr(info, key, value)
    return info


def sample(op, id, fn, *arrays, grad=False, tol=1e-5, host=False):  # noqa: A002
    """Add a device-comparison sample to ``op``'s entry (``op=None``: a composite public function)."""
    s = Sample(id, fn, arrays, grad, tol, op, host)
    if op is None:
        COMPOSITES.append(s)
    else:
        entry(op).samples.append(s)
    return s


def grad_case(op, fn, inputs, **options):
    """Set ``op``'s float64 gradient case (first and second order)."""
    entry(op, grad=GradCase(fn, inputs, options))


def all_samples():
    """Every device-comparison sample: the entries' samples, then the composites."""
    return [s for info in OPS.values() for s in info.samples] + list(COMPOSITES)


# -- input makers ---------------------------------------------------------------------------------------------------

def _rng(seed=0):
    return np.random.default_rng(seed)


def f32(*shape, lo=-1.0, hi=1.0, seed=0):
    return _rng(seed).uniform(lo, hi, shape).astype(np.float32)


def f64(*shape, lo=-1.0, hi=1.0, seed=0):
    return _rng(seed).uniform(lo, hi, shape)


def i32(*shape, lo=0, hi=5, seed=0, dtype=np.int32):
    return _rng(seed).integers(lo, hi, shape).astype(dtype)


def i64(*shape, lo=0, hi=5, seed=0):
    return i32(*shape, lo=lo, hi=hi, seed=seed, dtype=np.int64)


def bools(*shape, seed=0):
    return _rng(seed).random(shape) > 0.5


_grad_rng = np.random.default_rng(1234)


def r(*shape, lo=None, hi=None):
    """Random float64 array for gradient cases; with lo/hi, uniform in [lo, hi) (an op's domain)."""
    if lo is not None:
        return _grad_rng.uniform(lo, hi, size=shape)
    return _grad_rng.standard_normal(shape)


def away(*shape, gap=0.2):
    """Random values at least ``gap`` from 0 (relu/abs/sign kinks) and from each other."""
    n = int(np.prod(shape))
    vals = (np.arange(n) - n / 2 + 0.5) * gap * 1.7
    return _grad_rng.permutation(vals).reshape(shape)


def vjp(f, wrt=0, fixed=None):
    """``g(*xs, dy)``: the gradient of ``<f(*xs), dy>`` with respect to ``xs[wrt]`` (reaches ops that are
    themselves gradients, e.g. ``ReluGrad``). ``fixed`` maps argument positions of ``f`` to constant NumPy
    values left out of ``xs``."""
    fixed = fixed or {}

    def g(*args):
        free, dy = list(args[:-1]), args[-1]
        xs = [tf.constant(fixed[i]) if i in fixed else free.pop(0) for i in range(len(fixed) + len(free))]
        with tf.GradientTape() as tape:
            tape.watch(xs[wrt])
            y = f(*xs)
        return tape.gradient(y, xs[wrt], output_gradients=dy)

    return g


# -- running a sample on a device ---------------------------------------------------------------------------

def _flat(out):
    if isinstance(out, tuple | list):
        return [t for o in out for t in _flat(o)]
    return [out]


def run_sample(c, device):
    """Run sample ``c`` on ``device``: ``(outputs, devices, gradients)``; devices of outputs and gradients."""
    tf.random.set_seed(1234)
    with tf.device(device):
        ts = [tf.constant(a) for a in c.arrays]
        if not c.grad:
            outs = _flat(c.fn(*ts))
            return [o.numpy() for o in outs], [o.device for o in outs], []
        srcs = [t for t in ts if t.dtype.is_floating]
        with tf.GradientTape() as tape:
            for t in srcs:
                tape.watch(t)
            outs = _flat(c.fn(*ts))
            terms = []
            for k, o in enumerate(outs):
                if o.dtype.is_floating and o.shape.num_elements():
                    w = tf.constant(np.linspace(0.5, 1.5, o.shape.num_elements()).reshape(o.shape.as_list()),
                                    dtype=o.dtype)
                    terms.append(tf.reduce_sum(tf.cast(o * w, tf.float32)) * float(k + 1))
            loss = tf.add_n(terms)
        grads = tape.gradient(loss, srcs)
    return ([o.numpy() for o in outs], [o.device for o in outs] + [g.device for g in grads if g is not None],
            [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads])  # IndexedSlices: dense


def assert_same(c, got, want, what):
    """Equal within the sample's tolerance (exact for integers, bools and strings; NaNs must match)."""
    assert len(got) == len(want), f"{c.id}: {len(got)} {what} vs {len(want)}"
    for k, (a, b) in enumerate(zip(got, want)):
        if a is None or b is None:
            assert a is None and b is None, f"{c.id}: {what}[{k}] is None on one device only"
            continue
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, \
            f"{c.id}: {what}[{k}] {a.dtype}{a.shape} vs CPU {b.dtype}{b.shape}"
        if a.dtype.kind in "fc":
            tol = max(c.tol, 1e-2) if a.dtype == np.float16 else c.tol
            wide = np.complex128 if a.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(a.astype(wide), b.astype(wide), rtol=tol, atol=tol,
                                       equal_nan=True, err_msg=f"{c.id}: {what}[{k}]")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{c.id}: {what}[{k}]")


class RecordingKernels:
    """A backend's kernel library that remembers the kernel names it launched (the hook behind "our kernel
    ran": put it in ``backend.kernels`` of an emulated or a real GPU)."""

    def __init__(self, lib):
        self._lib, self.names = lib, []

    def launch(self, name, grid, block, args, *a, **kw):
        self.names.append(name)
        return self._lib.launch(name, grid, block, args, *a, **kw)

    def __getattr__(self, name):
        return getattr(self._lib, name)


def assert_kernels_launched(c, names):
    """When ``c`` is the first sample of an entry with ``kernels``, each prefix matches a launched kernel."""
    info = OPS.get(c.op)
    if info is None or not info.kernels or c is not info.samples[0]:
        return
    for prefix in info.kernels:  # our CUDA kernel ran, not the xp fallback
        assert any(n.startswith(prefix) for n in names), \
            f"{c.op} ({c.id}) launched none of {prefix}*: {sorted(set(names))}"

