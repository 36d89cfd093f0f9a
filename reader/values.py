"""What a FULL_TENSOR dump holds, in numbers: statistics, slicing, first NaN, `.npy` export.

TF-free and UI-free on purpose: the inspector screen, `report --values` and any script share
one definition of "min over finite elements" or "the first NaN". Everything here is vectorised
numpy (a 10M-element tensor takes a fraction of a second): no Python loop ever visits elements.

Slicing expressions come from a text box, so they are parsed by a tiny grammar (ints, slices,
`...`), never `eval`: a logdir viewer must not run code typed — or pasted — into it.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from reader.tensors import TensorValue

Index = tuple[Any, ...]  # items are int, slice or Ellipsis


class SliceError(ValueError):
    """A slicing expression that is malformed or does not fit the tensor; str() says why."""


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
            finite_vals = np.abs(finite_vals)
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
    mean = float(np.mean(finite_vals, dtype=np.float64))
    std = _std(finite_vals, mean)
    return make(n_finite=n_finite, n_nan=n_nan, n_neg_inf=n_neg_inf, n_pos_inf=n_pos_inf,
                n_neg=n_neg, n_zero=n_zero, n_pos=n_pos, min=_py(lo), max=_py(hi), mean=mean,
                std=std, first_nonfinite=first, histogram=histogram(finite_vals, bins, lo, hi))


_CHUNK = 1 << 20


def _std(values: np.ndarray, mean: float) -> float:
    """Population std in float64, chunked: np.std would allocate a float64 copy of it all."""
    total = 0.0
    for start in range(0, values.size, _CHUNK):
        d = values[start:start + _CHUNK].astype(np.float64) - mean
        total += float(np.dot(d, d))
    return float(np.sqrt(total / values.size))


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
    if not np.isfinite(span):  # bin halves in float64 instead
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


# ---------------------------------------------------------------- slicing
_TOKEN = re.compile(r"\s*(?:(\.\.\.)|([+-]?\d+)|(:)|(,)|(\S))")


def parse_index(expr: str) -> Index:
    """Parse a numpy-style index such as `[0, :10]`, `[..., 3]`, `3`, `:, 1`, `::-1`.

    Grammar: optional outer brackets around comma-separated items; an item is an integer
    (negative allowed), `...`, or `start:stop[:step]` with each part optional. Raises
    SliceError naming the offending character.
    """
    text = expr.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise SliceError(f"'{_short(expr)}': missing closing ']'")
        text = text[1:-1]
    elif text.endswith("]"):
        raise SliceError(f"'{_short(expr)}': ']' without an opening '['")
    if not text.strip():
        return ()
    items: list[Any] = []
    parts: list[int | None] = [None]  # the ints of the current item, split by ':'
    colons = 0
    seen_value = False
    ellipsis = False
    pos = 0

    def finish() -> None:
        nonlocal parts, colons, seen_value, ellipsis
        if ellipsis:
            if colons or seen_value:
                raise SliceError(f"'{_short(expr)}': '...' must stand alone between commas")
            items.append(Ellipsis)
        elif colons:
            step = parts[2] if colons == 2 else None
            if step == 0:
                raise SliceError(f"'{_short(expr)}': slice step cannot be zero")
            items.append(slice(parts[0], parts[1], step))
        elif seen_value:
            items.append(parts[0])
        else:
            raise SliceError(f"'{_short(expr)}': empty item (two commas in a row?)")
        parts, colons, seen_value, ellipsis = [None], 0, False, False

    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        pos = m.end()
        dots, number, colon, comma, other = m.groups()
        if other is not None:
            raise SliceError(f"'{_short(expr)}': unexpected '{other}' "
                             "(use integers, ':', '...' and ',')")
        if dots:
            if ellipsis or seen_value or colons:
                raise SliceError(f"'{_short(expr)}': '...' must stand alone between commas")
            ellipsis = True
        elif number is not None:
            if parts[-1] is not None or ellipsis:
                raise SliceError(f"'{_short(expr)}': missing ',' or ':' before '{number}'")
            parts[-1] = int(number)
            seen_value = True
        elif colon:
            if colons == 2 or ellipsis:
                raise SliceError(f"'{_short(expr)}': too many ':' in one item")
            colons += 1
            parts.append(None)
        elif comma:
            finish()
    if colons or seen_value or ellipsis or not items:
        finish()
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise SliceError(f"'{_short(expr)}': only one '...' is allowed")
    return tuple(items)


def _short(expr: str, limit: int = 40) -> str:
    expr = expr.strip()
    return expr if len(expr) <= limit else expr[: limit - 1] + "…"


def apply_index(values: np.ndarray, index: Index | str) -> np.ndarray:
    """values[index] as a view (basic indexing never copies); SliceError if it does not fit."""
    idx = parse_index(index) if isinstance(index, str) else index
    n_axes = sum(1 for it in idx if it is not Ellipsis)
    if n_axes > values.ndim:
        raise SliceError(f"{n_axes} indices for a tensor of rank {values.ndim}")
    try:
        return np.asarray(values[idx])
    except IndexError as exc:
        raise SliceError(str(exc)) from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise SliceError(f"cannot index: {exc}") from None


def format_index(index: Index) -> str:
    """The inverse of parse_index, e.g. (0, slice(None), Ellipsis) → '[0, :, ...]'."""
    def item(it: Any) -> str:
        if it is Ellipsis:
            return "..."
        if isinstance(it, slice):
            a = "" if it.start is None else str(it.start)
            b = "" if it.stop is None else str(it.stop)
            return f"{a}:{b}" + ("" if it.step is None else f":{it.step}")
        return str(it)

    return "[" + ", ".join(item(it) for it in index) + "]"


# ---------------------------------------------------------------- saving
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def npy_name(tensor_name: str) -> str:
    """A safe file name for a tensor: `dense/MatMul:0` → `dense_MatMul_0.npy`."""
    stem = _UNSAFE.sub("_", tensor_name).strip("._") or "tensor"
    return stem[:100] + ".npy"


def default_save_dir() -> str:
    """$TFDBG_TUI_SAVE_DIR, else the current directory if writable, else the temp dir."""
    env = os.environ.get("TFDBG_TUI_SAVE_DIR")
    if env:
        return env
    cwd = os.getcwd()
    return cwd if os.access(cwd, os.W_OK) else tempfile.gettempdir()


def save_npy(tv: TensorValue | np.ndarray, tensor_name: str, directory: str | None = None) -> str:
    """Save the values to `<directory>/<tensor name>.npy` without overwriting; returns the path.

    bfloat16 is saved as the float32 it was widened to (numpy has no bfloat16); strings as a
    fixed-width bytes array, so `np.load` needs no pickle.
    """
    values = tv.values if isinstance(tv, TensorValue) else tv
    values = np.asarray(values)
    if values.dtype.kind == "O":
        if values.size and not _is_bytes(values):
            raise ValueError("opaque tensors (resource, variant) have no values to save")
        values = values.astype(np.bytes_) if values.size else values.astype("S1")
    directory = os.path.abspath(directory or default_save_dir())
    os.makedirs(directory, exist_ok=True)
    name = npy_name(tensor_name)
    path = os.path.join(directory, name)
    n = 1
    while os.path.exists(path):
        path = os.path.join(directory, f"{name[:-4]}-{n}.npy")
        n += 1
    with open(path, "xb") as f:
        np.save(f, values, allow_pickle=False)
    return path
