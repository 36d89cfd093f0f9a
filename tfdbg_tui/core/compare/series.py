"""The loss of each training step of both runs, for a plot of A against B (TUI and `diff`).

Why: the step table says *where* two runs part; a glance at the two loss curves says *how*
(a small offset that grows, a jump, a NaN) — what a migrating user plots by hand. The step
model (`steps.model_run`) already knows each step's loss tensor on each side, even at steps
that were not paired; this module reads its value, one record per step (a run is modelled
for at most 256 steps, so a few hundred small reads).

A value is known only when it was recorded: FULL_TENSOR gives the number; a health mode gives
only whether it is NaN or ±∞ (the finite value stays unknown); NO_TENSOR/SHAPE give nothing.
NaN and ±∞ are kept as such (never dropped from a plot's scale silently: the plot marks them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from reader import GRAPH, ReaderError
from reader.modes import FULL_TENSOR
from tfdbg_tui.core.compare.contract import Q_LOSS, QUANTITIES, RunModel
from tfdbg_tui.core.compare.pairs import DIFFERENT, EQUAL
from tfdbg_tui.core.compare.result import Comparison
from tfdbg_tui.core.compare.values import RecordReader

# what is known of one step's loss
VALUE = "value"  # the number (FULL_TENSOR)
NAN, POS_INF, NEG_INF = "nan", "+inf", "-inf"
FINITE = "finite"  # recorded as counts only: finite, value unknown
UNKNOWN = "unknown"  # not recorded at that step (or unreadable)
NO_LOSS = "no_loss"  # the step model found no loss in this step


@dataclass(frozen=True)
class SideLoss:
    """One run's loss per training step: `values` (NaN where not a number or unknown) and
    `states` (one of the constants above) — `found` False when no step has a loss."""

    values: list[float]
    states: list[str]

    @property
    def found(self) -> bool:
        return any(s != NO_LOSS for s in self.states)

    @property
    def has_values(self) -> bool:
        return any(s == VALUE for s in self.states)


@dataclass(frozen=True)
class LossSeries:
    """Both runs' losses per step, and where they part (per compared step)."""

    a: SideLoss
    b: SideLoss
    compared: int  # steps paired (the first min(steps A, steps B))
    divergent: list[bool] = field(default_factory=list)  # per compared step: any quantity ≠
    loss_error: list[float] = field(default_factory=list)  # per compared step (NaN: unknown)
    # per compared step: "equal", "different" (NaN against a number too: no finite error)
    # or "unknown" (the loss was not paired or not compared at that step)
    loss_status: list[str] = field(default_factory=list)
    first_step: int | None = None  # the first divergence's step and what it is
    first_what: str | None = None

    def lo_hi(self) -> tuple[float, float] | None:
        """The finite range of both sides' values (one scale for A and B), None if none."""
        got = [v for side in (self.a, self.b)
               for v, s in zip(side.values, side.states, strict=True) if s == VALUE
               and math.isfinite(v)]
        return (min(got), max(got)) if got else None


def _side(model: RunModel, reader: RecordReader) -> SideLoss:
    values: list[float] = []
    states: list[str] = []
    logdir = reader.logdir
    for k in range(model.n_steps):
        roles = model.steps[k][2]
        if roles.loss is None:
            values.append(math.nan)
            states.append(NO_LOSS)
            continue
        where = model.row(k, roles.loss)
        value, state = (math.nan, UNKNOWN) if where is None else _read(reader, logdir, *where)
        values.append(value)
        states.append(state)
    return SideLoss(values, states)


def _read(reader: RecordReader, logdir: object, kind: int, row: int) -> tuple[float, str]:
    """One loss tensor's value (FULL_TENSOR) or what its health counts say."""
    try:
        if reader.mode(kind, row) == FULL_TENSOR:
            tv = reader.tensor(kind, row)
            if tv is None or tv.values.size != 1 or tv.values.dtype.kind not in "fiu":
                return math.nan, UNKNOWN
            x = float(tv.values.reshape(-1)[0])
            if math.isnan(x):
                return x, NAN
            if math.isinf(x):
                return x, POS_INF if x > 0 else NEG_INF
            return x, VALUE
        t = reader.logdir.traces if kind == GRAPH else reader.logdir.outputs
        nan, pinf, ninf = int(t.nan[row]), int(t.pos_inf[row]), int(t.neg_inf[row])
    except (ReaderError, IndexError, ValueError, OverflowError):
        return math.nan, UNKNOWN
    if nan > 0:
        return math.nan, NAN
    if pinf > 0:
        return math.inf, POS_INF
    if ninf > 0:
        return -math.inf, NEG_INF
    if min(nan, pinf, ninf) == 0:
        return math.nan, FINITE
    return math.nan, UNKNOWN


