"""The outcome of comparing two runs: the pairs, the counts, and cheap per-row queries.

`Comparison` is what the `diff` command prints and what the TUI's compare column reads: per
row of either run its status (equal / different / unmatched), its partner and its error are
numpy arrays built once, so a pane showing a million rows looks each one up in O(1), and
"next divergence" is a binary search.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.core.compare.contract import CONTRACT, Q_OTHER, RunModel, StepPairs
from tfdbg_tui.core.compare.contract import Training as RunTraining
from tfdbg_tui.core.compare.graphs import GraphPair, OpTable
from tfdbg_tui.core.compare.pairs import (
    BY_NAME,
    BY_STEP,
    DIFFERENT,
    EQUAL,
    R_NONFINITE,
    SKIPPED,
    UNMATCHED,
    Pairs,
)
from tfdbg_tui.core.compare.values import Tolerance

_NO_RUN = RunModel(RunTraining([], 0, set()), [], {})


_ROLED = np.array(CONTRACT, np.int8)  # the step contract's quantities (no metric, no other)


@dataclass(frozen=True)
class TensorGroup:
    """All rows of one tensor (op output) of one run, summarised."""

    kind: int
    row: int  # the first row concerned (trace index, or eager output row)
    count: int  # rows concerned
    total: int = 0  # rows compared (for divergent tensors)
    partner_row: int = -1  # for structure-aligned groups: the other run's first row


@dataclass
class Training:
    """Both runs' training steps and their pairing (None when not both runs train)."""

    a: RunModel
    b: RunModel
    sp: StepPairs | None


