"""Writing a new file into a folder without following anything planted there.

Used where the tool writes files the user keeps (`w`: the logdir's copy of a source file,
`s`: a tensor's `.npy`). The names written come from an untrusted logdir and the folder may
hold things someone else put there, so (see SECURITY.md):

- every folder below the user's chosen base is opened with `O_NOFOLLOW` relative to its
  parent's descriptor (`openat`), so a symlinked folder cannot lead outside the base, and
  folders are created there, never through a symlink;
- the data goes to a temporary file of a random name created with
  `O_CREAT | O_EXCL | O_NOFOLLOW` (a symlink planted at any name is never written through),
  is flushed and fsync'ed, then hard-linked to its final name — which fails if that name
  exists, so nothing is ever replaced — and the temporary name is removed in every case:
  a full disk leaves neither a partial file nor a truncated one under the final name.

Files the tool writes anew on every run (`export`'s tables, `diff --csv FILE`) are replaced
rather than kept: `Replacement` makes the same kind of temporary (random name, `O_EXCL |
O_NOFOLLOW`, a name already taken — by a planted symlink too — passed over for another) and
renames it over the final name once complete, so the previous file stays whole until then
and a symlink planted at the final name is replaced, never written through.
"""

from __future__ import annotations

import errno
import os
import secrets
import signal
import stat
import threading
from collections.abc import Callable, Sequence
from typing import BinaryIO

from reader.io.dead_temporaries import hold, remove_dead
from reader.io.linkguard import foreign_link

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TRIES = 64  # random temporary names tried before giving up (each taken one: another)
# this process's temporaries not yet renamed or removed: (folder descriptor, name) — what a
# signal handler removes when the process is ended mid-write (`remove_live_temporaries`)
_LIVE: dict[tuple[int, str], None] = {}
# held while a temporary is made and noted, and while they are removed: a worker's ending
# thread (`reader.io.lifeline`) runs beside the writer — os.open lets it run mid-call
_LIVE_LOCK = threading.Lock()


_ENDING = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}


def _hold_signals() -> set[int | signal.Signals] | None:
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
    except (OSError, ValueError, AttributeError):  # (not POSIX)
        return None


def _release_signals(held: set[int | signal.Signals] | None) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def remove_live_temporaries() -> None:
    """Remove every temporary this process is still writing. Why: a process ended by a
    signal in a thread that cannot unwind (a Dask worker's task thread) would leave them;
    its folders' descriptors are still open, as the entries are dropped before their
    writers close them. Called from a signal handler too: the lock is never held where a
    handler can run (creation holds the ending signals), and is waited for 5 s at most."""
    locked = _LIVE_LOCK.acquire(timeout=5.0)
    try:
        for dir_fd, tmp in list(_LIVE):
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except OSError:
                pass
    finally:
        if locked:
            _LIVE_LOCK.release()


