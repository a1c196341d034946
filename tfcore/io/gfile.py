"""``tf.io.gfile``: file-system helpers with TF's names and errors (local paths)."""

import glob as _glob
import os
import shutil

from ..framework.errors import AlreadyExistsError, NotFoundError, PermissionDeniedError


def _path(p):
    return os.fsdecode(p.numpy() if hasattr(p, "numpy") else p)


def exists(path):
    return os.path.exists(_path(path))


def isdir(path):
    return os.path.isdir(_path(path))


def glob(pattern):
    """Sorted matches of a glob pattern (or a list of patterns)."""
    pats = [pattern] if isinstance(pattern, str | bytes | os.PathLike) else list(pattern)
    out = []
    for p in pats:
        out.extend(sorted(_glob.glob(_path(p))))
    return out


def makedirs(path):
    os.makedirs(_path(path), exist_ok=True)


def mkdir(path):
    p = _path(path)
    try:
        os.mkdir(p)
    except FileExistsError:
        raise AlreadyExistsError(None, None, f"{p}; File exists") from None
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{p}; parent directory does not exist") from None


def listdir(path):
    p = _path(path)
    if not os.path.isdir(p):
        raise NotFoundError(None, None, f"Could not find directory {p}")
    return sorted(os.listdir(p))


def remove(path):
    p = _path(path)
    try:
        os.remove(p)
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{p}; No such file or directory") from None


def rmtree(path):
    p = _path(path)
    if not os.path.exists(p):
        raise NotFoundError(None, None, f"{p}; No such file or directory")
    shutil.rmtree(p)


def rename(src, dst, overwrite=False):
    s, d = _path(src), _path(dst)
    if os.path.exists(d) and not overwrite:
        raise AlreadyExistsError(None, None, f"{d}; File already exists")
    if not os.path.exists(s):
        raise NotFoundError(None, None, f"{s}; No such file or directory")
    os.replace(s, d)


def copy(src, dst, overwrite=False):
    s, d = _path(src), _path(dst)
    if os.path.exists(d) and not overwrite:
        raise AlreadyExistsError(None, None, f"{d}; File already exists")
    if not os.path.exists(s):
        raise NotFoundError(None, None, f"{s}; No such file or directory")
    shutil.copyfile(s, d)


def walk(top, topdown=True, onerror=None):
    yield from os.walk(_path(top), topdown=topdown, onerror=onerror)


def join(path, *paths):
    return os.path.join(_path(path), *map(_path, paths))


def stat(path):
    p = _path(path)
    if not os.path.exists(p):
        raise NotFoundError(None, None, f"{p}; No such file or directory")
    return os.stat(p)


class GFile:
    """``tf.io.gfile.GFile(name, mode='r')``: a file object (text for 'r'/'w', bytes with 'b')."""

    def __init__(self, name, mode="r"):
        self.name = _path(name)
        self.mode = mode
        try:
            self._f = open(self.name, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""}))  # noqa: SIM115
        except FileNotFoundError:
            raise NotFoundError(None, None, f"{self.name}; No such file or directory") from None
        except PermissionError:
            raise PermissionDeniedError(None, None, f"{self.name}; Permission denied") from None

    def read(self, n=-1):
        return self._f.read(n)

    def readline(self):
        return self._f.readline()

    def readlines(self):
        return self._f.readlines()

    def write(self, data):
        if "b" not in self.mode and isinstance(data, bytes):
            data = data.decode("utf-8")
        self._f.write(data)

    def flush(self):
        self._f.flush()

    def seek(self, offset, whence=0):
        return self._f.seek(offset, whence)

    def tell(self):
        return self._f.tell()

    def size(self):
        return os.path.getsize(self.name)

    def close(self):
        self._f.close()

    def __iter__(self):
        return iter(self._f)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


Open = GFile
