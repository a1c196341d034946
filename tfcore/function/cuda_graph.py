"""CUDA-graph replay of a ConcreteFunction's plan on a GPU with static shapes (docs/architecture.md §7).

Why: a training step is hundreds of small kernel launches, each costing Python dispatch and a
driver call; a CUDA graph launches them all with one call. What: :class:`GraphRunner`, kept on the
plan (``plan.cuda_graph``), runs a plan in three phases:

1. warm-up (first call): the plan runs normally, one step at a time, and every step is checked
   (:func:`_step_verdict`): the devices and dtypes of what it read and wrote. Kernels compile then,
   never during a capture.
2. the steps are split into a schedule: SEGMENTS (maximal runs of capturable steps with at least
   ``MIN_OPS`` ops) and EAGER steps (everything else: Python calls such as the Keras optimizer's
   update, control flow, guards, prints, random ops...). No segment: the plan is not capturable
   and always runs normally.
3. second call on: each segment is captured once (the capture backend records its kernels into a
   graph; nothing runs during a real capture, so the graph is launched right after) and replayed
   on later calls; eager steps run normally in between, as in ``executor.run_plan``.

Buffers. A segment's graph reads and writes fixed addresses, so the runner gives it:
- input buffers for the values it reads that other steps make anew every call (placeholders,
  eager steps' results): new values are copied in before each launch;
- a buffer per variable it reads (tfcore variables REPLACE their value tensor on assign (DESIGN §2),
  they are not updated in place): the variable's value is copied in before a launch unless the
  buffer already holds it (the graph copies each assigned variable's new value into its buffer at
  its end, and the runner remembers which tensor that value was installed as);
- the buffers the captured ops allocated (pinned by the capture backend for the graph's lifetime);
  a later segment reads an earlier segment's buffers directly.
After a launch, values other steps or the caller need are CLONED out of the graph's buffers
(tensors stay immutable: the next replay overwrites the buffers), and assigned variables get clones
of their new values. Everything is freed with the plan (the ConcreteFunction).

Capturable steps (decided before any capture; when in doubt a step is eager): op steps without
residual edges whose op is neither random nor stateful (fused optimizer updates excepted), not in
:data:`HOST_OPS` (value-dependent output shapes or host-side checks), whose inputs and outputs were
all tensors on ONE logical device the capture backend supports (real CUDA GPUs by default), none of
them strings, not in :data:`HOST_STAGING_OPS` (host-to-device copies while they run); reads and
assignments of plain ``Variable`` objects on that device. A call runs the graphs only when they are
switched on (off by default: ``TFCORE_CUDA_GRAPHS=1`` or ``tf.config.experimental.enable_cuda_graphs``;
``TFCORE_CUDA_GRAPHS=0`` always off), no gradient tape records, nothing traces and no other thread is
replaying the same plan. A value that does not match its buffer
(device, dtype, shape) makes the rest of that call run normally. An exception during a capture
ends the capture cleanly, restores the variables, marks the plan not capturable for good (also when
finishing that call raises) and runs the call normally: a graph never changes results. On a real GPU
the capture runs on a private stream and redirects only the capturing thread
(:mod:`tfcore.backend.cuda_graphs`): other threads' ops on the same GPU run normally meanwhile.
"""

import threading

from ..config import experimental as _config
from ..framework import recording, tracing
from ..framework.tensor import Tensor
from ..framework.variables import ResourceVariable
from . import executor, graph_capture, passes

ENV_SWITCH = "TFCORE_CUDA_GRAPHS"
MIN_OPS = 2  # a segment must launch at least this many op steps to be worth a graph

# Ops whose kernels need values on the host (output shapes that depend on values, host-side checks)
# or which have effects outside their outputs.
HOST_OPS = frozenset({
    "Where", "Unique", "UniqueV2", "UniqueWithCounts", "BooleanMask", "DynamicPartition", "NonMaxSuppression",
    "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5", "CheckNumerics",
    "Assert", "PrintV2", "StringFormat", "Bincount", "DenseBincount", "SparseToDense", "SparseReshape",
    "RaggedRange", "ListDiff", "SetSize", "DenseToDenseSetOperation", "EncodePng", "DecodePng", "EncodeJpeg",
    "DecodeJpeg", "WriteFile", "ReadFile"})
# Ops whose implementations copy host data to the device while they run (the resize taps). Inside a
# capture CuPy would stage that data through a pinned buffer the graph re-reads after CuPy reused it,
# and put an event recorded inside the capture on its pinned-memory watch list (never reported done:
# no pinned buffer of the process would be freed again). They run between segments.
HOST_STAGING_OPS = frozenset({"ResizeBilinear", "ResizeNearestNeighbor"})
_UPDATE_PREFIXES = ("ResourceApply", "_MultiTensorApply")
_HOST_DTYPES = frozenset({"string", "resource", "variant"})