def open_folder(base: str, parts: Sequence[str], follow_base: bool = True) -> int:
    """A descriptor of `base/parts…`, creating the folders as needed.

    `base` may be a symlink when it is the user's own choice (`follow_base`; a default folder
    in a shared working directory is not: someone else may have planted it) — one of the
    user's, root's or its folder owner's, never one another user planted on the way
    (`reader.io.linkguard`); none of `parts` may be one (OSError, and nothing created beyond
    it). The caller closes the descriptor.
    """
    planted = foreign_link(base) if follow_base else None  # yours, not someone else's
    if planted is not None:
        raise OSError(errno.EPERM, planted, base)
    os.makedirs(base, exist_ok=True)
    try:
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
                     | (0 if follow_base else os.O_NOFOLLOW))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise OSError(exc.errno, f"{base} is not a folder (a symlink?); refusing to "
                          "write through it (set TFDBG_TUI_SAVE_DIR to choose one)") from None
        raise
    try:
        for part in parts:
            if part in ("", ".", "..") or "/" in part or "\0" in part:
                raise OSError(errno.EINVAL, f"bad folder name {part!r}")
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
            except FileExistsError:
                pass
            try:
                sub = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise OSError(exc.errno, f"{part} is not a folder (a symlink?); "
                                  f"refusing to write through it") from None
                raise
            os.close(fd)
            fd = sub
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_existing(dir_fd: int, name: str, limit: int) -> bytes | None:
    """At most `limit` + 1 bytes of regular file `name` (None: no such file): enough to tell
    whether it holds exactly some `limit` bytes. OSError if `name` is something else (a
    symlink, folder, FIFO…)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.EEXIST, f"{name} exists and is a symlink; not replaced") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EEXIST, f"{name} exists and is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)
    finally:
        os.close(fd)


def create_temporary(dir_fd: int, name: str, mode: int = 0o644) -> tuple[int, str]:
    """A new empty file beside `name` in folder `dir_fd`: (its descriptor, its name).

    The name is unpredictable and made with `O_CREAT | O_EXCL | O_NOFOLLOW`: whatever already
    has it (a planted symlink, another writer's temporary) is never opened, another name is
    tried instead. Temporaries of `name` a killed writer left are removed first; this one is
    held (`reader.io.dead_temporaries`) while any descriptor of it is open."""
    remove_dead(dir_fd, name)
    for _ in range(_TRIES):
        tmp = f".{name[:80]}.tmp-{secrets.token_hex(8)}"
        # made and noted with the ending signals held: a handler that removes this
        # process's temporaries (`remove_live_temporaries`) never runs in between
        held = _hold_signals()
        try:
            with _LIVE_LOCK:  # (nor does another thread remove them in between)
                fd = os.open(tmp, _NEW, mode, dir_fd=dir_fd)
                hold(fd)
                _LIVE[(dir_fd, tmp)] = None  # (dropped by write_new / Replacement when done)
        except FileExistsError:
            continue
        finally:
            _release_signals(held)
        return fd, tmp
    raise FileExistsError(errno.EEXIST, f"no free temporary name beside {name}")


def write_new(dir_fd: int, name: str, fill: Callable[[BinaryIO], object],
              mode: int = 0o644) -> None:
    """Create file `name` in folder `dir_fd` holding what `fill` writes, all or nothing.

    FileExistsError if `name` already exists (never replaced); any other OSError (a full
    disk…) leaves no file behind.
    """
    fd, tmp = create_temporary(dir_fd, name, mode)
    held = -1  # a copy of `fd`, held until its name is gone: never told dead while linked
    try:
        try:
            held = os.dup(fd)  # (out of descriptors: the temporary goes in `finally`)
            f = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            raise
        with f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            raise
        except OSError as exc:  # a file system without hard links: rename if still free
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise
            try:
                os.lstat(name, dir_fd=dir_fd)
            except FileNotFoundError:
                os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                return
            raise FileExistsError(errno.EEXIST, f"{name} exists") from None
    finally:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        _LIVE.pop((dir_fd, tmp), None)
        if held >= 0:
            os.close(held)
    try:
        os.fsync(dir_fd)
    except OSError:
        pass


def _fd_path(fd: int) -> str:
    """A path that opens the file of descriptor `fd` itself (Linux's /proc, BSD's /dev/fd)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        if os.path.isdir(folder):
            return f"{folder}/{fd}"
    raise OSError(errno.ENOSYS, "no /proc/self/fd or /dev/fd to reopen a file by descriptor")


class Replacement:
    """A new file that takes the place of `name` in folder `dir_fd` once complete (`commit`:
    fsync'ed, then renamed over it), or leaves no trace (`discard`, idempotent; also after a
    commit). Until the commit, whatever `name` was (the user's previous file) is untouched."""

    def __init__(self, dir_fd: int, name: str, mode: int = 0o644) -> None:
        self.dir_fd, self.name = dir_fd, name
        self.fd, self.tmp = create_temporary(dir_fd, name, mode)
        self.open = True

    @property
    def path(self) -> str:
        """A path that opens this very file, for writers that only take a path (pyarrow):
        the descriptor's entry in /proc, which no rename or link planted in the folder
        can redirect (opening it with O_TRUNC truncates this file, nothing else)."""
        return _fd_path(self.fd)

    def commit(self) -> None:
        """Flush the file to disk and rename it over `name` (a symlink there is replaced)."""
        if not self.open:
            raise OSError(errno.EBADF, f"{self.name}: already committed or discarded")
        os.fsync(self.fd)
        os.rename(self.tmp, self.name, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        _LIVE.pop((self.dir_fd, self.tmp), None)
        self.open = False
        os.close(self.fd)

    def discard(self) -> None:
        if not self.open:
            return
        self.open = False
        try:
            os.unlink(self.tmp, dir_fd=self.dir_fd)
        except FileNotFoundError:
            pass
        finally:
            _LIVE.pop((self.dir_fd, self.tmp), None)
            os.close(self.fd)


def replace_file(path: str, fill: Callable[[BinaryIO], object]) -> None:
    """Write the file `path` names anew, all or nothing: what `fill` writes goes to a
    `Replacement` beside it, renamed over it once complete, so a full disk or an error keeps
    the previous file whole. `path` is the user's own choice: a symlink there is followed to
    the file it names; something not a regular file (`/dev/stdout`, a FIFO) is written as
    it is, there being nothing to keep — a FIFO only while a process reads it (else one
    OSError at once, never a hang). A symlink on the way that another user planted is not
    followed (`reader.io.linkguard`): OSError, nothing written."""
    planted = foreign_link(path)
    if planted is not None:
        raise OSError(errno.EPERM, planted, path)
    try:  # (the kernel follows /dev/stdout's link to a pipe, which a path cannot name)
        st: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder", path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_stream(path, fill)
        return
    real = os.path.realpath(path)
    folder, name = os.path.split(real)
    dir_fd = os.open(folder or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        new = Replacement(dir_fd, name, 0o666)
        try:
            if st is not None:
                os.fchmod(new.fd, stat.S_IMODE(st.st_mode))
            with os.fdopen(os.dup(new.fd), "wb") as f:
                fill(f)
            new.commit()
        finally:
            new.discard()
    finally:
        os.close(dir_fd)


def _write_stream(path: str, fill: Callable[[BinaryIO], object]) -> None:
    """Write to what is not a regular file (a pipe, a FIFO, a terminal, `/dev/null`) as it
    is. Opened without blocking: a FIFO no process reads fails at once (ENXIO) instead of
    waiting forever for a reader; then written as usual (blocking while the reader reads)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "a FIFO no process reads; nothing written",
                          path) from None
        raise
    try:
        os.set_blocking(fd, True)
    except OSError:
        os.close(fd)
        raise
    with os.fdopen(fd, "wb") as f:
        fill(f)
