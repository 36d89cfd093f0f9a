"""Which forward tensors are layer outputs: the groups a node falls in (the variables it
depends on, its user line, its name scope under `fit`), whether a group's output leaves it,
a statement's inner steps, and a product before its bias. Why apart: `roles.analyse` picks
one output per group from these; they are the layer half of the role analysis.
"""

from __future__ import annotations

from collections.abc import Callable

from reader import GRAPH
from tfdbg_tui.core.compare.contract.blocks import weight_only
from tfdbg_tui.core.compare.contract.dataflow import FORWARD, FWD, READS, Flow
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY, Sig, Tensor

# stages without weights that make a new tensor of their input's features: resampling (an
# upscaling layer's bilinear or nearest resize), 3-D / v2 pooling, and a bag's combiner
# (`embedding_lookup_sparse`: the mean, sum or sqrt-n of each example's rows)
STAGE_OPS = frozenset({
    "ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea",
    "ScaleAndTranslate", "CropAndResize", "MaxPool3D", "AvgPool3D", "MaxPoolV2",
    "SparseSegmentMean", "SparseSegmentSum", "SparseSegmentSqrtN",
    "SparseSegmentMeanWithNumSegments", "SparseSegmentSumWithNumSegments",
    "SparseSegmentSqrtNWithNumSegments"})


LAYER_OPS = frozenset({"MatMul", "BatchMatMulV2", "BatchMatMulV3", "BiasAdd", "AddV2", "Add",
                       "Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Softplus",
                       "LeakyRelu", "Gelu", "Conv2D", "Conv1D", "Conv3D",
                       "DepthwiseConv2dNative", "MaxPool", "AvgPool", "FusedBatchNormV3",
                       "FusedBatchNorm", "Erf", "Mul", "Reshape", "Transpose", "SelectV2",
                       "Select", "Sub"}) | STAGE_OPS


LayerKey = tuple[frozenset[str], int, str, frozenset[int]]


def layer_key_of(flow: Flow, deps: list[frozenset[str]],
                 entry: Callable[[int], frozenset[int]], stage: list[int] | None = None
                 ) -> Callable[[int], LayerKey]:
    """A forward node's layer: the variables it depends on and its user line — and, where
    every layer op has one line (a Sequential or functional model trained by `fit`, whose
    ops all carry the `fit` call), the op's name scope (`sequential/pool/AvgPool`), so a
    pooling or flatten layer between two weighted ones stays a layer of its own — and the
    model inputs it is computed from (`entry`, `model_output.StepData.entry_of`): one tower
    applied to two inputs on one line (TF1's `variable_scope(reuse=True)`) is two outputs —
    and how many stages without weights (`stages`) it comes after among its variables'
    ops: an eager model call runs every layer on one line, so a pooling over the frames
    would otherwise swallow the frames' layer it pools."""
    lines = {flow.line[k] for k in range(len(flow)) if k < len(flow.line)
             and flow.phase[k] == FWD and flow.op_type[k] in LAYER_OPS and deps[k]}
    by_scope = flow.kind == GRAPH and len(lines) == 1

    def key(k: int) -> LayerKey:
        line = flow.line[k] if k < len(flow.line) else -1
        name = flow.name[k] if by_scope and k < len(flow.name) else ""
        scope = name.rsplit("/", 1)[0] if "/" in name else ""
        if stage is not None and k < len(stage) and stage[k]:
            scope = f"{scope}#stage{stage[k]}"
        return deps[k], line, scope, entry(k)

    return key


# reductions that pool a layer's output over its positions (`GlobalAveragePooling1D`'s
# mean over time, `GlobalMaxPooling2D`'s max, `reduce_mean(h, axis=[1, 2])`), and what
# divides or scales such a pooled value by something of no variable (a masked mean's
# `sum / count`)
_REDUCTIONS = frozenset({"Mean", "Sum", "Max", "Min"})
_SCALES = frozenset({"RealDiv", "DivNoNan", "Mul", "Div"})


def pooling(flow: Flow, deps: list[frozenset[str]], sig: Callable[[Tensor], Sig]
            ) -> set[int]:
    """Forward nodes that pool a layer's output into a new one: a reduction that drops
    axes and still keeps an example and a feature axis (rank 2 or more: a loss's or a
    statistic's reduction to a scalar or a vector is none), and a division or product of
    such a pooled value by a tensor of no variable (the count of a masked mean) keeping its
    size. Told from ranks and dataflow, not from a layer's name; a normalization's mean
    (`keepdims=True`, the rank kept) is none."""
    out: set[int] = set()
    for k in range(len(flow)):
        op = flow.op_type[k]
        if flow.phase[k] != FWD or not deps[k] or not flow.inputs[k]:
            continue
        s = sig((k, 0))
        if s[1] < 2:
            continue
        if op in _REDUCTIONS:
            src = flow.inputs[k][0]
            if src[0] >= 0 and deps[src[0]] == deps[k] and sig(src)[1] > s[1]:
                out.add(k)
        elif op in _SCALES:
            ins = [t for t in flow.inputs[k] if t[0] >= 0]
            pooled = [t for t in ins if t[0] in out]
            if (len(pooled) == 1 and sig(pooled[0])[2] == s[2]
                    and all(not deps[t[0]] for t in ins if t not in pooled)):
                out.add(k)
    return out