def enabled():
    """Whether calls replay CUDA graphs: off by default, on with ``TFCORE_CUDA_GRAPHS=1`` or
    ``tf.config.experimental.enable_cuda_graphs(True)``; ``TFCORE_CUDA_GRAPHS=0`` always off (read on
    every call)."""
    return _config.cuda_graphs_enabled()


def off_reason():
    """Why graphs are off (for stats): the switch that turned them off, or the opt-in default."""
    import os

    if os.environ.get(ENV_SWITCH, "").strip().lower() in ("0", "false", "off", "no"):
        return f"{ENV_SWITCH}=0"
    if _config._cuda_graphs is False:
        return "tf.config.experimental.enable_cuda_graphs(False)"
    return f"off by default (opt in: {ENV_SWITCH}=1 or tf.config.experimental.enable_cuda_graphs(True))"


def run(plan, args):
    """Run ``plan`` on flat ``args`` like ``executor.run_plan``, replaying CUDA graphs where it can."""
    runner = plan.cuda_graph
    if runner is False or not enabled() or recording.active_tapes() or tracing.is_tracing():
        return executor.run_plan(plan, args)
    if runner is None:
        capture = graph_capture.active()
        runner = plan.cuda_graph = GraphRunner(capture)
        plan.stats["cuda_graph"] = runner.status
    if not runner.lock.acquire(blocking=False):  # another thread replays this plan: run it normally
        return executor.run_plan(plan, args)
    try:
        return runner(plan, args)
    finally:
        runner.lock.release()
        plan.stats["cuda_graph"] = runner.status
        plan.stats["cuda_graph_replays"] = runner.replays
        if runner.disabled:
            plan.cuda_graph = False  # from now on the plain run_plan path, nothing checked per call


class _CaptureFailed(Exception):  # noqa: N818 - internal signal
    pass


class _Segment:
    """A run of capturable steps replayed as one graph, and the buffers it owns."""

    __slots__ = ("steps", "copy_in", "direct", "read_vars", "assigned", "defined", "clone_out", "graph",
                 "inbufs", "vin", "installed", "buffers", "final", "n_ops")

    def __init__(self, steps):
        self.steps = steps
        self.n_ops = sum(1 for s in steps if s[0] == 0)
        self.graph = None
        self.inbufs = {}      # slot -> Tensor: where new values are copied before a launch
        self.vin = {}         # id(Variable) -> (Variable, Tensor): the buffer the graph reads it from
        self.installed = {}   # id(Variable) -> the tensor whose value its vin buffer holds
        self.buffers = {}     # slot -> Tensor: the graph's buffers for the slots it defines
        self.final = {}       # id(Variable) -> (Variable, graph buffer with its value after the segment)


