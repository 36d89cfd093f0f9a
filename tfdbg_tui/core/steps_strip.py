"""The per-step strip: each training step's NaN/∞ count (and loss, when known) in a few columns.

Shown by `report` and the TUI's header area so that the blow-up reads at a glance — clean
steps, then the step that went bad, then everything after it — without counting rows. A run
of thousands of steps shows the steps around the first bad one, the first and the last.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

AROUND = (4, 3)  # steps shown before and after the first bad one


def window(count: int, first_bad: int | None, room: int = 10) -> list[int]:
    """The steps to show (ascending; a gap between two means "…")."""
    if count <= room:
        return list(range(count))
    centre = first_bad if first_bad is not None else 0
    lo, hi = max(0, centre - AROUND[0]), min(count, centre + AROUND[1] + 1)
    shown = set(range(lo, hi)) | {0, count - 1}
    return sorted(shown)


def fmt_loss(v: float | None, state: str = "") -> str:
    """A step's loss in a strip cell: its value, NaN, ±∞, "·" for a finite loss whose value
    the mode does not record, "?" for a step whose loss was not recorded."""
    if state == "unknown":
        return "?"
    if v is None:
        return "·"
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+∞" if v > 0 else "−∞"
    return f"{v:.3g}"


def loss_cells(values: Sequence[float | None], states: Sequence[str]) -> list[str] | None:
    """The strip's loss cells (`reader.diagnosis.losses.StepLosses`), None when no step's
    loss is known (then the strip has no loss line and a note says why)."""
    if all(s == "unknown" for s in states):
        return None
    return [fmt_loss(v, s) for v, s in zip(values, states, strict=True)]


def loss_note(tensor: str, found: str, note: str) -> str:
    """The line under the strip: which tensor its losses are ("loss: Mean, the tensor
    tf.gradients differentiates") and what its marks mean, or why there is no loss line."""
    if not found:
        return f"loss: not shown — {note}" if note else "loss: not found"
    return f"loss: {tensor}, {found}" + (f" ({note})" if note else "")


def strip_lines(count: int, per_step: np.ndarray, losses: Sequence[str] | None,
                first_bad: int | None, width: int = 100) -> list[str]:
    """Two or three aligned lines: step numbers, NaN/∞ tensors per step, loss per step
    (`losses`: its cells, from `loss_cells`)."""
    if count <= 0:
        return []
    room = 10
    while True:
        steps = window(count, first_bad, room)
        cols: list[tuple[str, str, str]] = []
        prev = None
        for s in steps:
            if prev is not None and s != prev + 1:
                cols.append(("…", "…", "…"))
            loss = losses[s] if losses is not None and s < len(losses) else ""
            cols.append((str(s), f"{int(per_step[s]):,}" if s < len(per_step) else "?", loss))
            prev = s
        labels = ("step", "NaN/∞", "loss")
        lw = max(len(x) for x in labels)
        widths = [max(len(c[0]), len(c[1]), len(c[2])) for c in cols]
        total = lw + sum(w + 1 for w in widths)
        if total <= width or room <= 3:
            break
        room -= 1
    rows = range(3 if losses is not None else 2)
    out = []
    for r in rows:
        cells = [c[r].rjust(w) for c, w in zip(cols, widths, strict=True)]
        out.append(labels[r].ljust(lw) + " " + " ".join(cells))
    return out


def step_range(count: int) -> str:
    """"steps 0–39": how the steps are numbered, for a line that says how many there are."""
    return "step 0" if count == 1 else f"steps 0–{count - 1}"
