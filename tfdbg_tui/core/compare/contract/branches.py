"""Stage 1, conditionals: what a functional `If` returned at each step of a graph flow.

tfdbg never records the outputs of `If`/`StatelessIf` (nor of `Identity`), so a value chosen by
`tf.cond` or `tf.case` — TF1's `piecewise_constant` learning rate, which the optimizer's apply
op consumes — reaches the update without a recorded value, and the step's learning rate would
go uncompared. What an `If` returned is what the branch it ran returned, and both are
recorded: the predicate's value (a traced boolean) says which branch ran; the branch is a
function graph of its own, whose result is its one output nothing in it consumes: an op it
computed (traced in the branch graph during the step), a nested `If`, or one of its arguments
returned unchanged. An argument is a placeholder named after the tensor the branch captured,
the instrumented tensor's id ending its name (`tfdbg_identity_<id>`,
`<op>/DebugIdentityV2_<id>`), which is the captured op's recorded `output_tensor_ids` — so the
value is that op's trace in the step.

The `If`'s row at a step is then the row of the tensor it returned: the step's learning rate
is compared wherever a conditional chose it. Anything not resolved that way (a branch with
several results, a predicate without a recorded value, a capture without its id) stays
unrecorded, as before.
"""

from __future__ import annotations

import re

import numpy as np

from reader import DebugLogdir, ReaderError
from reader.index.graphs import Graph, Op, parse_tensor_name
from reader.modes import FULL_TENSOR
from tfdbg_tui.core.compare.contract.dataflow import UPDATES, Flow
from tfdbg_tui.core.compare.graphs import OpTable

IFS = frozenset({"If", "StatelessIf"})
_PASS = frozenset({"Identity", "Snapshot"})  # never traced: their value is their input's
_CAPTURE = re.compile(r"(?:^|/)(?:tfdbg_identity|DebugIdentityV2)_(\d{1,19})$")  # an id: int64
_DEPTH = 8  # nested conditionals followed (tf.case of n pairs nests n conds)

Where = tuple[str, str, int]  # (graph id, op name, output slot)


