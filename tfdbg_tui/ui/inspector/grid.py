"""The value grid of the inspector: a Line-API widget that formats only what is on screen.

A FULL_TENSOR dump can hold 10M elements; building a Text or a DataTable of it would take
seconds and gigabytes. `ValueGrid` keeps a numpy *view* (no copy) and, per visible line,
formats the few dozen cells in view. The header (column indices) and the row labels stay in
place while the cells scroll, as in a spreadsheet. Strings from the logdir are escaped with
`literal()` and emitted as Segments, which are never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tfdbg_tui.core.sanitize import literal

# Explicit colours, not ANSI names: Textual's ANSI theme drew "red" and "magenta" alike
# (#f4005f), and NaN (0/0, ∞ − ∞) and ∞ (overflow, log 0) are different bugs.
NAN_COLOUR = "#ff5f5f"
INF_COLOUR = "#d787ff"
NAN_STYLE = Style(color=NAN_COLOUR, bold=True)
INF_STYLE = Style(color=INF_COLOUR, bold=True)
MARK_STYLE = Style(reverse=True)
LABEL_STYLE = Style(dim=True)
DIM_STYLE = Style(dim=True)
STRING_WIDTH = 24
PER_ROW_1D = 10
SAMPLE = 2000

Formatter = Callable[[Any], str]


def formatter_for(values: np.ndarray, dtype_name: str) -> Formatter:
    """A cell formatter for the array's dtype: about the precision the dtype really has."""
    k = values.dtype.kind
    if k == "f":
        digits = 4 if dtype_name in ("bfloat16", "float16") else (8 if dtype_name == "float64"
                                                                  else 6)
        spec = f".{digits}g"

        def fmt_float(x: Any) -> str:
            return format(float(x), spec) if x == x else "nan"  # inf formats as "inf"

        return fmt_float
    if k == "c":
        return lambda z: f"{z.real:.4g}{z.imag:+.4g}j"
    if k == "b":
        return lambda b: "True" if b else "False"
    if k in "iu":
        return str
    if k == "O":
        return _fmt_object
    return lambda x: literal(str(x))


def _fmt_object(x: Any) -> str:
    if isinstance(x, bytes):
        return '"' + literal(x.decode("utf-8", "backslashreplace")) + '"'
    if x is None:
        return "<opaque>"
    return '"' + literal(str(x)) + '"'


def cell_width(values: np.ndarray, fmt: Formatter, extremes: tuple[Any, ...] = ()) -> int:
    """Width for every cell: the widest of a sample, the extremes and any NaN/∞ marker.

    Measuring all 10M cells would be a Python loop over elements; a sample plus min/max is
    exact for ints and close for floats (a wider cell is clipped with '…').
    """
    flat = values.reshape(-1)
    sample = list(flat[:SAMPLE].tolist()) + [x for x in extremes if x is not None]
    width = max((cell_len(fmt(x)) for x in sample), default=1)
    if values.dtype.kind == "f":
        width = max(width, 4)  # room for "-inf": NaN/∞ is what the user hunts for
    if values.dtype.kind == "O":
        width = min(width, STRING_WIDTH)
    return max(width, 1)


