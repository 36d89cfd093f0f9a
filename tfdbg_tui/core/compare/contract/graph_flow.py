"""Stage 1, graph forms: a training graph as a `Flow` — its ops, their inputs, the variable
each resource op touches — including the graphs a step spreads over.

A step is the update of the trained variables, and the graph that reads them is not always
the one that updates them:
- **a conditional's branch.** Keras' `gradient_accumulation_steps` adds each batch's
  gradients into accumulators and updates the variables every n-th batch, inside a
  `tf.cond` (an `If` op running a branch graph of its own). An `If` that is given the handle
  of a variable the forward pass reads, while nothing outside it updates that variable, has
  its two branches inlined: branch k's placeholders are the `If`'s inputs 1.. (cond_v2 gives
  both branches the same inputs, in their placeholders' order), so its reads and updates
  touch the outer graph's variables. Its ops are traced only when the branch runs.
- **functions that train together.** A `tf.function` computing the gradients of
  micro-batches into accumulator variables, another applying them: neither trains alone.
  Their variables are told apart by the eager handle each call was given (`handles.aliases`),
  so the two graphs are joined into one flow, in the order they were first called, when the
  joined flow has trained variables.
"""

from __future__ import annotations

import re

import numpy as np

from reader import GRAPH, DebugLogdir
from reader.index.graphs import parse_tensor_name
from tfdbg_tui.core.compare.contract.branches import IFS
from tfdbg_tui.core.compare.contract.dataflow import (
    BWD,
    FORWARD,
    FWD,
    READS,
    UPDATES,
    Flow,
    Frames,
)
from tfdbg_tui.core.compare.contract.handles import aliases
from tfdbg_tui.core.compare.contract.loops import passed_handles
from tfdbg_tui.core.compare.contract.variable_kinds import trained_handles
from tfdbg_tui.core.compare.graphs import OpTable

_VAR_SOURCES = frozenset({"VarHandleOp", "VariableV2", "Variable", "Placeholder", "_Arg"})
_PLACEHOLDERS = frozenset({"Placeholder", "_Arg"})
MAX_JOINED = 8  # functions joined into one step


def graph_flow(logdir: DebugLogdir, ops: OpTable, gid: str, frames: Frames) -> Flow:
    """Graph `gid` as a flow, with the branches of its conditionals that update a variable
    it reads (see the module docstring)."""
    flow = Flow(GRAPH, gid=gid)
    _append(flow, logdir, ops, gid, frames, {})
    _resolve_handles(flow)
    _inline_branches(flow, logdir, ops, frames)
    return flow


def _append(flow: Flow, logdir: DebugLogdir, ops: OpTable, gid: str, frames: Frames,
            alias: dict[str, tuple[int, int]]) -> None:
    """Append graph `gid`'s ops to the flow; a name in `alias` (a branch's placeholder) is
    not a node but stands for the flow's tensor it maps to."""
    graph = logdir.graphs.graphs[gid]
    ids = [i for i in ops.by_graph.get(gid, []) if ops.keys[i][1] not in alias]
    local = {ops.keys[i][1]: len(flow) + k for k, i in enumerate(ids)}
    for i in ids:
        name = ops.keys[i][1]
        op = graph.ops.get(name)
        ins: list[tuple[int, int]] = []
        if op is not None:
            for tname in op.input_names:
                parsed = parse_tensor_name(tname)
                if parsed is not None:
                    ins.append(alias.get(parsed[0]) or (local.get(parsed[0], -1), parsed[1]))
        phase = frames.phase(op.stack_frame_ids) if op is not None else FWD
        line = frames.line(op.stack_frame_ids) if op is not None else -1
        if gid != flow.gid:
            flow.node_graph[len(flow)] = gid
        flow.add(ops.types[i], name, ins, None, phase, line)
        flow.op_ids.append(i)