def loss_series(c: Comparison) -> LossSeries | None:
    """Both runs' losses per step; None when the runs were not both modelled as training."""
    sp = c.training.sp
    if sp is None:
        return None
    a = _side(c.training.a, RecordReader(c.a))
    b = _side(c.training.b, RecordReader(c.b))
    off = len(c.pairs) - len(sp.row_a)
    p = c.pairs
    ids = np.arange(off, len(p))
    divergent, error, status = [], [], []
    for k in range(sp.n_steps):
        at = ids[p.step[ids] == k]
        divergent.append(bool(np.any(p.status[at] == DIFFERENT)))
        loss = at[p.quantity[at] == Q_LOSS]
        st = p.status[loss]
        status.append("different" if np.any(st == DIFFERENT) else
                      "equal" if len(st) and np.all(st == EQUAL) else "unknown")
        errs = p.max_abs[loss]
        errs = errs[np.isfinite(errs)]
        error.append(float(errs.max()) if len(errs) else math.nan)
    first_step = first_what = None
    first = c.first_divergence
    if first is not None and int(p.step[first]) >= 0:
        first_step = int(p.step[first])
        first_what = p.label[first] or QUANTITIES[int(p.quantity[first])]
    return LossSeries(a, b, sp.n_steps, divergent, error, status, first_step, first_what)


def _number(x: float) -> float | None:
    return x if math.isfinite(x) else None


def series_json(s: LossSeries | None) -> dict[str, object] | None:
    """`diff --json`'s `loss_series`: per side `found`, `values` (a number, or null when not
    a finite number) and `states` (`value`, `nan`, `+inf`, `-inf`, `finite`, `unknown`,
    `no_loss`) for every step of that run; per compared step `divergent`, `loss_error`
    (null: no finite error) and `loss_status` (`equal`, `different`, `unknown`)."""
    if s is None:
        return None
    return {side: {"found": x.found, "values": [_number(v) for v in x.values],
                   "states": list(x.states)} for side, x in (("a", s.a), ("b", s.b))} | {
        "compared": s.compared, "divergent": list(s.divergent),
        "loss_error": [_number(e) for e in s.loss_error], "loss_status": list(s.loss_status),
        "first_step": s.first_step,
        "first_what": s.first_what}


def series_from_json(d: dict[str, object]) -> LossSeries:
    """The inverse of `series_json` (for the text output, which renders from the result)."""
    sides = []
    for side in ("a", "b"):
        x = d[side]
        assert isinstance(x, dict)
        states = [str(t) for t in x["states"]]
        values = [math.nan if v is None else float(v) for v in x["values"]]
        values = [{POS_INF: math.inf, NEG_INF: -math.inf}.get(t, v)
                  for v, t in zip(values, states, strict=True)]
        sides.append(SideLoss(values, states))
    errors = d["loss_error"]
    divergent = d["divergent"]
    status = d.get("loss_status") or []
    first = d["first_step"]
    assert isinstance(errors, list) and isinstance(divergent, list) and isinstance(status, list)
    return LossSeries(sides[0], sides[1], int(str(d["compared"])), [bool(v) for v in divergent],
                      [math.nan if e is None else float(e) for e in errors],
                      [str(t) for t in status],
                      None if first is None else int(str(first)),
                      None if d["first_what"] is None else str(d["first_what"]))


__all__ = ["FINITE", "NAN", "NEG_INF", "NO_LOSS", "POS_INF", "UNKNOWN", "VALUE", "LossSeries",
           "SideLoss", "loss_series", "series_from_json", "series_json"]
