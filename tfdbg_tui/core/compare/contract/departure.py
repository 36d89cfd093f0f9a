"""Where a run's backward computation of one gradient departs from plain differentiation.

Why: every op the gradient code makes carries the line that asked for the gradients
(`tape.gradient`, `minimize`), so a gradient that differs while the forward pass agrees
would always be shown there — a line that explains nothing. What explains it is where the
backward computation does something of the user's own, found from the recorded dataflow
and stacks alone, in either form (graph ops, eager executions):

- a **custom gradient's body** (`tf.custom_gradient`'s `grad`, a `RegisterGradient`
  function): a backward op in the gradient's dataflow made inside the gradient call (its
  stack holds the call's line) on a user line deeper than that call;
- a **cut**: a forward `StopGradient`/`PreventGradient` whose input is computed from the
  variable — the part of the loss's dependence on the weight the backward pass never sees.

`departure` gives the node whose stack holds that line, or None (the caller keeps the
gradient call's line: never a guess).
"""

from __future__ import annotations

import re
from collections import deque

import numpy as np

from reader import DebugLogdir
from reader.index.frames import Frame
from tfdbg_tui.core.compare.contract.dataflow import BWD, OPT, READS, Flow, node_frames
from tfdbg_tui.core.compare.contract.model import RunModel

CUTS = frozenset({"StopGradient", "PreventGradient"})
CUSTOM, CUT = "custom", "cut"
_WALK = 4096  # nodes walked from one gradient or one variable's reads
_STACKS = 256  # stacks read per walk (an eager execution's is a file read)


def gradient_node(model: RunModel, step: int, kind: int, row: int) -> int | None:
    """The node of step `step`'s flow recording row `row` of `kind`, or None."""
    if not 0 <= step < model.n_steps:
        return None
    flow, local, _ = model.steps[step]
    if flow.kind != kind or not flow.rows.size:
        return None
    hit = np.nonzero(flow.rows[local] == row)[0]
    return int(hit[0]) if len(hit) else None


def departure(logdir: DebugLogdir, model: RunModel, step: int, kind: int, row: int
              ) -> tuple[str, Flow, int] | None:
    """(CUSTOM or CUT, flow, node) where the gradient recorded at `row` departs (see the
    module docstring), or None when nothing of the user's own is in its computation."""
    node = gradient_node(model, step, kind, row)
    if node is None:
        return None
    flow, _, roles = model.steps[step]
    call = logdir.user_frame(node_frames(logdir, flow, node))
    if call is None:
        return None
    body = _custom_body(logdir, flow, node, call)
    if body is not None:
        return CUSTOM, flow, body
    handle = next((h for h, t in roles.grad.items() if t[0] == node), None)
    cut = cut_of(logdir, flow, handle) if handle is not None else None
    return (CUT, flow, cut) if cut is not None else None


def _custom_body(logdir: DebugLogdir, flow: Flow, node: int, call: Frame) -> int | None:
    """The first backward op (breadth first from the gradient, through backward ops only)
    made inside the gradient call on a user line of its own."""
    key = (call.file, call.line)
    seen, todo, stacks = {node}, deque(i for i, _ in flow.inputs[node]), 0
    while todo and len(seen) < _WALK and stacks < _STACKS:
        j = todo.popleft()
        if j < 0 or j in seen or j >= len(flow):
            continue
        seen.add(j)
        if flow.phase[j] != BWD:
            continue
        if flow.line[j] != flow.line[node]:
            stacks += 1
            frames = node_frames(logdir, flow, j)
            uf = logdir.user_frame(frames)
            if uf is not None and (uf.file, uf.line) != key \
                    and any((f.file, f.line) == key for f in frames):
                return j
        todo.extend(i for i, _ in flow.inputs[j])
    return None


def cut_of(logdir: DebugLogdir, flow: Flow, handle: str) -> int | None:
    """The first forward cut the user's code makes (breadth first from the variable's reads,
    through forward ops) whose input is computed from variable `handle`, or None. A cut a
    library makes inside a layer or a loss (Keras' batch statistics stop the mean's gradient
    in the variance) is part of that layer, the same in any program: passed over."""
    consumers: dict[int, list[int]] = {}
    for i, ins in enumerate(flow.inputs):
        for j, _ in ins:
            consumers.setdefault(j, []).append(i)
    todo = deque(i for i in range(len(flow))
                 if flow.handle[i] == handle and flow.op_type[i] in READS)
    seen = set(todo)
    while todo and len(seen) < _WALK:
        j = todo.popleft()
        for c in consumers.get(j, []):
            if c in seen or flow.phase[c] in (BWD, OPT):
                continue
            if flow.op_type[c] in CUTS and _users(logdir, flow, c):
                return c
            seen.add(c)
            todo.append(c)
    return None


def _users(logdir: DebugLogdir, flow: Flow, node: int) -> bool:
    """Whether node's op was made by the user's code itself: no layer library's frame
    between the user's innermost line and the op."""
    frames = node_frames(logdir, flow, node)
    at = next((i for i in range(len(frames) - 1, -1, -1)
               if frames[i].resolved and not frames[i].is_framework), None)
    return at is not None and not any(_LIBRARY.search(f.file) for f in frames[at + 1:])


_LIBRARY = re.compile(r"[\\/](keras|tf_keras)[\\/]")


__all__ = ["CUSTOM", "CUT", "cut_of", "departure", "gradient_node"]
