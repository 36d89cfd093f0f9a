"""Opening only regular files.

A logdir is data from somewhere else, and a name like `tfdbg_events.1.host.execution` may be
a FIFO (whose `open()` blocks until a writer comes, i.e. forever), a device (`/dev/zero` never
ends, a tape device rewinds on open), a directory or a symlink to nothing. The reader opens
a file only after `stat` says it is regular, opens it without blocking (so a FIFO swapped in
between the two calls cannot hang us) and checks the open descriptor once more; anything else
is skipped with a one-line warning naming it (`NotRegularFile.warning`).
"""

from __future__ import annotations

import os
import stat
from io import BufferedReader

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


def check_regular(path: str) -> os.stat_result:
    """`os.stat(path)` of a regular file; NotRegularFile for anything else that is there
    (a dangling symlink included), FileNotFoundError when nothing is."""
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


def open_regular(path: str) -> BufferedReader:
    """Open `path` for binary reading if (and only if) it is a regular file; never blocks.

    Raises NotRegularFile, or OSError when it cannot be opened."""
    check_regular(path)
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
