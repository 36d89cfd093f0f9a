"""Sorted integer columns for the diagnosis' lookups, in as few bytes as their values
allow: the index holds one value per eager output or execution (millions), so an int64
where an int16 holds every value costs megabytes, and a searchsorted with a Python int key
against an int32 column converts the whole column on every call.
"""

from __future__ import annotations

import numpy as np


def argsort32(a: np.ndarray) -> np.ndarray:
    """Stable argsort as int32 when the rows fit (half the memory of numpy's int64 result)."""
    order = np.argsort(a, kind="stable")
    return order.astype(np.int32) if len(a) < np.iinfo(np.int32).max else order


def narrow(a: np.ndarray) -> np.ndarray:
    """`a` (ints) in the narrowest of int8, int16, int32 that holds its values, when one
    does: tensor ids and graph numbers are small, and these arrays have a value per eager
    output or execution (10 MB each at 2.5M, where they need 2.5 or 5)."""
    if not len(a) or a.dtype.kind != "i":
        return a
    lo, hi = int(a.min()), int(a.max())
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return a.astype(t) if np.dtype(t).itemsize < a.itemsize else a
    return a


def search_key(rows: np.ndarray, value: int) -> int:
    """`np.searchsorted(rows, value, "left")` with the key in the rows' own dtype: a Python
    int key against int32 rows makes numpy convert the whole array on every call."""
    info = np.iinfo(rows.dtype)
    key = rows.dtype.type(min(max(value, int(info.min)), int(info.max)))
    return int(np.searchsorted(rows, key, "left"))
