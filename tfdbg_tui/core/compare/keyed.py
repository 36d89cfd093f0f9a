"""Beside the records' judging (`values`): an embedding table's tensors that the two runs
gathered differently, compared by id (`contract.tables`).

A pair in `StepPairs.by_id` holds, on each side, rows of one table and the id of each row.
A read is compared on the ids both runs looked up (each id's row: a table read twice at one
id holds one value); a gradient's IndexedSlices is summed per id first (an id one run looked
up several times has a row per look-up, and an id only one run looked up has a zero
gradient in the other), then compared on every id either looked up. The values are judged
as any other pair (`values.compare_values`, the step's tolerance); the element the worst
difference is at is not said (it is a row of ids, not of either tensor).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reader import DebugLogdir, ReaderError
from reader.io.tensors import TensorValue
from reader.modes import FULL_TENSOR
from tfdbg_tui.core.compare.contract.pairing import StepPairs
from tfdbg_tui.core.compare.contract.tables import ById
from tfdbg_tui.core.compare.pairs import DIFFERENT, EQUAL, R_NONE, R_SHAPE, SKIPPED, Pairs
from tfdbg_tui.core.compare.values import RecordReader, Tolerance, compare_values

MAX_IDS = 1 << 22  # ids a side may hold (a gradient's rows are made dense over their union)


def by_id_pairs(pairs: Pairs, sp: StepPairs) -> np.ndarray:
    """The ids in `pairs` of the pairs compared by id (not judged on their rows)."""
    off = len(pairs) - len(sp.row_a)
    return off + np.fromiter(sp.by_id, np.int64, len(sp.by_id))


def judge_by_id(a: DebugLogdir, b: DebugLogdir, pairs: Pairs, sp: StepPairs, tol: Tolerance,
                warn: Callable[[str], None]) -> None:
    """Judge each pair of `sp.by_id` (see the module docstring), updating `pairs`."""
    off = len(pairs) - len(sp.row_a)
    ra, rb = RecordReader(a), RecordReader(b)
    for i, keyed in sp.by_id.items():
        p = off + i
        ka, kb = int(pairs.kind[p]), int(pairs.kind_b[p])
        try:
            got = _tables(ra, (ka, int(pairs.a_row[p])), rb, (kb, int(pairs.b_row[p])), keyed)
        except ReaderError as exc:
            warn(f"not compared: {exc}")
            got = None
        if got is None:
            pairs.status[p], pairs.reason[p] = SKIPPED, R_NONE
            continue
        if isinstance(got, int):
            pairs.status[p], pairs.reason[p] = DIFFERENT, got
            continue
        out = compare_values(got[0], got[1], tol.for_step(int(pairs.step[p])))
        pairs.status[p] = EQUAL if out.reason == R_NONE else DIFFERENT
        pairs.reason[p] = out.reason
        pairs.max_abs[p], pairs.max_rel[p], pairs.worst[p] = out.max_abs, out.max_rel, -1


def _tables(ra: RecordReader, a: tuple[int, int], rb: RecordReader, b: tuple[int, int],
            keyed: ById) -> tuple[TensorValue, TensorValue] | int | None:
    """Both sides' rows by id, on the ids compared (None: not recorded in full; an R_* code:
    the rows cannot be laid side by side)."""
    sides = []
    for reader, rows, at in ((ra, a, keyed.ids_a), (rb, b, keyed.ids_b)):
        if reader.mode(*rows) != FULL_TENSOR or reader.mode(*at) != FULL_TENSOR:
            return None
        tv, iv = reader.tensor(*rows), reader.tensor(*at)
        if tv is None or iv is None or iv.values.dtype.kind not in "iu":
            return None
        n = int(iv.values.size)
        if not n or n > MAX_IDS or tv.values.size % n:
            return R_SHAPE
        sides.append((tv, iv.values.reshape(-1).astype(np.int64),
                      tv.values.reshape(n, -1)))
    (ta, ia, xa), (tb, ib, xb) = sides
    if xa.shape[1] != xb.shape[1]:
        return R_SHAPE
    if keyed.summed:
        ids = np.union1d(ia, ib)
        dense = []
        for x, i in ((xa, ia), (xb, ib)):
            d = np.zeros((len(ids), x.shape[1]), np.float64 if x.dtype.kind == "f" else x.dtype)
            np.add.at(d, np.searchsorted(ids, i), x)
            dense.append(d)
        va, vb = dense
    else:
        ids = np.intersect1d(ia, ib)
        if not len(ids):
            return None
        va = xa[np.unique(ia, return_index=True)[1][np.searchsorted(np.unique(ia), ids)]]
        vb = xb[np.unique(ib, return_index=True)[1][np.searchsorted(np.unique(ib), ids)]]
    shape = (len(ids), int(va.shape[1]))
    return (TensorValue(ta.dtype, ta.dtype_name, shape, va),
            TensorValue(tb.dtype, tb.dtype_name, shape, vb))
