"""What the diagnosis knows of one recorded tensor: where it is (`Ref`) and its health.

Apart from the lookup index (`reader.diagnosis.index`, which re-exports both) because every
explanation rule reads `Health` and none needs the index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.io.tensors import FLOAT_DTYPES, TensorValue


@dataclass(frozen=True)
class Ref:
    """One recorded tensor: a graph trace row, or an eager execution's output slot."""

    kind: int  # GRAPH or EAGER
    index: int  # trace row or execution index
    slot: int = 0


@dataclass(frozen=True)
class Health:
    """What the record says about a tensor's values; None where the mode did not record it.

    `values` is set only for FULL_TENSOR records, where the counts are computed from the data.
    """

    mode: int
    dtype: int | None
    size: int | None
    nan: int | None
    neg_inf: int | None
    pos_inf: int | None
    negative: int | None  # finite values < 0
    zero: int | None
    positive: int | None  # finite values > 0
    bad: int  # 1 has NaN/∞, 0 clean, -1 unknown
    values: np.ndarray | None = None

    @property
    def nonfinite(self) -> int | None:
        parts = (self.nan, self.neg_inf, self.pos_inf)
        return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)

    def finite_values(self) -> np.ndarray | None:
        if self.values is None:
            return None
        v = self.values.reshape(-1)
        return v[np.isfinite(v)]


def opt(v: int) -> int | None:
    """A count column's value, None where the mode did not record it (stored as −1)."""
    return int(v) if v >= 0 else None


def health_from_value(mode: int, tv: TensorValue | None) -> Health | None:
    """Counts from a FULL_TENSOR value (the columns lack the negative/zero/positive split)."""
    if tv is None or tv.dtype not in FLOAT_DTYPES or tv.values.dtype.kind != "f":
        return None
    v = np.asarray(tv.values, dtype=np.float64)
    flat = v.reshape(-1)
    fin = np.isfinite(flat)
    n_nan = int(np.count_nonzero(np.isnan(flat)))
    n_ninf = int(np.count_nonzero(np.isneginf(flat)))
    n_pinf = int(np.count_nonzero(np.isposinf(flat)))
    return Health(mode, tv.dtype, int(flat.size), n_nan, n_ninf, n_pinf,
                  int(np.count_nonzero(fin & (flat < 0))), int(np.count_nonzero(flat == 0)),
                  int(np.count_nonzero(fin & (flat > 0))),
                  1 if (n_nan or n_ninf or n_pinf) else 0, v)
