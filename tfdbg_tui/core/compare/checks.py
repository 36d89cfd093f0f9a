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

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from reader import GRAPH, DebugLogdir
from reader.index.detail import BULK_ROWS, Scratch
from reader.index.health import COMPARED, DIGEST_EMPTY, empty_health
from reader.index.kinds import LazyColumn
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

_FLOAT = np.zeros(64, bool)
_FLOAT[[1, 2, 14, 19]] = True  # float32, float64, bfloat16, float16
_HEALTH = ("dtype", "rank", "size", "nan", "neg_inf", "pos_inf", "neg", "zero", "pos", "bad")
_NONFINITE = ("nan", "neg_inf", "pos_inf")
_FINITE = ("neg", "zero", "pos")
_BLOCK = 1 << 17  # pairs judged at a time (see `judge`)
# Per health mode, the summary elements a health column or `bad` is made of (the tensor id
# and FULL_HEALTH's device aside), a range: what `same_summaries` compares.
_COMPARED = COMPARED
_DIGESTED = np.array(sorted(COMPARED), np.int64)


def identity(rows: np.ndarray) -> bool:
    """Whether `rows` is simply 0..n-1 (two runs of one program pair row i with row i)."""
    return run_start(rows) == 0


def run_start(rows: np.ndarray) -> int:
    """`rows[0]` when `rows` is rows[0], rows[0]+1, … (a slice of a column: two runs of one
    program pair row i with row i, and `judge` takes them a block at a time), else -1."""
    n = len(rows)
    if not n:
        return -1
    first = int(rows[0])
    if int(rows[-1]) != first + n - 1 or (n > 2 and not np.all(np.diff(rows) == 1)):
        return -1
    return first


def take(column: Any, rows: np.ndarray, start: int | None = None) -> np.ndarray:
    """`column[rows]`; when `rows` is a run of rows (`start`, see `run_start`), a slice: a
    view of an array, or a lazy column's span — no index array made, checked and gathered
    through (a million rows: megabytes of fresh memory each)."""
    if start is None:
        start = run_start(rows)
    if 0 <= start and start + len(rows) <= len(column):
        if isinstance(column, np.ndarray):
            return column[start:start + len(rows)]
        if isinstance(column, LazyColumn):
            return np.asarray(column[start:start + len(rows)])
    return np.asarray(column[rows])


def _table(logdir: DebugLogdir, kind: int) -> Any:
    return logdir.traces if kind == GRAPH else logdir.outputs


