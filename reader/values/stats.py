"""What a FULL_TENSOR dump holds, in numbers: statistics, histogram, first NaN.

TF-free and UI-free on purpose: the inspector screen, `report --values` and any script share
one definition of "min over finite elements" or "the first NaN". Everything here is vectorised
numpy (a 10M-element tensor takes a fraction of a second): no Python loop ever visits elements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from reader.io.tensors import TensorValue


@dataclass(frozen=True)
class Histogram:
    """Counts of finite values in equal-width bins; `edges` has one more entry than `counts`."""

    edges: np.ndarray
    counts: np.ndarray


@dataclass(frozen=True)
class ValueStats:
    """Statistics of one tensor. Fields that do not apply to the dtype are None.

    `kind` is "float", "int", "bool", "complex", "string" or "opaque". min/max/mean/std are
    over finite elements only (for complex, over |z|); neg/zero/pos count finite elements,
    as FULL_HEALTH does, so the two modes can be compared.
    """

    dtype_name: str
    shape: tuple[int, ...]
    size: int
    kind: str
    n_finite: int = 0
    n_nan: int = 0
    n_neg_inf: int = 0
    n_pos_inf: int = 0
    n_neg: int | None = None
    n_zero: int | None = None
    n_pos: int | None = None
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    std: float | None = None
    first_nonfinite: tuple[int, ...] | None = None
    histogram: Histogram | None = field(default=None, compare=False)

    @property
    def n_nonfinite(self) -> int:
        return self.n_nan + self.n_neg_inf + self.n_pos_inf

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types only; NaN/∞ floats become None (JSON has neither)."""

        def num(x: float | None) -> float | int | None:
            if x is None or not np.isfinite(x):
                return None
            return int(x) if self.kind in ("int", "bool") else float(x)

        out: dict[str, Any] = {
            "dtype": self.dtype_name, "shape": list(self.shape), "size": self.size,
            "kind": self.kind, "finite": self.n_finite, "nan": self.n_nan,
            "neg_inf": self.n_neg_inf, "pos_inf": self.n_pos_inf, "negative": self.n_neg,
            "zero": self.n_zero, "positive": self.n_pos, "min": num(self.min),
            "max": num(self.max), "mean": num(self.mean), "std": num(self.std),
            "first_nonfinite": list(self.first_nonfinite)
            if self.first_nonfinite is not None else None,
            "histogram": None,
        }
        if self.histogram is not None:
            out["histogram"] = {"edges": [float(e) if np.isfinite(e) else None
                                          for e in self.histogram.edges.tolist()],
                                "counts": [int(c) for c in self.histogram.counts.tolist()]}
        return out


def value_kind(values: np.ndarray) -> str:
    """Which statistics make sense for an array's numpy dtype."""
    k = values.dtype.kind
    if k == "f":
        return "float"
    if k in "iu":
        return "int"
    if k == "b":
        return "bool"
    if k == "c":
        return "complex"
    if k in "OSU":
        return "string" if values.size == 0 or _is_bytes(values) else "opaque"
    return "opaque"


def _is_bytes(values: np.ndarray) -> bool:
    first = values.reshape(-1)[0]
    return isinstance(first, (bytes, str))


def compute_stats(tv: TensorValue | np.ndarray, bins: int = 20,
                  dtype_name: str | None = None) -> ValueStats:
    """Statistics of a tensor (or a bare array), vectorised; `bins` for the histogram."""
    if isinstance(tv, TensorValue):
        values, name = np.asarray(tv.values), tv.dtype_name
    else:
        values, name = np.asarray(tv), dtype_name or str(np.asarray(tv).dtype)
    shape = tuple(int(d) for d in values.shape)
    size = int(values.size)
    kind = value_kind(values)
    make = partial(ValueStats, name, shape, size, kind)
    if kind in ("string", "opaque") or size == 0:
        return make()
    flat = values.reshape(-1)
    if kind == "bool":
        n_true = int(np.count_nonzero(flat))
        share = n_true / size
        return make(n_finite=size, n_neg=0, n_zero=size - n_true, n_pos=n_true,
                    min=float(n_true == size), max=float(n_true > 0), mean=share,
                    std=float(np.sqrt(share * (1 - share))))
    n_nan = n_neg_inf = n_pos_inf = 0
    n_neg: int | None
    n_zero: int | None = None
    n_pos: int | None
    first: tuple[int, ...] | None = None
    if kind == "int":
        finite_vals = flat
        n_finite = size
    else:
        finite = np.isfinite(flat)
        n_finite = int(np.count_nonzero(finite))
        if n_finite < size:
            if kind == "complex":
                n_nan = int(np.count_nonzero(np.isnan(flat)))
                n_pos_inf = size - n_finite - n_nan  # ∞ in either part; its sign is ambiguous
            else:
                n_nan = int(np.count_nonzero(np.isnan(flat)))
                n_neg_inf = int(np.count_nonzero(flat == -np.inf))
                n_pos_inf = size - n_finite - n_nan - n_neg_inf
            first = _unravel(int(np.argmin(finite)), shape)
            finite_vals = flat[finite]
        else:
            finite_vals = flat
        if kind == "complex":
            n_zero = int(np.count_nonzero(finite_vals == 0))
            # |z| of a finite z can exceed float64 (|1.7e308 + 1.7e308j|): such a magnitude
            # counts as the largest float64 rather than breaking every statistic with ∞.
            with np.errstate(over="ignore"):
                finite_vals = np.minimum(np.abs(finite_vals), np.finfo(np.float64).max)
    if n_finite == 0:
        return make(n_finite=0, n_nan=n_nan, n_neg_inf=n_neg_inf, n_pos_inf=n_pos_inf,
                    n_neg=0, n_zero=0, n_pos=0, first_nonfinite=first)
    if kind == "complex":
        n_neg, n_pos = None, None
    else:
        n_neg = int(np.count_nonzero(finite_vals < 0))
        n_zero = int(np.count_nonzero(finite_vals == 0))
        n_pos = n_finite - n_neg - n_zero
    lo, hi = finite_vals.min(), finite_vals.max()
    mean, std = _moments(finite_vals, max(abs(float(lo)), abs(float(hi))))
    return make(n_finite=n_finite, n_nan=n_nan, n_neg_inf=n_neg_inf, n_pos_inf=n_pos_inf,
                n_neg=n_neg, n_zero=n_zero, n_pos=n_pos, min=_py(lo), max=_py(hi), mean=mean,
                std=std, first_nonfinite=first, histogram=histogram(finite_vals, bins, lo, hi))


