"""What "differs" means for each recorded mode, judged on the index columns (vectorised).

Every tensor row carries the same health columns, -1 where its mode recorded nothing, so two
rows recorded in different modes compare on the columns both have:
- dtype and shape (rank, size) exactly — except that two floating dtypes (float32 against
  float16 in a mixed-precision run) are not by themselves a divergence: their counts and
  values decide;
- NaN/∞ present on one side only (counts, or CURT_HEALTH's flag): always a divergence, whatever
  the tolerance;
- the counts (NaN, −∞, +∞, negative, zero, positive) within `rtol`: |a − b| ≤ rtol·|b|, so
  `--rtol 0.01` lets 1% of the elements change sign; `atol` is in value units and does not
  apply to counts;
- when neither side recorded anything comparable (NO_TENSOR, or a non-float tensor in a
  health mode), the op type: NO_TENSOR runs compare only their op sequences.
FULL_TENSOR values and SHAPE dimensions need the records themselves: `needs_records` says
which pairs `values.py` must still read.
"""

from __future__ import annotations

import numpy as np

from reader import GRAPH, DebugLogdir
from reader.modes import FULL_HEALTH, FULL_TENSOR, SHAPE
from tfdbg_tui.core.compare.pairs import (
    DIFFERENT,
    R_COUNTS,
    R_DTYPE,
    R_NONE,
    R_NONFINITE,
    R_NONFINITE_COUNT,
    R_OP_TYPE,
    R_SHAPE,
    Pairs,
)

_FLOAT_DTYPES = np.array([1, 2, 14, 19])  # float32, float64, bfloat16, float16
_COLUMNS = ("dtype", "rank", "size", "nan", "neg_inf", "pos_inf", "neg", "zero", "pos", "bad")
_NONFINITE = ("nan", "neg_inf", "pos_inf")
_FINITE = ("neg", "zero", "pos")


def gather(logdir: DebugLogdir, kind: int, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The health columns, the mode and the op type (string) of rows of one kind."""
    if kind == GRAPH:
        t = logdir.traces
        cols = {c: getattr(t, c)[rows].astype(np.int64) for c in _COLUMNS}
        cols["mode"] = t.mode[rows].astype(np.int64)
        types = t.op_type[rows]
    else:
        o, e = logdir.outputs, logdir.executions
        cols = {c: getattr(o, c)[rows].astype(np.int64) for c in _COLUMNS}
        execs = o.execution[rows]
        cols["mode"] = e.mode[execs].astype(np.int64)
        types = e.op_type[execs]
    uniq, inverse = np.unique(types, return_inverse=True)
    names = np.array([logdir.strings[int(u)] for u in uniq] or [""], dtype=object)
    cols["op_type"] = names[inverse] if len(rows) else np.zeros(0, object)
    return cols


def column_checks(a: DebugLogdir, b: DebugLogdir, pairs: Pairs, rtol: float) -> None:
    """Set status and reason of every pair from the columns (first failing check wins)."""
    for kind in np.unique(pairs.kind).tolist():
        sel = pairs.of_kind(kind)
        ca, cb = gather(a, kind, pairs.a_row[sel]), gather(b, kind, pairs.b_row[sel])
        reason = _reasons(ca, cb, rtol)
        pairs.reason[sel] = reason
        pairs.status[sel] = np.where(reason != R_NONE, DIFFERENT, 0)


def _both(ca: dict[str, np.ndarray], cb: dict[str, np.ndarray], c: str) -> np.ndarray:
    return (ca[c] >= 0) & (cb[c] >= 0)


def _reasons(ca: dict[str, np.ndarray], cb: dict[str, np.ndarray],
             rtol: float) -> np.ndarray:
    n = len(ca["mode"])
    reason = np.zeros(n, np.int8)

    def flag(mask: np.ndarray, code: int) -> None:
        reason[(reason == R_NONE) & mask] = code

    both_float = np.isin(ca["dtype"], _FLOAT_DTYPES) & np.isin(cb["dtype"], _FLOAT_DTYPES)
    flag(_both(ca, cb, "dtype") & (ca["dtype"] != cb["dtype"]) & ~both_float, R_DTYPE)
    for c in ("rank", "size"):
        flag(_both(ca, cb, c) & (ca[c] != cb[c]), R_SHAPE)
    one_side = np.zeros(n, bool)
    for c in _NONFINITE:
        one_side |= _both(ca, cb, c) & ((ca[c] > 0) != (cb[c] > 0))
    one_side |= _both(ca, cb, "bad") & (ca["bad"] != cb["bad"])
    flag(one_side, R_NONFINITE)
    for codes, code in ((_NONFINITE, R_NONFINITE_COUNT), (_FINITE, R_COUNTS)):
        for c in codes:
            off = np.abs(ca[c] - cb[c]) > rtol * np.abs(cb[c])
            flag(_both(ca, cb, c) & off, code)
    comparable = np.zeros(n, bool)
    for c in _COLUMNS:
        comparable |= _both(ca, cb, c)
    comparable |= needs_records(ca["mode"], cb["mode"])
    flag(~comparable & (ca["op_type"] != cb["op_type"]), R_OP_TYPE)
    return reason


def needs_records(mode_a: np.ndarray, mode_b: np.ndarray) -> np.ndarray:
    """Pairs whose comparison needs the full records: FULL_TENSOR values on both sides, or
    what one side's FULL_TENSOR value gives and the other side's summary has (FULL_HEALTH's
    −/0/+ counts, SHAPE's dimensions), or SHAPE dimensions on both sides."""
    ft_a, ft_b = mode_a == FULL_TENSOR, mode_b == FULL_TENSOR
    summary = (FULL_HEALTH, SHAPE)
    return ((ft_a & ft_b) | (ft_a & np.isin(mode_b, summary)) | (ft_b & np.isin(mode_a, summary))
            | ((mode_a == SHAPE) & (mode_b == SHAPE)))
