"""numpy columns → Arrow arrays from their buffers, without `pyarrow.array`.

Why not `pa.array`: every call of it asks pyarrow's pandas shim whether the input is a pandas
object, and that imports pandas (a third of a second, more than building all the tables of
a million-row run) even when nothing here is pandas. `tfdbg-tui export` never needs pandas;
these helpers hand numpy memory to Arrow as buffers (zero-copy where the dtype already
matches) and keep the CLI path free of it. `tfdbg_tui.open(...).df()` still uses pandas.

Nulls come as a boolean mask (True = null), turned into Arrow's validity bitmap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _validity(pa: Any, null: np.ndarray | None, n: int) -> tuple[Any, int]:
    """Arrow's validity bitmap (None: no nulls) and the null count for a null mask."""
    if null is None:
        return None, 0
    null = np.asarray(null, bool)
    count = int(np.count_nonzero(null))
    if count == 0:
        return None, 0
    return pa.py_buffer(np.packbits(~null, bitorder="little")), count


def numbers(pa: Any, values: np.ndarray, kind: Any, null: np.ndarray | None = None) -> Any:
    """An int/float Arrow array of `kind` (int32, int64, float64) over `values`."""
    dtype = np.dtype(kind.to_pandas_dtype())
    data = np.ascontiguousarray(values, dtype=dtype)
    validity, nulls = _validity(pa, null, len(data))
    return pa.Array.from_buffers(kind, len(data), [validity, pa.py_buffer(data)],
                                 null_count=nulls)


def booleans(pa: Any, values: np.ndarray, null: np.ndarray | None = None) -> Any:
    """A bool Arrow array (bit-packed) of `values`."""
    values = np.asarray(values, bool)
    validity, nulls = _validity(pa, null, len(values))
    data = pa.py_buffer(np.packbits(values, bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), len(values), [validity, data], null_count=nulls)


def strings(pa: Any, words: Sequence[str | None], n: int | None = None) -> Any:
    """A string array of `words` (None: null), padded with nulls up to `n` rows. Text that
    cannot be UTF-8 (a lone surrogate) has it replaced, as Arrow strings must be UTF-8."""
    n = len(words) if n is None else n
    if len(words) > n:
        raise ValueError(f"{len(words)} strings for {n} rows")
    encoded = [b"" if w is None else w.encode("utf-8", "replace") for w in words]
    lengths = np.zeros(n, np.int64)
    lengths[:len(encoded)] = [len(b) for b in encoded]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 1 << 31:
        raise ValueError("more than 2 GiB of text in one column")
    null = np.ones(n, bool)
    null[:len(words)] = [w is None for w in words]
    validity, nulls = _validity(pa, null, n)
    return pa.Array.from_buffers(pa.string(), n, [validity,
                                                  pa.py_buffer(offsets.astype(np.int32)),
                                                  pa.py_buffer(b"".join(encoded))],
                                 null_count=nulls)


def optional_ints(pa: Any, values: Sequence[int | None], n: int | None = None) -> Any:
    """An int64 array of `values` (None: null), padded with nulls up to `n` rows."""
    n = len(values) if n is None else n
    data = np.zeros(n, np.int64)
    null = np.ones(n, bool)
    null[:len(values)] = [v is None for v in values]
    data[:len(values)] = [0 if v is None else v for v in values]
    return numbers(pa, data, pa.int64(), null)


def dictionary(pa: Any, indices: np.ndarray, words: Any, null: np.ndarray | None = None) -> Any:
    """A dictionary column: int32 `indices` into the string array `words`."""
    return pa.DictionaryArray.from_arrays(numbers(pa, indices, pa.int32(), null), words)
