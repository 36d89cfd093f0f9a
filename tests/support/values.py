"""Shared pieces of the value tests: the FULL_TENSOR logdir real TensorFlow writes, a host app.

The `values_logdir` fixture (conftest.py) runs `tests/programs/values_program.py` once per
session; its tensors are the seeded arrays of `make_inputs()`, so tests recompute expectations
with numpy (`inputs()`, `expected_stats()`).
"""

from __future__ import annotations

import io
import sys
from typing import Any

import numpy as np
from rich.console import Console
from textual.app import App
from textual.geometry import Region
from textual.widget import Widget

from support.paths import PROGRAMS
from support.tui import sync

sys.path.insert(0, str(PROGRAMS))
from values_program import STRINGS, make_inputs

from reader import DebugLogdir, open_logdir

_INPUTS: dict[str, dict[str, np.ndarray]] = {}


def inputs() -> dict[str, np.ndarray]:
    """The arrays the program dumped (regenerated from the same seed)."""
    if "v" not in _INPUTS:
        _INPUTS["v"] = make_inputs()
    return _INPUTS["v"]


def trace_index(logdir: DebugLogdir, tensor_name: str) -> int:
    """The graph trace index of `op:slot` (the program names ops after its inputs)."""
    for i in range(len(logdir.traces)):
        if logdir.trace_name(i) == tensor_name:
            return i
    raise AssertionError(f"{tensor_name} not traced; have "
                         f"{[logdir.trace_name(i) for i in range(len(logdir.traces))]}")


def eager_index(logdir: DebugLogdir, op_type: str) -> int:
    """The first eager execution of `op_type`."""
    for i in range(len(logdir.executions)):
        if logdir.strings[int(logdir.executions.op_type[i])] == op_type:
            return i
    raise AssertionError(f"no eager {op_type}")


def expected_stats(a: np.ndarray) -> dict[str, Any]:
    """Statistics computed directly with numpy, independently of reader.values."""
    a = np.asarray(a)
    if a.dtype.kind == "f":
        fin = a[np.isfinite(a)].astype(np.float64)
        return {"min": fin.min(), "max": fin.max(), "mean": fin.mean(), "std": fin.std(),
                "n_nan": int(np.isnan(a).sum()), "n_neg_inf": int((a == -np.inf).sum()),
                "n_pos_inf": int((a == np.inf).sum()), "n_neg": int((fin < 0).sum()),
                "n_zero": int((fin == 0).sum()), "n_pos": int((fin > 0).sum()),
                "n_finite": fin.size}
    b = a.astype(np.float64)
    return {"min": b.min(), "max": b.max(), "mean": b.mean(), "std": b.std(), "n_nan": 0,
            "n_neg_inf": 0, "n_pos_inf": 0, "n_neg": int((b < 0).sum()),
            "n_zero": int((b == 0).sum()), "n_pos": int((b > 0).sum()), "n_finite": a.size}


def widget_text(widget: Widget) -> str:
    """What a widget shows, as plain text (rendered lines, no styles)."""
    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "\n".join(strip.text for strip in lines)


def renderable_text(renderable: Any, width: int = 100) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


class Host(App[None]):
    """A bare app to push the inspector on; the real app is tested separately."""

    def __init__(self, screen_factory: Any) -> None:
        super().__init__()
        self._factory = screen_factory

    def on_mount(self) -> None:
        self.push_screen(self._factory())


def open_values(path: str) -> DebugLogdir:
    return open_logdir(path)


__all__ = ["STRINGS", "Host", "eager_index", "expected_stats", "inputs", "open_values",
           "renderable_text", "sync", "trace_index", "widget_text"]
