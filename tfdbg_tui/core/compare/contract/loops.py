"""Stage 1, loops and calls: what a functional `While` (a Keras RNN, GRU or LSTM inside a
`tf.function` or `fit`) or a function call consumes and returns, in the step's dataflow.

A recurrent layer traced into a function graph runs as a `While` op whose body is a graph of
its own: the cell's ops are traced once per iteration under the body graph's id, the loop
takes the cell's variables as resource inputs (their reads happen only inside the body) and
its backward pass is a second `While` whose outputs carry the variables' gradients. Seen from
the step's graph, the loss then depends on no read of the cell's variables, and the updates
consume gradients nothing in that graph computed. Two facts restore the step:

- **What a loop or call consumes.** An op running another graph (`While`, `If`, a
  `PartitionedCall`) that is given a variable's handle reads that variable: every output of
  it depends on the variable (`Flow.passes`, filled here; `roles` adds them to what each
  tensor depends on, `variable_kinds.trained_handles` counts the forward ones as reads).
- **What a loop returned.** tfdbg records neither a `While`'s outputs nor the `Identity`
  after it; output k of a loop is output k of its body at the last iteration, and the body's
  loop-variable outputs are its `Identity` ops nothing in it consumes, in the order they
  were made (while_v2 returns the loop variables first, the captured inputs after). So the
  row of loop output k at step s is the row of what the body's k-th output is computed from,
  traced last within the step (`resolve_loops`): a GRU's kernel gradient is the
  accumulator's sum at the backward loop's last iteration.

A body is named after its loop (`<loop op name with _>_body_<n>`), a backward loop's body
after the forward body it differentiates (`<forward body>_grad_<n>`); a loop whose body is
not found that way, or is ambiguous, keeps its outputs unrecorded, as before.
"""

from __future__ import annotations

import re

import numpy as np

from reader import DebugLogdir
from reader.index.graphs import Graph, parse_tensor_name
from tfdbg_tui.core.compare.contract.branches import _Resolver
from tfdbg_tui.core.compare.contract.dataflow import FORWARD, Flow
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY
from tfdbg_tui.core.compare.graphs import OpTable

LOOPS = frozenset({"While", "StatelessWhile"})

# ops running another graph, given their inputs: what they return depends on every input
CALLS = LOOPS | frozenset({"If", "StatelessIf", "PartitionedCall", "StatefulPartitionedCall",
                           "Case", "StatelessCase"})

MAX_LOOPS = 64  # loops resolved per flow


def passed_handles(flow: Flow, var_sources: frozenset[str]) -> None:
    """Fill `flow.passes`: for each loop or call node, the variables whose handles it is
    given (a variable source — a `VarHandleOp`, a function's resource placeholder — up a
    chain of `Identity` ops)."""
    for k, t in enumerate(flow.op_type):
        if t not in CALLS:
            continue
        found = set()
        for src, _ in flow.inputs[k]:
            hops = 0
            while (src >= 0 and flow.op_type[src] == "Identity" and flow.inputs[src]
                   and hops < 8):
                src, hops = flow.inputs[src][0][0], hops + 1
            if src >= 0 and flow.op_type[src] in var_sources:
                found.add(f"{flow.node_graph.get(src, flow.gid)}/{flow.name[src]}")
        if found:
            flow.passes[k] = frozenset(found)


def _bodies(logdir: DebugLogdir, flow: Flow) -> dict[int, Graph]:
    """The body graph of each loop node of a graph flow (see the module docstring)."""
    graphs = logdir.graphs.graphs
    inner = [g for g in graphs.values() if g.outer_id == flow.gid and "_body_" in g.name]
    by_name: dict[str, list[Graph]] = {}
    for g in inner:
        by_name.setdefault(g.name, []).append(g)
    out: dict[int, Graph] = {}
    loops = [k for k, t in enumerate(flow.op_type) if t in LOOPS][:MAX_LOOPS]
    for k in loops:  # forward loops: named after the loop op
        pattern = re.compile(re.escape(flow.name[k].replace("/", "_")) + r"_body_\d+")
        hits = [g for g in inner if pattern.fullmatch(g.name)]
        if len(hits) == 1:
            out[k] = hits[0]
    for k in loops:  # backward loops: named after the body of a loop they take outputs of
        if k in out:
            continue
        fed_by = {j for j, _ in flow.inputs[k] if j in out}
        hits = [g for j in fed_by for g in inner
                if re.fullmatch(re.escape(out[j].name) + r"_grad_\d+", g.name)]
        if len(hits) == 1:
            out[k] = hits[0]
    return out


