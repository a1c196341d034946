"""libnvrtc through ctypes: the few NVRTC calls tfcore compiles with, without CuPy.

:class:`NvrtcLibrary` offers the subset of ``cupy_backends.cuda.libs.nvrtc`` that
:mod:`tfcore.backend.nvrtc` uses (``createProgram``, ``compileProgram``, ``getPTX``, ``getCUBIN``,
``getProgramLog``, ``destroyProgram``, ``getVersion``, ``getSupportedArchs``), over the C API of
``nvrtc.h``. NVRTC needs no GPU and no driver, so kernels compile (and their NVRTC and ptxas checks run)
on machines that have only the ``nvidia-cuda-nvrtc`` wheel.
"""

import ctypes


class NVRTCError(RuntimeError):
    """An NVRTC call failed; the message names the call and NVRTC's status (``NVRTC_ERROR_...``)."""

    def __init__(self, call, status, name):
        super().__init__(f"{call}: {name} ({status})")
        self.status = status


_P = ctypes.c_void_p
_SIZE = ctypes.c_size_t


class NvrtcLibrary:
    """The NVRTC entry points of one libnvrtc shared object (``path``)."""

    NVRTCError = NVRTCError

    def __init__(self, path):
        self.path = path
        self._lib = lib = ctypes.CDLL(path)
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
        lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(_P), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcCompileProgram.argtypes = [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(_P)]
        for name in ("nvrtcGetPTXSize", "nvrtcGetCUBINSize", "nvrtcGetProgramLogSize"):
            getattr(lib, name).argtypes = [_P, ctypes.POINTER(_SIZE)]
        for name in ("nvrtcGetPTX", "nvrtcGetCUBIN", "nvrtcGetProgramLog"):
            getattr(lib, name).argtypes = [_P, ctypes.c_char_p]

    def _check(self, call, status):
        if status:
            raise NVRTCError(call, status, self._lib.nvrtcGetErrorString(status).decode())

    @staticmethod
    def _strings(items):
        return (ctypes.c_char_p * max(len(items), 1))(*[s.encode() for s in items])

    def getVersion(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check("nvrtcVersion", self._lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)))
        return major.value, minor.value

    def getSupportedArchs(self):
        n = ctypes.c_int()
        self._check("nvrtcGetNumSupportedArchs", self._lib.nvrtcGetNumSupportedArchs(ctypes.byref(n)))
        archs = (ctypes.c_int * n.value)()
        self._check("nvrtcGetSupportedArchs", self._lib.nvrtcGetSupportedArchs(archs))
        return list(archs)

    def createProgram(self, source, name, headers, include_names):
        prog = _P()
        self._check("nvrtcCreateProgram", self._lib.nvrtcCreateProgram(
            ctypes.byref(prog), source.encode(), name.encode(), len(headers), self._strings(headers),
            self._strings(include_names)))
        return prog

    def compileProgram(self, prog, options):
        self._check("nvrtcCompileProgram",
                    self._lib.nvrtcCompileProgram(prog, len(options), self._strings(list(options))))

    def _blob(self, prog, what):
        size = _SIZE()
        self._check(f"nvrtcGet{what}Size", getattr(self._lib, f"nvrtcGet{what}Size")(prog, ctypes.byref(size)))
        buf = ctypes.create_string_buffer(size.value)
        self._check(f"nvrtcGet{what}", getattr(self._lib, f"nvrtcGet{what}")(prog, buf))
        return buf.raw[:size.value]

    def getPTX(self, prog):
        return self._blob(prog, "PTX").rstrip(b"\0").decode()

    def getCUBIN(self, prog):
        return self._blob(prog, "CUBIN")

    def getProgramLog(self, prog):
        return self._blob(prog, "ProgramLog").rstrip(b"\0").decode(errors="replace")

    def destroyProgram(self, prog):
        self._check("nvrtcDestroyProgram", self._lib.nvrtcDestroyProgram(ctypes.byref(prog)))
