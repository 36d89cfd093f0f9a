"""Renderables of the value inspector: statistics, a terminal histogram, a health bar.

Pure Rich (no Textual) so they can be rendered to a Console in tests and reused by other
panes. They take numbers, never markup: every label is a literal `Text`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.table import Table
from rich.text import Text

from reader.values import Histogram, ValueStats
from tfdbg_tui.ui.inspector.grid import INF_COLOUR, NAN_COLOUR

EIGHTHS = " ▏▎▍▌▋▊▉█"
# Health categories in the order of the bar: label, colour.
CATEGORIES: tuple[tuple[str, str, str], ...] = (
    ("neg", "−", "blue"),
    ("zero", "0", "grey50"),
    ("pos", "+", "green"),
    ("neg_inf", "−∞", INF_COLOUR),
    ("pos_inf", "+∞", "#af5fff"),
    ("nan", "NaN", NAN_COLOUR),
)


def nonfinite_style(label: str) -> str:
    """NaN in red, ±∞ in magenta — as the value grid draws them (`grid.NAN_STYLE`,
    `grid.INF_STYLE`) and the README promises: the two mean different bugs."""
    return f"bold {NAN_COLOUR}" if label == "NaN" else f"bold {INF_COLOUR}"


def fmt_num(x: float | int | None, digits: int = 6) -> str:
    """A statistic for humans: ints exact, floats to `digits` significant digits."""
    if x is None:
        return "—"
    if isinstance(x, int):
        return f"{x:,}"
    return format(x, f".{digits}g")


def _count(n: int | None, size: int) -> Text:
    if n is None:
        return Text("—", style="dim")
    share = f" ({100 * n / size:.3g}%)" if size and n else ""
    return Text(f"{n:,}{share}")


def stats_table(stats: ValueStats) -> Table:
    """The statistics block: dtype, shape, size, finite-only moments and the counts."""
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    dtype = Text(stats.dtype_name)
    if stats.dtype_name == "bfloat16":
        dtype.append("  (shown widened to float32)", style="dim")
    t.add_row("dtype", dtype)
    t.add_row("shape", Text(str(list(stats.shape))))
    t.add_row("size", Text(f"{stats.size:,}"))
    if stats.kind in ("string", "opaque"):
        note = ("strings are shown escaped and quoted" if stats.kind == "string"
                else "resource/variant handles have no values")
        t.add_row("", Text(note, style="dim"))
        return t
    if stats.kind == "bool":
        t.add_row("True", _count(stats.n_pos, stats.size))
        t.add_row("False", _count(stats.n_zero, stats.size))
        return t
    digits = 4 if stats.dtype_name in ("bfloat16", "float16") else 6
    over = " of |z|" if stats.kind == "complex" else ""
    for name, value in (("min", stats.min), ("max", stats.max), ("mean", stats.mean),
                        ("std", stats.std)):
        t.add_row(name + over, Text(fmt_num(value, digits)))
    if stats.kind in ("float", "complex"):
        t.add_row("finite", _count(stats.n_finite, stats.size))
        for label, n in (("NaN", stats.n_nan), ("−∞", stats.n_neg_inf), ("+∞", stats.n_pos_inf)):
            t.add_row(label, Text(f"{n:,}", style=nonfinite_style(label) if n else "dim"))
    t.add_row("negative", _count(stats.n_neg, stats.size))
    t.add_row("zero", _count(stats.n_zero, stats.size))
    t.add_row("positive", _count(stats.n_pos, stats.size))
    if stats.first_nonfinite is not None:
        t.add_row("first NaN/∞", Text(str(list(stats.first_nonfinite)) + "  (press n)",
                                      style="bold red"))
    return t


@dataclass
class HistogramView:
    """Horizontal bars, one per bin, scaled to the width Rich offers; finite values only."""

    histogram: Histogram
    digits: int = 4

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        h = self.histogram
        counts = [int(c) for c in h.counts.tolist()]
        edges = [float(e) for e in h.edges.tolist()]
        lo = [fmt_num(e, self.digits) for e in edges[:-1]]
        hi = [fmt_num(e, self.digits) for e in edges[1:]]
        lo_w, hi_w = max(map(len, lo)), max(map(len, hi))
        labels = [f"{a.rjust(lo_w)} … {b.rjust(hi_w)}" for a, b in zip(lo, hi, strict=True)]
        label_w = lo_w + hi_w + 3
        count_w = max(len(f"{c:,}") for c in counts)
        bar_w = max(options.max_width - label_w - count_w - 4, 4)
        peak = max(counts) or 1
        yield Text("histogram of finite values", style="bold")
        for label, c in zip(labels, counts, strict=True):
            eighths = round(c / peak * bar_w * 8)
            if c and not eighths:
                eighths = 1  # a non-empty bin is never invisible
            bar = "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")
            line = Text(label + " ", style="dim")
            line.append(bar.ljust(bar_w), style="cyan")
            line.append(" " + f"{c:,}".rjust(count_w))
            yield line


@dataclass
class HealthBar:
    """A labelled bar of the shares of −, 0, +, −∞, +∞ and NaN in one tensor.

    `counts` maps category keys (see CATEGORIES, plus "finite" for modes that do not split
    finite values by sign) to counts; absent keys are unknown in the recorded mode.
    """

    counts: dict[str, int]
    size: int

    def segments(self) -> list[tuple[str, str, int]]:
        """(label, colour, count) for the categories present."""
        out = []
        if "finite" in self.counts:
            out.append(("finite", "green", self.counts["finite"]))
        for key, label, colour in CATEGORIES:
            if key in self.counts:
                out.append((label, colour, self.counts[key]))
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segs = self.segments()
        width = max(min(options.max_width, 80), 10)
        total = self.size or sum(n for _, _, n in segs) or 1
        # every non-empty category gets at least one cell, the rest by share
        cells = [max(1, round(n / total * width)) if n else 0 for _, _, n in segs]
        while sum(cells) > width:
            i = cells.index(max(cells))
            cells[i] -= 1
        bar = Text()
        for (_, colour, _n), w in zip(segs, cells, strict=True):
            bar.append("█" * w, style=Style(color=colour))
        yield bar
        legend = Text()
        for i, (label, colour, n) in enumerate(segs):
            if i:
                legend.append("   ")
            legend.append("■ ", style=Style(color=colour))
            legend.append(f"{label} {n:,} ({100 * n / total:.3g}%)",
                          style=nonfinite_style(label) if n and label in ("−∞", "+∞", "NaN")
                          else "")
        yield legend
