"""Cell-width helpers on top of `tfdbg_tui.core.sanitize.literal`.

Why a separate module: `sanitize.literal` is the project's single sanitizer (shared with
`report`); this adds the TUI's needs — any value as a sanitized string (callers put it in a
Rich `Text`, which never parses markup) cut to a column width by terminal cells, not
characters.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len

from tfdbg_tui.core.sanitize import literal


def lit(value: object) -> str:
    """Any value from a logdir as a drawable string (control characters made visible)."""
    return literal(value if isinstance(value, str) else str(value))


def fit(s: str, width: int) -> str:
    """Cut an already sanitized string to `width` cells, ending in "…" when cut."""
    if width <= 0:
        return ""
    if cell_len(s) <= width:
        return s
    out = []
    used = 0
    for ch in s:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def fit_left(s: str, width: int) -> str:
    """Cut from the left ("…/end/of/path.py"): the end of a path is what identifies it."""
    if width <= 0:
        return ""
    if cell_len(s) <= width:
        return s
    out: list[str] = []
    used = 0
    for ch in reversed(s):
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "…" + "".join(reversed(out))


def fit_middle(s: str, width: int) -> str:
    """Cut out of the middle ("gradient_tape/…/Log_grad/mul:0"): an op name's scope starts
    it and its op ends it, and the end is what tells two names apart. A third of the room
    goes to the start, the rest to the end."""
    if width <= 0:
        return ""
    if cell_len(s) <= width:
        return s
    if width < 6:
        return fit(s, width)
    head_w = (width - 1) // 3
    tail_w = width - 1 - head_w
    head: list[str] = []
    used = 0
    for ch in s:
        if used + cell_len(ch) > head_w:
            break
        head.append(ch)
        used += cell_len(ch)
    tail: list[str] = []
    used = 0
    for ch in reversed(s):
        if used + cell_len(ch) > tail_w:
            break
        tail.append(ch)
        used += cell_len(ch)
    return "".join(head) + "…" + "".join(reversed(tail))


def pad(s: str, width: int) -> str:
    """Fit and left-align `s` in exactly `width` cells."""
    s = fit(s, width)
    return s + " " * max(0, width - cell_len(s))


def shorten_parts(text: str, fits: Callable[[str], bool]) -> str:
    """`text` — parts joined by " · ", the last perhaps a list joined by ", " (the Alerts
    summary: "2 incidents · 115 NaN/∞ events · … · Mul×30, MatMul×13, Sum×12") — shortened
    from its end until `fits` accepts it: the list's last items first, then whole parts,
    an "…" saying something was left out. The first part always stays. Why: a summary cut
    at its box's edge ended in "Mul×30," — a list that looks whole, or a count half shown."""
    if fits(text):
        return text
    parts = text.split(" · ")
    while len(parts) > 1:
        items = parts[-1].split(", ")
        while len(items) > 1:
            items.pop()
            shorter = " · ".join([*parts[:-1], ", ".join(items) + " …"])
            if fits(shorter):
                return shorter
        parts.pop()
        shorter = " · ".join(parts) + " …"
        if fits(shorter):
            return shorter
    return parts[0]