def gather(logdir: DebugLogdir, kind: int, rows: np.ndarray,
           empty: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The health columns and the mode of rows of one kind (-1 where not recorded). Rows
    `empty` (a mask; their digest says their record holds no summary) are not read back:
    all their columns but `bad` are unknown."""
    t = _table(logdir, kind)
    same = run_start(rows)
    bulk = getattr(t, "health_columns", None)  # an index that reads health back in bulk
    if bulk is not None and empty is not None and empty.any():
        read = np.flatnonzero(~empty)
        cols = empty_health(len(rows))
        for c, v in bulk(rows[read]).items():
            cols[c][read] = v
        cols["bad"] = take(t.bad, rows, same)
    elif bulk is not None:
        cols = dict(bulk(rows))
    else:
        cols = {c: take(getattr(t, c), rows, same) for c in _HEALTH}
    if kind == GRAPH:
        cols["mode"] = take(t.mode, rows, same)
    else:
        cols["mode"] = take(logdir.executions.mode, take(t.execution, rows, same))
    return cols


def gather_pair(a: DebugLogdir, b: DebugLogdir, kind: int, rows_a: np.ndarray,
                rows_b: np.ndarray, pool: ThreadPoolExecutor | None = None,
                kind_b: int | None = None, empty: np.ndarray | None = None
                ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """`gather` of both sides; with a `pool`, side by side: reading records back is mostly
    file reads and the compiled loop, which release the GIL."""
    kb = kind if kind_b is None else kind_b
    if pool is None or len(rows_a) + len(rows_b) < 2 * BULK_ROWS:
        return gather(a, kind, rows_a, empty), gather(b, kb, rows_b, empty)
    fb = pool.submit(gather, b, kb, rows_b, empty)
    return gather(a, kind, rows_a, empty), fb.result()


def op_types(logdir: DebugLogdir, kind: int, rows: np.ndarray) -> np.ndarray:
    """The op type (string) of some rows."""
    if kind == GRAPH:
        ids = take(logdir.traces.op_type, rows)
    else:
        ids = take(logdir.executions.op_type, take(logdir.outputs.execution, rows))
    uniq, inverse = np.unique(ids, return_inverse=True)
    names = np.array([logdir.strings[int(u)] for u in uniq] or [""], dtype=object)
    return names[inverse] if len(rows) else np.zeros(0, object)


def judge(a: DebugLogdir, b: DebugLogdir, pairs: Pairs, rtol: float) -> np.ndarray:
    """Set status and reason of every pair from the columns (first failing check wins);
    returns the mask of pairs whose records must still be read (see `needs_records`).

    Pairs are judged `_BLOCK` at a time: the health columns of a block (~70 bytes a row
    and side) are made, compared and dropped, so two runs of millions of tensors never
    hold all their counts at once, and the memory a block touches is reused by the next."""
    todo = np.zeros(len(pairs), bool)
    scratch = (Scratch(), Scratch())  # memory each side's reads reuse from block to block
    with ThreadPoolExecutor(1) as pool:  # B's side, beside this thread's A
        for kind, kind_b in pairs.kinds():
            sel = pairs.of_kinds(kind, kind_b)
            for start in range(0, len(sel), _BLOCK):
                block = sel[start:start + _BLOCK]
                todo[block] = _judge_block(a, b, pairs, (kind, kind_b), block, rtol, pool,
                                           scratch)
    return todo


def _judge_block(a: DebugLogdir, b: DebugLogdir, pairs: Pairs, kinds: tuple[int, int],
                 sel: np.ndarray, rtol: float, pool: ThreadPoolExecutor,
                 scratch: tuple[Scratch, Scratch]) -> np.ndarray:
    """`judge` for the pairs `sel`, all of one kind; returns their `todo`. Pairs whose two
    records hold the same summary are equal without decoding it (`same_summaries`)."""
    todo = np.zeros(len(sel), bool)
    reason = np.zeros(len(sel), np.int8)
    kind, kind_b = kinds
    first = run_start(sel)  # pairs of one kind are one run of ids: slices, not gathers
    at: slice | np.ndarray = slice(first, first + len(sel)) if first >= 0 else sel
    same = same_summaries(a, b, kind, pairs.a_row[at], pairs.b_row[at], pool, scratch,
                          kind_b)
    rest = np.flatnonzero(~same)
    if len(rest):
        rows_a, rows_b = pairs.a_row[sel[rest]], pairs.b_row[sel[rest]]
        ca, cb = gather_pair(a, b, kind, rows_a, rows_b, pool, kind_b,
                             _both_empty(a, b, kinds, rows_a, rows_b))
        why, comparable = _reasons(ca, cb, rtol)
        loose = np.flatnonzero(~comparable)
        if len(loose):
            other = op_types(a, kind, rows_a[loose]) != op_types(b, kind_b, rows_b[loose])
            why[loose[other & (why[loose] == R_NONE)]] = R_OP_TYPE
        reason[rest] = why
        both_ft = (ca["mode"] == FULL_TENSOR) & (cb["mode"] == FULL_TENSOR)
        todo[rest] = needs_records(ca["mode"], cb["mode"]) & ((why == R_NONE) | both_ft)
    pairs.reason[at] = reason
    pairs.status[at] = np.where(reason != R_NONE, DIFFERENT, 0)
    return todo


def same_summaries(a: DebugLogdir, b: DebugLogdir, kind: int, rows_a: np.ndarray,
                   rows_b: np.ndarray, pool: ThreadPoolExecutor | None = None,
                   scratch: tuple[Scratch | None, Scratch | None] = (None, None),
                   kind_b: int | None = None) -> np.ndarray:
    """Pairs whose records hold the same health summary (CURT/CONCISE/FULL_HEALTH) in every
    element a health column or `bad` comes from, with the same known `bad`.

    Each health column is a function of one of those elements (`fill_from_vectors`: the
    value, or -1 when impossible), so such a pair is equal under every check of `_reasons`,
    and comparable (its `bad` is known on both sides); deciding it costs one
    comparison instead of decoding both into columns — what makes two runs of one program,
    equal almost everywhere, cheap to compare. Where both indexes keep digests
    (`DebugLogdir(..., digests=True)`), a pair with both digests known is decided by them
    alone (same mode, same digest: the same bits, but for a chance of 2**-64; a digest is
    never made over a NaN, which == calls different). The rest have their raw summaries read
    back and compared; rows the reader cannot give raw (no compiled core, a summary it
    leaves to Python) are simply not "same" here and go through the columns."""
    kb = kind if kind_b is None else kind_b
    ta, tb = _table(a, kind), _table(b, kb)
    same = np.zeros(len(rows_a), bool)
    if not len(rows_a) or "bad" not in ta.columns or "bad" not in tb.columns:
        return same
    ident_a, ident_b = run_start(rows_a), run_start(rows_b)
    bad_a, bad_b = take(ta.bad, rows_a, ident_a), take(tb.bad, rows_b, ident_b)
    ask = (bad_a == bad_b) & (bad_a >= 0)
    dig_a, dig_b = getattr(ta, "digest", None), getattr(tb, "digest", None)
    if dig_a is not None and dig_b is not None:
        da, db = take(dig_a, rows_a, ident_a), take(dig_b, rows_b, ident_b)
        known = (da != 0) & (db != 0) & (da != DIGEST_EMPTY) & (db != DIGEST_EMPTY)
        same = ask & known & (da == db)
        if same.any():
            mode_a, mode_b = _modes(a, kind, rows_a, ident_a), _modes(b, kb, rows_b, ident_b)
            same &= (mode_a == mode_b) & np.isin(mode_a, _DIGESTED)
        ask &= ~known
    if not ask.any():
        return same
    da_: Any = getattr(ta, "detail", None)
    db_: Any = getattr(tb, "detail", None)
    if not hasattr(da_, "summaries") or not hasattr(db_, "summaries"):
        return same
    at = np.flatnonzero(ask)
    ra, rb = (rows_a, rows_b) if len(at) == len(rows_a) else (rows_a[at], rows_b[at])
    if pool is not None:
        fb = pool.submit(db_.summaries, tb, rb, scratch[1])
        sa, sb = da_.summaries(ta, ra, scratch[0]), fb.result()
    else:
        sa, sb = da_.summaries(ta, ra, scratch[0]), db_.summaries(tb, rb, scratch[1])
    read = np.zeros(len(at), bool)
    for mode, (lo, hi) in _COMPARED.items():
        both = (sa.mode == mode) & (sb.mode == mode)
        if both.any():
            read |= both & (sa.vectors[:, lo:hi] == sb.vectors[:, lo:hi]).all(axis=1)
    same[at] |= read
    return same


def _both_empty(a: DebugLogdir, b: DebugLogdir, kinds: tuple[int, int], rows_a: np.ndarray,
                rows_b: np.ndarray) -> np.ndarray | None:
    """Pairs whose two records hold no summary (by their digests), or None if unknown."""
    dig_a = getattr(_table(a, kinds[0]), "digest", None)
    dig_b = getattr(_table(b, kinds[1]), "digest", None)
    if dig_a is None or dig_b is None:
        return None
    return np.asarray((dig_a[rows_a] == DIGEST_EMPTY) & (dig_b[rows_b] == DIGEST_EMPTY))


def _modes(logdir: DebugLogdir, kind: int, rows: np.ndarray, start: int) -> np.ndarray:
    """The recorded mode of some rows of one kind (`start`: see `run_start`)."""
    if kind == GRAPH:
        return take(logdir.traces.mode, rows, start)
    return take(logdir.executions.mode, take(logdir.outputs.execution, rows, start))


def _is_float(dtype: np.ndarray) -> np.ndarray:
    return _FLOAT[np.clip(dtype, 0, len(_FLOAT) - 1)]


def _reasons(ca: dict[str, np.ndarray], cb: dict[str, np.ndarray],
             rtol: float) -> tuple[np.ndarray, np.ndarray]:
    """Reason per pair, and whether anything but the op type could be compared. A column
    equal on both sides everywhere costs one comparison (two runs of one program)."""
    n = len(ca["mode"])
    reason = np.zeros(n, np.int8)

    def flag(mask: np.ndarray, code: int) -> None:
        reason[(reason == R_NONE) & mask] = code

    def differs(c: str) -> np.ndarray | None:
        """Where both recorded column `c` and it differs; None if nowhere."""
        x, y = ca[c], cb[c]
        ne = x != y
        if not ne.any():
            return None
        return ne & (x >= 0) & (y >= 0)

    off = differs("dtype")
    if off is not None:
        flag(off & ~(_is_float(ca["dtype"]) & _is_float(cb["dtype"])), R_DTYPE)
    off = differs("size")
    if off is not None:
        flag(off, R_SHAPE)
    off = differs("rank")
    if off is not None:  # with both values at hand, a regrouping of the same elements (a
        # head axis split off, a unit axis) compares element by element: the values decide
        both_ft = (ca["mode"] == FULL_TENSOR) & (cb["mode"] == FULL_TENSOR)
        flag(off & ~both_ft, R_SHAPE)
    count_checks = []
    off = differs("bad")
    if off is not None:
        flag(off, R_NONFINITE)
    for c in _NONFINITE:
        off = differs(c)
        if off is not None:
            flag(off & ((ca[c] > 0) != (cb[c] > 0)), R_NONFINITE)
            count_checks.append((c, off, R_NONFINITE_COUNT))
    for c in _FINITE:
        off = differs(c)
        if off is not None:
            count_checks.append((c, off, R_COUNTS))
    for c, off, code in count_checks:  # counts within rtol: |a − b| ≤ rtol·|b|
        flag(off & (np.abs(ca[c] - cb[c]) > rtol * np.abs(cb[c])), code)
    comparable = needs_records(ca["mode"], cb["mode"])
    for c in ("bad", "dtype", "size"):  # every mode that records anything records one
        comparable |= (ca[c] >= 0) & (cb[c] >= 0)
    return reason, comparable


def needs_records(mode_a: np.ndarray, mode_b: np.ndarray) -> np.ndarray:
    """Pairs whose comparison needs the full records: FULL_TENSOR values on both sides, or
    what one side's FULL_TENSOR value gives and the other side's summary has (FULL_HEALTH's
    −/0/+ counts, SHAPE's dimensions), or SHAPE dimensions on both sides."""
    ft_a, ft_b = mode_a == FULL_TENSOR, mode_b == FULL_TENSOR
    summary = (FULL_HEALTH, SHAPE)
    return ((ft_a & ft_b) | (ft_a & np.isin(mode_b, summary)) | (ft_b & np.isin(mode_a, summary))
            | ((mode_a == SHAPE) & (mode_b == SHAPE)))
