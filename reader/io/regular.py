"""Opening only regular files.

A logdir is data from somewhere else, and a name like `tfdbg_events.1.host.execution` may be
a FIFO (whose `open()` blocks until a writer comes, i.e. forever), a device (`/dev/zero` never
ends, a tape device rewinds on open), a directory or a symlink to nothing. The reader opens
a file only after `stat` says it is regular, opens it without blocking (so a FIFO swapped in
between the two calls cannot hang us) and checks the open descriptor once more; anything else
is skipped with a one-line warning naming it (`NotRegularFile.warning`).

A URL (`s3://…`, see `reader.io.remote`) is an object, not a file: the helpers here dispatch
to it, so the rest of the reader asks "stat", "open", "pread", "list" the same way for both.
"""

from __future__ import annotations

import os
import stat
from io import BufferedReader
from typing import TypeAlias

from reader.io import remote_file, remote_listing
from reader.io.remote import RemoteStat, is_remote
from reader.io.remote_file import RemoteFile

Readable: TypeAlias = BufferedReader | RemoteFile
Stat: TypeAlias = os.stat_result | RemoteStat

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"))


class NotRegularFile(OSError):
    """`path` exists (or is a symlink) but is not a regular file; `kind` says what it is."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path}: not a regular file ({kind})")
        self.path = path
        self.kind = kind

    def warning(self, name: str) -> str:
        """The one-line warning for a file shown as `name`."""
        return f"{name}: not a regular file ({self.kind}); skipped"


def kind_of(mode: int) -> str | None:
    """What a non-regular `st_mode` is ("a FIFO", ...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a file")


def check_regular(path: str) -> Stat:
    """`os.stat(path)` of a regular file; NotRegularFile for anything else that is there
    (a dangling symlink included), FileNotFoundError when nothing is. For a URL, the
    object's `RemoteStat` (OSError naming the URL when it cannot be listed)."""
    if is_remote(path):
        rst = remote_listing.stat_file(path)
        if rst is None:
            raise NotRegularFile(path, "a directory")
        return rst
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise NotRegularFile(path, "a symbolic link to nothing") from None
        raise
    kind = kind_of(st.st_mode)
    if kind is not None:
        raise NotRegularFile(path, kind)
    return st


def open_regular(path: str) -> Readable:
    """Open `path` for binary reading if (and only if) it is a regular file; never blocks.
    A URL opens the object for ranged reads.

    Raises NotRegularFile, or OSError when it cannot be opened."""
    st = check_regular(path)
    if isinstance(st, RemoteStat):
        return remote_file.open_file(path, st)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        kind = kind_of(os.fstat(fd).st_mode)  # replaced between stat and open?
        if kind is not None:
            raise NotRegularFile(path, kind)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_fd(path: str) -> int | None:
    """A non-blocking read-only descriptor of the local file `path` if it is a regular file,
    else None — stat'ed first as `open_regular` does, so a device or a FIFO is never opened
    at all (a tape rewinds on open, a watchdog arms, a FIFO's writer is let through), and
    checked again once open. For what hashes a file (the index cache's and the shards'
    identities) or re-reads its records by offset."""
    try:
        if kind_of(os.stat(path).st_mode) is not None:
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if kind_of(os.fstat(fd).st_mode) is None:
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def fstat(f: Readable) -> Stat:
    """`os.fstat` of an open file; the size and version an object was opened with."""
    return f.st if isinstance(f, RemoteFile) else os.fstat(f.fileno())


def pread(f: Readable, n: int, offset: int) -> bytes:
    """`n` bytes at `offset` of an open file or object (fewer at its end)."""
    return f.pread(n, offset) if isinstance(f, RemoteFile) else os.pread(f.fileno(), n, offset)


def listdir(path: str) -> list[str]:
    """The names in a folder (local or remote); OSError when it cannot be listed."""
    return remote_listing.listdir(path) if is_remote(path) else os.listdir(path)


def exists(path: str) -> bool:
    return remote_listing.exists(path) if is_remote(path) else os.path.exists(path)


def join(folder: str, name: str) -> str:
    return f"{folder.rstrip('/')}/{name}" if is_remote(folder) else os.path.join(folder, name)