@dataclass
class Comparison:
    a: DebugLogdir
    b: DebugLogdir
    tolerance: Tolerance
    pairs: Pairs
    graph_pairs: list[GraphPair]
    ops_a: OpTable
    ops_b: OpTable
    notes: list[str] = field(default_factory=list)
    training: Training = field(default_factory=lambda: Training(_NO_RUN, _NO_RUN, None))
    # pair ids that differ but decide nothing: intermediates without a role in the step
    # (one run computes a layer in other ops) where the loss, every gradient and every
    # update agree at every step (`compare`)
    formulation: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    _cache: dict[tuple[str, int, str], np.ndarray] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ counts
    @property
    def compared(self) -> int:
        return int(np.count_nonzero((self.pairs.status == EQUAL)
                                    | (self.pairs.status == DIFFERENT)))

    @property
    def different(self) -> int:
        return int(np.count_nonzero(self.pairs.status == DIFFERENT)) - len(self.formulation)

    @property
    def skipped(self) -> int:
        return int(np.count_nonzero(self.pairs.status == SKIPPED))

    @property
    def by_name(self) -> int:
        return int(np.count_nonzero(self.pairs.how == BY_NAME))

    @property
    def by_structure(self) -> int:
        return len(self.pairs) - self.by_name

    def unmatched(self, side: str) -> int:
        return sum(int(np.count_nonzero(self.row_status(side, k) == UNMATCHED))
                   for k in (GRAPH, EAGER))

    @property
    def equivalent(self) -> bool:
        """The verdict is "equivalent" (see `verdict`): nothing differs and enough was
        compared — every step's loss, gradients and updates when the runs train."""
        return self.verdict == "equivalent"

    @property
    def verdict(self) -> str:
        """"equivalent", "diverge" or "incomparable" (`tfdbg_tui.core.compare.verdict`)."""
        from tfdbg_tui.core.compare.verdict import decide

        return decide(self)[0]

    @property
    def missing(self) -> list[str]:
        """What was not compared, when the verdict is "incomparable"."""
        from tfdbg_tui.core.compare.verdict import decide

        return decide(self)[1]

    def verdict_text(self) -> str:
        """The verdict in one line, with the tolerances and what it rests on."""
        from tfdbg_tui.core.compare.verdict import verdict_text

        return verdict_text(self)

    # ------------------------------------------------------------------ per-row queries
    def _logdir(self, side: str) -> DebugLogdir:
        return self.a if side == "a" else self.b

    def _rows(self, side: str, kind: int) -> tuple[np.ndarray, np.ndarray]:
        sel = self.pairs.of_kind(kind, side)
        rows = self.pairs.a_row if side == "a" else self.pairs.b_row
        return sel, rows[sel]

    def n_rows(self, side: str, kind: int) -> int:
        logdir = self._logdir(side)
        return len(logdir.traces) if kind == GRAPH else len(logdir.outputs)

    def row_status(self, side: str, kind: int) -> np.ndarray:
        """Per row of `side` ("a"/"b") of `kind`: EQUAL, DIFFERENT, UNMATCHED or SKIPPED
        (a row in several pairs shows the worst)."""
        key = (side, kind, "status")
        if key not in self._cache:
            sel, rows = self._rows(side, kind)
            status = np.full(self.n_rows(side, kind), UNMATCHED, np.int8)
            of_pair = self.pairs.status[sel]
            for s in (EQUAL, SKIPPED, DIFFERENT):  # worst last: a row in two pairs shows it
                hit = of_pair == s
                if hit.all():
                    status[rows] = s
                elif hit.any():
                    status[rows[hit]] = s
            self._cache[key] = status
        return self._cache[key]

    def partner_pair(self, side: str, kind: int) -> np.ndarray:
        """Per row: the pair id it belongs to (a different one first), -1 if unmatched."""
        key = (side, kind, "pair")
        if key not in self._cache:
            sel, rows = self._rows(side, kind)
            out = np.full(self.n_rows(side, kind), -1, np.int64)
            rank = np.argsort(self.pairs.status[sel] != DIFFERENT, kind="stable")[::-1]
            out[rows[rank]] = sel[rank]  # later writes win: different pairs are written last
            self._cache[key] = out
        return self._cache[key]

    def divergent_rows(self, side: str, kind: int) -> np.ndarray:
        key = (side, kind, "divergent")
        if key not in self._cache:
            self._cache[key] = np.flatnonzero(self.row_status(side, kind) == DIFFERENT)
        return self._cache[key]

    def next_divergence(self, side: str, kind: int, after: int) -> int | None:
        """The first divergent row of that pane after row `after` (-1: from the top)."""
        rows = self.divergent_rows(side, kind)
        k = int(np.searchsorted(rows, after, side="right"))
        return int(rows[k]) if k < len(rows) else None

    # ------------------------------------------------------------------ summaries
    def divergences(self, limit: int) -> list[int]:
        """Pair ids of the first `limit` differing pairs, in run A's order — but an unroled
        quantity never outranks a roled one: where the first is an `other` pair (two
        intermediates no role names, perhaps two different tensors paired by structure)
        and a quantity of the step contract differs at its step or later, that quantity
        comes first (the loss a forgotten factor changes, not a division paired with
        another division ahead of it). An `other` pair aligned by name (the same op of the
        same program), or one where a NaN/∞ appears in one run only (its birth, which the
        quantities downstream carry), is no guess: it stays first."""
        key = ("divergences", -1, "")
        if key not in self._cache:  # once: the panes ask for the first on every jump
            order = self.pairs.order
            bad = self.pairs.status[order] == DIFFERENT
            if len(self.formulation):
                bad &= ~np.isin(order, self.formulation)
            found = order[bad]
            # no guess: a pair aligned by name, or a NaN/∞ born on one side only (its
            # origin is what the roled quantities downstream carry)
            sure = np.zeros(len(self.pairs), bool)
            if len(found):
                f = int(found[0])
                sure[f] = (self.pairs.how[f] == BY_NAME) | (self.pairs.reason[f] == R_NONFINITE)
            self._cache[key] = roled_first(found, self.pairs.quantity, self.pairs.step, sure)
        return self._cache[key][:max(0, limit)].tolist()

    @property
    def first_divergence(self) -> int | None:
        first = self.divergences(1)
        return first[0] if first else None

    def tensor_of(self, side: str, kind: int, rows: np.ndarray) -> np.ndarray:
        """A tensor number per row: graph rows by (op, slot), eager rows by (op type, slot)."""
        logdir = self._logdir(side)
        if kind == GRAPH:
            ops = self.ops_a if side == "a" else self.ops_b
            slot = logdir.traces.slot[rows].astype(np.int64)
            return ops.first_tensor[ops.row_op[rows]] + slot
        o = logdir.outputs
        op_type = logdir.executions.op_type[o.execution[rows]].astype(np.int64)
        return op_type * 65536 + o.slot[rows].astype(np.int64)

    def divergent_tensors(self, limit: int, deciding: bool = True) -> list[TensorGroup]:
        """The tensors of run A where differences start: first differing row, how many of
        its compared rows differ. `deciding=False`: instead those whose differences decide
        nothing (`formulation`: listed apart, never as where the runs part)."""
        out: list[TensorGroup] = []
        if (not len(self.formulation) if not deciding
                else not np.any(self.pairs.status == DIFFERENT)):
            return out  # no pair to group: two equal runs skip selecting a million rows
        for kind in (GRAPH, EAGER):
            sel, rows = self._rows("a", kind)
            bad = self.pairs.status[sel] == DIFFERENT
            if len(self.formulation) or not deciding:
                aside = np.isin(sel, self.formulation)
                bad &= ~aside if deciding else aside
            if not bad.any():  # no group (two equal runs: skip numbering a million rows)
                continue
            tensors = self.tensor_of("a", kind, rows)
            compared = bad | (self.pairs.status[sel] == EQUAL)
            groups, first, counts = _groups(tensors[bad], rows[bad])
            totals = dict(zip(*np.unique(tensors[compared], return_counts=True), strict=True))
            out += [TensorGroup(kind, int(r), int(c), int(totals[g]))
                    for g, r, c in zip(groups.tolist(), first.tolist(), counts.tolist(),
                                       strict=True)]
        return _earliest(self.a, out, limit)

    def unmatched_tensors(self, side: str, limit: int) -> list[TensorGroup]:
        """The tensors of one run with rows left unmatched, with how many."""
        out: list[TensorGroup] = []
        for kind in (GRAPH, EAGER):
            rows = np.flatnonzero(self.row_status(side, kind) == UNMATCHED)
            if len(rows):
                _, first, counts = _groups(self.tensor_of(side, kind, rows), rows)
                out += [TensorGroup(kind, int(r), int(c)) for r, c in zip(first.tolist(),
                                                                         counts.tolist(),
                                                                         strict=True)]
        return _earliest(self._logdir(side), out, limit)

    def structure_tensors(self, limit: int) -> list[TensorGroup]:
        """Tensor pairs aligned by structure (not by name), with how many rows each."""
        out: list[TensorGroup] = []
        for kind in (GRAPH, EAGER):
            sel = self.pairs.of_kinds(kind, kind)
            sel = sel[(self.pairs.how[sel] != BY_NAME) & (self.pairs.how[sel] != BY_STEP)]
            if not len(sel):
                continue
            sel = sel[np.argsort(self.pairs.a_row[sel], kind="stable")]
            ta = self.tensor_of("a", kind, self.pairs.a_row[sel])
            tb = self.tensor_of("b", kind, self.pairs.b_row[sel])
            _, first, counts = np.unique(ta * (int(tb.max()) + 1) + tb, return_index=True,
                                         return_counts=True)
            out += [TensorGroup(kind, int(self.pairs.a_row[p]), int(c),
                                partner_row=int(self.pairs.b_row[p]))
                    for p, c in zip(sel[first].tolist(), counts.tolist(), strict=True)]
        return _earliest(self.a, out, limit)