def _resolve_handles(flow: Flow) -> None:
    """The variable each resource op reads or writes (`graph id/source op`), and the
    variables each loop or call is given."""
    for k, t in enumerate(flow.op_type):
        if (t in READS or t in UPDATES) and flow.inputs[k]:
            src = flow.inputs[k][0][0]
            hops = 0
            while (src >= 0 and flow.op_type[src] == "Identity" and flow.inputs[src]
                   and hops < 8):
                src, hops = flow.inputs[src][0][0], hops + 1
            if src >= 0 and flow.op_type[src] in _VAR_SOURCES:
                flow.handle[k] = f"{flow.node_graph.get(src, flow.gid)}/{flow.name[src]}"
    flow.passes.clear()
    passed_handles(flow, _VAR_SOURCES)


def _inline_branches(flow: Flow, logdir: DebugLogdir, ops: OpTable, frames: Frames) -> None:
    """Inline the branches of each `If` given a variable the flow's forward pass reads and
    nothing outside the `If` updates."""
    read = {flow.handle[k] for k in range(len(flow))
            if flow.op_type[k] in READS and flow.phase[k] in FORWARD}
    updated = {flow.handle[k] for k in range(len(flow)) if flow.op_type[k] in UPDATES}
    graphs = logdir.graphs.graphs
    inlined = False
    for k in [k for k, t in enumerate(flow.op_type) if t in IFS]:
        if not (flow.passes.get(k, frozenset()) & read) - updated:
            continue
        outer = flow.node_graph.get(k, flow.gid)
        prefix = re.escape(flow.name[k].replace("/", "_"))
        for side in ("true", "false"):
            hits = [g for g in graphs.values() if g.outer_id == outer
                    and re.fullmatch(rf"{prefix}_{side}_\d+", g.name)]
            if len(hits) != 1:
                continue
            branch = hits[0]
            args = [n for n, op in branch.ops.items() if op.op_type in _PLACEHOLDERS]
            given = flow.inputs[k][1:]
            if len(args) != len(given):
                continue
            _append(flow, logdir, ops, branch.graph_id, frames,
                    dict(zip(args, given, strict=True)))
            inlined = True
    if inlined:
        _resolve_handles(flow)


def dtypes(ops: OpTable, flow: Flow) -> dict[int, int]:
    """Each node's dtype (its op's first trace; -1 unknown)."""
    return {k: ops.shape[i][0] for k, i in enumerate(flow.op_ids)}


def join_functions(logdir: DebugLogdir, ops: OpTable, alone: list[Flow], frames: Frames
                   ) -> tuple[Flow, set[str]] | None:
    """Functions that train together (see the module docstring), as one flow with its
    trained variables; None when joining them trains nothing. `alone`: the graph flows with
    updates that train nothing on their own."""
    if len(alone) < 2:
        return None
    alias = aliases(logdir)
    canon: dict[int, str] = {}  # eager handle id → the first graph key standing for it

    def key(h: str | None) -> str | None:
        tid = alias.get(h or "")
        return h if tid is None else canon.setdefault(tid, h or "")

    t = logdir.traces
    first: dict[str, int] = {}
    for f in alone:  # the order they first ran in (a graph never traced is no part)
        rows = np.flatnonzero(np.isin(ops.row_op, f.op_ids)) if len(t) else np.zeros(0)
        if len(rows):
            first[f.gid] = int(rows[0])
    flows = sorted((f for f in alone if f.gid in first), key=lambda f: first[f.gid])
    facts = []
    for f in flows:
        hs = [key(h) for h in f.handle]
        reads = {h for k, h in enumerate(hs) if f.op_type[k] in READS and f.phase[k] in FORWARD}
        writes = {h for k, h in enumerate(hs) if f.op_type[k] in UPDATES}
        facts.append((f, reads, writes, BWD in f.phase))
    keep = [f for f, _, writes, backward in facts if backward
            or any(writes & reads for g, reads, _, _ in facts if g is not f)][:MAX_JOINED]
    if len(keep) < 2:
        return None
    joined = Flow(GRAPH, gid=keep[0].gid)
    for f in keep:
        _append(joined, logdir, ops, f.gid, frames, {})
    _resolve_handles(joined)
    _inline_branches(joined, logdir, ops, frames)
    joined.handle = [key(h) for h in joined.handle]
    joined.passes = {k: frozenset(x for x in (key(h) for h in hs) if x)
                     for k, hs in joined.passes.items()}
    trained = trained_handles(joined, dtypes(ops, joined))
    return (joined, trained) if trained else None