_SPLITS = STAGE_OPS | {"MaxPool", "AvgPool"}


def stages(flow: Flow, deps: list[frozenset[str]], pooled: set[int]) -> list[int]:
    """Per forward node, how many stages without weights of their own (a pooling, a resize,
    a bag's combiner: `STAGE_OPS`, 2-D pooling and `pooling`) lie between it and the last op
    where its variables entered. A stage counts once however many ops it takes (a masked
    mean's sum and division)."""
    out = [0] * len(flow)
    for k in range(len(flow)):
        if flow.phase[k] not in FORWARD or not deps[k]:
            continue
        same = [j for j, _ in flow.inputs[k] if 0 <= j < k and deps[j] == deps[k]]
        at = max((out[j] for j in same), default=0)
        if (flow.op_type[k] in _SPLITS or k in pooled) and not any(
                flow.op_type[j] in _SPLITS or j in pooled for j in same):
            at += 1
        out[k] = at
    return out


_PRODUCTS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"})


def data_products(flow: Flow, deps: list[frozenset[str]]) -> set[int]:
    """Forward matrix products of one value a layer computed (not its kernel read) with a
    tensor of no variable: a graph's adjacency matrix times the nodes' messages, a fixed
    mixing matrix. Not a layer's output — the layer's is their operand — as TF1's gather
    and segment sum of the same messages are not (no layer op): an eager model computes
    both on the layer's call line, where the next product would be taken for the layer's
    output. (A Dense's MatMul multiplies the input by its kernel read; attention's `q·kᵀ`
    has variables on both sides.)"""
    wonly = weight_only(flow)
    out: set[int] = set()
    for k in range(len(flow)):
        if flow.op_type[k] not in _PRODUCTS or len(flow.inputs[k]) != 2 or not deps[k]:
            continue
        ins = [j for j, _ in flow.inputs[k]]
        mine = [j for j in ins if 0 <= j < k and deps[j] == deps[k] and not wonly[j]]
        if len(mine) == 1 and all(j < 0 or j >= k or not deps[j] for j in ins
                                  if j != mine[0]):
            out.add(k)
    return out


def leaving(flow: Flow, group: Callable[[int], LayerKey], consumers: list[list[int]],
             looped: set[int]) -> Callable[[int], bool]:
    """`leaves(k)`: whether forward node k's value reaches an op outside its layer group
    (another set of variables or another line, or the loss), directly or through ops of its
    group that are no layer (an Identity, a cast, a slice)."""
    memo: dict[int, bool] = {}

    def leaves(k: int) -> bool:
        if k in memo:
            return memo[k]
        memo[k] = False  # a cycle never leaves
        todo, seen, out = [k], {k}, False
        while todo and not out:
            j = todo.pop()
            for c in consumers[j]:
                if flow.phase[c] not in FORWARD or flow.op_type[c] in SHAPE_ONLY or c in seen:
                    continue
                if flow.phase[c] != FWD or group(c) != group(k):
                    out = True
                    break
                if flow.op_type[c] not in LAYER_OPS and c not in looped:
                    seen.add(c)
                    todo.append(c)
        memo[k] = out
        return out

    return leaves


Groups = dict[LayerKey, tuple[bool, int, int]]


