"""Compare mode's loss plot: run A's and run B's loss per training step, under the header.

Why under the header: it is where a comparing user already looks (the verdict is on the
header line), it costs no pane, and it stays in view whichever pane has the keys. Two rows,
A over B on one scale, step k in the same column of both, at full size; one row (A, then B)
in the narrow layout (under 120×32, e.g. 80×24). The column of the first divergent step is
preceded by `┊` in both rows and the cells of divergent steps are red on B's row; NaN is `!`
and ±∞ `∞` (red, never dropped from the scale); `·` a step whose loss value is unknown.
Shown only when both runs were modelled as training (`core.compare.series`); a side with no
loss found says so instead of an empty plot. Every string from a logdir goes through `lit`.
"""

from __future__ import annotations

from rich.text import Text

from tfdbg_tui.core.compare.series import NAN, NEG_INF, POS_INF, VALUE, LossSeries, SideLoss
from tfdbg_tui.core.compare.spark import MARK, Cell, loss_error_text, side_summary, spark
from tfdbg_tui.core.textutil import fit, lit

LABEL = "loss"
_COLOUR = {"A": "#5fd7ff", "B": "#d7afff"}
_BAD = "bold #ff5f5f"


def _cells(t: Text, cells: list[Cell], first: int | None, name: str) -> None:
    for i, c in enumerate(cells):
        if i == first:
            t.append(MARK, "bold yellow")
        if c.what in (NAN, POS_INF, NEG_INF):
            style = f"{_BAD} reverse"
        elif c.what != VALUE:
            style = "dim"
        elif c.divergent and name == "B":
            style = _BAD
        else:
            style = _COLOUR[name]
        t.append(c.glyph, style)


def _row(name: str, side: SideLoss, cells: list[Cell], first: int | None, width: int,
         tail: str = "", label: str | None = "") -> Text:
    """`loss A ▇▅┊▃  1.78 → 1.35 · tail`, cut to `width` cells (the tail first)."""
    t = Text(no_wrap=True, end="")
    if label is not None:  # None: a second run on the same line, no label column
        t.append(f"{label:<4} ", "bold")
    t.append(f"{name} ", f"bold {_COLOUR[name]}")
    if not side.found:
        t.append(f"no loss found in {name}", "yellow")
    else:
        _cells(t, cells, first, name)
        t.append("  " + lit(side_summary(side, name)))
    if tail:
        t.append("   ")
        t.append(lit(tail), "bold" if "≠" in tail else "dim")
    t.truncate(max(1, width), overflow="ellipsis")
    return t


def _first_text(s: LossSeries) -> str:
    if s.first_step is None:
        return "no step differs" if s.compared else "no step compared"
    return f"first ≠ step {s.first_step}: {s.first_what or '?'}"


def plot_rows(s: LossSeries, width: int, narrow: bool) -> Text:
    """The plot in `width` cells: two lines (A over B), or one in the narrow layout."""
    width = max(20, width)
    n = max(len(s.a.states), len(s.b.states))
    if narrow:
        cells = max(4, min(n, (width - 40) // 2))
        row_a, row_b, first = spark(s, cells)
        t = _row("A", s.a, row_a, first, width, label=LABEL)
        t.append("  ")
        t.append_text(_row("B", s.b, row_b, first, width, _first_text(s), label=None))
        t.truncate(width, overflow="ellipsis")
        return t
    cells = max(8, min(4 * n, (width - 7) // 2))
    row_a, row_b, first = spark(s, cells)
    out = Text(no_wrap=True, end="")
    out.append_text(_row("A", s.a, row_a, first, width, _first_text(s), label=LABEL))
    out.append("\n")
    out.append_text(_row("B", s.b, row_b, first, width, loss_error_text(s)))
    return out


def plot_text(s: LossSeries | None, width: int, narrow: bool) -> Text | None:
    """The widget's content, None when there is nothing to plot (not two training runs)."""
    if s is None:
        return None
    if not s.a.found and not s.b.found:
        return Text(fit(f"{LABEL}  no loss found in A or B (the training steps were found, "
                        "their loss was not)", max(20, width)), "yellow", no_wrap=True)
    return plot_rows(s, width, narrow)


__all__ = ["plot_rows", "plot_text"]