class GraphRunner:
    """Warm-up, capture and replay of one plan (see the module docstring). Thread-safe through ``lock``."""

    def __init__(self, capture):
        self.capture = capture
        self.lock = threading.Lock()
        self.status = "warm-up"
        self.reason = None
        self.device = None
        self.schedule = None     # list of ("eager", step) / ("graph", _Segment)
        self.segments = []
        self.replays = 0         # calls that launched at least one graph
        self.disabled = False

    # -- stats ---------------------------------------------------------------------------------------
    def stats(self):
        eager = sum(1 for k, _ in self.schedule or () if k == "eager")
        return {"status": self.status, "reason": self.reason, "capture_backend": self.capture.name,
                "segments": len(self.segments), "captured_steps": sum(len(s.steps) for s in self.segments),
                "eager_steps": eager, "replays": self.replays}

    def release(self):
        """Free the graphs and every buffer they pinned (also happens when the plan is collected)."""
        for seg in self.segments:
            if seg.graph is not None:
                seg.graph.release()
            seg.graph = None
            seg.inbufs, seg.vin, seg.installed, seg.buffers, seg.final = {}, {}, {}, {}, {}
        self.segments = []
        self.schedule = None

    def _give_up(self, reason):
        self.disabled = True
        self.status = "not capturable: " + reason
        self.reason = reason
        self.release()

    # -- calls ---------------------------------------------------------------------------------------
    def __call__(self, plan, args):
        if self.schedule is None and not self.disabled:
            return self._warm_up(plan, args)
        if self.disabled:
            return executor.run_plan(plan, args)
        return self._replay(plan, args)

    def _warm_up(self, plan, args):
        env = executor.new_env(plan, args)
        effects = False
        verdicts = []
        for step in plan.steps:
            effects = executor.run_steps(env, [step], effects)
            verdicts.append(_step_verdict(step, env, self.capture))
        outs = [env[s] for s in plan.outputs]
        self._plan_schedule(plan, verdicts)
        return outs

    def _plan_schedule(self, plan, verdicts):
        devices = [d for d, _ in verdicts if d is not None]
        if not devices:
            reasons = sorted({r for _, r in verdicts if r})
            return self._give_up("no step runs on a device the capture backend supports"
                                 + (f" ({'; '.join(reasons[:3])})" if reasons else ""))
        self.device = devices[0]
        schedule, run_ = [], []

        def flush():
            if sum(1 for st in run_ if st[0] == 0) >= MIN_OPS:
                schedule.append(("graph", _Segment(list(run_))))
            else:
                schedule.extend(("eager", st) for st in run_)
            run_.clear()

        for step, (dev, _) in zip(plan.steps, verdicts):
            if dev is self.device:
                run_.append(step)
            else:
                flush()
                schedule.append(("eager", step))
        flush()
        segments = [seg for k, seg in schedule if k == "graph"]
        if not segments:
            return self._give_up(f"no run of {MIN_OPS}+ capturable ops on {self.device.name}")
        _analyse_slots(plan, schedule)
        self.schedule, self.segments = schedule, segments
        self.status = "capturing"

    def _replay(self, plan, args):
        env = executor.new_env(plan, args)
        effects = False
        launched = []
        items = self.schedule
        b = self.device.backend
        for i, (kind, item) in enumerate(items):
            if kind == "eager":
                effects = executor.run_steps(env, [item], effects)
                continue
            seg = item
            if seg.graph is None:
                try:
                    self._capture(seg, env, b)
                except _CaptureFailed as e:
                    try:  # for good, even when finishing the call raises
                        return self._finish_eagerly(plan, env, items[i:], launched, effects)
                    finally:
                        self._give_up(f"capture failed: {type(e.__cause__).__name__}: {e.__cause__}")
            if not self._copy_in(seg, env, b):
                return self._finish_eagerly(plan, env, items[i:], launched, effects)
            try:
                seg.graph.launch()
            except Exception as e:  # noqa: BLE001 - nothing was assigned yet: run the rest normally
                try:
                    return self._finish_eagerly(plan, env, items[i:], launched, effects)
                finally:
                    self._give_up(f"launch failed: {type(e).__name__}: {e}")
            launched.append(seg)
            self._copy_out(seg, env, b)
            effects = effects or bool(seg.assigned)
        if launched:
            self.replays += 1
            self.status = "replaying"
        return [env[s] for s in plan.outputs]

    def _finish_eagerly(self, plan, env, items, launched, effects):
        """Run what is left of a call normally (slots of launched segments that later steps read are cloned)."""
        b = self.device.backend
        for seg in launched:
            for s, t in seg.buffers.items():
                if env[s] is None:
                    env[s] = self.capture.clone(b, t)
        for kind, item in items:
            effects = executor.run_steps(env, [item] if kind == "eager" else item.steps, effects)
        return [env[s] for s in plan.outputs]

    # -- buffers -------------------------------------------------------------------------------------
    def _copy_in(self, seg, env, b):
        """New values into the segment's buffers; False (nothing launched) when one does not fit."""
        dev = self.device
        for s, buf in seg.inbufs.items():
            if not _fits(env[s], buf, dev):
                return False
        for v, buf in seg.vin.values():
            if type(v) is not ResourceVariable or not _fits(v._value, buf, dev):
                return False
        for s, buf in seg.inbufs.items():
            self.capture.copy(b, buf._array, env[s]._array)
        for key, (v, buf) in seg.vin.items():
            if seg.installed.get(key) is not v._value:
                self.capture.copy(b, buf._array, v._value._array)
                seg.installed[key] = v._value
        return True

    def _copy_out(self, seg, env, b):
        clone = self.capture.clone
        for s in seg.clone_out:
            env[s] = clone(b, seg.buffers[s])
        for key, (v, t) in seg.final.items():
            new = clone(b, t)
            v.assign(new)
            if key in seg.vin:
                seg.installed[key] = new  # the graph copied this value into vin[key] at its end

    def _capture(self, seg, env, b):
        """Capture ``seg`` (buffers, then the steps under the capture backend); raises _CaptureFailed."""
        saved = {id(st[5]): (st[5], st[5]._value) for st in seg.steps if st[0] in (1, 2)}
        session = None
        try:
            for s in seg.copy_in:
                if not _fits(env[s], None, self.device):
                    raise ValueError(f"slot {s} is not a tensor on {self.device.name}")
            inbufs = {s: self.capture.clone(b, env[s]) for s in seg.copy_in}
            vin = {id(v): (v, self.capture.clone(b, v._value)) for v in seg.read_vars}
            senv = list(env)
            for s, t in inbufs.items():
                senv[s] = t
            for s, src in seg.direct.items():
                senv[s] = src.buffers[s]
            for v, t in vin.values():
                v._value = t  # same value, the graph's buffer: reads in the capture read it
            session = self.capture.begin(b)
            for step in seg.steps:
                executor.run_steps(senv, [step])
                session.after_step(step, senv)
            final = {id(v): (v, v._value) for v in seg.assigned}
            for key, (_v, t) in vin.items():
                f = final.get(key, (None, None))[1]
                if f is not None and f is not t:
                    session.copy(t._array, f._array)
            graph = session.end()
            session = None
        except Exception as e:
            if session is not None:
                session.abort()
            raise _CaptureFailed(str(e)) from e
        finally:
            for v, t in saved.values():
                v._value = t
        seg.inbufs, seg.vin, seg.final, seg.graph = inbufs, vin, final, graph
        seg.installed = {key: saved[key][1] for key in vin}  # vin holds the values the variables had
        seg.buffers = {s: senv[s] for s in seg.defined}