def assembled(flow: Flow, deps: list[frozenset[str]], consumers: list[list[int]],
              size: Callable[[Tensor], int]) -> tuple[set[int], set[int]]:
    """Forward tensors assembled from several tensors of one variable group, and what is
    computed from them in that group: (the assembling nodes, those and their descendants of
    the same variables). A recurrent cell written by hand (`h = tanh(x_t W + b + h U)` per
    step, the states then stacked) has no op that computes its whole output: each state is
    one part, and what leaves toward the next layer is a tensor holding as many elements as
    the group's tensors it is made of together (a stack, a concatenation) — then perhaps
    reordered (the states of a run over the reversed sentence reversed back). Told from the
    sizes, not the op: a sum of two states (an `AddN`) holds as many elements as one."""
    gathers: set[int] = set()
    for c in range(len(flow)):
        if (flow.phase[c] != FWD or not deps[c] or flow.op_type[c] in LAYER_OPS
                or flow.op_type[c] in SHAPE_ONLY):
            continue
        parts = [t for t in flow.inputs[c] if t[0] >= 0 and deps[t[0]] == deps[c]]
        if len(parts) < 2:
            continue
        sizes = [size(t) for t in parts]
        if min(sizes) > 0 and sum(sizes) == size((c, 0)):
            gathers.add(c)
    out, todo = set(gathers), list(gathers)
    while todo:
        k = todo.pop()
        for c in consumers[k]:
            if (c not in out and flow.phase[c] == FWD and flow.op_type[c] not in SHAPE_ONLY
                    and deps[c] == deps[k]):
                out.add(c)
                todo.append(c)
    return gathers, out


def parts_of(flow: Flow, groups: Groups, gathers: set[int], consumers: list[list[int]]
             ) -> Groups:
    """Drop a group's output that is only a part of an assembled output (see `assembled`):
    every use of it is a stack or concatenation with other tensors of its variables — the
    last state of an RNN written by hand is one row of the layer's output, not the output."""
    out = dict(groups)
    for gkey, (_, _, k) in groups.items():
        uses = [c for c in consumers[k] if flow.phase[c] in FORWARD
                and flow.op_type[c] not in SHAPE_ONLY]
        if uses and all(c in gathers for c in uses):
            del out[gkey]
    return out


def unit_outputs(flow: Flow, groups: Groups, layer_key: Callable[[int], LayerKey],
                  consumers: list[list[int]]) -> Groups:
    """A statement the user wrote (`bn = gamma * (h - mean) * rsqrt(v + eps) + beta`: one
    line, no layer library under it) is one layer: of its variable groups, those whose
    output never leaves the line are steps inside it (`gamma * (h - mean)`), not outputs,
    when another group's output does leave. A line calling a library's layers (`model(x)`)
    holds many layers, and a layer's name scope under `fit` keeps its groups (a group norm's
    normalized tensor there is what a TF1 program's own `normalized = ...` line pairs with)."""
    def unit(k: int) -> object:
        if layer_key(k)[2]:
            return None
        line = flow.line[k] if k < len(flow.line) else -1
        return None if line < 0 or line in flow.library_lines else line

    def leaves_unit(k: int) -> bool:
        u = unit(k)
        return any(flow.phase[c] in FORWARD and flow.op_type[c] not in SHAPE_ONLY
                   and (flow.phase[c] != FWD or unit(c) != u) for c in consumers[k])

    by_unit: dict[object, list[LayerKey]] = {}
    for gkey, (_, _, k) in groups.items():
        u = unit(k)
        if u is not None:
            by_unit.setdefault(u, []).append(gkey)
    out = dict(groups)
    for keys in by_unit.values():
        if len(keys) < 2:
            continue
        leaving = {g: leaves_unit(groups[g][2]) for g in keys}
        if any(leaving.values()):
            for g in keys:
                if not leaving[g]:
                    del out[g]
    return out


def inner_steps(flow: Flow, groups: Groups, deps: list[frozenset[str]],
                consumers: list[list[int]]) -> Groups:
    """Drop a group's output that is a step inside a function of a layer's output: every
    use of it combines it with a tensor of the same variables that it was computed from.
    BERT's gelu, `cdf = 0.5 * (1 + tanh(...(x)))` then `return x * cdf` (two lines of a
    helper): cdf's only use is `x * cdf`, and x is where cdf comes from, so the function's
    value — the layer's activation — is the output, not cdf (a residual `x + f(x)` keeps
    f(x): x carries none of f's variables)."""
    out = dict(groups)
    for gkey, (_, _, k) in groups.items():
        uses = [c for c in consumers[k] if flow.phase[c] in FORWARD
                and flow.op_type[c] not in SHAPE_ONLY]
        if uses and all(_rejoins(flow, c, k, deps) for c in uses):
            del out[gkey]
    return out


def _rejoins(flow: Flow, c: int, k: int, deps: list[frozenset[str]]) -> bool:
    """Whether op c, a layer op (a product, a sum: not a stack of an RNN's states), combines
    k only with tensors of k's variables that k was computed from (and constants)."""
    if deps[c] != deps[k] or flow.op_type[c] not in LAYER_OPS:
        return False
    others = [j for j, _ in flow.inputs[c] if 0 <= j != k and deps[j]]
    if not others or any(deps[j] != deps[k] for j in others):
        return False
    # k's ancestors of the same variables (a bounded walk: a function of one tensor is short)
    seen, todo = {k}, [k]
    while todo and len(seen) < 256:
        for j, _ in flow.inputs[todo.pop()]:
            if 0 <= j and j not in seen and deps[j] == deps[k]:
                seen.add(j)
                todo.append(j)
    return all(j in seen for j in others)


