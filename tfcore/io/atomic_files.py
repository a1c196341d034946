"""Crash-safe replacement of files and directories: a save killed at any step leaves the old or the new one.

Every writer puts its output in a sibling temporary named ``<name>.tfcore-tmp.<host>.<pid>.<random>``
and moves it over ``<name>`` with one atomic rename (files: ``os.replace``; directories: Linux's
``renameat2(RENAME_EXCHANGE)``, which swaps two directories in one step). Where the exchange is not
available (another OS or file system), a directory is replaced by two renames, the old one first
moved to ``<name>.tfcore-old.<host>.<pid>.<random>``; a writer killed between the two renames leaves
no ``<name>``, and :func:`recover` (run by the next save or load of ``<name>``) moves the old one
back. Several files that belong together (a checkpoint's data and index) are replaced by
:func:`write_files` with backups of the old files until the last rename (its commit point).
:func:`clean_stale` removes temporaries whose writer process is dead (same host, pid gone), so a
killed save leaves nothing behind after the next save or load; temporaries of live writers
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


def _parse(name):
    """``(kind, base, owner)`` of a temporary's file name (owner = ``"<host>.<pid>"``), else None."""
    for kind in (_TMP, _OLD):
        if kind in name:
            base, _, rest = name.partition(kind)
            parts = rest.rsplit(".", 2)
            if len(parts) == 3 and parts[1].isdigit():
                return kind, base, f"{parts[0]}.{parts[1]}"
    return None


def _owner_dead(owner):
    """Whether ``"<host>.<pid>"`` names a process on this host that no longer runs (never this process)."""
    host, _, pid = owner.rpartition(".")
    if host != _host() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _dead_entries(parent):
    """``[(name, kind, base, owner)]`` of the temporaries in ``parent`` whose writer is dead."""
    try:
        names = os.listdir(parent)
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for n in sorted(names):
        parsed = _parse(n)
        if parsed is not None and _owner_dead(parsed[2]):
            out.append((n, *parsed))
    return out


def _recover_directory(parent):
    """Undo the unfinished commits of dead writers in ``parent``.

    A writer keeps a backup (``<name>.tfcore-old.<owner>...``) of every file it replaces before its commit
    point and removes its last temporary by renaming it at the commit point. So a dead writer's backup with
    one of its temporaries still present means "not committed": the backup goes back over the file; a
    backup whose target is missing (a directory moved aside) goes back too. Other backups were committed
    and are only removed by :func:`clean_stale`.
    """
    entries = _dead_entries(parent)
    uncommitted = {owner for _, kind, _, owner in entries if kind == _TMP}
    for name, kind, base, owner in entries:
        target = os.path.join(parent, base)
        if kind == _OLD and (owner in uncommitted or not os.path.lexists(target)):
            with contextlib.suppress(OSError):  # best effort (a read-only directory): the load reports it
                if os.path.isdir(os.path.join(parent, name)) and not os.path.islink(target):
                    if not os.path.lexists(target):
                        os.rename(os.path.join(parent, name), target)
                else:
                    os.replace(os.path.join(parent, name), target)


def recover(target):
    """Put back what a killed writer had replaced in ``target``'s directory before its commit point."""
    _recover_directory(os.path.dirname(os.path.abspath(os.fspath(target))))


def _remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.remove(path)


def clean_stale(target):
    """Recover the directory of ``target``, then remove dead writers' temporaries of ``target``; best effort."""
    target = os.path.abspath(os.fspath(target))
    parent, base = os.path.split(target)
    _recover_directory(parent)
    for name, _, b, _ in _dead_entries(parent):
        if b == base:
            _remove(os.path.join(parent, name))


def clean_directory(directory):
    """Recover ``directory``, then remove every temporary in it left by a killed writer."""
    directory = os.path.abspath(os.fspath(directory))
    _recover_directory(directory)
    for name, *_ in _dead_entries(directory):
        _remove(os.path.join(directory, name))


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


def write_files(items):
    """Replace several files as one: after a kill at any step the files are all old or all new.

    ``items`` is ``[(path, bytes)]``; the LAST path is the commit point (a bundle's ``.index``). Every
    temporary is written and fsynced first; each earlier file that exists is kept as a hard-linked backup
    until the last file is renamed into place, so :func:`recover` can put the old files back when the
    writer died before its commit. Files of one directory only.
    """
    items = [(os.path.abspath(os.fspath(p)), payload) for p, payload in items]
    parent = os.path.dirname(items[-1][0])
    os.makedirs(parent, exist_ok=True)
    for path, _ in items:
        clean_stale(path)
    temps, backups = [], []
    try:
        for path, payload in items:
            tmp = temp_name(path)
            temps.append(tmp)
            with open(tmp, "wb") as f:
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
        for path, _ in items[:-1]:
            if os.path.lexists(path):
                backup = temp_name(path, _OLD)
                try:
                    os.link(path, backup)
                except OSError:  # no hard links here: a copy serves as well
                    shutil.copy2(path, backup)
                backups.append(backup)
        for (path, _), tmp in zip(items, temps):
            os.replace(tmp, path)
    except BaseException:
        for tmp in temps:
            with contextlib.suppress(OSError):
                os.remove(tmp)
        raise
    for backup in backups:
        with contextlib.suppress(OSError):
            os.remove(backup)
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
