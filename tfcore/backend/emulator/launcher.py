"""Launch an emulated kernel by name with CUDA-style grid, block, args and shared memory.

Array arguments are copied into *guarded buffers* for the launch: an mmap with a
PROT_NONE page before and after the data (the data ends exactly at the back page,
16-byte aligned, the few slack bytes filled with canaries) and, for ``const T*``
parameters, the data pages made read-only. A kernel that touches memory outside its
arguments faults; the shim's signal handler stops the launch and this module raises
:class:`KernelFault` naming the kernel, the argument, the element and the thread.
Writable arguments are copied back after a clean launch.

Racecheck mode (``racecheck=True`` or ``TFCORE_EMULATOR_RACECHECK=1``) loads the instrumented
build of the file (build.py) and runs one worker; a shared-memory race raises
:class:`KernelFault` naming the kernel, the block, both threads and the shared-memory offset
(attributes ``thread``, ``other_thread``, ``shared_offset``, ``shared_variable``).
"""

import ctypes
import functools
import mmap
import os
import subprocess
import threading

import numpy as np

from .build import build, source_hash

_LAUNCH_LOCK = threading.Lock()  # one launch at a time per process (signal handlers are global)
_PAGE = mmap.PAGESIZE
_CANARY = 0xA5
_PROT_NONE, _PROT_READ, _PROT_WRITE = 0, 1, 2
_MAP_PRIVATE, _MAP_ANONYMOUS = 0x02, 0x20

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


class EmulatorError(RuntimeError):
    """An emulated launch failed (bad configuration, barrier deadlock, __trap)."""


class KernelFault(EmulatorError):
    """An emulated kernel accessed memory outside its arguments (or wrote a const one).

    Also raised by racecheck builds for a shared-memory race between two threads of a block.

    Attributes: ``kernel``, ``arg`` (parameter name or None), ``offset`` (bytes from the
    argument's start), ``write`` (True/False/None), ``block``, ``thread``; for races also
    ``race`` (True), ``other_thread``, ``shared_offset`` (bytes into the static ``__shared__``
    variable or the dynamic shared buffer), ``shared_variable`` (its name, None for dynamic shared
    memory) and ``accesses`` (the other thread's access, this thread's: "read"/"write"/"atomic"; the other's
    is "cp.async" when it is an asynchronous copy into the cell that has not landed, which the same thread
    can also race with).
    """

    race = False
    other_thread = shared_offset = shared_variable = accesses = None

    def __init__(self, message, kernel, arg=None, offset=None, write=None, block=None, thread=None):
        super().__init__(message)
        self.kernel, self.arg, self.offset, self.write = kernel, arg, offset, write
        self.block, self.thread = block, thread


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("arg", ctypes.c_int), ("offset", ctypes.c_longlong),
                ("write", ctypes.c_int), ("region_kind", ctypes.c_int), ("address", ctypes.c_ulonglong),
                ("block", ctypes.c_uint * 3), ("thread", ctypes.c_uint * 3), ("message", ctypes.c_char * 256),
                ("other_thread", ctypes.c_uint * 3), ("race_kinds", ctypes.c_int), ("shared_static", ctypes.c_int)]


class _Region(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_ulonglong), ("hi", ctypes.c_ulonglong), ("start", ctypes.c_ulonglong),
                ("nbytes", ctypes.c_ulonglong), ("arg", ctypes.c_longlong), ("readonly", ctypes.c_longlong)]


