"""The verdict of a comparison, and the table of training steps × quantities behind it.

Three verdicts, never "equivalent" on nothing:
- `diverge`: some compared pair differs (the first divergence says where);
- `equivalent`: nothing differs *and*, when the runs train, every compared step's loss, every
  paired variable's gradient and its value after the update (all steps but the last, whose
  update no run reads back) were compared, and the variables all paired; when neither run
  trains, at least one pair was compared; and whenever every recorded tensor of both runs
  was paired, read and found equal (a run against itself, a rerun), whatever roles the tool
  could or could not name — then nothing recorded is left to differ;
- `incomparable`: too little could be compared — with what was missing, so the user knows
  what to record or map.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from reader import ReaderError
from reader.modes import FULL_TENSOR
from tfdbg_tui.core.compare.contract import (
    CONTRACT,
    Q_APPLIED,
    Q_GRADIENT,
    Q_UPDATE,
    Q_VARIABLE,
    QUANTITIES,
)
from tfdbg_tui.core.compare.pairs import DIFFERENT, EQUAL
from tfdbg_tui.core.compare.standing import AGREE, PER_VARIABLE, standing, variable_of
from tfdbg_tui.core.compare.values import RecordReader

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.result import Comparison

EQUIVALENT, DIVERGE, INCOMPARABLE = "equivalent", "diverge", "incomparable"
_VALUELESS = {"NO_TENSOR", "SHAPE"}
_COSINE_PAIRS = 20_000  # step pairs whose values are re-read for the cosine column
_HINT = ("record both runs in FULL_TENSOR or FULL_HEALTH for the same number of steps, with "
         "the training step, its loss and its optimizer update inside the recording; "
         "`--map FILE` pairs variables the tool cannot pair by itself")


def step_offset(c: Comparison) -> int:
    """Where the step pairs begin in `c.pairs` (they come after the op pairs)."""
    sp = c.training.sp
    return len(c.pairs) - len(sp.row_a) if sp is not None else len(c.pairs)


def decide(c: Comparison) -> tuple[str, list[str]]:
    """(verdict, what was missing) — see the module docstring."""
    if c.different:
        return DIVERGE, []
    if whole_runs_equal(c):
        return EQUIVALENT, []
    t = c.training
    sp = t.sp
    if sp is None:
        if not t.a.n_steps and not t.b.n_steps:
            if c.compared:
                return EQUIVALENT, []
            return INCOMPARABLE, [*_modes(c), "no tensor of A could be aligned with a "
                                              "tensor of B"]
        side = "A" if not t.a.n_steps else "B"
        return INCOMPARABLE, [f"{side} has no training step (no variable that the forward "
                              "pass reads is updated from a gradient) while the other run "
                              "trains"]
    missing = _modes(c) + list(sp.missing)
    status = c.pairs.status
    off = step_offset(c)
    for k, required in enumerate(sp.required):
        for p in required:
            if status[off + p] not in (EQUAL, DIFFERENT):
                missing.append(f"step {k}: {sp.label[p]} could not be read")
    if sp.unpaired_a or sp.unpaired_b:
        parts = []
        if sp.unpaired_a:
            parts.append("A's " + ", ".join(sp.unpaired_a[:6]))
        if sp.unpaired_b:
            parts.append("B's " + ", ".join(sp.unpaired_b[:6]))
        missing.insert(len(_modes(c)), "variables without a partner of the same dtype "
                       "and shape: " + "; ".join(parts))
    if not sp.n_steps:
        missing.append("no training step to compare")
    return (INCOMPARABLE, missing) if missing else (EQUIVALENT, [])


def whole_runs_equal(c: Comparison) -> bool:
    """Every row of both runs paired and compared equal: nothing unmatched, nothing skipped.

    The step model's roles (loss, gradients, updates) are what make a partial comparison
    trustworthy; when nothing at all is left out, they add nothing, and a run whose loss the
    tool cannot name (computed in a nested tf.function, say) is still equal to its rerun."""
    if not c.compared or c.skipped:
        return False
    if _modes(c):
        return False
    return not c.unmatched("a") and not c.unmatched("b")


def _modes(c: Comparison) -> list[str]:
    """A run recorded in a mode without values or counts, said first: it is the cause."""
    out = []
    for side, logdir in (("A", c.a), ("B", c.b)):
        modes = set(logdir.tensor_debug_modes)
        if modes and modes <= _VALUELESS:
            out.append(f"{side} was recorded in {', '.join(sorted(modes))} mode: it holds no "
                       "values or counts to compare; record it with --mode FULL_TENSOR "
                       "(values) or FULL_HEALTH (counts)")
    return out


def _cosine(ra: RecordReader, rb: RecordReader, kind_a: int, row_a: int, kind_b: int,
            row_b: int) -> float | None:
    try:
        if ra.mode(kind_a, row_a) != FULL_TENSOR or rb.mode(kind_b, row_b) != FULL_TENSOR:
            return None
        va, vb = ra.tensor(kind_a, row_a), rb.tensor(kind_b, row_b)
    except ReaderError:
        return None
    if va is None or vb is None or va.values.dtype.kind != "f" or vb.values.dtype.kind != "f":
        return None
    x = va.values.reshape(-1).astype(np.float64)
    y = vb.values.reshape(-1).astype(np.float64)
    if x.shape != y.shape or not np.isfinite(x).all() or not np.isfinite(y).all():
        return None
    # scaled by the largest magnitude first: values near ±1.7e308 overflow a norm or a dot
    # product (inf/inf = NaN), while the cosine is the same for any scale
    sx, sy = float(np.abs(x).max(initial=0.0)), float(np.abs(y).max(initial=0.0))
    if sx == 0 or sy == 0:
        return 1.0 if sx == sy else 0.0
    x, y = x / sx, y / sy
    nx, ny = float(np.linalg.norm(x)), float(np.linalg.norm(y))
    return float(np.clip(np.dot(x, y) / (nx * ny), -1.0, 1.0))


_PER_VARIABLE = (Q_VARIABLE, Q_GRADIENT, Q_APPLIED, Q_UPDATE)


def step_table(c: Comparison) -> list[dict[str, Any]]:
    """Per training step, per quantity: compared, equal, different, the largest absolute and
    relative errors, and the smallest cosine similarity (FULL_TENSOR values only)."""
    sp = c.training.sp
    if sp is None:
        return []
    off = step_offset(c)
    p = c.pairs
    ids = np.arange(off, len(p))
    ra, rb = RecordReader(c.a), RecordReader(c.b)
    out: list[dict[str, Any]] = []
    for k in range(sp.n_steps):
        quantities: dict[str, Any] = {}
        at = ids[p.step[ids] == k]
        for q in np.unique(p.quantity[at]).tolist():
            sel = at[p.quantity[at] == q]
            st = p.status[sel]
            compared = int(np.count_nonzero((st == EQUAL) | (st == DIFFERENT)))
            cos = []
            if len(sel) <= _COSINE_PAIRS:
                for i in sel.tolist():
                    got = _cosine(ra, rb, int(p.kind[i]), int(p.a_row[i]), int(p.kind_b[i]),
                                  int(p.b_row[i]))
                    if got is not None:
                        cos.append(got)
            quantities[QUANTITIES[q]] = {
                "compared": compared, "equal": int(np.count_nonzero(st == EQUAL)),
                "different": int(np.count_nonzero(st == DIFFERENT)),
                "max_abs_error": _max(p.max_abs[sel]), "max_rel_error": _max(p.max_rel[sel]),
                "cosine": min(cos) if cos else None}
            # which of A's variables this quantity was compared for (a count could add up
            # with one variable twice and another never)
            names = sorted({sp.var[i - off] for i, s in zip(sel.tolist(), st.tolist(),
                                                            strict=True)
                            if s in (EQUAL, DIFFERENT) and sp.var[i - off]})
            if names or q in _PER_VARIABLE:
                quantities[QUANTITIES[q]]["variables"] = names
        out.append({"step": k, "quantities": quantities})
    return out


def _max(x: np.ndarray) -> float | None:
    x = x[np.isfinite(x)]
    return float(x.max()) if len(x) else None


def later_agree(c: Comparison, p: int) -> list[str]:
    """The quantities after pair `p`'s in the step contract, in its step, that were compared
    and agree (an update of that step, read at the next, included) — for pair `p`'s own
    variable where the quantity is one per variable, else for every variable of the step
    (`standing`: one not compared makes it unknown, never agreed): gradients that differ
    while the updates are equal say the difference is not applied (clipping or scaling done
    elsewhere), and the user should be told rather than shown one of them."""
    q = int(c.pairs.quantity[p])
    k = int(c.pairs.step[p])
    if q not in CONTRACT or k < 0:
        return []
    var = variable_of(c, p)  # a variable's gradient: its own update, not the others'
    return [QUANTITIES[later] for later in CONTRACT[CONTRACT.index(q) + 1:]
            if standing(c, k, later, var if later in PER_VARIABLE else "") == AGREE]


def verdict_text(c: Comparison) -> str:
    """One line: the verdict with what it rests on."""
    verdict, missing = decide(c)
    sp = c.training.sp
    tol = c.tolerance.describe()
    if verdict == DIVERGE:
        first = c.first_divergence
        where = ""
        if first is not None and int(c.pairs.step[first]) >= 0:
            label = c.pairs.label[first] or QUANTITIES[int(c.pairs.quantity[first])]
            where = f" at step {int(c.pairs.step[first])}: {label}"
            agree = later_agree(c, first)
            if QUANTITIES[Q_UPDATE] in agree:  # the difference never reached the weights
                where += ", yet its update agrees"
            elif QUANTITIES[Q_APPLIED] in agree:
                where += ", yet the gradient as applied agrees"
        if sp is not None and (sp.unpaired_a or sp.unpaired_b):
            alone = [f"A's {n}" for n in sp.unpaired_a[:3]] + \
                    [f"B's {n}" for n in sp.unpaired_b[:3]]
            where += f"; {', '.join(alone)} without a partner"

        return f"diverge{where} ({c.different:,} of {c.compared:,} compared differ; {tol})"
    if verdict == EQUIVALENT:
        if whole_runs_equal(c) and (sp is None or sp.missing or sp.unpaired_a
                                    or sp.unpaired_b):
            return (f"equivalent: every recorded tensor of both runs paired and equal "
                    f"({c.compared:,} pairs, within {tol})")
        if sp is not None:
            n = int(np.count_nonzero(c.pairs.status[step_offset(c):] == EQUAL))
            return (f"equivalent: {sp.n_steps} step{'s' * (sp.n_steps != 1)} of training, "
                    f"{n:,} quantities compared (loss, gradients, updates among them) "
                    f"within {tol}")
        return f"equivalent: {c.compared:,} tensor pairs compared within {tol}"
    shown = "; ".join(missing[:3]) + (f"; and {len(missing) - 3} more" if len(missing) > 3
                                       else "")
    return f"too little could be compared: {shown}"


def hint() -> str:
    return _HINT


def finite_or_none(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None
