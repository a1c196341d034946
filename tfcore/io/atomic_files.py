"""Crash-safe replacement of files and directories: a save killed at any step leaves the old or the new one.

Every writer puts its output in a sibling temporary named ``<name>.tfcore-tmp.<host>.<pid>.<random>``
and moves it over ``<name>`` with one atomic rename (files: ``os.replace``; directories: Linux's
``renameat2(RENAME_EXCHANGE)``, which swaps two directories in one step). Where the exchange is not
available (another OS or file system), a directory is replaced by two renames, the old one first
moved to ``<name>.tfcore-old.<host>.<pid>.<random>``; a writer killed between the two renames leaves
no ``<name>``, and :func:`recover` (run by the next save or load of ``<name>``) moves the old one
back. :func:`clean_stale` removes temporaries whose writer process is dead (same host, pid gone),
so a killed save leaves nothing behind after the next save or load; temporaries of live writers
(another process saving right now) are left alone.
"""

import contextlib
import ctypes
import ctypes.util
import errno
import os
import secrets
import shutil
import socket

_TMP = ".tfcore-tmp."
_OLD = ".tfcore-old."
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_libc = []


def _host():
    return socket.gethostname().replace(".", "_")


def temp_name(target, kind=_TMP):
    """A fresh sibling name for a temporary of ``target`` that records this host and process."""
    target = os.path.abspath(os.fspath(target))
    return f"{target}{kind}{_host()}.{os.getpid()}.{secrets.token_hex(4)}"


def _owner_dead(name, base):
    """Whether the temporary ``name`` (of ``base``) was made on this host by a process that no longer runs."""
    rest = name[len(base):]
    for kind in (_TMP, _OLD):
        if rest.startswith(kind):
            parts = rest[len(kind):].rsplit(".", 2)
            break
    else:
        return False
    if len(parts) != 3 or parts[0] != _host() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _stale(target):
    target = os.path.abspath(os.fspath(target))
    parent, base = os.path.split(target)
    try:
        names = os.listdir(parent)
    except FileNotFoundError:
        return []
    return sorted(os.path.join(parent, n) for n in names
                  if (n.startswith(base + _TMP) or n.startswith(base + _OLD)) and _owner_dead(n, base))


def recover(target):
    """Put back ``target`` if a writer was killed between the two renames of a directory replacement."""
    target = os.path.abspath(os.fspath(target))
    if os.path.lexists(target):
        return
    olds = [p for p in _stale(target) if p[len(target):].startswith(_OLD)]
    if olds:
        with contextlib.suppress(OSError):  # best effort (a read-only directory): the load then reports it
            os.rename(olds[-1], target)


def clean_stale(target):
    """Remove temporaries of ``target`` left by killed writers (after :func:`recover`); best effort."""
    recover(target)
    for p in _stale(target):
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.remove(p)


def clean_directory(directory):
    """Remove every temporary in ``directory`` left by a killed writer (putting back interrupted swaps first)."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return
    for kind in (_OLD, _TMP):
        for n in names:
            if kind in n:
                clean_stale(os.path.join(directory, n.split(kind, 1)[0]))


def fsync_directory(path):
    """Make a rename inside ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def fsync_file(path):
    with open(path, "rb") as f:
        os.fsync(f.fileno())


@contextlib.contextmanager
def replace_file(target):
    """Yield a temporary path to write; on success it is fsynced and renamed over ``target`` atomically.

    On an exception the temporary is removed and ``target`` is untouched.
    """
    target = os.path.abspath(os.fspath(target))
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    clean_stale(target)
    tmp = temp_name(target)
    try:
        yield tmp
        fsync_file(tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
    fsync_directory(parent)


def write_file(target, payload):
    """Write ``payload`` (bytes) to ``target`` atomically."""
    with replace_file(target) as tmp, open(tmp, "wb") as f:
        f.write(payload)


def _exchange(a, b):
    """Swap directories ``a`` and ``b`` in one step; False where the system cannot."""
    if not _libc:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            _libc.append(getattr(lib, "renameat2", None))
        except OSError:
            _libc.append(None)
    fn = _libc[0]
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), b)


def replace_directory(tmp_dir, target):
    """Move the finished directory ``tmp_dir`` to ``target``; ``target`` holds the old or the new at every step."""
    target = os.path.abspath(os.fspath(target))
    parent = os.path.dirname(target)
    if not os.path.lexists(target):
        os.rename(tmp_dir, target)
    elif os.path.isdir(target) and not os.path.islink(target) and _exchange(tmp_dir, target):
        shutil.rmtree(tmp_dir)  # now holds the old directory
    else:
        old = temp_name(target, _OLD)
        os.rename(target, old)
        os.rename(tmp_dir, target)
        shutil.rmtree(old, ignore_errors=True)
    fsync_directory(parent)
