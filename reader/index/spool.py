"""A worker's shard columns handed to the parent through a file in shared memory.

Sent through the pool's pipe, a shard's columns (about 20 bytes a trace: 30 MB for 1.5M)
are copied four times — pickled in the worker, into the pipe, out of it into a growing
buffer, unpickled into arrays — and each copy lands in fresh pages the kernel must fault in
and zero (measured: ~100k page faults for 4 shards, the biggest cost of indexing hosts in
parallel). Here the worker `write`s each column once into a file of its own in /dev/shm
(tmpfs: memory, no disk), and the parent maps the file (pre-faulted in one call) and reads
the columns in place; the merge copies them once into the index. The file is unlinked as
soon as it is mapped, and the directory is removed when the merge is done, whatever happens.
"""

from __future__ import annotations

import mmap
import os
import tempfile
from dataclasses import dataclass

import numpy as np

from reader.io.lifeline import Reaper, guarded_folder

Columns = dict[str, dict[str, np.ndarray]]


def spool_dir() -> tuple[str, Reaper]:
    """A new private directory for the shards of one read, in shared memory if there is,
    and the reaper that removes it if this process is killed (`reader.io.lifeline`)."""
    shm = "/dev/shm"
    base = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else tempfile.gettempdir()
    return guarded_folder(base, "tfdbg-tui-shards-")


@dataclass
class Spooled:
    """Where a shard's columns are: one file, each column's (table, column, dtype, rows,
    byte offset)."""

    path: str
    layout: list[tuple[str, str, str, int, int]]
    size: int


def spool(columns: Columns, directory: str, name: str) -> Spooled:
    """Write `columns` into a new file `name` in `directory`."""
    path = os.path.join(directory, name)
    layout: list[tuple[str, str, str, int, int]] = []
    offset = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        for table, cols in columns.items():
            for col, a in cols.items():
                a = np.ascontiguousarray(a)
                layout.append((table, col, a.dtype.str, len(a), offset))
                view = a.reshape(-1).view(np.uint8).data
                while view:
                    view = view[os.write(fd, view):]
                offset += a.nbytes
    except OSError:  # full: no half-written file left behind (the caller sends by pipe)
        os.unlink(path)
        raise
    finally:
        os.close(fd)
    return Spooled(path, layout, offset)


def unspool(spooled: Spooled) -> Columns:
    """The columns `spool` wrote, as read-only arrays over the mapped file (then unlinked)."""
    fd = os.open(spooled.path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        if size != spooled.size:
            raise OSError(f"{spooled.path}: {size} bytes, not {spooled.size}")
        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        mapped = mmap.mmap(fd, size, flags, mmap.PROT_READ) if size else b""
    finally:
        os.close(fd)
        os.unlink(spooled.path)
    out: Columns = {}
    for table, col, dtype, rows, offset in spooled.layout:
        dt = np.dtype(dtype)
        if offset + rows * dt.itemsize > size:
            raise OSError(f"{spooled.path}: column {table}.{col} past the end")
        out.setdefault(table, {})[col] = (np.frombuffer(mapped, dt, rows, offset) if rows
                                          else np.zeros(0, dt))
    return out
