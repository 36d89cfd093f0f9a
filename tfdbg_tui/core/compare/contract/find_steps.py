"""Stage 1: A run's training steps, in whichever form it took (see `dataflow` for the model).

Graph forms (a TF1 `Session.run`, a `tf.function` step, Keras `fit`) come from the graphs
holding training updates; the eager form from the execution records (`eager_steps`); a run may
hold both (steps are numbered in order). Variables a function reads through placeholders get
their initial values from the eager assignments that created them (`handles`).
"""

from __future__ import annotations

import numpy as np

from reader import GRAPH, DebugLogdir
from tfdbg_tui.core.compare.contract.branches import resolve_conditionals
from tfdbg_tui.core.compare.contract.dataflow import Flow, Frames, Training
from tfdbg_tui.core.compare.contract.eager_steps import eager_training
from tfdbg_tui.core.compare.contract.graph_steps import graph_steps, graph_training
from tfdbg_tui.core.compare.contract.handles import eager_init
from tfdbg_tui.core.compare.contract.loops import resolve_loops
from tfdbg_tui.core.compare.graphs import OpTable


def find_training(logdir: DebugLogdir, ops: OpTable) -> Training:
    """The run's training steps in whichever form it took (see the module docstring)."""
    frames = Frames(logdir)
    notes: list[str] = []
    graph_flows = graph_training(logdir, ops, frames)
    flows: list[Flow] = []
    trained: set[str] = set()
    step_of_trace = np.full(len(logdir.traces), -1, np.int64)
    spans = []  # (first end row, flow, ends, rows) per training graph
    for flow, handles in graph_flows:
        gid = _gid_of(logdir, flow, handles)
        ends, rows, first = graph_steps(logdir, ops, gid, flow, handles)
        if not len(ends):
            continue
        flow.rows = rows
        resolve_conditionals(logdir, ops, flow)  # what a tf.cond / tf.case chose
        resolve_loops(logdir, ops, flow)  # what a recurrent layer's loops returned
        for k, t in enumerate(flow.op_type):  # initial values assigned in the graph
            h = flow.handle[k]
            if t == "AssignVariableOp" and (h in handles or h in flow.state) \
                    and len(flow.inputs[k]) > 1:
                flow.assigned[h] = (GRAPH, k)
                j = _traced_source(flow, flow.inputs[k][1][0], first)
                if j >= 0:
                    flow.init[h] = (GRAPH, int(first[j]))
        spans.append((int(ends[0]), flow, ends))
        trained |= handles
    spans.sort(key=lambda x: x[0])
    n = 0
    for _, flow, ends in spans:  # retraced functions: their steps follow one another
        flow.steps = list(range(n, n + len(ends)))
        rows = flow.rows
        valid = rows >= 0
        step_of_trace[rows[valid]] = np.nonzero(valid)[0] + n
        n += len(ends)
        flows.append(flow)
    if flows:
        eager_init(logdir, flows, trained)
    whole: list[Flow] = []
    eager_flows, eager_trained, step_of_exec = eager_training(logdir, frames, notes, whole)
    if eager_flows:
        offset = n
        for f in eager_flows:
            f.steps = [s + offset for s in f.steps]
        if step_of_exec is not None:
            step_of_exec = np.where(step_of_exec >= 0, step_of_exec + offset, -1)
        flows += eager_flows
        trained |= eager_trained
        n += len(eager_flows)
    for f in flows:
        f.library_lines = frames.library
    if any(f.truncated for f in flows):
        notes.append(f"only the first {n} training steps were modelled (compared by what "
                     "each tensor is); later ones pair op by op")
    return Training(flows, n, trained, notes, step_of_trace, step_of_exec,
                    whole[0] if whole else None)


def _gid_of(logdir: DebugLogdir, flow: Flow, handles: set[str]) -> str:
    """The graph id a graph flow was built from (handles are `graph id/op name`)."""
    h = next(iter(handles))
    for gid in logdir.graphs.graphs:
        if h.startswith(gid + "/"):
            return gid
    return ""


def _traced_source(flow: Flow, k: int, first: np.ndarray) -> int:
    """Node k, or the first traced node up its chain of single-input ops (Identity, Cast)."""
    hops = 0
    while k >= 0 and first[k] < 0 and flow.inputs[k] and hops < 8:
        k, hops = flow.inputs[k][0][0], hops + 1
    return k if k >= 0 and first[k] >= 0 else -1
