"""Reading the cache's files back: descriptions and columns, both untrusted.

Every file is opened with `O_NOFOLLOW` and must be a regular file of this user that no one
else can write (`guard.trusted`); a description must be a JSON object of bounded size and
depth; a column a `.npy` of exactly the expected type and length, never unpickled. Anything
else is a `CacheError`: the caller reads the logdir instead.
"""

from __future__ import annotations

import json
import mmap
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np

from reader.cache.guard import trusted

MAX_DESCRIPTION = 64 << 20  # a description bigger than this is not ours


class CacheError(Exception):
    """The cache entry is missing, stale or damaged (the caller reads the logdir instead)."""


class NoEntry(CacheError):
    """There is no cache entry for that key."""


def _open_regular(path: Path, limit: int | None = None) -> int:
    """An fd for a regular file of this user that no one else can write (no symlink, FIFO,
    device, nor a file planted by another user in a shared folder), or CacheError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise CacheError(f"{path.name}: {exc.strerror}") from None
    st = os.fstat(fd)
    if (not stat.S_ISREG(st.st_mode) or not trusted(st)
            or (limit is not None and st.st_size > limit)):
        os.close(fd)
        raise CacheError(f"{path.name}: not a cache file of this user")
    return fd


def read_json(path: Path) -> dict[str, Any]:
    fd = _open_regular(path, MAX_DESCRIPTION)
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_DESCRIPTION + 1)
    try:
        out = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):  # `[[[[…` 100 KB deep too
        raise CacheError(f"{path.name}: not JSON") from None
    if not isinstance(out, dict):
        raise CacheError(f"{path.name}: not an object")
    return out


def count(value: Any) -> int | None:
    """A count from a description: a non-negative int below 2**62, else None (junk)."""
    return value if type(value) is int and 0 <= value < 1 << 62 else None


def load_array(path: Path, dtype: np.dtype, rows: int) -> np.ndarray:
    """A one-dimensional `.npy` of exactly `dtype` and `rows`, memory-mapped copy-on-write
    (changes stay in this process). Never unpickles; CacheError on anything else."""
    fd = _open_regular(path)
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            try:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dt = np.lib.format.read_array_header_1_0(f)
                elif version == (2, 0):
                    shape, fortran, dt = np.lib.format.read_array_header_2_0(f)
                else:
                    raise CacheError(f"{path.name}: unknown .npy version")
            except ValueError as exc:
                raise CacheError(f"{path.name}: bad .npy header ({exc})") from None
            offset = f.tell()
            if dt != dtype or shape != (rows,) or fortran:
                raise CacheError(f"{path.name}: {dt}{shape} where {dtype}({rows},) was expected")
            if os.fstat(fd).st_size != offset + rows * dtype.itemsize:
                raise CacheError(f"{path.name}: wrong length")
        if rows == 0:
            return np.empty(0, dtype)
        try:
            mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_COPY)
        except (OSError, ValueError) as exc:
            raise CacheError(f"{path.name}: cannot map ({exc})") from None
        return np.frombuffer(mapped, dtype=dtype, count=rows, offset=offset)
    finally:
        os.close(fd)
