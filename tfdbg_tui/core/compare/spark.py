"""Per-step loss sparklines of two runs, as cells (a glyph and what it stands for).

Why cells, not a string: the TUI colours them (NaN red, steps from the first divergence on
marked) and `diff` prints them plain; both draw the same cells. A and B share one scale, so
an offset between the runs shows; NaN and ±∞ get glyphs of their own (`!`, `∞`) instead of
being dropped from the scale, a step whose loss is unknown is `·`, and when there are more
steps than cells each cell stands for a run of steps (NaN wins, then ±∞, else the mean).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tfdbg_tui.core.compare.series import (
    FINITE,
    NAN,
    NEG_INF,
    NO_LOSS,
    POS_INF,
    VALUE,
    LossSeries,
    SideLoss,
)

BARS = "▁▂▃▄▅▆▇█"
GLYPH = {NAN: "!", POS_INF: "∞", NEG_INF: "∞", FINITE: "·"}
MISSING = "·"
MARK = "┊"  # before the cell of the first divergent step, in both rows


@dataclass(frozen=True)
class Cell:
    glyph: str
    what: str  # a state of `series` (VALUE, NAN, …) or "" (no step here)
    steps: range  # the steps this cell stands for
    divergent: bool = False  # a compared step in it differs


def columns(n_steps: int, width: int) -> list[range]:
    """Steps per cell: one each when they fit, else `width` runs of consecutive steps."""
    if n_steps <= width:
        return [range(k, k + 1) for k in range(n_steps)]
    bounds = [round(i * n_steps / width) for i in range(width + 1)]
    return [range(bounds[i], bounds[i + 1]) for i in range(width) if bounds[i + 1] > bounds[i]]


def _cell(side: SideLoss, steps: range, lo: float, hi: float, divergent: bool) -> Cell:
    inside = [k for k in steps if k < len(side.states)]
    if not inside:
        return Cell(" ", "", steps, divergent)
    states = [side.states[k] for k in inside]
    for special in (NAN, POS_INF, NEG_INF):
        if special in states:
            return Cell(GLYPH[special], special, steps, divergent)
    values = [side.values[k] for k in inside if side.states[k] == VALUE]
    if not values:
        what = FINITE if FINITE in states else (NO_LOSS if NO_LOSS in states else "unknown")
        return Cell(MISSING, what, steps, divergent)
    # halves first: losses near ±1.7e308 overflow a plain mean or span to ±inf, and
    # int(nan) raises — a level that is not finite is clamped instead
    mean = sum(v / 2 for v in values) / len(values)
    span = hi / 2 - lo / 2
    frac = (mean - lo / 2) / span if span > 0 else 0.0
    level = min(len(BARS) - 1, max(0, int(frac * len(BARS)))) if math.isfinite(frac) else 0
    return Cell(BARS[level] if hi > lo else BARS[3], VALUE, steps, divergent)


def spark(series: LossSeries, width: int, stretch: int = 4
          ) -> tuple[list[Cell], list[Cell], int | None]:
    """A's and B's cells in at most `width` cells each (aligned step for step), and the
    index of the cell holding the first divergent step (None: no divergence in a step).
    A few steps get up to `stretch` cells each, so three steps are not three dots."""
    n = max(len(series.a.states), len(series.b.states))
    rep = max(1, min(stretch, width // n)) if n else 1
    cols = [c for c in columns(n, max(1, width)) for _ in range(rep)]
    lo, hi = series.lo_hi() or (0.0, 0.0)
    div = series.divergent
    row_a, row_b = [], []
    first_col = None
    for i, steps in enumerate(cols):
        bad = any(k < len(div) and div[k] for k in steps)
        row_a.append(_cell(series.a, steps, lo, hi, bad))
        row_b.append(_cell(series.b, steps, lo, hi, bad))
        if first_col is None and series.first_step is not None and series.first_step in steps:
            first_col = i
    return row_a, row_b, first_col


def number(x: float) -> str:
    """A loss in at most ~8 characters: 2.31, 0.000421, 1.2e+05, NaN, +∞."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    return f"{x:.3g}"


def side_summary(side: SideLoss, name: str) -> str:
    """What a row's cells cannot say: first → last value, the first NaN/∞, or why empty."""
    if not side.found:
        return f"no loss found in {name}"
    known = [(k, v, s) for k, (v, s) in enumerate(zip(side.values, side.states, strict=True))
             if s in (VALUE, NAN, POS_INF, NEG_INF)]
    bad = next(((k, s) for k, _, s in known if s != VALUE), None)
    parts = []
    if known and side.has_values:  # counts only: no number to show, NaN/∞ said below
        (_, v0, _), (_, v1, _) = known[0], known[-1]
        parts.append(f"{number(v0)} → {number(v1)}" if len(known) > 1 else number(v0))
    if bad is not None:
        parts.append(f"{'NaN' if bad[1] == NAN else '∞'} from step {bad[0]}")
    if not side.has_values:
        parts.append("values not recorded (health counts only)" if FINITE in side.states
                     else "values not recorded")
    return ", ".join(parts)


def loss_error_text(s: LossSeries) -> str:
    """The loss's own comparison: from which step it differs (a NaN against a number has
    no finite error, but differs) and its largest finite |A − B|; or that it is equal."""
    status = s.loss_status
    differs = [k for k, t in enumerate(status) if t == "different"]
    if differs:
        errs = [(e, k) for k, e in enumerate(s.loss_error) if k in differs and e == e]
        text = f"loss ≠ from step {differs[0]}"
        if errs and max(errs)[0] > 0:
            text += f", |A−B| up to {number(max(errs)[0])} (step {max(errs)[1]})"
        return text
    equal = status.count("equal")
    if not equal:
        return "loss not compared"
    if equal == len(status):
        return "loss equal at every compared step"
    return f"loss equal where compared ({equal} of {len(status)} steps)"


def plain_rows(series: LossSeries, width: int) -> list[str]:
    """`diff`'s two lines (`loss A ▇▅▃┊▂ 2.31 → 0.4`), the first divergent step marked."""
    row_a, row_b, first = spark(series, width)
    out = []
    for name, side, cells in (("A", series.a, row_a), ("B", series.b, row_b)):
        if not side.found:
            out.append(f"loss {name}  no loss found in {name}")
            continue
        glyphs = "".join((MARK if i == first else "") + c.glyph for i, c in enumerate(cells))
        tail = f"  ({loss_error_text(series)})" if name == "B" and series.a.found else ""
        out.append(f"loss {name}  {glyphs}  {side_summary(side, name)}{tail}")
    return out


__all__ = ["BARS", "MARK", "Cell", "columns", "loss_error_text", "number", "plain_rows",
           "side_summary", "spark"]
