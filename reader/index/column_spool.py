"""The merged columns of a run opened from its shards, written to files and memory-mapped.

An open from shards (`reader.index.shard_stream`) knows how many rows each tensor table will
hold before it merges the first window (each shard says so), and most of an index's bytes
are those tables' columns (21 bytes a graph trace: 210 MB for 10M). Kept in numpy arrays
they were the process's memory twice over: once as the index, once as the index cache
written from it after the open (every byte read back and written again). Here each column is
instead a `.npy` file, sized for its rows when the merge starts, that each window is
appended to with `pwrite` (the bytes go to the page cache, not to this process) and that
the table reads through a read-only mapping: the process holds only the pages something
looked at (a binary search over the wall times touches a few), and the kernel can drop them
again. The files are written in the index cache's own folder when there is one
(`reader.cache.store.Store.scratch`) and become its entry's columns by a rename
(`LogdirCache.after_update`): the cache entry of an open from shards costs no second write.
Without a usable cache folder they live in a private temporary folder, removed when the
index is (the mappings keep their bytes). A spool that cannot be made (a full disk) is no
error: the merge keeps its columns in memory, as before.
"""

from __future__ import annotations

import mmap
import os
import struct
import tempfile
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from reader.index.logdir import DebugLogdir

HEADER = 128  # bytes of each file's .npy header (version 1.0, padded: rewritten in place)


def _header(dtype: np.dtype, rows: int) -> bytes:
    text = f"{{'descr': {dtype.str!r}, 'fortran_order': False, 'shape': ({rows},), }}"
    body = text.ljust(HEADER - 11) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body.encode("latin1")


class _Column:
    """One column's file: its rows so far, appended with `pwrite`, read through a mapping."""

    def __init__(self, path: Path, dtype: np.dtype, rows: int) -> None:
        self.path, self.dtype, self.expected, self.n = path, dtype, rows, 0
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                          | os.O_CLOEXEC, 0o600)
        try:
            _pwrite_all(self.fd, _header(dtype, rows), 0)
            os.ftruncate(self.fd, HEADER + rows * dtype.itemsize)
            self.map = mmap.mmap(self.fd, 0, access=mmap.ACCESS_READ) if rows else None
            self.data = (np.frombuffer(self.map, dtype, rows, HEADER) if self.map is not None
                         else np.empty(0, dtype))
        except BaseException:
            os.close(self.fd)
            raise

    def append(self, values: np.ndarray) -> None:
        m = len(values)
        if self.n + m > self.expected:
            raise ValueError(f"{self.path.name}: more rows than the {self.expected} expected")
        _pwrite_all(self.fd, np.ascontiguousarray(values, self.dtype).data.cast("B"),
                    HEADER + self.n * self.dtype.itemsize)
        self.n += m

    def trim(self) -> None:
        """Let go of the pages of the mapping this process has looked at: they leave its
        resident set (the bytes stay in the page cache; a later look maps them again)."""
        if self.map is not None and not self.map.closed:
            self.map.madvise(mmap.MADV_DONTNEED)

    def finish(self) -> None:
        """The file as a `.npy` of exactly the rows written (fewer than expected when a
        shard stopped early), closed; the mapping stays."""
        if self.fd < 0:
            return
        try:
            if self.n != self.expected:
                _pwrite_all(self.fd, _header(self.dtype, self.n), 0)
                os.ftruncate(self.fd, HEADER + self.n * self.dtype.itemsize)
        finally:
            os.close(self.fd)
            self.fd = -1


def _pwrite_all(fd: int, data: bytes | memoryview, at: int) -> None:
    view = memoryview(data)
    while len(view):
        wrote = os.pwrite(fd, view, at)
        if wrote <= 0:
            raise OSError("short write")
        view, at = view[wrote:], at + wrote


