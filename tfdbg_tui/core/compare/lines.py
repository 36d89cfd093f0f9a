"""Which lines of each program to show for a paired quantity, shared by `diff` and the TUI.

Why here: a loss's or an update's line is not the tensor's own (an update is compared as the
variable read at the next step, whose own line is the forward pass), and a learning rate's
or an update's schedule/optimizer is created on a line no recorded stack holds
(`creation.find_creation`). `diff` prints both programs' creating and applying lines; the
TUI's `b` must show the same ones, so both ask this module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.index.frames import Frame
from tfdbg_tui.core.compare.contract import Q_LR, Q_UPDATE, node_frames
from tfdbg_tui.core.compare.creation import Creation, find_creation
from tfdbg_tui.core.compare.pairs import DIFFERENT
from tfdbg_tui.core.compare.result import Comparison
from tfdbg_tui.core.compare.verdict import step_offset

CREATED = (Q_LR, Q_UPDATE)  # quantities made by a schedule or an optimizer object


def where_frames(c: Comparison, p: int, side: str) -> list[Frame] | None:
    """The stack holding pair `p`'s line on `side` when it is not the tensor's own (a loss:
    where the loss function is called; an update: the optimizer's update op); else None."""
    sp = c.training.sp
    if sp is None:
        return None
    got = (sp.where_a if side == "a" else sp.where_b).get(p - step_offset(c))
    if got is None:
        return None
    logdir = c.a if side == "a" else c.b
    flow, node = got
    if flow is None:  # an eager execution outside the flows (an assignment before step 0)
        try:
            return logdir.stack(logdir.read_execution(node).stack_frame_ids) or None
        except (ReaderError, IndexError, KeyError, ValueError):
            return None
    return node_frames(logdir, flow, node) or None


def own_frames(logdir: DebugLogdir, kind: int, row: int) -> list[Frame]:
    """Where the tensor at (kind, row) was created (graph trace) or run (eager output row)."""
    try:
        if kind == GRAPH:
            op = logdir.op_of_trace(row)
            return logdir.op_stack(op) if op is not None else []
        record = logdir.read_execution(int(logdir.outputs.execution[row]))
        return logdir.stack(record.stack_frame_ids)
    except (ReaderError, IndexError, KeyError, ValueError):
        return []


def created_pair(c: Comparison, side: str, kind: int, rows: np.ndarray) -> int | None:
    """The step pair of a learning rate or an update that one of `rows` (of `kind`, on
    `side`) is in — the first divergent one first — or None."""
    off = step_offset(c)
    p = c.pairs
    ids = np.arange(off, len(p))
    if not len(ids) or not len(rows):
        return None
    k = (p.kind if side == "a" else p.kind_b)[ids]
    r = (p.a_row if side == "a" else p.b_row)[ids]
    hit = ids[(k == kind) & np.isin(r, rows) & np.isin(p.quantity[ids], CREATED)]
    if not len(hit):
        return None
    return int(hit[np.argsort(p.status[hit] != DIFFERENT, kind="stable")][0])


@dataclass(frozen=True)
class SideLines:
    """One side of a schedule/optimizer quantity: the applying stack, and where the object
    was created (`creation.frame` None: unknown, `creation.why` says why)."""

    frames: list[Frame]
    creation: Creation | None


def side_lines(c: Comparison, p: int, side: str) -> SideLines:
    """Pair `p`'s applying stack and creating line on `side` (a learning rate or an update)."""
    logdir = c.a if side == "a" else c.b
    frames = where_frames(c, p, side)
    if frames is None:
        kind = int(c.pairs.kind[p] if side == "a" else c.pairs.kind_b[p])
        row = int(c.pairs.a_row[p] if side == "a" else c.pairs.b_row[p])
        frames = own_frames(logdir, kind, row)
    return SideLines(frames, find_creation(logdir, frames) if frames else None)


__all__ = ["CREATED", "EAGER", "GRAPH", "SideLines", "created_pair", "own_frames", "side_lines",
           "step_offset", "where_frames"]
