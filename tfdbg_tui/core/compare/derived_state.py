"""Beside stage 3 (`contract.state_pairing`): the last step's state where one run assigns the
new value and the other subtracts (or adds) an amount — a hand-written average
`avg.assign(0.9 * avg + 0.1 * w)` against TF1's `ExponentialMovingAverage`
(`shadow -= (shadow - w)(1 - decay)`). No later step reads it, and the two recorded tensors
are not one quantity (the value, the amount); but the run that subtracts also read the value
before, in the step, to compute the amount. So its value after is `before − amount`, computed
from its two records and compared with the other run's assigned value, as the values check
compares two tensors (`values.compare_values`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from reader import DebugLogdir, ReaderError
from reader.io.tensors import TensorValue
from tfdbg_tui.core.compare.pairs import DIFFERENT, EQUAL, R_NONE, R_UNREADABLE, SKIPPED, Pairs
from tfdbg_tui.core.compare.values import RecordReader, Tolerance, compare_values

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.pairing import StepPairs


def derived_pairs(pairs: Pairs, sp: StepPairs) -> np.ndarray:
    """The ids in `pairs` of the derived state pairs (judged here, not on their rows)."""
    off = len(pairs) - len(sp.row_a)
    return off + np.fromiter(sp.derived, np.int64, len(sp.derived))


def judge_derived(a: DebugLogdir, b: DebugLogdir, pairs: Pairs, sp: StepPairs,
                  tol: Tolerance, warn: Callable[[str], None]) -> None:
    """Compare each derived pair (`state_pairing.Derived`): the amount side's
    `before ± amount` against the other's assigned value."""
    ra, rb = RecordReader(a), RecordReader(b)
    off = len(pairs) - len(sp.row_a)
    for i, d in sp.derived.items():
        p = off + i
        reader = ra if d.side == "A" else rb
        mine = (int(pairs.kind[p]), int(pairs.a_row[p])) if d.side == "A" else (
            int(pairs.kind_b[p]), int(pairs.b_row[p]))
        theirs = (int(pairs.kind_b[p]), int(pairs.b_row[p])) if d.side == "A" else (
            int(pairs.kind[p]), int(pairs.a_row[p]))
        try:
            amount, before = reader.tensor(*mine), reader.tensor(*d.before)
            other = (rb if d.side == "A" else ra).tensor(*theirs)
        except ReaderError as exc:
            pairs.status[p], pairs.reason[p] = SKIPPED, R_UNREADABLE
            warn(f"not compared: {exc}")
            continue
        if amount is None or before is None or other is None \
                or amount.values.shape != before.values.shape:
            pairs.status[p] = SKIPPED
            continue
        after = TensorValue(before.dtype, before.dtype_name, before.shape,
                            before.values.astype(np.float64)
                            + d.sign * amount.values.astype(np.float64))
        va, vb = (after, other) if d.side == "A" else (other, after)
        got = compare_values(va, vb, tol.for_step(int(pairs.step[p])))
        pairs.max_abs[p], pairs.max_rel[p], pairs.worst[p] = got.max_abs, got.max_rel, got.worst
        pairs.reason[p] = got.reason
        pairs.status[p] = EQUAL if got.reason == R_NONE else DIFFERENT
