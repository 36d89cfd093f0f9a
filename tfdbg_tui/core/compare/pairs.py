"""The aligned tensor rows of two runs, as parallel numpy arrays (one entry per pair).

A pair joins a row of run A with a row of run B of the same kind: graph traces (row = trace
index) or eager outputs (row = row of the output table; its execution and slot come from the
reader). Everything the comparison learns about a pair — how it was aligned, equal or not and
why, the errors — is a column here, so a million pairs cost a few dozen megabytes and no
Python objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reader import GRAPH

# how a pair was aligned
BY_NAME, BY_STRUCTURE, BY_ROLE, BY_STEP = 0, 1, 2, 3
HOW_NAMES = {BY_NAME: "name", BY_STRUCTURE: "structure", BY_ROLE: "structure",
             BY_STEP: "training step"}

# status of a pair, and of a row on its own side (UNMATCHED: no partner)
EQUAL, DIFFERENT, UNMATCHED, SKIPPED = 0, 1, 2, 3

# why a pair differs (the first that applies, in this order of precedence)
R_NONE, R_DTYPE, R_SHAPE, R_NONFINITE, R_NONFINITE_COUNT, R_COUNTS, R_VALUES, R_OP_TYPE = range(8)
R_UNREADABLE, R_MISSING = 8, 9
REASON_NAMES = {R_MISSING: "variable_missing", R_NONE: "equal", R_DTYPE: "dtype", R_SHAPE: "shape",
                R_NONFINITE: "nan_or_inf_one_side", R_NONFINITE_COUNT: "nan_or_inf_count",
                R_COUNTS: "counts", R_VALUES: "values", R_OP_TYPE: "op_type",
                R_UNREADABLE: "unreadable"}


class NoLabels(Sequence[str]):
    """`n` empty labels: what op-by-op pairs have, without a list of a million "" (10 MB
    of pointers, every page of it written) on the hot path of a diff of two big runs."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return [""] * len(range(*key.indices(self._n)))
        i = int(key)
        if not -self._n <= i < self._n:
            raise IndexError("label index out of range")
        return ""


@dataclass
class Pairs:
    """Parallel arrays over the pairs; `order` lists pair ids in run A's timeline order."""

    kind: np.ndarray  # int8: GRAPH or EAGER (both sides have the same kind)
    a_row: np.ndarray  # int64
    b_row: np.ndarray  # int64
    how: np.ndarray  # int8: BY_NAME / BY_STRUCTURE / BY_ROLE
    status: np.ndarray  # int8: EQUAL / DIFFERENT / SKIPPED
    reason: np.ndarray  # int8: R_*
    max_abs: np.ndarray  # float64, NaN where no values were compared
    max_rel: np.ndarray  # float64
    worst: np.ndarray  # int64 flat index of the worst element, -1 if none
    order: np.ndarray  # int64 pair ids, earliest in run A first
    # B's kind: a TF1 graph trace pairs with a TF2 eager output across forms (`steps`)
    kind_b: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    step: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # -1: none
    quantity: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # Q_* of steps
    label: Sequence[str] = field(default_factory=list)  # per pair, what it is ("" for op pairs)

    @classmethod
    def build(cls, kind: np.ndarray, a_row: np.ndarray, b_row: np.ndarray,
              how: np.ndarray, kind_b: np.ndarray | None = None,
              order: np.ndarray | None = None) -> Pairs:
        """Pairs of these rows, none judged yet; `order` (default: as given) the order the
        pairs are looked at in. The row arrays are taken as they are when their dtypes fit
        (a million pairs: every copy is megabytes of fresh memory)."""
        n = len(kind)
        kind = kind.astype(np.int8, copy=False)
        return cls(kind, a_row.astype(np.int64, copy=False),
                   b_row.astype(np.int64, copy=False),
                   how.astype(np.int8, copy=False), np.zeros(n, np.int8), np.zeros(n, np.int8),
                   np.full(n, np.nan), np.full(n, np.nan), np.full(n, -1, np.int64),
                   np.arange(n, dtype=np.int64) if order is None else order,
                   kind.copy() if kind_b is None else kind_b.astype(np.int8),
                   np.full(n, -1, np.int64), np.full(n, 7, np.int8), NoLabels(n))

    def __len__(self) -> int:
        return len(self.kind)

    def of_kind(self, kind: int, side: str = "a") -> np.ndarray:
        return np.flatnonzero((self.kind if side == "a" else self.kind_b) == kind)

    def kinds(self) -> list[tuple[int, int]]:
        """The distinct (A kind, B kind) combinations present."""
        if not len(self.kind):
            return []
        code = self.kind.astype(np.int64) * 8 + self.kind_b
        # kinds are 0/1: counting the codes is O(n), where sorting a million of them is not
        combo = (np.flatnonzero(np.bincount(code)) if int(code.min()) >= 0
                 else np.unique(code))
        return [(int(c) // 8, int(c) % 8) for c in combo]

    def of_kinds(self, ka: int, kb: int) -> np.ndarray:
        return np.flatnonzero((self.kind == ka) & (self.kind_b == kb))

    def is_graph(self, p: int) -> bool:
        return int(self.kind[p]) == GRAPH
