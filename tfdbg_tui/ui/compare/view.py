"""Compare mode of the TUI (`tfdbg-tui A --compare B`): the column, the keys, the B side.

Run A is the app's logdir; run B is read and compared (`tfdbg_tui.core.compare`) in the
indexing worker once A is read. Then:
- Graph Executions shows, left of every row, `=` (equal), `≠` with the error (or why), or
  `· A only` (unmatched) — one numpy lookup per drawn row (`CompareView.chip`), so a pane
  of a million rows stays as fast as without a comparison;
- `d` / `D` jump to the next / previous divergent row (the first from the top) — in the
  Timeline when run A's divergent tensors are eager ops (a TF2 run compared with its TF1 one);
- `b` switches Stack Trace and Source Code to run B's side of the selected tensor (its
  aligned partner's creation stack and line) and back. On either side the lines are those
  `diff` prints for the pair the tensor is shown as (`core.compare.lines.place`): the line
  constructing a loss, schedule, optimizer or layer, with the stack applying or calling it.
A live run A is compared again after each update that brings records (in the indexing
worker, `LogdirFollower.run(after_change=…)`): rows arriving get their chip then.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
from rich.text import Text

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.diagnosis.functions import function_label
from reader.index.frames import Frame, program_frames, user_frame_index
from tfdbg_tui.core.compare import (
    DIFFERENT,
    EQUAL,
    QUANTITIES,
    REASON_NAMES,
    SKIPPED,
    UNMATCHED,
    Comparison,
    Mapping,
    Tolerance,
    compare,
)
from tfdbg_tui.core.compare.lines import CREATED, SideLines, pair_of_rows, place
from tfdbg_tui.core.compare.series import LossSeries, loss_series
from tfdbg_tui.core.textutil import lit

CHIP_WIDTH = 10
_SHORT = {"nan_or_inf_one_side": "NaN/∞", "nan_or_inf_count": "NaN/∞ n", "counts": "counts",
          "shape": "shape", "dtype": "dtype", "op_type": "op", "values": "values",
          "unreadable": "unread"}


class CompareView:
    """Per-row status of run A against run B, ready to draw."""

    def __init__(self, comparison: Comparison, series: LossSeries | None = None) -> None:
        self.c = comparison
        self.series = series  # each step's loss on both sides (the plot under the header)
        # pair → both sides' lines (`lines.place`): finding a creating line searches the
        # captured sources, done once per pair, not on every cursor rest
        self.placed: dict[int, tuple[SideLines, SideLines]] = {}
        self.status = comparison.row_status("a", GRAPH)
        self.pair = comparison.partner_pair("a", GRAPH)
        self.exec_status = _execution_status(comparison)

    def chip(self, row: int) -> Text:
        """`CHIP_WIDTH` cells telling how row `row` of Graph Executions compares."""
        t = Text(no_wrap=True, end="")
        if row >= len(self.status):
            return t.append(" " * CHIP_WIDTH)
        s = int(self.status[row])
        if s == EQUAL:
            t.append("=", "green")
        elif s == DIFFERENT:
            p = int(self.pair[row])
            err = float(self.c.pairs.max_abs[p])
            why = (f"{err:.1e}" if math.isfinite(err) and err > 0
                   else _SHORT.get(REASON_NAMES[int(self.c.pairs.reason[p])], "?"))
            t.append(f"≠ {why}", "bold #ff5f5f")
        elif s == SKIPPED:
            t.append("? unread", "yellow")
        else:
            t.append("· A only", "dim")
        t.truncate(CHIP_WIDTH - 1)
        t.append(" " * (CHIP_WIDTH - t.cell_len))
        return t

    def execution_chip(self, execution: int) -> Text:
        """`CHIP_WIDTH` cells telling how eager execution `execution` of the Timeline
        compares (its worst output: one differing output makes it ≠)."""
        t = Text(no_wrap=True, end="")
        s = int(self.exec_status[execution]) if execution < len(self.exec_status) else -1
        if s == EQUAL:
            t.append("=", "green")
        elif s == DIFFERENT:
            t.append("≠", "bold #ff5f5f")
        elif s == SKIPPED:
            t.append("? unread", "yellow")
        elif s >= 0:
            t.append("· A only", "dim")
        t.append(" " * (CHIP_WIDTH - t.cell_len))
        return t

    def compares_executions(self) -> bool:
        """Whether any eager op of run A was paired with run B (the Timeline gets marks)."""
        return bool(np.isin(self.exec_status, (EQUAL, DIFFERENT, SKIPPED)).any())

    def verdict_line(self) -> Text:
        """The verdict for the header line: which run A is compared with, and how it
        compares (it stays on screen, unlike the toast)."""
        c = self.c
        verdict = c.verdict
        style = {"equivalent": "bold green", "diverge": "bold #ff5f5f"}.get(verdict,
                                                                          "bold yellow")
        t = Text(no_wrap=True, end="")
        t.append(" │ vs B ", "dim")
        t.append(lit(os.path.basename(os.path.normpath(c.b.path)) or c.b.path))
        t.append(": ")
        t.append(lit(c.verdict_text()), style)
        if verdict == "diverge":
            t.append("  (d: first divergence, b: B's side)", "dim")
        return t

    def summary(self) -> str:
        c = self.c
        first = c.first_divergence
        where = ""
        if first is not None:
            kind, row = int(c.pairs.kind[first]), int(c.pairs.a_row[first])
            where = (f"; first at graph trace #{row}" if kind == GRAPH
                     else f"; first at eager execution #{int(c.a.outputs.execution[row])}")
        if c.verdict == "diverge":
            verdict = f"{c.verdict_text()}{where} (d: jump)"
        else:
            verdict = c.verdict_text()
        return f"compared with {lit(c.b.path)}: {verdict}"

    def next_row(self, after: int | None, delta: int) -> int | None:
        """The next (delta > 0) or previous divergent trace row from `after`."""
        rows = self.c.divergent_rows("a", GRAPH)
        first = self.c.first_divergence
        if delta > 0 and after is None and first is not None \
                and int(self.c.pairs.kind[first]) == GRAPH:
            return int(self.c.pairs.a_row[first])  # the first divergence, by step and quantity
        if delta > 0:
            return self.c.next_divergence("a", GRAPH, -1 if after is None else after)
        k = int(np.searchsorted(rows, len(self.status) if after is None else after)) - 1
        return int(rows[k]) if k >= 0 else None


    # ---------------------------------------------------------------- the Timeline (eager A)
    def divergent_executions(self) -> np.ndarray:
        """Sorted eager executions of run A with an output that differs from run B."""
        rows = self.c.divergent_rows("a", EAGER)
        return np.unique(self.c.a.outputs.execution[rows].astype(np.int64))

    def first_is_eager(self) -> bool:
        first = self.c.first_divergence
        return first is not None and int(self.c.pairs.kind[first]) == EAGER

    def next_execution(self, after: int | None, delta: int) -> int | None:
        """The next (delta > 0) or previous divergent eager execution from `after`; the first
        divergence (by step and quantity) first when nothing is selected."""
        first = self.c.first_divergence
        if delta > 0 and after is None and first is not None and self.first_is_eager():
            return int(self.c.a.outputs.execution[int(self.c.pairs.a_row[first])])
        executions = self.divergent_executions()
        if delta > 0:
            k = int(np.searchsorted(executions, -1 if after is None else after, side="right"))
            return int(executions[k]) if k < len(executions) else None
        end = int(executions[-1]) + 1 if len(executions) else 0
        k = int(np.searchsorted(executions, end if after is None else after)) - 1
        return int(executions[k]) if k >= 0 else None

    def in_timeline(self, on_timeline: bool, ge_selected: int | None) -> bool:
        """Does `d` move in the Timeline (run A's eager ops) rather than Graph Executions?
        Yes when the Timeline has the focus, when only eager rows differ, or when the first
        divergence is an eager op and Graph Executions is not on a divergent row."""
        if on_timeline:
            return True
        if not len(self.c.divergent_rows("a", GRAPH)):
            return bool(len(self.c.divergent_rows("a", EAGER)))
        on_divergent = ge_selected is not None and ge_selected < len(self.status) \
            and int(self.status[ge_selected]) == DIFFERENT
        return self.first_is_eager() and not on_divergent


_WORST = (UNMATCHED, EQUAL, SKIPPED, DIFFERENT)  # an execution shows its worst output's


def _execution_status(c: Comparison) -> np.ndarray:
    """Per eager execution of run A: the worst status of its outputs (-1: no output)."""
    out = c.row_status("a", EAGER)
    n_exec = len(c.a.executions)
    rank = np.full(n_exec, -1, np.int64)
    if len(out):
        execution = np.asarray(c.a.outputs.execution[:len(out)], np.int64)
        lut = np.zeros(max(_WORST) + 1, np.int64)
        lut[list(_WORST)] = np.arange(len(_WORST))
        ranks = lut[np.asarray(out, np.int64)]
        ok = (execution >= 0) & (execution < n_exec)
        np.maximum.at(rank, execution[ok], ranks[ok])
    worst = np.array(_WORST, np.int64)
    return np.where(rank >= 0, worst[rank.clip(0)], -1)


def compare_runs(a: DebugLogdir, b: DebugLogdir, tolerance: Tolerance | None,
                 mapping: Mapping | None = None) -> tuple[CompareView | None, str | None]:
    """Read run B and compare run A with it (in a worker thread): the view, or why not.
    `mapping`: the user's variable pairs (`--map`), obeyed as `diff --map` obeys them."""
    try:
        b.update()
        if not len(b.traces) and not len(b.outputs):
            return None, f"no tensors recorded in {b.path}"
        c = compare(a, b, tolerance, mapping=mapping)
        return CompareView(c, loss_series(c)), None  # the losses read here, off the UI
    except ReaderError as exc:
        return None, str(exc)


@dataclass(frozen=True)
class OtherSide:
    """Run B's side of a selected tensor: its stack, a title, and B's logdir."""

    frames: list[Frame]
    what: str
    logdir: DebugLogdir


def _rows(c: Comparison, kind: int, index: int) -> np.ndarray:
    """Run A's rows of graph trace `index` (kind GRAPH) or of eager execution `index`."""
    return np.array([index] if kind == GRAPH else list(c.a.output_rows(index)), np.int64)


def other_side(view: CompareView, kind: int, index: int) -> OtherSide | str:
    """B's stack for graph trace `index` (kind GRAPH) or eager execution `index` (EAGER): of
    the partner in the pair the tensor is shown as (`lines.pair_of_rows`: the first
    divergence when it is one); a sentence when the tensor has no partner in B."""
    c, b = view.c, view.c.b
    p = pair_of_rows(c, kind, _rows(c, kind, index))
    if p is None:
        return ("this tensor has no partner in run B" if kind == GRAPH
                else "this execution has no partner in run B")
    row = int(c.pairs.b_row[p])
    if int(c.pairs.kind_b[p]) == EAGER:  # an eager op (perhaps against a TF1 graph tensor)
        execution = int(b.outputs.execution[row])
        record = b.read_execution(execution)
        return OtherSide(b.stack(record.stack_frame_ids),
                         f"B: ran {function_label(record.op_type)}", b)
    op = b.op_of_trace(row)
    return OtherSide(b.op_stack(op) if op is not None else [],
                     f"B: created {b.trace_name(row)}", b)


@dataclass(frozen=True)
class PlacedLines:
    """One side's lines for a selected tensor as `diff` prints them (`lines.place`): the
    stack to show (its user line ▶: the line applying or calling what made the tensor),
    the line Source Code shows (`source`; None: the stack's own), the Stack Trace's title
    naming both, and what Source Code's line is (`why`). Strings are raw (the panes'
    status lines sanitize them)."""

    frames: list[Frame]
    source: Frame | None
    title: str
    why: str


def _at(f: Frame, beside: Frame | None = None) -> str:
    """`file:line`; just `line N` when `beside` (named just before) is in the same file: a
    title holding both lines fits Stack Trace's border at half a 160-column screen."""
    if beside is not None and beside.file == f.file:
        return f"line {f.line}"
    return f"{os.path.basename(f.file) or f.file}:{f.line}"


def placed_lines(view: CompareView, side: str, kind: int, index: int) -> PlacedLines | None:
    """The lines `diff` prints, on `side`, for the pair run A's tensor (graph trace `index`,
    or eager execution `index`) is shown as; None when they are the tensor's own stack and
    user line (or it has no partner): the panes' ordinary display then says the same."""
    c = view.c
    p = pair_of_rows(c, kind, _rows(c, kind, index))
    if p is None:
        return None
    both = view.placed.get(p)
    if both is None:
        both = view.placed[p] = place(c, p)
    s = both[0 if side == "a" else 1]
    return _placed_lines(s, int(c.pairs.quantity[p])) if s.placed else None


def _placed_lines(s: SideLines, q: int) -> PlacedLines:
    shown = program_frames(s.frames)[0]  # as Stack Trace shows it
    k = user_frame_index(shown)
    line = s.line.frame if s.line is not None else (shown[k] if k is not None else None)
    here = _at(line) if line is not None else "?"
    owner = s.created_by
    if owner is None:  # the line standing for the tensor: a loss's call, an update's op
        if q in CREATED:
            return PlacedLines(s.frames, line, f"applied at {here} (the line creating it: "
                               "not on the stack)", "")
        return PlacedLines(s.frames, line, f"{QUANTITIES[q].replace('_', ' ')} at {here}", "")
    if s.creation_unknown is not None:
        return PlacedLines(s.frames, line, f"applied at {here} (the line creating the "
                           f"{owner}: unknown)", s.creation_unknown)
    if s.applied_at is not None:  # the line moved from the applying one to the creating one
        applied = _at(s.applied_at.frame)
        short = _at(s.applied_at.frame, line)
        return PlacedLines(s.frames, line, f"{owner} created at {here}, applied at {short}",
                           f"creates the {owner}; applied at {applied} (▶ in Stack "
                           "Trace)")
    if s.created_at is None:  # created where it is applied (or no applying line at all)
        if s.applied_nowhere:
            return PlacedLines(s.frames, line, f"{owner} created at {here}",
                               f"creates the {owner}")
        return PlacedLines(s.frames, line, f"{owner} created and applied at {here}",
                           f"creates and applies the {owner}")
    created = s.created_at.frame
    short = _at(line, created) if line is not None else here
    title = f"{owner} created at {_at(created)}, applied at {short}"
    if q in CREATED:  # a schedule or an optimizer: Source Code shows where it is created
        return PlacedLines(s.frames, created, title, f"creates the {owner}; applied at "
                           f"{here} (▶ in Stack Trace)")
    return PlacedLines(s.frames, line, title, f"applies the {owner} created at {_at(created)}")