def roled_first(found: np.ndarray, quantity: np.ndarray, step: np.ndarray,
                named: np.ndarray | None = None) -> np.ndarray:
    """Differing pair ids `found` (in order) with the first quantity of the step contract
    moved to the front when the first is an unroled `other` pair and that quantity is of
    its step or a later one (`quantity`, `step`: per pair id; -1 outside every step).
    `named`: per pair id, no guess (aligned by name, or a NaN/∞ in one run only) — such a
    first pair is kept first (the op the user changed, or where a NaN was born, not the
    loss it reaches; only a pair matched by structure may be two different tensors)."""
    if not len(found) or quantity[found[0]] != Q_OTHER:
        return found
    if named is not None and bool(named[found[0]]):
        return found
    s = step[found]
    roled = np.flatnonzero(np.isin(quantity[found], _ROLED) & ((s >= s[0]) | (s[0] < 0)))
    if not len(roled):
        return found
    k = int(roled[0])
    return np.concatenate([found[k:k + 1], found[:k], found[k + 1:]])


def _groups(keys: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct key: the key, its smallest row, and how many rows have it."""
    if not len(keys):
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    uniq, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    first = np.full(len(uniq), np.iinfo(np.int64).max, np.int64)
    np.minimum.at(first, inverse, rows)
    return uniq, first, counts


def _earliest(logdir: DebugLogdir, groups: list[TensorGroup], limit: int) -> list[TensorGroup]:
    def when(g: TensorGroup) -> tuple[float, int, int]:
        if g.kind == GRAPH:
            return float(logdir.traces.wall_time[g.row]), GRAPH, g.row
        return (float(logdir.executions.wall_time[int(logdir.outputs.execution[g.row])]),
                EAGER, g.row)

    return sorted(groups, key=when)[:max(0, limit)]