def before_bias(flow: Flow, k: int, deps: list[frozenset[str]],
                 consumers: list[list[int]]) -> bool:
    """Whether node k is a layer's product before its bias: consumed by an add whose other
    input is (a cast of) a variable's read — not yet the layer's output."""
    for c in consumers[k]:
        if flow.op_type[c] not in ("BiasAdd", "AddV2", "Add") or not deps[c] > deps[k]:
            continue
        for j, _ in flow.inputs[c]:
            while j >= 0 and flow.op_type[j] == "Cast" and flow.inputs[j]:
                j = flow.inputs[j][0][0]
            if j >= 0 and j != k and flow.op_type[j] in READS:
                return True
    return False


def forks(flow: Flow, groups: Groups, layer_key: Callable[[int], LayerKey],
          consumers: list[list[int]], candidates: dict[LayerKey, list[int]],
          depth: Callable[[int], int], sig: Callable[[Tensor], Sig]) -> Groups:
    """A group whose value leaves it in two or more tensors of one size, all joined by one
    other group of the same layer (its line and name scope), forks inside that layer: Keras'
    PReLU computes relu(x) and relu(−x) of the previous layer's variables alone, then weighs
    them by α in the next group; neither branch is a layer's output, and taking one would
    pair it with whatever the other run computes in its place (TF1's `relu(h) − α·relu(−h)`
    on one line has no such group). The group's output is then the deepest of its
    candidates every leaving tensor is computed from (the Dense's BiasAdd where one eager
    line runs both layers), or none (under a name scope the fork's input is the previous
    layer's output, a group of its own). A normalization's statistics leave with the value
    they normalize, in other sizes: no fork."""
    members: dict[LayerKey, list[int]] = {}
    for k in range(len(flow)):
        if flow.phase[k] == FWD and flow.op_type[k] not in SHAPE_ONLY:
            members.setdefault(layer_key(k), []).append(k)
    out = dict(groups)
    for gkey, (_, _, chosen) in groups.items():
        exits: list[int] = []
        joins: set[object] = set()
        for j in members.get(gkey, []):
            outside = [c for c in consumers[j] if flow.phase[c] in FORWARD
                       and flow.op_type[c] not in SHAPE_ONLY
                       and (flow.phase[c] != FWD or layer_key(c) != gkey)]
            if outside:
                exits.append(j)
                joins |= {layer_key(c) if flow.phase[c] == FWD else None for c in outside}
        if len(exits) < 2 or len(joins) != 1 or len({sig((e, 0))[2] for e in exits}) != 1:
            continue
        join = next(iter(joins))
        if not isinstance(join, tuple) or join[1:3] != gkey[1:3]:
            continue
        common: set[int] | None = None
        for e in exits:  # the group's tensors each leaving tensor is computed from
            seen, todo = {e}, [e]
            while todo:
                for j, _ in flow.inputs[todo.pop()]:
                    if j >= 0 and j not in seen and flow.phase[j] == FWD \
                            and layer_key(j) == gkey:
                        seen.add(j)
                        todo.append(j)
            common = seen if common is None else common & seen
        if common is None or chosen in common:
            continue
        inner = [k for k in candidates.get(gkey, []) if k in common]
        if inner:
            k = max(inner, key=lambda i: (depth(i), i))
            out[gkey] = (groups[gkey][0], depth(k), k)
        else:
            del out[gkey]
    return out



def subtraction_ends_layer(flow: Flow, k: int, deps: list[frozenset[str]],
                           sig: Callable[[Tensor], Sig]) -> bool:
    """Whether a subtraction can be a layer's value: one that subtracts two of the layer's
    own tensors of its size (`relu(h) − α·relu(−h)`, a PReLU written out) or a constant
    scalar (`2·sigmoid(2h) − 1`, a tanh written out) — each what the other run's layer op
    (`Tanh`, Keras' PReLU) computes. Not the loss's `prediction − target` (something of no
    variable, not a scalar), nor a centering by a reduction of the value (`z − logsumexp(z)`,
    `x − mean(x)`: a log-softmax's or a normalization's step, whose ops — `LogSoftmax` — are
    no layer op either). An operand whose producer was not recorded (an eager run's data, or
    a Python number converted) is not known to be a scalar."""
    size = sig((k, 0))[2]
    for j, s in flow.inputs[k]:
        if j < 0:
            return False
        got = sig((j, s))[2]
        if not (got == 1 if not deps[j] else got == size > 0):
            return False
    return True