class ValueGrid(ScrollView, can_focus=True):
    """A scrollable, bounded view of a 0-D, 1-D or 2-D numpy array.

    1-D arrays wrap PER_ROW_1D values per line, labelled with the first flat index, as numpy
    prints them. `mark` highlights one cell (the first NaN after a jump).
    """

    DEFAULT_CSS = """
    ValueGrid { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.array: np.ndarray = np.zeros((0, 0))
        self.fmt: Formatter = str
        self.width_cell = 1
        self.rows = 0
        self.cols = 0
        self.label_width = 0
        self.axes: list[range] | None = None  # the tensor's indices of the shown axes
        self.mark: tuple[int, int] | None = None

    # ------------------------------------------------------------ data
    def set_array(self, array: np.ndarray, fmt: Formatter, width: int,
                  axes: list[range] | None = None) -> None:
        """Show `array` (a view, ndim ≤ 2) formatted by `fmt` in cells `width` wide.
        `axes`: per shown axis, the tensor's own index of each position (a slice `[2:5]`
        is labelled 2, 3, 4 — not renumbered from 0); None labels positions."""
        if array.ndim > 2:
            raise ValueError("ValueGrid shows at most two dimensions")
        self.array = array
        self.axes = axes if axes is not None and len(axes) == array.ndim else None
        self.fmt = fmt
        self.width_cell = width
        if array.ndim == 2:
            self.rows, self.cols = array.shape
        elif array.ndim == 1:
            self.cols = min(PER_ROW_1D, array.shape[0])
            self.rows = -(-array.shape[0] // PER_ROW_1D) if array.shape[0] else 0
        else:
            self.rows, self.cols = 1, 1
        last_label = self.rows - 1 if array.ndim != 1 else (self.rows - 1) * PER_ROW_1D
        self.label_width = len(f"[{self._label(0, max(last_label, 0))}]") + 1
        header_width = len(str(self._label(1, max(self.cols - 1, 0))))
        self.width_cell = max(self.width_cell, header_width)
        self.mark = None
        self.virtual_size = Size(self.label_width + self.cols * (self.width_cell + 1) + 1,
                                 self.rows + 1)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def _label(self, axis: int, position: int) -> int:
        """The tensor's index shown for `position` on grid axis `axis` (0 rows, 1 columns;
        a 1-D array's columns are offsets within its row, as numpy prints them)."""
        if self.axes is None or (self.array.ndim == 1 and axis == 1):
            return position
        r = self.axes[0 if self.array.ndim == 1 else axis]
        return r[position] if 0 <= position < len(r) else position

    def cell_of(self, index: tuple[int, ...]) -> tuple[int, int]:
        """Grid (row, col) of an index into the shown array."""
        if self.array.ndim == 2:
            return int(index[0]), int(index[1])
        if self.array.ndim == 1:
            return divmod(int(index[0]), PER_ROW_1D)
        return 0, 0

    def show_cell(self, row: int, col: int) -> None:
        """Mark (row, col) and scroll so it sits in view, near the middle."""
        self.mark = (row, col)
        view_h = max(self.scrollable_content_region.height - 1, 1)
        view_w = max(self.scrollable_content_region.width - self.label_width, 1)
        cw = self.width_cell + 1
        x = self.scroll_offset.x  # scroll sideways only as far as needed
        if col * cw < x:
            x = col * cw
        elif (col + 1) * cw > x + view_w:
            x = (col + 1) * cw - view_w
        self.scroll_to(max(x, 0), max(row - view_h // 2, 0), animate=False, immediate=True)
        self.refresh()

    def row_values(self, row: int, c0: int, c1: int) -> list[Any]:
        """The values of grid row `row`, columns c0..c1 (exclusive)."""
        a = self.array
        if a.ndim == 2:
            return list(a[row, c0:c1].tolist())
        if a.ndim == 1:
            start = row * PER_ROW_1D
            return list(a[start + c0:min(start + c1, a.shape[0])].tolist())
        return [a.item()]

    def cell_text(self, row: int, col: int) -> str:
        """What one cell shows (used by tests and by the status line)."""
        vals = self.row_values(row, col, col + 1)
        return self.fmt(vals[0]) if vals else ""

    # ------------------------------------------------------------ rendering
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x, scroll_y = self.scroll_offset
        cw = self.width_cell + 1
        avail = max(width - self.label_width, 0)
        c0 = scroll_x // cw
        c1 = min(self.cols, (scroll_x + avail) // cw + 1)
        crop_from = scroll_x - c0 * cw
        base = self.rich_style
        if y == 0:
            label = Segment(" " * self.label_width, base)
            cells = [Segment(str(self._label(1, c)).rjust(self.width_cell) + " ",
                             base + LABEL_STYLE) for c in range(c0, c1)]
        else:
            row = scroll_y + y - 1
            if row >= self.rows:
                return Strip.blank(width, base)
            first = row * PER_ROW_1D if self.array.ndim == 1 else row
            label = Segment(f"[{self._label(0, first)}]".rjust(self.label_width - 1) + " ",
                            base + LABEL_STYLE)
            cells = self._cells(row, c0, c1, base)
        body = Strip(cells).crop(crop_from, crop_from + avail)
        return Strip([label, *body]).adjust_cell_length(width, base)

    def _cells(self, row: int, c0: int, c1: int, base: Style) -> list[Segment]:
        out: list[Segment] = []
        is_float = self.array.dtype.kind in "fc"
        left = self.array.dtype.kind == "O"  # strings read better left-aligned
        w = self.width_cell
        for i, v in enumerate(self.row_values(row, c0, c1)):
            text = self.fmt(v)
            style = base
            if is_float and not np.isfinite(v):
                style = base + (NAN_STYLE if np.isnan(v) else INF_STYLE)
            if self.mark == (row, c0 + i):
                style = style + MARK_STYLE
            if cell_len(text) > w:
                text = _clip(text, w)
            pad = Segment(" " * (w - cell_len(text)), base)
            if left:
                out += [Segment(text, style), pad, Segment(" ", base)]
            else:
                out += [pad, Segment(text, style), Segment(" ", base)]
        return out


def _clip(text: str, width: int) -> str:
    out = ""
    for ch in text:
        if cell_len(out + ch) > width - 1:
            break
        out += ch
    return out + "…"


def kept_axes(shape: tuple[int, ...], index: tuple[Any, ...]) -> list[range] | None:
    """For `values[index]` (ints, slices, one Ellipsis), the original indices along each
    axis that remains; None for anything else (then positions are shown)."""
    items = list(index)
    if sum(1 for it in items if it is Ellipsis) > 1:
        return None
    if Ellipsis in items:
        k = items.index(Ellipsis)
        items[k:k + 1] = [slice(None)] * (len(shape) - (len(items) - 1))
    items += [slice(None)] * (len(shape) - len(items))
    if len(items) != len(shape):
        return None
    out: list[range] = []
    for it, n in zip(items, shape, strict=True):
        if isinstance(it, slice):
            out.append(range(*it.indices(n)))
        elif not isinstance(it, int | np.integer):
            return None
    return out