_CHUNK = 1 << 20


# Beyond these magnitudes a sum of values or of squared deviations can leave float64 (finite
# values of 1e300 have an infinite sum), so the values are divided by the largest first.
_SCALE_ABOVE = 1e140
_SCALE_BELOW = 1e-140


def _moments(values: np.ndarray, largest: float) -> tuple[float, float]:
    """Mean and population std in float64, chunked (np.std would copy it all to float64).

    `largest` is the largest magnitude; values that large (or that small) are scaled by it,
    so neither the sum nor the squares overflow (or vanish): a mean of 1e300 and -1e300 is 0.
    """
    scale = largest if not _SCALE_BELOW <= largest <= _SCALE_ABOVE and largest > 0 else 1.0
    if scale == 1.0:
        mean = float(np.mean(values, dtype=np.float64))
    else:
        total = 0.0
        for start in range(0, values.size, _CHUNK):
            total += float(np.sum(values[start:start + _CHUNK].astype(np.float64) / scale))
        mean = total / values.size * scale
    scaled_mean = mean / scale
    squares = 0.0
    for start in range(0, values.size, _CHUNK):
        d = values[start:start + _CHUNK].astype(np.float64)
        if scale != 1.0:
            d /= scale
        d -= scaled_mean
        squares += float(np.dot(d, d))
    return mean, float(np.sqrt(squares / values.size)) * scale


def _py(x: Any) -> float:
    """A numpy scalar as a Python number; ints stay exact (int64 does not fit a float)."""
    return int(x) if isinstance(x, np.integer) else float(x)  # type: ignore[return-value]


def _unravel(flat_index: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    if not shape:
        return ()
    return tuple(int(i) for i in np.unravel_index(flat_index, shape))


def histogram(finite_vals: np.ndarray, bins: int, lo: Any = None, hi: Any = None) -> Histogram:
    """Equal-width histogram of finite values; a constant tensor gets one bin."""
    lo = finite_vals.min() if lo is None else lo
    hi = finite_vals.max() if hi is None else hi
    flo, fhi = float(lo), float(hi)
    if flo == fhi:
        return Histogram(np.array([flo, fhi]), np.array([finite_vals.size], dtype=np.int64))
    if finite_vals.dtype.kind in "iu":
        bins = int(min(bins, int(hi) - int(lo) + 1))  # no empty bins between integers
    if finite_vals.dtype.itemsize < 4 and finite_vals.dtype.kind == "f":
        finite_vals = finite_vals.astype(np.float32)  # np.histogram is slow on float16
    with np.errstate(over="ignore"):  # numpy bins in the array's dtype: can the span overflow?
        span = np.subtract(hi, lo, dtype=finite_vals.dtype) if finite_vals.dtype.kind == "f" \
            else fhi - flo
    limit = np.finfo(finite_vals.dtype if finite_vals.dtype.kind == "f" else np.float64).max
    # numpy's edges are k × (span / bins): with a span near the dtype's largest value the last
    # product overflows even when the span itself does not.
    if not np.isfinite(span) or abs(float(span)) > float(limit) / (bins + 1):
        # bin halves in float64 instead
        flo, fhi = flo / 2, fhi / 2
        finite_vals = finite_vals.astype(np.float64) / 2
        counts, edges = np.histogram(finite_vals, bins=bins, range=(flo, fhi))
        return Histogram(edges * 2, counts)
    counts, edges = np.histogram(finite_vals, bins=bins, range=(flo, fhi))
    return Histogram(edges, counts)


def first_nonfinite(values: np.ndarray) -> tuple[int, ...] | None:
    """Index (one int per axis) of the first NaN/±∞ in C order, or None when all are finite."""
    if values.dtype.kind not in "fc" or values.size == 0:
        return None
    finite = np.isfinite(values.reshape(-1))
    i = int(np.argmin(finite))
    if finite[i]:
        return None
    return _unravel(i, tuple(values.shape))
