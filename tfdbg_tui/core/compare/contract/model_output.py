"""Where the model ends and the loss begins, by dataflow: the forward tensors that are the loss
function's own computation on the model's output, never a layer's output.

A loss written in the user's code (TF1's focal loss: `p = sigmoid(logits)`,
`p_t = labels * p + …`, `alpha_t * (1 - p_t)^γ * ce`; a KL divergence
`target * (log target - log_softmax(logits))`) runs the same layer-like ops a model does (a
sigmoid, products, sums) on its own lines, so nothing in the ops themselves tells them from
layers. What does is what a step is: the model maps its inputs to an output, and the loss
compares that output with the targets. So:

- the step's **data** are the forward tensors fed from outside (a graph's placeholders, a
  function's arguments); the **targets** among them are those that meet the model's
  computation only where it already depends on every trained variable (the labels enter
  after the last layer), the **inputs** the others (they meet a variable's read, or a
  layer before the last);
- the **model's output** is the last tensor, before the targets join, that every path from
  the inputs to the loss passes through (the logits a focal loss reads both directly and
  through a sigmoid; the sigmoid itself when the loss reads only it);
- the loss's own tensors are those computed from the targets, and those computed from the
  model's output without another variable (`sigmoid(logits)` inside the loss function): a
  second head reading variables of its own after a shared trunk stays a layer.

Where the targets cannot be told apart (an eager step records no placeholders; an iterator
yields inputs and targets together; targets that meet a layer before the last) nothing is
marked: the layer outputs are found as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reader import GRAPH
from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, UPDATES, Flow
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY

_PASS = ("Cast", "Identity")  # a read seen through these is still the variable's value


@dataclass
class StepData:
    """What a step is fed from outside (see the module docstring), per forward node: the
    data sources it is computed from (`src`); the sources that are the model's inputs, those
    among them a variable's read meets first (`entries`: the inputs of a first layer — two
    for a tower shared by two inputs), and the targets."""

    src: list[frozenset[int]]
    inputs: set[int] = field(default_factory=set)
    entries: set[int] = field(default_factory=set)
    targets: set[int] = field(default_factory=set)
    fed: set[int] = field(default_factory=set)  # eager nodes an input from outside feeds

    def entry_of(self, k: int) -> frozenset[int]:
        """The model inputs node k is computed from, where the model has several first-layer
        inputs (one tower applied to two inputs computes one layer's output twice)."""
        return self.src[k] & self.entries if len(self.entries) > 1 else frozenset()


def step_data(flow: Flow, deps: list[frozenset[str]], every: frozenset[str]) -> StepData:
    """The step's data sources, inputs, first-layer inputs and targets (`StepData`)."""
    n = len(flow)
    fwd = [flow.phase[k] in FORWARD and flow.op_type[k] not in SHAPE_ONLY for k in range(n)]
    handles = {j for k in range(n) if flow.op_type[k] in READS | UPDATES
               for j, _ in flow.inputs[k][:1] if j >= 0}  # a variable's handle is no data
    sources = [k for k in range(n) if fwd[k] and not flow.inputs[k] and not deps[k]
               and flow.op_type[k] != "Const" and flow.handle[k] is None and k not in handles]
    ext = _outside(flow, fwd)
    src: list[frozenset[int]] = [frozenset()] * n
    out = StepData(src)
    if len(sources) + sum(map(len, ext.values())) < 2 or not every:
        return out
    for s in sources:
        src[s] = frozenset([s])
    met = set[int]()
    for k in range(n):
        if not fwd[k] or k in sources:
            continue
        ins = [j for j, _ in flow.inputs[k] if 0 <= j < n and fwd[j]]
        outside = ext.get(k, frozenset())
        if flow.op_type[k] in READS:  # the rows a gather reads: its indices meet the table
            for j in ins[1:]:
                out.inputs |= src[j]
                out.entries |= src[j]
            out.inputs |= outside
            out.fed |= {k} if outside else set()
            continue
        src[k] = src[k] | outside
        for j in ins:
            src[k] = src[k] | src[j]
        if not deps[k]:
            continue
        met |= src[k]
        # data meeting the model's computation here: at a variable's read (a first layer)
        # or before its last layer, it is the model's input
        model = [j for j in ins if deps[j]]
        read = any(_is_read(flow, j) for j in model)
        if read or any(deps[j] != every for j in model):
            out.inputs |= outside
            out.fed |= {k} if outside else set()
            for j in ins:
                if not deps[j]:
                    out.inputs |= src[j]
                    if read:
                        out.entries |= src[j]
    every_source = set(sources).union(*ext.values())
    out.targets = (every_source - out.inputs) & met
    return out


def _outside(flow: Flow, fwd: list[bool]) -> dict[int, frozenset[int]]:
    """An eager step's data from outside it: per node, a source of its own (numbered past the
    nodes) for each operand no recorded execution of the step made (a tensor made before the
    step: the batch, the targets; an eager constant) — a variable's handle excepted, and the
    operands of a library layer's ops (a Keras activation's `0.5 * x` in a model's call reads
    a constant no execution made, as a graph reads a Const: the data come in through the
    layer's inputs). A graph's data are its placeholders and arguments, nodes of the flow:
    none here."""
    if flow.kind == GRAPH:
        return {}
    n, out = len(flow), {}
    for k in range(n):
        if not fwd[k] or (k < len(flow.line) and flow.line[k] in flow.library_lines
                          and not any(j >= 0 and _is_read(flow, j)
                                      for j, _ in flow.inputs[k])):
            continue
        first = 1 if flow.op_type[k] in READS | UPDATES else 0
        ids = frozenset(n + 8 * k + i for i, (j, _) in enumerate(flow.inputs[k][:8])
                        if j < 0 and i >= first)
        if ids:
            out[k] = ids
    return out


def loss_side(flow: Flow, deps: list[frozenset[str]], loss: int, every: frozenset[str],
              data: StepData) -> set[int]:
    """The forward nodes that are the loss function's computation on the model's output
    (see the module docstring); empty where the targets are not known."""
    n = len(flow)
    if not data.targets or not data.inputs:
        return set()
    fwd = [flow.phase[k] in FORWARD and flow.op_type[k] not in SHAPE_ONLY for k in range(n)]
    labelled = [bool(data.src[k] & data.targets) for k in range(n)]
    out = {k for k in range(n) if labelled[k] and deps[k]}
    end = _model_output(flow, fwd, labelled, data.inputs | data.fed, loss)
    if end is not None and deps[end] == every:
        todo = [end]
        seen = {end}
        consumers = _consumers(flow, fwd)
        while todo:
            for c in consumers.get(todo.pop(), []):
                if c not in seen and deps[c] == every:
                    seen.add(c)
                    todo.append(c)
                    out.add(c)
    return out


def _is_read(flow: Flow, j: int) -> bool:
    while flow.op_type[j] in _PASS and flow.inputs[j] and flow.inputs[j][0][0] >= 0:
        j = flow.inputs[j][0][0]
    return flow.op_type[j] in READS


def _consumers(flow: Flow, fwd: list[bool]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for k in range(len(flow)):
        if fwd[k]:
            for j, _ in flow.inputs[k]:
                if j >= 0:
                    out.setdefault(j, []).append(k)
    return out


def _model_output(flow: Flow, fwd: list[bool], labelled: list[bool], inputs: set[int],
                  loss: int) -> int | None:
    """The last node free of the targets on every forward path from the inputs to the loss:
    the loss's dominators (over a virtual root feeding the inputs) walked up from it."""
    n = len(flow)
    # the nodes on some path from an input to the loss
    up = {loss}
    todo = [loss]
    while todo:
        for j, _ in flow.inputs[todo.pop()]:
            if 0 <= j < n and fwd[j] and j not in up:
                up.add(j)
                todo.append(j)
    root = -1
    idom: dict[int, int] = {root: root}
    depth: dict[int, int] = {root: 0}

    def meet(a: int, b: int) -> int:
        while a != b:
            if depth[a] >= depth[b]:
                a = idom[a]
            else:
                b = idom[b]
        return a

    for v in sorted(up):
        preds = [j for j, _ in flow.inputs[v] if j in idom and j in up]
        if v in inputs:
            preds.append(root)
        if not preds:
            continue
        d = preds[0]
        for p in preds[1:]:
            d = meet(d, p)
        idom[v], depth[v] = d, depth[d] + 1
    if loss not in idom:
        return None
    v = loss
    while v != root:
        if not labelled[v]:
            return v
        v = idom[v]
    return None
