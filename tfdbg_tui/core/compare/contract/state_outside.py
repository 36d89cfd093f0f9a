"""Stage 2, state written between steps: non-trainable values a run writes outside its
training step's own ops, step by step.

A step leaves more than its weights. Batch norm's statistics are written inside the step
(`roles.state`); other state is written by code that runs after the step's update and
before the next step reads its weights: an exponential moving average of the weights
(`ema.apply(weights)` in an eager loop, a Keras callback's `average.assign_sub(...)` after
each `fit` batch), a target network given the online weights by a function of its own every
n steps. Such a write belongs to the step whose window it falls in: from the step's first
read of its trained variables to the next step's (wall time, which graph traces and eager
executions share), so what runs between two steps is the earlier one's.

A variable is such state when it is not trained, not state a step's own ops write already,
every write to it is forward code (not the optimizer's, not a metric's) of a float value,
none falls between an eager step's backward pass and its last update (where an optimizer
written by hand keeps its moments), at least one falls after the first step began (an
initial value assigned before is no step's), and the optimizer never reads it (a learning
rate set between steps by a callback is the rate's, not state). Variables are known by
their eager handle: a function's resource placeholder is traced back to it
(`handles.aliases`). What the pairing compares of it, per step: the value the step first
reads (what the steps before left) and, for the last step, which no later step reads, the
value it writes — assigned whole, or the amount added or subtracted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.core.compare.contract.dataflow import (
    ASSIGNS,
    BWD,
    FWD,
    OPT,
    READS,
    Flow,
    Frames,
    value_input,
)
from tfdbg_tui.core.compare.contract.graph_flow import graph_flow
from tfdbg_tui.core.compare.contract.handles import aliases
from tfdbg_tui.core.compare.contract.loops import feeding
from tfdbg_tui.core.compare.contract.tensors import FLOATS, Sig
from tfdbg_tui.core.compare.graphs import OpTable

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.model import RunModel

Row = tuple[int, int]  # (kind, row)

MAX_GRAPHS = 64  # graphs other than the steps' that are looked at for writes

HOW = {"AssignVariableOp": "set", "Assign": "set", "AssignSubVariableOp": "sub",
       "AssignSub": "sub", "AssignAddVariableOp": "add", "AssignAdd": "add"}


@dataclass(frozen=True)
class Write:
    """One write: when, the value assigned (or added, subtracted: `how`) if recorded, and
    the node whose stack holds its line (`(None, i)`: eager execution i)."""

    time: float
    value: Row | None
    how: str
    where: tuple[Flow | None, int]


@dataclass
class OutsideState:
    """A variable written between steps (see the module docstring), per step."""

    key: str  # its eager handle, `id:N`
    sig: Sig
    reads: dict[int, Row] = field(default_factory=dict)  # as step k first reads it
    writes: dict[int, Write] = field(default_factory=dict)  # step k's last write


def step_starts(logdir: DebugLogdir, model: RunModel) -> list[float] | None:
    """Per step, the wall time its forward pass begins: its first recorded tensor that the
    loss is computed from (a target network evaluated before the online one counts), or its
    first read of a trained variable where no loss was found; None when a step recorded
    neither."""
    out: list[float] = []
    memo: dict[int, list[int]] = {}
    for flow, local, roles in model.steps:
        tensors = [*roles.read.values()]
        if roles.loss is not None:
            key = id(roles)
            if key not in memo:
                memo[key] = _values_of(flow, roles.loss[0])
            tensors += [(n, 0) for n in memo[key]]
        rows = [int(flow.rows[local, n, s]) for n, s in tensors if 0 <= s < flow.rows.shape[2]]
        times = [_time(logdir, (flow.kind, r)) for r in rows if r >= 0]
        if not times:
            return None
        out.append(min(times))
    return out


def _values_of(flow: Flow, node: int) -> list[int]:
    """The nodes `node` is computed from, less the ops making variables' handles (an eager
    `VarHandleOp` runs where the variable is created, before restores and other work: a
    read's value is the variable's, not its handle's)."""
    mask = feeding(flow, node)
    return [k for k in np.flatnonzero(mask).tolist() if flow.op_type[k] not in _HANDLES]


_HANDLES = frozenset({"VarHandleOp", "VariableV2", "Variable", "Placeholder", "_Arg"})


def _time(logdir: DebugLogdir, row: Row) -> float:
    kind, r = row
    if kind == GRAPH:
        return float(logdir.traces.wall_time[r])
    return float(logdir.executions.wall_time[int(logdir.outputs.execution[r])])