def _has(variables, var):
    return any(v is var for v in variables)  # identity: Variable == compares values


def _fits(value, buf, device):
    if not isinstance(value, Tensor) or value._device is not device:
        return False
    return buf is None or (value._dtype is buf._dtype and value._array.shape == buf._array.shape)


def _step_verdict(step, env, capture):
    """(device, None) when ``step`` (just run, its values in ``env``) may be captured; else (None, reason)."""
    kind, op, ins, outs = step[0], step[1], step[2], step[3]
    if kind == 0:
        if passes._is_random(op):
            return None, f"{op.name} is random"
        if op.stateful and not op.name.startswith(_UPDATE_PREFIXES):
            return None, f"{op.name} is stateful"
        if op.name in HOST_OPS:
            return None, f"{op.name} needs the host"
        if op.name in HOST_STAGING_OPS:
            return None, f"{op.name} copies host data to the device"
        values = [env[s] for s in ins] + [env[s] for s in outs]
    elif kind in (1, 2):
        var = step[5]
        if type(var) is not ResourceVariable:
            return None, f"{type(var).__name__} is not a plain Variable"
        values = [var._value] + [env[s] for s in list(ins) + list(outs)]
    elif kind == 6:
        return None, f"{op.name} has residual edges"
    else:
        return None, {3: "Python call", 4: "control flow", 5: "guard"}.get(kind, "step kind")
    dev = None
    for v in values:
        if not isinstance(v, Tensor):
            return None, "a value is not a tensor"
        if v._dtype.name in _HOST_DTYPES:
            return None, f"{v._dtype.name} tensor"
        if dev is None:
            dev = v._device
        elif v._device is not dev:
            return None, "values on several devices"
    if dev is None:
        return None, "no tensors"
    if not capture.supports(dev.backend):
        return None, f"{dev.name} is not supported by the {capture.name} capture backend"
    return dev, None


def _analyse_slots(plan, schedule):
    """Per segment: which slots it defines, reads from outside (copied in, or an earlier segment's buffer),
    which variables it reads before assigning, assigns, and which of its slots leave it (cloned out)."""
    constants = {s for s, _ in plan.constants}
    owner = {}   # slot -> segment that defines it
    segs = []
    for kind, item in schedule:
        if kind != "graph":
            continue
        seg = item
        defined, copy_in, direct, read_vars, assigned = set(), [], {}, [], []
        for st in seg.steps:
            k, ins, outs, target = st[0], st[2], st[3], st[5]
            for s in ins:
                if s in defined or s in constants or s in direct or s in copy_in:
                    continue
                if s in owner:
                    direct[s] = owner[s]
                else:
                    copy_in.append(s)  # a placeholder or an eager step's value
            if k == 1 and not _has(assigned, target) and not _has(read_vars, target):
                read_vars.append(target)
            if k == 2 and not _has(assigned, target):
                assigned.append(target)
            defined.update(outs)
        seg.copy_in, seg.direct, seg.read_vars, seg.assigned = copy_in, direct, read_vars, assigned
        seg.defined = defined
        for s in defined:
            owner[s] = seg
        segs.append(seg)
    # slots read outside their segment: by eager steps, as function outputs
    needed = set(plan.outputs)
    everything = False
    for kind, item in schedule:
        if kind == "eager":
            needed.update(item[2])
            if item[0] == 6:
                needed.update(s for _, s in item[5][0])
            if item[0] == 4:  # control flow reads the environment for its branches' captures
                everything = True
    for seg in segs:
        seg.clone_out = [s for s in seg.defined if everything or s in needed]
