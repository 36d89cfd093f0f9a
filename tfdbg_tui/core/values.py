"""What the value inspector shows for one tensor, gathered off the UI thread.

Kept free of Textual so the slow part (re-reading a record that may hold 40 MB, decoding it,
computing statistics) can run in a worker thread and be tested on its own. The tensor is
named by the pair the app has at hand: (GRAPH, trace index) or (EAGER, execution index, slot).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir
from reader.index.health import sane, shape_from_vector
from reader.io.tensors import TensorValue, dtype_name
from reader.modes import (
    CONCISE_HEALTH,
    FULL_HEALTH,
    FULL_TENSOR,
    NO_TENSOR,
    SHAPE,
    VECTOR_LEN,
    mode_name,
)
from reader.values import ValueStats, compute_stats, npy_name

HISTOGRAM_BINS = 12
Progress = Callable[[int, str], None]  # (stage done, what comes next)
STAGES = 3
STRING = 7  # DataType DT_STRING

HOW_TO_RECORD = (
    "To see values, record with tensor_debug_mode=\"FULL_TENSOR\" in "
    "tf.debugging.experimental.enable_dump_debug_info(...), or run "
    "`tfdbg-tui run --mode FULL_TENSOR -- python train.py`. FULL_TENSOR dumps every "
    "tensor in full: keep the run short."
)


class InspectError(ValueError):
    """The requested tensor does not exist in this logdir (bad kind, index or slot)."""


@dataclass(frozen=True)
class Target:
    """Which tensor, with the names the inspector shows and saves under."""

    kind: int
    index: int
    slot: int
    name: str  # "op_name:slot" for graph traces, "OpType:slot" for eager outputs
    op_type: str
    mode: int
    where: str  # "graph trace #12" / "eager execution #3, output 0"

    @property
    def file_name(self) -> str:
        tag = f"trace{self.index}" if self.kind == GRAPH else f"exec{self.index}"
        return npy_name(f"{self.name}_{tag}")


@dataclass
class Loaded:
    """Everything the screen needs, computed in the worker."""

    target: Target
    value: TensorValue | None = None
    stats: ValueStats | None = None
    health: dict[str, int] = field(default_factory=dict)  # HealthBar counts
    health_size: int = 0
    shape: tuple[int, ...] | None = None  # SHAPE mode
    facts: list[tuple[str, str]] = field(default_factory=list)  # label, value lines
    message: str = ""
    layout: tuple[Callable[[Any], str], int] | None = None  # cell formatter and width


def describe(logdir: DebugLogdir, kind: int, index: int, slot: int) -> Target:
    """Resolve (kind, index, slot) to a Target, or InspectError saying what is wrong."""
    if kind == GRAPH:
        n = len(logdir.traces)
        if not 0 <= index < n:
            raise InspectError(f"graph trace #{index} does not exist ({n} traces)")
        tr = logdir.trace(index)
        return Target(kind, index, tr.slot, tr.tensor_name, tr.op_type, tr.mode,
                      f"graph trace #{index}")
    if kind == EAGER:
        n = len(logdir.executions)
        if not 0 <= index < n:
            raise InspectError(f"eager execution #{index} does not exist ({n} executions)")
        ex = logdir.execution(index)
        if logdir.output_row(index, slot) is None:
            raise InspectError(f"eager execution #{index} has {ex.n_outputs} outputs; "
                               f"there is no output {slot}")
        op_type = ex.op_type or "?"
        return Target(kind, index, slot, f"{op_type}:{slot}", op_type, ex.mode,
                      f"eager execution #{index}, output {slot}")
    raise InspectError(f"unknown tensor kind {kind!r} (expected GRAPH or EAGER)")


def _recorded(logdir: DebugLogdir, t: Target) -> TensorValue | None:
    """The trace's value or the eager output's debug tensor (re-read from disk)."""
    if t.kind == GRAPH:
        value = logdir.read_trace(t.index).value
    else:
        tensors = logdir.read_execution(t.index).debug_tensors
        value = tensors[t.slot] if t.slot < len(tensors) else None
    return value


def load(logdir: DebugLogdir, kind: int, index: int, slot: int,
         progress: Progress | None = None) -> Loaded:
    """Read and summarize one tensor. Raises InspectError or reader errors."""
    report = progress or (lambda _done, _next: None)
    t = describe(logdir, kind, index, slot)
    out = Loaded(t)
    mode = t.mode
    report(0, "reading the record")
    if mode == FULL_TENSOR:
        out.value = _recorded(logdir, t)
        report(1, "computing statistics")
        if out.value is None:
            out.message = ("TensorFlow recorded no value for this output (resource and variant "
                           "tensors have none).")
        else:
            out.stats = compute_stats(out.value, bins=HISTOGRAM_BINS)
        report(2, "laying out values")
        return out
    mode_label = mode_name(mode)
    if mode == NO_TENSOR:
        out.message = (f"No values were recorded: this run used NO_TENSOR mode, which records "
                       f"only that the tensor was computed.\n{HOW_TO_RECORD}")
        return out
    if mode == SHAPE:
        vec_tv = _recorded(logdir, t)
        if vec_tv is None:
            out.message = ("SHAPE mode recorded nothing for this tensor (only numeric and bool "
                           f"tensors are summarized).\n{HOW_TO_RECORD}")
            return out
        vec = (np.asarray(vec_tv.values, dtype=np.float64).reshape(-1)
               if vec_tv.values.dtype.kind in "fiub" else np.zeros(0))
        if len(vec) != VECTOR_LEN[SHAPE] or not sane(SHAPE, vec[None, :])[0]:
            out.message = (f"SHAPE summary is malformed ({len(vec)} numbers, or numbers no "
                           "shape can have).")
            return out
        out.shape = shape_from_vector(vec)
        rank = int(vec[2])
        out.facts = [("dtype", dtype_name(int(vec[1]))), ("rank", str(rank)),
                     ("size", f"{int(vec[3]):,}"), ("shape", str(list(out.shape)))]
        if rank > 6:
            out.facts.append(("", f"SHAPE keeps only the last 6 of {rank} dimensions"))
        out.message = f"SHAPE mode records dtype and shape only.\n{HOW_TO_RECORD}"
        return out
    h = logdir.tensor_health(t.kind, t.index, t.slot)
    if h is None:  # describe() checked the slot: only a logdir that shrank gets here
        raise InspectError(f"{t.where} has no health row")
    note = f"{mode_label} records a summary of each floating-point tensor, not its values."
    if h.bad < 0 and h.size < 0:
        out.message = (f"{mode_label} recorded nothing for this tensor: health modes summarize "
                       f"only floating-point tensors.\n{HOW_TO_RECORD}")
        return out
    if h.dtype >= 0:
        out.facts.append(("dtype", dtype_name(h.dtype)))
    if h.rank >= 0:
        out.facts.append(("rank", str(h.rank)))
    if h.size >= 0:
        out.facts.append(("size", f"{h.size:,}"))
    if mode == FULL_HEALTH:
        out.health = h.counts("neg", "zero", "pos", "neg_inf", "pos_inf", "nan")
        out.health_size = h.size
    elif mode == CONCISE_HEALTH:
        bad = h.neg_inf + h.pos_inf + h.nan
        out.health = {"finite": h.size - bad, "neg_inf": h.neg_inf,
                      "pos_inf": h.pos_inf, "nan": h.nan}
        out.health_size = h.size
        note += " CONCISE_HEALTH does not split finite values by sign."
    else:
        verdict = "has NaN or ∞" if h.bad == 1 else "has no NaN or ∞"
        out.facts.append(("NaN/∞", f"{verdict} ({mode_label} records only this flag)"))
    out.message = f"{note}\n{HOW_TO_RECORD}"
    return out