def outside_state(logdir: DebugLogdir, ops: OpTable, model: RunModel, whole: Flow | None,
                  starts: list[float] | None) -> list[OutsideState]:
    """The run's state written between steps (see the module docstring); `whole` is the
    eager executions as one flow (node i = execution i), when they were read; `starts` the
    steps' `step_starts`."""
    if not starts:
        return []
    alias = aliases(logdir)

    def eager_key(h: str | None) -> str | None:
        if h is None:
            return None
        if h.startswith("id:"):
            return h
        tid = alias.get(h)
        return None if tid is None else f"id:{tid}"

    flows = list({id(f): f for f, _, _ in model.steps}.values())
    known = {eager_key(h) for h in model.training.trained}
    for f in flows:
        known |= {eager_key(h) for h in f.state}
    writes: dict[str, list[Write]] = {}
    reads: dict[str, list[tuple[float, Row]]] = {}
    refused: set[str] = set()  # written or read as no state is
    dtype: dict[str, int] = {}
    if whole is not None:
        _eager_events(logdir, whole, model, starts, writes, reads, refused, dtype)
    step_gids = {f.gid for f in flows if f.kind == GRAPH}
    _graph_events(logdir, ops, step_gids, eager_key, writes, reads, refused, dtype)
    for f in flows:  # what the steps' own graphs read of it
        if f.kind != GRAPH:
            continue
        for n in range(len(f)):
            key = eager_key(f.handle[n]) if f.op_type[n] in READS else None
            if key is None:
                continue
            if f.phase[n] == OPT:
                refused.add(key)
            for s in range(len(f.steps)):
                r = int(f.rows[s, n, 0])
                if r >= 0:
                    reads.setdefault(key, []).append((float(logdir.traces.wall_time[r]),
                                                      (GRAPH, r)))
    known -= _written_after(logdir, model, starts, writes)
    out = []
    for key, ws in writes.items():
        if key in known or key in refused or dtype.get(key, -1) not in FLOATS:
            continue
        if not any(w.time >= starts[0] for w in ws):
            continue
        state = OutsideState(key, (-1, -1, -1))
        window = np.searchsorted(np.asarray(starts), [w.time for w in ws], side="right") - 1
        for w, k in zip(ws, window.tolist(), strict=True):
            if k >= 0 and (k not in state.writes or w.time >= state.writes[k].time):
                state.writes[k] = w
        for t, row in sorted(reads.get(key, []), key=lambda x: x[0]):
            k = int(np.searchsorted(np.asarray(starts), t, side="right")) - 1
            first_write = min((w.time for w in ws if w.time >= starts[max(k, 0)]
                               and (k + 1 >= len(starts) or w.time < starts[k + 1])),
                              default=np.inf)
            if k >= 0 and k not in state.reads and t < first_write:
                state.reads[k] = row
        state.sig = _sig(logdir, [*state.reads.values(),
                                  *(w.value for w in ws if w.how == "set" and w.value)])
        out.append(state)
    return out


def _written_after(logdir: DebugLogdir, model: RunModel, starts: list[float],
                   writes: dict[str, list[Write]]) -> set[str]:
    """An eager step's state written only outside its forward passes (after the update: an
    average kept by hand, a target network's copy assigned in the loop). An eager step ends
    with its last update, so what runs after it opens the next step's flow, where its reads
    would be taken for the next step's: such state is judged by its writes' windows here."""
    forward = []  # per eager step: (when its forward pass begins, its first backward op)
    out = set()
    for k, (f, _, _) in enumerate(model.steps):
        if f.kind != EAGER or not f.index or k >= len(starts):
            continue
        bwd = [f.index[n] for n in range(len(f)) if f.phase[n] == BWD]
        end = min(bwd) if bwd else f.index[-1]
        forward.append((starts[k], float(logdir.executions.wall_time[end])))
        out |= f.state
    return {h for h in out
            if h in writes and not any(a <= w.time < b for w in writes[h] for a, b in forward)}


def _eager_events(logdir: DebugLogdir, whole: Flow, model: RunModel, starts: list[float],
                  writes: dict[str, list[Write]], reads: dict[str, list[tuple[float, Row]]],
                  refused: set[str], dtype: dict[str, int]) -> None:
    """Eager writes and reads of variables; a variable written between an eager step's
    backward pass and its last update is an optimizer's (`refused`)."""
    e = logdir.executions
    wall = np.asarray(e.wall_time)
    first = np.asarray(e.first_output, np.int64)
    n_out = np.asarray(e.n_outputs, np.int64)
    out_dtype = np.asarray(logdir.outputs.dtype)
    busy = []  # (first backward, last node) of each eager step: where an optimizer writes
    for f, _, _ in model.steps:
        if f.kind == EAGER and f.index:
            bwd = [f.index[n] for n in range(len(f)) if f.phase[n] == BWD]
            if bwd:
                busy.append((min(bwd), f.index[-1]))
    for i in range(min(len(whole), len(wall))):
        key, t = whole.handle[i], whole.op_type[i]
        if key is None:
            continue
        if t in READS:
            if whole.phase[i] == OPT:
                refused.add(key)
            elif n_out[i] > 0:
                reads.setdefault(key, []).append((float(wall[i]), (EAGER, int(first[i]))))
                dtype.setdefault(key, int(out_dtype[first[i]]))
            continue
        if t not in ASSIGNS:
            continue
        if whole.phase[i] != FWD or any(a <= i <= b for a, b in busy):
            refused.add(key)
            continue
        v = value_input(t)
        value: Row | None = None
        if len(whole.inputs[i]) > v:
            j, slot = whole.inputs[i][v]
            if j >= 0 and slot < n_out[j]:
                value = (EAGER, int(first[j]) + slot)
                dtype[key] = int(out_dtype[first[j] + slot])
        writes.setdefault(key, []).append(Write(float(wall[i]), value, HOW[t], (None, i)))


