"""Bounded sequence alignment of two token streams, in the spirit of `difflib`.

Used where names cannot pair things: the ops of two graphs in creation order (a renamed or
restructured program) and the eager timelines (executions have no names, only op types). The
common prefix and suffix are paired with numpy; what lies between is aligned by difflib in
windows, so one alignment costs at most `window`² however long the streams are, and all
alignments of a comparison share one `Budget` of tokens. When the budget runs out, the rest
is paired by (token, occurrence) and the budget says so in words.

Equal runs of different tokens between two matching blocks (`Relu` where the other run has
`Relu6`) are paired position by position and flagged `same=False`: that is how a changed line
keeps its place instead of leaving two unmatched ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher

import numpy as np

from tfdbg_tui.core.compare.keys import first_mismatch, match, occurrence

WINDOW = 2000
_MIN_WINDOW = 16
DEFAULT_BUDGET = 2_000_000  # tokens given to difflib over the whole comparison


@dataclass
class Budget:
    """Tokens difflib may still look at; `notes` says where it ran out."""

    left: int = DEFAULT_BUDGET
    total: int = DEFAULT_BUDGET
    notes: list[str] = field(default_factory=list)

    def spend(self, n: int) -> None:
        self.left -= n

    @property
    def exhausted(self) -> bool:
        return self.left <= 0


@dataclass(frozen=True)
class SeqAlignment:
    """Paired positions of the two streams; `same` is False for position-paired replacements."""

    a: np.ndarray
    b: np.ndarray
    same: np.ndarray


class _Collector:
    def __init__(self) -> None:
        self.a: list[np.ndarray] = []
        self.b: list[np.ndarray] = []
        self.same: list[np.ndarray] = []

    def run(self, i: int, j: int, n: int, same: bool) -> None:
        if n > 0:
            self.a.append(np.arange(i, i + n, dtype=np.int64))
            self.b.append(np.arange(j, j + n, dtype=np.int64))
            self.same.append(np.full(n, same))

    def arrays(self, ia: np.ndarray, ib: np.ndarray) -> None:
        if len(ia):
            self.a.append(ia.astype(np.int64))
            self.b.append(ib.astype(np.int64))
            self.same.append(np.ones(len(ia), bool))

    def result(self) -> SeqAlignment:
        if not self.a:
            empty = np.zeros(0, np.int64)
            return SeqAlignment(empty, empty, np.zeros(0, bool))
        a, b = np.concatenate(self.a), np.concatenate(self.b)
        order = np.argsort(a, kind="stable")
        return SeqAlignment(a[order], b[order], np.concatenate(self.same)[order])


def align(a: np.ndarray, b: np.ndarray, budget: Budget, what: str,
          window: int = WINDOW) -> SeqAlignment:
    """Align two int token streams; `what` names them in the budget's note if it runs out."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    out = _Collector()
    head = first_mismatch(a, b)
    out.run(0, 0, head, True)
    tail = first_mismatch(a[head:][::-1], b[head:][::-1])
    ie, je = len(a) - tail, len(b) - tail
    out.run(ie, je, tail, True)
    i, j = head, head
    while i < ie and j < je:
        if budget.exhausted:
            _by_occurrence(a, b, i, ie, j, je, out)
            budget.notes.append(
                f"{what}: structure alignment stopped after its budget of {budget.total:,} "
                f"tokens; the last {ie - i:,} / {je - j:,} were paired by op type and "
                "occurrence only")
            break
        w = max(_MIN_WINDOW, min(window, budget.left // 2))  # never far past the budget
        di, dj = _window(a[i:min(i + w, ie)], b[j:min(j + w, je)], i, j,
                         i + w >= ie and j + w >= je, out)
        budget.spend(min(w, ie - i) + min(w, je - j))
        i, j = i + di, j + dj
    return out.result()


def _window(wa: np.ndarray, wb: np.ndarray, i: int, j: int, final: bool,
            out: _Collector) -> tuple[int, int]:
    """Align one window; commit its first half (all of it when final). Returns the advance."""
    matcher = SequenceMatcher(None, wa.tolist(), wb.tolist(), autojunk=False)
    blocks = [blk for blk in matcher.get_matching_blocks() if blk.size]
    if final:
        commit = blocks
    else:
        half_a, half_b = len(wa) // 2, len(wb) // 2
        commit = [blk for blk in blocks
                  if blk.a + blk.size <= half_a and blk.b + blk.size <= half_b] or blocks[:1]
        if not commit:  # nothing in common in this window: leave its first half unmatched
            return max(1, half_a), max(1, half_b)
    pa = pb = 0
    for blk in commit:
        if blk.a - pa == blk.b - pb:
            out.run(i + pa, j + pb, blk.a - pa, False)
        out.run(i + blk.a, j + blk.b, blk.size, True)
        pa, pb = blk.a + blk.size, blk.b + blk.size
    if final:
        if len(wa) - pa == len(wb) - pb:
            out.run(i + pa, j + pb, len(wa) - pa, False)
        return len(wa), len(wb)
    return pa, pb


def _by_occurrence(a: np.ndarray, b: np.ndarray, i: int, ie: int, j: int, je: int,
                   out: _Collector) -> None:
    ta, tb = a[i:ie], b[j:je]
    ia, ib = match(ta, occurrence(ta), tb, occurrence(tb))
    out.arrays(ia + i, ib + j)
