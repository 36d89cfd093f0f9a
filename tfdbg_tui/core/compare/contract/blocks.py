"""What kind of output each layer output is, so that pairing compares like with like:

- a **value**: the output of a computation that consumes a variable group (a projection,
  its bias, its activation) or of a layer applied to one such output (pooling, dropout, a
  residual `x + f(x)`);
- a **layout**: one layer's output only reshaped or transposed (attention heads split off,
  the reshape before a `tensordot`) — the same values in another order;
- a **block intermediate**: computed from the outputs of several parallel layers (an
  attention block's scores `q·kᵀ` and its context `softmax(·)·v`), up to the next layer
  that consumes variables. Two runs write a block's inside in their own order (TF1 code
  divides the scores by √d, Keras' MultiHeadAttention scales otherwise), so such outputs
  pair only where both runs compute them alike: their `recipe` (the ops from the block's
  inputs, layouts skipped) is the same.

Why apart: `roles.analyse` finds the layer outputs, `layer_pairing` pairs them; this is
what both need to know about one output.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from reader import GRAPH
from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, Flow
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY

VALUE, LAYOUT, BLOCK = 0, 1, 2

# ops that move or relabel elements without computing (a recipe sees through them)
_LAYOUT_OPS = frozenset({"Reshape", "Transpose", "ExpandDims", "Squeeze", "Identity",
                         "Cast", "IdentityN", "StopGradient"})
_MATMULS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum"})
_CONSUMES_DATA = _MATMULS | {"Conv2D", "Conv1D", "Conv3D", "DepthwiseConv2dNative",
                             "GatherV2", "ResourceGather", "Gather"}


def weight_only(flow: Flow) -> list[bool]:
    """Per node, whether it is computed from variables and constants alone (a read, a
    batch norm's `gamma * rsqrt(variance + ε)`), no input data: where such an operand meets
    the data, a layer's own variables enter the computation. An operand whose producer was
    not recorded is data in a graph; in an eager run, where constants are not recorded
    either, only a product's or a lookup's (the batch a kernel multiplies)."""
    out = [False] * len(flow)
    eager = flow.kind != GRAPH
    for k in range(len(flow)):
        op = flow.op_type[k]
        if op in READS or op in ("Const", "VarHandleOp") or op in SHAPE_ONLY:
            out[k] = True
        elif flow.inputs[k] and op not in ("Placeholder", "PlaceholderWithDefault"):
            unknown_is_data = not eager or op in _CONSUMES_DATA
            out[k] = all(out[j] if 0 <= j < k else not unknown_is_data
                         for j, _ in flow.inputs[k])
    return out


def joined(flow: Flow, deps: list[frozenset[str]]) -> list[bool]:
    """Per node, whether it is inside a block: it combines data of parallel layers (two
    operands computed from the input, neither of whose variables contains the other's:
    `q·kᵀ`), or computes from such a tensor without a variable entering (the softmax, the
    context); an op where variables enter (the block's output projection) ends the
    block."""
    wonly = weight_only(flow)
    out = [False] * len(flow)
    for k in range(len(flow)):
        if flow.phase[k] not in FORWARD or not deps[k] or wonly[k]:
            continue
        ins = [j for j, _ in flow.inputs[k] if j >= 0 and deps[j]]
        if any(wonly[j] for j in ins):
            continue  # a kernel, a bias, a batch norm's scale: a layer's own computation
        out[k] = any(out[j] for j in ins) or any(
            not (deps[a] <= deps[b] or deps[b] <= deps[a]) for a, b in combinations(ins, 2))
    return out


def joins(flow: Flow, k: int, inside: list[bool], consumers: list[list[int]]) -> bool:
    """Whether a block reads node k (through layouts: `batch_dot` expands its inputs'
    dims first) — k is an input of a merge of parallel layers, not a layer's inner value."""
    todo, seen = [k], {k}
    while todo:
        for c in consumers[todo.pop()]:
            if c in seen or flow.phase[c] not in FORWARD:
                continue
            seen.add(c)
            if inside[c]:
                return True
            if flow.op_type[c] in _LAYOUT_OPS and len(seen) < 64:
                todo.append(c)
    return False


def recipe(flow: Flow, k: int, inside: list[bool], memo: dict[int, str], depth: int = 0
           ) -> str:
    """How a block computes node k from the block's inputs: its ops, layouts seen through,
    matrix products (MatMul, BatchMatMul, Einsum) as one, each input outside the block
    as `·` (`Mul(matmul(·,·))` for Keras' scaled scores, `matmul(·,·)` for TF1's unscaled
    q·kᵀ). Operands are sorted: a sum or product is the same whichever side is first."""
    if k in memo:
        return memo[k]
    if depth > 200:  # a block that long is told apart well before
        return "…"
    memo[k] = "…"  # a cycle (a loop's back edge) is cut
    op = flow.op_type[k]
    ins = [j for j, _ in flow.inputs[k] if j >= 0]
    if op in _LAYOUT_OPS and ins:
        got = recipe(flow, ins[0], inside, memo, depth + 1)
    elif not inside[k]:
        got = "·"
    else:
        parts = sorted(recipe(flow, j, inside, memo, depth + 1) for j in ins
                       if flow.op_type[j] not in ("Const", *SHAPE_ONLY))
        got = f"{'matmul' if op in _MATMULS else op}({','.join(parts)})"[:2000]
    memo[k] = got
    return got


def layout_of(flow: Flow, k: int, group_of: Callable[[int], object]) -> bool:
    """Whether node k only moves about another group's output: reshapes and transposes
    from it (`group_of`: a node's layer group) — heads split off, the reshape before a
    `tensordot` — computing nothing of its own group."""
    group, j = group_of(k), k
    for _ in range(16):
        if flow.op_type[j] not in _LAYOUT_OPS or not flow.inputs[j]:
            return False
        j = flow.inputs[j][0][0]
        if j < 0:
            return False
        if group_of(j) != group:
            return True
    return False


def kind_of(flow: Flow, k: int, group_of: Callable[[int], object], inside: list[bool]
            ) -> int:
    """VALUE, LAYOUT or BLOCK for the layer output k (`group_of`: a node's layer group)."""
    return BLOCK if inside[k] else LAYOUT if layout_of(flow, k, group_of) else VALUE