def _graph_events(logdir: DebugLogdir, ops: OpTable, step_gids: set[str],
                  eager_key: Callable[[str | None], str | None],
                  writes: dict[str, list[Write]],
                  reads: dict[str, list[tuple[float, Row]]], refused: set[str],
                  dtype: dict[str, int]) -> None:
    """Writes by graphs other than the steps' (a function syncing a target network, one
    applying a moving average): each traced value assigned, at its trace's wall time; and
    their reads of the variables they write (an average's own value before its update)."""
    types = set(ASSIGNS)
    frames = Frames(logdir)
    found: list[tuple[str, int, int, str, Flow, int]] = []  # key, op, slot, how, flow, node
    read_ops: dict[int, str] = {}  # op → the variable it reads
    looked = 0
    for gid, graph in logdir.graphs.graphs.items():
        if gid in step_gids or graph.outer_id in step_gids:
            continue
        if not any(ops.types[i] in types for i in ops.by_graph.get(gid, [])):
            continue
        looked += 1
        if looked > MAX_GRAPHS:
            break
        flow = graph_flow(logdir, ops, gid, frames)
        for n, t in enumerate(flow.op_type):
            if t in READS and (key := eager_key(flow.handle[n])) is not None:
                read_ops[flow.op_ids[n]] = key
            key = eager_key(flow.handle[n]) if t in types else None
            if key is None:
                continue
            if flow.phase[n] != FWD:
                refused.add(key)
                continue
            v = value_input(t)
            if len(flow.inputs[n]) > v and flow.inputs[n][v][0] >= 0:
                j, slot = flow.inputs[n][v]
                found.append((key, flow.op_ids[j], slot, HOW[t], flow, n))
    if not found or not len(logdir.traces):
        return
    written = {f[0] for f in found}
    read_ops = {op: key for op, key in read_ops.items() if key in written}
    ops_wanted = np.array(sorted({f[1] for f in found} | set(read_ops)), np.int64)
    rows = np.flatnonzero(np.isin(ops.row_op, ops_wanted))  # one pass over the traces
    row_op = ops.row_op[rows]
    row_slot = np.asarray(logdir.traces.slot)[rows]
    wall = np.asarray(logdir.traces.wall_time)
    for key, op, slot, how, flow, n in found:
        if ops.shape[op][0] >= 0:
            dtype[key] = int(ops.shape[op][0])
        for r in rows[(row_op == op) & (row_slot == slot)].tolist():
            writes.setdefault(key, []).append(Write(float(wall[r]), (GRAPH, r), how, (flow, n)))
    for op, key in read_ops.items():
        for r in rows[(row_op == op) & (row_slot == 0)].tolist():
            reads.setdefault(key, []).append((float(wall[r]), (GRAPH, r)))


def _sig(logdir: DebugLogdir, rows: list[Row]) -> Sig:
    """(dtype, rank, size) of the first of `rows` (as `model._sig_table` reads them)."""
    for kind, r in rows:
        table = logdir.traces if kind == GRAPH else logdir.outputs
        one = np.array([r], np.int64)
        cols = table.health_columns(one) if hasattr(table, "health_columns") else {
            c: np.asarray(getattr(table, c))[one] for c in ("dtype", "rank", "size")}
        return (int(cols["dtype"][0]), int(cols["rank"][0]), int(cols["size"][0]))
    return (-1, -1, -1)


def inside_writes(logdir: DebugLogdir, model: RunModel) -> list[dict[str, Write]]:
    """Per step, the write each statistic the step's own ops update (`roles.state_update`)
    made in the step's window (a TF1 graph's assignment run by a `Session.run` of its own
    after some steps only is no write of the others), where its value was recorded."""
    out: list[dict[str, Write]] = []
    starts = model.starts or []
    for k, (flow, _, roles) in enumerate(model.steps):
        got: dict[str, Write] = {}
        for h, node in roles.state_update.items():
            t = flow.op_type[node]
            v = value_input(t)
            if t not in HOW or len(flow.inputs[node]) <= v:
                continue
            row = model.row(k, flow.inputs[node][v])
            if row is None or k >= len(starts):
                continue
            when = _time(logdir, row)
            if when >= starts[k] and (k + 1 >= len(starts) or when < starts[k + 1]):
                got[h] = Write(when, row, HOW[t], (flow, node))
        out.append(got)
    return out