class ColumnSpool:
    """The spooled columns of some tables (`create`), appended window by window."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.columns: dict[str, dict[str, _Column]] = {}
        self.anonymous = False  # its files are unlinked already (open and mapped)
        self._made: list[Path] = []  # the files it made (unlinked by name when removed)
        self._finalizer = weakref.finalize(self, _remove, folder, self._made)

    @classmethod
    def create(cls, folder: Path | None, tables: Mapping[str, tuple[Mapping[str, np.dtype], int]]
               ) -> ColumnSpool | None:
        """Files for `tables` (name: (column dtypes, rows it will have)) in `folder` (the
        cache's scratch folder, owned by this spool), else in a new temporary folder; None
        when they cannot be made (the caller keeps its columns in memory)."""
        anonymous = folder is None
        try:
            if folder is None:
                folder = Path(tempfile.mkdtemp(prefix="tfdbg-tui-spool-"))
            spool = cls(folder)
        except OSError:
            return None
        try:
            for name, (dtypes, rows) in tables.items():
                cols = spool.columns[name] = {}
                for c, dt in dtypes.items():
                    path = folder / f"{name}.{c}.npy"  # (a fresh folder of this user's)
                    spool._made.append(path)
                    cols[c] = _Column(path, np.dtype(dt), rows)
        except (OSError, ValueError, OverflowError):
            spool.discard()
            return None
        if anonymous:  # no cache entry to become: nameless now (nothing left if killed)
            spool.anonymous = True
            spool._finalizer()
        return spool

    def append(self, name: str, rows: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Write a window of rows at the end of table `name`'s files; its columns so far,
        read-only, memory-mapped."""
        cols = self.columns[name]
        for c, col in cols.items():
            col.append(rows[c])
        return self.views(name)

    def views(self, name: str) -> dict[str, np.ndarray]:
        return {c: col.data[: col.n] for c, col in self.columns[name].items()}

    def rows(self, name: str) -> int:
        return next(iter(self.columns[name].values())).n

    def trim(self) -> None:
        """Every column's pages looked at so far out of the resident set (`_Column.trim`): a
        merge reads each window's new rows once (the alerts in them, their kinds) and, left
        mapped, those pages were the process's memory: 250 MB for 12.5M records."""
        for cols in self.columns.values():
            for col in cols.values():
                col.trim()

    def close(self) -> None:
        """Every file made exact and closed (after the last window)."""
        for cols in self.columns.values():
            for col in cols.values():
                col.finish()

    def file_of(self, key: str, array: np.ndarray) -> Path | None:
        """The closed file that holds exactly `array` ("table.column"), if this spool's."""
        name, _, c = key.rpartition(".")
        col = self.columns.get(name, {}).get(c)
        if col is None or self.anonymous or col.fd >= 0 or len(array) != col.n or not col.n:
            return None
        same = array.__array_interface__["data"][0] == col.data.__array_interface__["data"][0]
        return col.path if same and array.dtype == col.dtype else None

    def discard(self) -> None:
        """Remove the files (those not moved elsewhere) and the folder; what is mapped stays
        readable (their bytes are freed when the index is)."""
        self.close()
        self._finalizer()


def _remove(folder: Path, made: list[Path]) -> None:
    """Unlink the files a spool made (those moved into a cache entry are gone already) and
    its folder — by name, in a folder only this user can write: nothing else is removed."""
    for path in made:
        try:
            os.unlink(path)
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def spool_tables(logdir: DebugLogdir, rows: dict[str, int]) -> bool:
    """Spool the tables `rows` names (with the rows each will have) of an empty index:
    False when they stay in memory instead (no file could be made)."""
    tables = {n: getattr(logdir, n) for n in rows}
    if any(len(t) for t in tables.values()):
        return False
    cache = logdir._cache
    logdir.spool = logdir.mapped = ColumnSpool.create(
        cache.scratch() if cache is not None else None,
        {n: ({c: t.column_dtype(c) for c in t.columns}, rows[n]) for n, t in tables.items()})
    return logdir.spool is not None


def put_rows(logdir: DebugLogdir, name: str, rows: Mapping[str, np.ndarray]) -> None:
    """Append merged rows to a table: to its spooled files, or in memory."""
    spool, table = logdir.spool, getattr(logdir, name)
    if spool is not None and name in spool.columns:
        try:
            table.adopt(spool.append(name, rows), spool.rows(name), grown=True)
            return
        except OSError:  # a full disk: the rest in memory (the rows mapped so far stay)
            logdir.spool = None
            try:
                spool.discard()
            except OSError:
                pass
    table.extend(rows)