class _Resolver:
    """Rows of the tensors conditionals returned, one step at a time (see the module
    docstring); built only for a flow that has an untraced `If` feeding its updates."""

    def __init__(self, logdir: DebugLogdir, ops: OpTable, flow: Flow) -> None:
        self.logdir, self.ops, self.flow = logdir, ops, flow
        self.graphs: dict[str, Graph] = logdir.graphs.graphs
        self.local = {(flow.node_graph.get(k, flow.gid), name): k
                      for k, name in enumerate(flow.name)}
        self.by_id: dict[int, Where] = {}
        for gid, graph in self.graphs.items():
            for op in graph.ops.values():
                for slot, tid in enumerate(op.output_tensor_ids):
                    self.by_id.setdefault(int(tid), (gid, op.op_name, slot))
        self._rows: dict[int, np.ndarray] = {}

    def root(self, gid: str, tensor: str) -> Where | None:
        """The tensor a name in graph `gid` stands for: a captured argument's source."""
        parsed = parse_tensor_name(tensor)
        if parsed is None:
            return None
        name, slot = parsed
        m = _CAPTURE.search(name)
        graph = self.graphs.get(gid)
        op = graph.ops.get(name) if graph is not None else None
        if m and (op is None or op.op_type in ("Placeholder", "_Arg")):
            return self.by_id.get(int(m.group(1)))
        return (gid, name, slot) if op is not None else None

    def row(self, where: Where, step: int, span: tuple[int, int], depth: int = 0) -> int:
        """The trace row holding tensor `where`'s value at `step` (-1: not found)."""
        gid, name, slot = where
        graph = self.graphs.get(gid)
        op = graph.ops.get(name) if graph is not None else None
        if op is None or depth > _DEPTH:
            return -1
        if op.op_type in IFS and slot == 0:
            return self._returned(gid, op, step, span, depth + 1)
        if op.op_type in _PASS and op.input_names:
            up = self.root(gid, op.input_names[0])
            return self.row(up, step, span, depth + 1) if up is not None else -1
        k = self.local.get((gid, name))
        if k is not None:
            rows = self.flow.rows
            if slot < rows.shape[2] and rows[step, k, slot] >= 0:
                return int(rows[step, k, slot])
        i = self.ops.index.get((gid, name))
        if i is None:
            return -1
        if i not in self._rows:
            self._rows[i] = np.flatnonzero(self.ops.row_op == i)
        rows_i = self._rows[i]
        slots = np.asarray(self.logdir.traces.slot)[rows_i]
        inside = rows_i[(slots == slot) & (rows_i >= span[0]) & (rows_i <= span[1])]
        return int(inside[-1]) if len(inside) else -1

    def _returned(self, gid: str, op: Op, step: int, span: tuple[int, int], depth: int
                  ) -> int:
        """The row of what `If` op `op` (in graph `gid`) returned at `step`."""
        pred = self.root(gid, op.input_names[0]) if op.input_names else None
        truth = self._truth(self.row(pred, step, span, depth)) if pred is not None else None
        if truth is None:
            return -1
        prefix = f"{op.op_name.replace('/', '_')}_{'true' if truth else 'false'}_"
        branches = [g for g in self.graphs.values() if g.outer_id == gid
                    and g.name.startswith(prefix) and g.name[len(prefix):].isdigit()]
        if len(branches) != 1:
            return -1
        branch = branches[0]
        consumed = set()
        for o in branch.ops.values():
            for t in o.input_names:
                parsed = parse_tensor_name(t)
                if parsed is not None:
                    consumed.add(parsed[0])
        # its result: the one output nothing in it consumes, other than ops without outputs
        # (its control dependencies: NoOp, Assert) and the placeholders standing for the
        # other branch's captures (no captured tensor behind them)
        results = [o for o in branch.ops.values() if o.op_name not in consumed
                   and o.num_outputs > 0
                   and not (o.op_type in ("Placeholder", "_Arg")
                            and not _CAPTURE.search(o.op_name))]
        if len(results) != 1:
            return -1
        where = self.root(branch.graph_id, results[0].op_name)
        return self.row(where, step, span, depth) if where is not None else -1

    def _truth(self, row: int) -> bool | None:
        """A predicate's recorded value: its FULL_TENSOR value, or its health counts (any
        non-zero element is True); None when unknown."""
        if row < 0:
            return None
        t = self.logdir.traces
        if int(t.mode[row]) == FULL_TENSOR:
            try:
                value = self.logdir.read_trace(row).value
            except ReaderError:
                return None
            if value is None or value.size != 1:
                return None
            return bool(np.asarray(value.values).ravel()[0])
        neg, zero, pos = int(t.neg[row]), int(t.zero[row]), int(t.pos[row])
        if min(neg, zero, pos) < 0 or neg + zero + pos != 1:
            return None
        return zero == 0


def resolve_conditionals(logdir: DebugLogdir, ops: OpTable, flow: Flow) -> None:
    """Give each untraced `If` feeding the flow's updates, at each step, the row of the
    tensor its branch returned (see the module docstring)."""
    wanted = _feeding_updates(flow)
    if not wanted or not flow.rows.size:
        return
    graphs = logdir.graphs.graphs
    resolver = _Resolver(logdir, ops, flow)
    for s in range(flow.rows.shape[0]):
        valid = flow.rows[s][flow.rows[s] >= 0]
        if not len(valid):
            continue
        span = (int(valid.min()), int(valid.max()))
        for k in wanted:
            gid = flow.node_graph.get(k, flow.gid)
            op = graphs[gid].ops.get(flow.name[k]) if gid in graphs else None
            if op is not None:
                r = resolver._returned(gid, op, s, span, 0)
                if r >= 0:
                    flow.rows[s, k, 0] = r


def _feeding_updates(flow: Flow) -> list[int]:
    """The untraced `If` nodes whose value an update consumes (through its data inputs)."""
    todo = [k for k, t in enumerate(flow.op_type) if t in UPDATES]
    seen: set[int] = set()
    found = []
    while todo:
        k = todo.pop()
        if k < 0 or k in seen:
            continue
        seen.add(k)
        if flow.op_type[k] in IFS and not (flow.rows[:, k, 0] >= 0).any():
            found.append(k)
        todo.extend(j for j, _ in flow.inputs[k])
    return sorted(found)