# C scalar type -> ctypes type
_SCALARS = {
    "int": ctypes.c_int, "signed": ctypes.c_int, "signed int": ctypes.c_int, "int32_t": ctypes.c_int32,
    "unsigned": ctypes.c_uint, "unsigned int": ctypes.c_uint, "uint32_t": ctypes.c_uint32,
    "long long": ctypes.c_longlong, "long long int": ctypes.c_longlong, "signed long long": ctypes.c_longlong,
    "int64_t": ctypes.c_int64, "tfc_index_t": ctypes.c_longlong, "long": ctypes.c_long,
    "unsigned long long": ctypes.c_ulonglong, "uint64_t": ctypes.c_uint64, "unsigned long": ctypes.c_ulong,
    "size_t": ctypes.c_size_t, "short": ctypes.c_short, "unsigned short": ctypes.c_ushort,
    "char": ctypes.c_char, "signed char": ctypes.c_byte, "unsigned char": ctypes.c_ubyte, "bool": ctypes.c_bool,
    "float": ctypes.c_float, "double": ctypes.c_double, "__half": ctypes.c_uint16, "half": ctypes.c_uint16,
}
# pointee C type -> NumPy dtypes accepted (None: any dtype)
_POINTEES = {
    "float": ("float32",), "double": ("float64",), "__half": ("float16",), "half": ("float16",),
    "float2": ("float32",), "float4": ("float32",), "double2": ("float64",), "__half2": ("float16",),
    "int": ("int32", "uint32"), "unsigned": ("int32", "uint32"), "unsigned int": ("int32", "uint32"),
    "int32_t": ("int32", "uint32"), "uint32_t": ("int32", "uint32"), "int2": ("int32",), "int4": ("int32",),
    "long long": ("int64", "uint64"), "unsigned long long": ("int64", "uint64"), "int64_t": ("int64", "uint64"),
    "uint64_t": ("int64", "uint64"), "tfc_index_t": ("int64", "uint64"),
    "bool": ("bool", "int8", "uint8"), "char": None, "unsigned char": None, "signed char": None, "void": None,
    "short": ("int16", "uint16", "float16"), "unsigned short": ("int16", "uint16", "float16", "bfloat16"),
}


def default_workers():
    env = os.environ.get("TFCORE_EMULATOR_THREADS")
    if env:
        return max(1, int(env))
    return max(1, min(4, os.cpu_count() or 1))


def guards_enabled():
    return os.environ.get("TFCORE_EMULATOR_GUARD", "1") not in ("0", "false", "no")


def racecheck_enabled():
    """``TFCORE_EMULATOR_RACECHECK``: load racecheck builds (shared-memory race detection)."""
    return os.environ.get("TFCORE_EMULATOR_RACECHECK", "0") not in ("", "0", "false", "no")


_ACCESS = {1: "read", 2: "write", 3: "atomic", 4: "atomic read", 5: "cp.async"}