def _outputs(body: Graph) -> list[str]:
    """The body's loop-variable outputs, in order: its `Identity` ops nothing in it
    consumes, in the order they were made."""
    consumed = set()
    for o in body.ops.values():
        for t in o.input_names:
            parsed = parse_tensor_name(t)
            if parsed is not None:
                consumed.add(parsed[0])
    return [o.op_name for o in body.ops.values()
            if o.op_type == "Identity" and o.op_name not in consumed]


def resolve_loops(logdir: DebugLogdir, ops: OpTable, flow: Flow) -> None:
    """Give each loop output the flow consumes, at each step, the row of what the body
    returned for it at its last iteration in the step: on the loop node's slot where the
    row table has it, and on the untraced `Identity` consuming it."""
    if not flow.rows.size or not any(t in LOOPS for t in flow.op_type):
        return
    bodies = _bodies(logdir, flow)
    if not bodies:
        return
    wanted: dict[tuple[int, int], list[int]] = {}  # (loop, slot) -> Identity consumers
    for c, ins in enumerate(flow.inputs):
        for j, slot in ins:
            if j in bodies:
                ids = wanted.setdefault((j, slot), [])
                if flow.op_type[c] == "Identity" and len(ins) == 1:
                    ids.append(c)
    resolver = _Resolver(logdir, ops, flow)
    outputs = {k: _outputs(body) for k, body in bodies.items()}
    width = flow.rows.shape[2]
    for s in range(flow.rows.shape[0]):
        valid = flow.rows[s][flow.rows[s] >= 0]
        if not len(valid):
            continue
        span = (int(valid.min()), int(valid.max()))
        for (k, slot), consumers in wanted.items():
            names = outputs[k]
            if slot >= len(names):
                continue
            r = resolver.row((bodies[k].graph_id, names[slot], 0), s, span)
            if r < 0:
                continue
            if slot < width and flow.rows[s, k, slot] < 0:
                flow.rows[s, k, slot] = r
            for c in consumers:
                if flow.rows[s, c, 0] < 0:
                    flow.rows[s, c, 0] = r



def loop_results(flow: Flow, deps: list[frozenset[str]], consumers: list[list[int]]
                 ) -> set[int]:
    """Forward nodes computed from a forward loop's outputs that depend on the same
    variables as the loop: what leaves a recurrent layer toward the next one (the stacked
    sequence, its last step), its output though no layer-like op made it."""
    out: set[int] = set()
    todo = [k for k in flow.passes if flow.op_type[k] in LOOPS and flow.phase[k] in FORWARD]
    while todo:
        k = todo.pop()
        for c in consumers[k]:
            if (c in out or flow.phase[c] not in FORWARD or flow.op_type[c] in SHAPE_ONLY
                    or deps[c] != deps[k]):
                continue
            out.add(c)
            todo.append(c)
    return out


def feeding(flow: Flow, node: int) -> np.ndarray:
    """The nodes `node`'s value is computed from (not through a shape: a recurrent layer's
    cell run once outside its loop only to learn its output's shape feeds nothing). In a
    graph every edge is recorded, so a forward tensor outside this set is no part of the
    step's loss."""
    mask = np.zeros(len(flow), bool)
    todo = [node]
    while todo:
        k = todo.pop()
        if k < 0 or mask[k]:
            continue
        mask[k] = True
        if flow.op_type[k] not in SHAPE_ONLY:
            todo.extend(j for j, _ in flow.inputs[k])
    return mask