@functools.cache
def _tls_symbols(library):
    """(offset, size, demangled name) of the TLS variables of ``library`` (static __shared__ in racecheck
    builds): their st_value is the offset into the module's TLS block."""
    try:
        out = subprocess.run(["readelf", "-sW", str(library)], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ()
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "TLS" and f[6] != "UND":
            syms.append((int(f[1], 16), int(f[2], 0), f[7]))
    if syms:
        try:
            names = subprocess.run(["c++filt"], input="\n".join(n for _, _, n in syms), capture_output=True,
                                   text=True, check=True).stdout.splitlines()
            if len(names) == len(syms):
                syms = [(o, n, d) for (o, n, _), d in zip(syms, names)]
        except (OSError, subprocess.CalledProcessError):
            pass
    return tuple(syms)


class _GuardedBuffer:
    """``nbytes`` of data ending at a PROT_NONE page, with a PROT_NONE page in front."""

    def __init__(self, src, readonly):
        self.nbytes = int(src.nbytes)
        self.data = (self.nbytes + 15) & ~15
        self.data_pages = -(-self.data // _PAGE)
        self.total = (self.data_pages + 2) * _PAGE
        base = _libc.mmap(None, self.total, _PROT_READ | _PROT_WRITE, _MAP_PRIVATE | _MAP_ANONYMOUS, -1, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise MemoryError(f"emulator: mmap of {self.total} bytes failed")
        self.base = base
        self.area = base + _PAGE
        self.start = self.area + self.data_pages * _PAGE - self.data
        ctypes.memset(self.area, _CANARY, self.data_pages * _PAGE)
        if self.nbytes:
            ctypes.memmove(self.start, src.ctypes.data, self.nbytes)
        _libc.mprotect(base, _PAGE, _PROT_NONE)
        _libc.mprotect(base + (self.data_pages + 1) * _PAGE, _PAGE, _PROT_NONE)
        self.readonly = readonly
        if readonly and self.data_pages:
            _libc.mprotect(self.area, self.data_pages * _PAGE, _PROT_READ)

    def corrupted_slack(self):
        """(bytes written before the data, bytes written after it) into the canary slack."""
        front = ctypes.string_at(self.area, self.start - self.area)
        back = ctypes.string_at(self.start + self.nbytes, self.data - self.nbytes)
        canary = bytes([_CANARY])
        return front.strip(canary) != b"", back.strip(canary) != b""

    def copy_back(self, dst):
        if self.nbytes:
            ctypes.memmove(dst.ctypes.data, self.start, self.nbytes)

    def free(self):
        if self.base:
            _libc.munmap(self.base, self.total)
            self.base = None


@functools.cache
def _array_type(item, length):
    """``item * length``, made once: ctypes builds a new array type on every ``*``, and each such type is
    reference-cycle garbage after the launch that made it."""
    return item * length


def _fmt3(v):
    return "(" + ",".join(str(int(x)) for x in v) + ")"


def _dims(v, what):
    if isinstance(v, int | np.integer):
        v = (int(v),)
    v = tuple(int(x) for x in v)
    if not 1 <= len(v) <= 3 or any(x < 0 for x in v):
        raise ValueError(f"{what} must be 1 to 3 non-negative ints, got {v}")
    return v + (1,) * (3 - len(v))


class EmulatedModule:
    """One compiled kernels/*.cu file, loaded with ctypes."""

    def __init__(self, source_path, include_dirs=(), defines=(), racecheck=False):
        built = build(source_path, include_dirs, defines, racecheck=racecheck)
        self.racecheck = bool(racecheck)
        self.source_path = source_path
        self.built = built
        self.signatures = built.signatures
        self._lib = ctypes.CDLL(str(built.library))
        fn = self._lib.tfc_emu_launch
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_uint] * 6 + [
            ctypes.c_ulonglong, ctypes.c_int, ctypes.c_ulonglong, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        self._launch = fn
        assert self._lib.tfc_emu_error_size() == ctypes.sizeof(_Error), "shim/launcher Error layout mismatch"
        self._tramps = {}

    def __contains__(self, name):
        return name in self.signatures

    def _tramp(self, name):
        t = self._tramps.get(name)
        if t is None:
            t = self._tramps[name] = ctypes.cast(getattr(self._lib, f"tfc_tramp_{name}"), ctypes.c_void_p)
        return t

    def launch(self, name, grid, block, args, shared_mem=0, workers=None, guard=None):
        """Run kernel ``name`` like ``kernel(grid, block, args, shared_mem=...)`` in CuPy.

        ``args``: NumPy arrays for pointer parameters (C-contiguous when written; None for NULL),
        Python/NumPy scalars for the rest, converted to the parameter's C type.
        """
        sig = self.signatures.get(name)
        if sig is None:
            raise KeyError(f"no kernel {name!r} in {self.source_path}")
        if len(args) != len(sig.params):
            raise TypeError(f"kernel {name} takes {len(sig.params)} arguments "
                            f"({', '.join(p.ctype + ' ' + p.name for p in sig.params)}), got {len(args)}")
        grid, block = _dims(grid, "grid"), _dims(block, "block")
        guard = guards_enabled() if guard is None else guard
        keep = []                  # ctypes objects that must outlive the call
        slots = _array_type(ctypes.c_void_p, max(1, len(args)))()
        arrays = []                # (param index, array) for pointer params
        for i, (p, a) in enumerate(zip(sig.params, args)):
            if p.pointer:
                if a is None:
                    obj = ctypes.c_void_p(0)
                else:
                    a = self._check_array(name, i, p, a)
                    arrays.append((i, a))
                    obj = ctypes.c_void_p(a.ctypes.data)  # replaced by the guarded copy below
            else:
                obj = self._scalar(name, p, a)
            keep.append(obj)
            slots[i] = ctypes.addressof(obj)
        buffers, regions = [], []
        try:
            if guard:
                by_buffer = {}
                for i, a in arrays:
                    key = (a.ctypes.data, a.nbytes)
                    entry = by_buffer.get(key)
                    if entry is None:
                        self._check_overlap(name, sig, i, a, by_buffer)
                        entry = by_buffer[key] = [a, [i]]
                    else:
                        entry[1].append(i)
                for a, idxs in by_buffer.values():
                    readonly = all(sig.params[i].const for i in idxs)
                    gb = _GuardedBuffer(a, readonly)
                    buffers.append((gb, a, idxs))
                    for i in idxs:
                        keep[i].value = gb.start
                    regions.append(_Region(gb.base, gb.base + gb.total, gb.start, gb.nbytes, idxs[0], readonly))
            region_arr = _array_type(_Region, max(1, len(regions)))(*regions)
            err = _Error()
            stack = int(os.environ.get("TFCORE_EMULATOR_STACK_KB", "64")) * 1024
            with _LAUNCH_LOCK:
                code = self._launch(self._tramp(name), ctypes.addressof(slots), *grid, *block, int(shared_mem),
                                    workers or default_workers(), stack, ctypes.addressof(region_arr),
                                    len(regions), ctypes.byref(err))
            if code:
                raise self._error(name, sig, err, buffers, self.built.library)
            for gb, a, idxs in buffers:
                bad_front, bad_back = gb.corrupted_slack()
                if bad_front or bad_back:
                    p = sig.params[idxs[0]]
                    where = "before the start" if bad_front else "past the end"
                    raise KernelFault(
                        f"emulated kernel {name!r} wrote out of bounds of argument {idxs[0]} ({p.name}: "
                        f"{p.ctype}, {a.dtype}{list(a.shape)}): {where} (canary bytes changed)",
                        name, p.name, None, True)
            for gb, a, _ in buffers:
                if not gb.readonly:
                    gb.copy_back(a)
        finally:
            for gb, _, _ in buffers:
                gb.free()

    @staticmethod
    def _check_array(kernel, i, p, a):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"kernel {kernel}: argument {i} ({p.ctype} {p.name}) needs a NumPy array, "
                            f"got {type(a).__name__}")
        allowed = _POINTEES.get(p.base, "unknown")
        if allowed not in (None, "unknown") and a.dtype.name not in allowed:
            raise TypeError(f"kernel {kernel}: argument {i} ({p.ctype} {p.name}) expects dtype "
                            f"{'/'.join(allowed)}, got {a.dtype}")
        if not a.flags.c_contiguous:
            if not p.const:
                raise ValueError(f"kernel {kernel}: writable argument {i} ({p.name}) must be C-contiguous")
            a = np.ascontiguousarray(a)
        if not p.const and not a.flags.writeable:
            raise ValueError(f"kernel {kernel}: argument {i} ({p.name}) is written but the array is read-only")
        return a

    @staticmethod
    def _check_overlap(kernel, sig, i, a, by_buffer):
        lo, hi = a.ctypes.data, a.ctypes.data + a.nbytes
        for (plo, pn), (_, idxs) in by_buffer.items():
            if lo < plo + pn and plo < hi and not (sig.params[i].const and all(sig.params[j].const for j in idxs)):
                raise ValueError(f"kernel {kernel}: argument {i} ({sig.params[i].name}) partly overlaps argument "
                                 f"{idxs[0]}; the emulator supports identical or disjoint buffers only")

    @staticmethod
    def _scalar(kernel, p, v):
        ct = _SCALARS.get(p.base)
        if ct is None:
            raise TypeError(f"kernel {kernel}: parameter {p.name} of type {p.ctype} is not supported by the emulator")
        if p.base in ("__half", "half"):
            return ct(int(np.asarray(v, np.float16).view(np.uint16)))
        if ct in (ctypes.c_float, ctypes.c_double):
            return ct(float(v))
        if isinstance(v, float | np.floating) and float(v) != int(v):
            raise TypeError(f"kernel {kernel}: parameter {p.name} ({p.ctype}) got non-integral {v!r}")
        if ct is ctypes.c_char:
            return ct(int(v))
        return ct(int(v))

    @staticmethod
    def _race(name, err, library):
        prev, cur = _ACCESS.get(err.race_kinds & 15, "access"), _ACCESS.get(err.race_kinds >> 4, "access")
        me, other = _fmt3(err.thread), _fmt3(err.other_thread)
        var, rel = None, int(err.offset)
        if err.shared_static:
            for off, size, sym in _tls_symbols(library):
                if off <= err.offset < off + max(size, 1):
                    var, rel = sym, int(err.offset - off)
                    break
            where = f"__shared__ {var} byte offset {rel}" if var else f"static shared memory (TLS offset {rel})"
        else:
            where = f"dynamic shared memory byte offset {rel}"
        if prev == "cp.async":  # the destination of a copy that has not landed
            text = (f"emulated kernel {name!r}: shared-memory race in block {_fmt3(err.block)}: {cur} of {where} by "
                    f"thread {me} while a cp.async into it by thread {other} is still in flight (missing "
                    f"cp.async.commit_group/wait_group before the access, or __syncthreads after the wait?)")
        else:
            text = (f"emulated kernel {name!r}: shared-memory race in block {_fmt3(err.block)}: {cur} of {where} by "
                    f"thread {me} conflicts with a {prev} by thread {other} that no barrier orders before it "
                    f"(missing __syncthreads/__syncwarp?)")
        fault = KernelFault(text, name, None, None, cur != "read" and cur != "atomic read", tuple(err.block),
                            tuple(err.thread))
        fault.race, fault.other_thread, fault.shared_offset = True, tuple(err.other_thread), rel
        fault.shared_variable, fault.accesses = var, (prev, cur)
        return fault

    @staticmethod
    def _error(name, sig, err, buffers, library=None):
        msg = err.message.decode(errors="replace")
        where = f"block {_fmt3(err.block)} thread {_fmt3(err.thread)}"
        if err.code == 5:
            return EmulatedModule._race(name, err, library)
        if err.code == 1:
            write = None if err.write < 0 else bool(err.write)
            access = {True: "write", False: "read", None: "access"}[write]
            if err.arg >= 0:
                p = sig.params[err.arg]
                arr = next(a for _, a, idxs in buffers if err.arg in idxs)
                item = arr.dtype.itemsize or 1
                kind = {0: "before the start of", 1: "past the end of", 2: "into read-only (const)"}.get(
                    err.region_kind, "in")
                elem = err.offset // item if err.offset >= 0 else -((-err.offset + item - 1) // item)
                text = (f"emulated kernel {name!r}: out-of-bounds {access} {kind} argument {err.arg} "
                        f"({p.name}: {p.ctype}, {arr.dtype}{list(arr.shape)}, {arr.size} elements): "
                        f"element {elem} (byte offset {err.offset}), {where}")
                return KernelFault(text, name, p.name, int(err.offset), write, tuple(err.block), tuple(err.thread))
            if err.region_kind == 3:
                text = (f"emulated kernel {name!r}: out-of-bounds {access} of dynamic shared memory "
                        f"(byte offset {err.offset}), {where}")
            elif err.region_kind == 5:
                text = (f"emulated kernel {name!r}: fiber stack overflow (raise TFCORE_EMULATOR_STACK_KB), {where}")
            else:
                text = (f"emulated kernel {name!r}: invalid {access} at address {err.address:#x} "
                        f"(not inside any argument: {msg}), {where}")
            return KernelFault(text, name, None, None, write, tuple(err.block), tuple(err.thread))
        if err.code == 2:
            return EmulatorError(f"emulated kernel {name!r}: {msg} ({where})")
        if err.code == 3:
            return EmulatorError(f"emulated kernel {name!r}: {msg} ({where})")
        return EmulatorError(f"emulated kernel {name!r}: {msg}")


_MODULES = {}
_MODULES_LOCK = threading.Lock()


def load_module(source_path, include_dirs=(), defines=(), racecheck=None):
    """The :class:`EmulatedModule` for a source file (built/loaded once per process per content hash).

    ``racecheck``: the race-checking build; None reads ``TFCORE_EMULATOR_RACECHECK``.
    """

    racecheck = racecheck_enabled() if racecheck is None else bool(racecheck)
    key = (str(source_path), source_hash(source_path, include_dirs, defines, racecheck))
    with _MODULES_LOCK:
        mod = _MODULES.get(key)
        if mod is None:
            mod = _MODULES[key] = EmulatedModule(source_path, include_dirs, defines, racecheck)
    return mod
