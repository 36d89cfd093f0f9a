"""What each tensor of a training step *is*: a variable's value, a layer's output, the loss,
the learning rate, a gradient — found by dataflow, never by op names.

On one `Flow` (see `flow`), for one of its steps:
- the **variables** are the trained handles, in the order the forward pass first uses them
  (the depth of the op consuming their read), each with its first forward read;
- a **gradient** is what the variable's update consumes: the apply op's gradient input, or
  for an assignment, walking back from the assigned value through the optimizer's arithmetic
  (a read of a slot variable follows that slot's last assignment) to the first backward-pass
  tensor shaped like the variable. Eager tape results reach the optimizer as new tensors
  without a recorded producer: there the backward pass's terminal tensors shaped like the
  variable are taken, last layer first (backprop's order);
- the **learning rate** is the scalar the update multiplies the gradient by (or the apply op's
  learning-rate input) — so a schedule evaluated a second time just to log it is not it;
- the **loss** is the deepest forward scalar that depends on every variable;
- each **layer output** is, among the forward tensors depending on the same set of variables,
  the deepest one computed by a layer-like op (matmul, bias, activation, conv, pooling...):
  an activation inserted after a layer is that layer's output, so a divergence there is
  reported at the layer and not one layer later.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from tfdbg_tui.core.compare.flow import (
    APPLY,
    BWD,
    FORWARD,
    FWD,
    LOSS,
    METRIC,
    OPT,
    READS,
    UPDATES,
    Flow,
    training_update,
)

Tensor = tuple[int, int]  # (node, slot)
Sig = tuple[int, int, int]  # (dtype class, rank, size); -1 unknown
_PASS = frozenset({"Identity", "IdentityN", "Cast", "Neg", "Mul", "Sub", "AddV2", "Add",
                   "RealDiv", "StopGradient", "Snapshot"})
LAYER_OPS = frozenset({"MatMul", "BatchMatMulV2", "BatchMatMulV3", "BiasAdd", "AddV2", "Add",
                       "Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Softplus",
                       "LeakyRelu", "Gelu", "Conv2D", "Conv1D", "Conv3D",
                       "DepthwiseConv2dNative", "MaxPool", "AvgPool", "FusedBatchNormV3",
                       "FusedBatchNorm", "Erf", "Mul"})
_FLOATS = frozenset({1, 2, 14, 19})
_SHAPE_ONLY = frozenset({"Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike",
                         "BroadcastGradientArgs"})


def sig_class(sig: Sig) -> Sig:
    """A signature with every floating dtype as one class (float32 against float64 pairs)."""
    return (1 if sig[0] in _FLOATS else sig[0], sig[1], sig[2])


@dataclass
class Roles:
    variables: list[str] = field(default_factory=list)  # handles, forward order
    sig: dict[str, Sig] = field(default_factory=dict)
    read: dict[str, Tensor] = field(default_factory=dict)
    grad: dict[str, Tensor] = field(default_factory=dict)  # as the backward pass made it
    # the gradient as the update consumed it (after clipping or scaling, wherever done)
    applied: dict[str, Tensor] = field(default_factory=dict)
    lr: Tensor | None = None
    loss: Tensor | None = None
    layers: list[tuple[frozenset[str], Tensor]] = field(default_factory=list)  # depth order
    update: dict[str, int] = field(default_factory=dict)  # the node updating each variable
    loss_entry: int | None = None  # the first op of the loss function (its line: the loss's)
    # the schedule's computation of the learning rate, in dataflow order (the rate itself
    # last): a schedule's intermediate can differ where the rate is within tolerance
    lr_chain: list[Tensor] = field(default_factory=list)


def analyse(flow: Flow, step: int, trained: set[str], sig_of: np.ndarray) -> Roles:
    """The roles of flow `flow`'s tensors in its step `step` (`sig_of[node, slot]` is the
    (dtype, rank, size) of that tensor, -1 where unknown)."""
    rows = flow.rows[step]
    n = len(flow)
    traced = rows >= 0

    def sig(t: Tensor) -> Sig:
        node, slot = t
        if node < 0 or slot >= sig_of.shape[1]:
            return (-1, -1, -1)
        s = sig_of[node, slot]
        return (int(s[0]), int(s[1]), int(s[2]))

    consumers: list[list[int]] = [[] for _ in range(n)]
    for k, ins in enumerate(flow.inputs):
        for j, _ in ins:
            if j >= 0:
                consumers[j].append(k)
    roles = Roles()
    # forward depth and which variables each forward tensor depends on
    depth = np.zeros(n, np.int64)
    deps: list[frozenset[str]] = [frozenset()] * n
    for k in range(n):
        if flow.phase[k] not in FORWARD:
            continue
        h = flow.handle[k]
        if flow.op_type[k] in READS and h in trained:
            deps[k] = frozenset([h])
            continue
        d, acc = 0, frozenset[str]()
        if flow.op_type[k] in _SHAPE_ONLY:  # a shape carries no value of the variables
            continue
        for j, _ in flow.inputs[k]:
            if j >= 0 and flow.phase[j] in FORWARD:
                d = max(d, int(depth[j]) + 1)
                acc = acc | deps[j]
        depth[k], deps[k] = d, acc
    # variables in forward order, with their first forward read
    first_use: dict[str, tuple[int, int]] = {}
    for k in range(n):
        h = flow.handle[k]
        if (flow.op_type[k] in READS and h in trained and flow.phase[k] in FORWARD
                and traced[k, 0]):
            uses = [c for c in consumers[k] if flow.phase[c] in FORWARD]
            key = min(((int(depth[c]), c) for c in uses), default=(1 << 30, k))
            if h not in first_use or key < first_use[h]:
                first_use[h] = key
                roles.read[h] = (k, 0)
                roles.sig[h] = sig((k, 0))
    roles.variables = sorted(first_use, key=lambda h: first_use[h])
    # gradients and the learning rate, from the updates
    last_assign: dict[str, list[int]] = {}
    for k in range(n):
        if flow.op_type[k] in UPDATES and flow.handle[k]:
            last_assign.setdefault(flow.handle[k] or "", []).append(k)
    lr_votes: list[Tensor] = []
    for k in range(n):
        h = flow.handle[k]
        if flow.op_type[k] not in UPDATES or h not in roles.read or flow.phase[k] == METRIC:
            continue
        if training_update(flow, k, {}):
            roles.update.setdefault(h, k)
        grad, lr, applied = _walk(flow, k, roles.sig[h], sig, last_assign, traced)
        if grad is not None and h not in roles.grad:
            roles.grad[h] = grad
        if applied is not None and h not in roles.applied:
            roles.applied[h] = applied
        if lr is not None:
            lr_votes.append(lr)
    if lr_votes:
        roles.lr = max(set(lr_votes), key=lr_votes.count)
    _tape_gradients(flow, roles, consumers, sig, traced)
    if roles.lr is not None:
        roles.lr_chain = _lr_chain(flow, roles.lr, trained, sig, traced)
    # the loss: the deepest forward scalar depending on every variable
    every = frozenset(roles.variables)
    best: tuple[int, int] | None = None
    for k in range(n):
        if flow.phase[k] not in FORWARD or not traced[k, 0] or flow.op_type[k] in READS:
            continue
        s = sig((k, 0))
        if s[1] == 0 and s[0] in _FLOATS and deps[k] == every and every:
            if best is None or (int(depth[k]), k) > best:
                best = (int(depth[k]), k)
    if best is not None:
        roles.loss = (best[1], 0)
    # layer outputs: per set of variables, the deepest layer-like tensor
    limit = best[0] if best is not None else 1 << 30
    groups: dict[frozenset[str], tuple[int, int]] = {}
    for k in range(n):
        if (flow.phase[k] != FWD or not traced[k, 0] or not deps[k]
                or flow.op_type[k] not in LAYER_OPS or int(depth[k]) >= limit):
            continue
        s = sig((k, 0))
        if s[1] < 2 or s[0] not in _FLOATS:
            continue
        if _before_bias(flow, k, deps, consumers):
            continue
        got = groups.get(deps[k])
        if got is None or (int(depth[k]), k) > got:
            groups[deps[k]] = (int(depth[k]), k)
    roles.layers = [(g, (k, 0)) for g, (_, k) in sorted(groups.items(), key=lambda x: x[1])]
    if roles.layers and roles.loss is not None:  # where the loss function starts
        last = roles.layers[-1][1][0]
        uses = [c for c in consumers[last] if flow.phase[c] in FORWARD
                and flow.op_type[c] not in _SHAPE_ONLY]
        uses.sort(key=lambda c: (flow.phase[c] != LOSS, c))
        roles.loss_entry = uses[0] if uses else None
    return roles


def _before_bias(flow: Flow, k: int, deps: list[frozenset[str]],
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


def _walk(flow: Flow, update: int, var_sig: Sig, sig: object, last_assign: dict[str, list[int]],
          traced: np.ndarray) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """(raw gradient, learning rate, applied gradient) of one update node: an apply op's
    inputs say the applied gradient and the rate; an assignment's value is walked back
    through the optimizer's arithmetic, where the rate is the non-constant scalar times
    the gradient (a constant is a coefficient such as Adam's 1 - beta_1, never the rate)
    and the gradient it multiplies is the applied one. The raw gradient is the first
    backward-pass tensor shaped like the variable up the applied one's chain (clipping in
    user code or inside the optimizer lies between them)."""
    sig_f = sig  # callable (node, slot) -> Sig
    t = flow.op_type[update]
    ins = flow.inputs[update]
    want = sig_class(var_sig)
    if t in APPLY:
        gi, li = APPLY[t]
        applied = _traced(flow, ins[gi], traced) if gi < len(ins) else None
        lr = _traced(flow, ins[li], traced) if li < len(ins) else None
        raw = _raw(flow, ins[gi], want, sig_f, traced) if gi < len(ins) else None
        return raw, lr, applied
    if len(ins) < 2:
        return None, None, None
    queue: deque[tuple[Tensor, int]] = deque([(ins[1], 0)])
    seen: set[Tensor] = set()
    lr = applied = None
    while queue and len(seen) < 96:
        (j, slot), hops = queue.popleft()
        if j < 0 or (j, slot) in seen:
            continue
        seen.add((j, slot))
        typ = flow.op_type[j]
        if typ in READS:
            earlier = [a for a in last_assign.get(flow.handle[j] or "", []) if a < j]
            if earlier and len(flow.inputs[earlier[-1]]) > 1:
                queue.append((flow.inputs[earlier[-1]][1], hops + 1))
            continue
        s = sig_class(sig_f((j, slot)))  # type: ignore[operator]
        if flow.phase[j] == BWD and s == want:
            grad = _traced(flow, (j, slot), traced)
            # the applied gradient only when it is computed from this one (a tensor
            # without a recorded producer proves nothing)
            if applied is None or grad is None or not _depends(flow, applied, grad[0]):
                applied = grad
            return grad, lr, applied
        if typ in ("Mul", "RealDiv") and lr is None:
            a, b = (flow.inputs[j] + [(-1, 0), (-1, 0)])[:2]
            for x, y in ((a, b), (b, a)):  # the scalar times the gradient, not a slot
                sx = sig_f(x) if x[0] >= 0 else (-1, -1, -1)  # type: ignore[operator]
                sy = sig_f(y) if y[0] >= 0 else (-1, -1, -1)  # type: ignore[operator]
                y_grad = y[0] < 0 or (sy[1] != 0 and flow.op_type[y[0]] not in READS)
                if (x[0] >= 0 and sx[1] == 0 and sx[0] in _FLOATS and y_grad
                        and not _constant(flow, x[0])):
                    lr = _traced(flow, x, traced)
                    if y[0] >= 0 and sig_class(sy) == want:
                        applied = _traced(flow, y, traced)
                    break
        if typ == "IdentityN":  # output k is input k: the other inputs are other tensors
            if slot < len(flow.inputs[j]):
                queue.append((flow.inputs[j][slot], hops + 1))
        elif typ in _PASS or flow.phase[j] == OPT:
            queue.extend((i, hops + 1) for i in flow.inputs[j])
    return None, lr, None


def _depends(flow: Flow, t: Tensor, k: int) -> bool:
    """Whether tensor `t` is computed from node `k` (within a few dozen ops)."""
    todo, seen = [t[0]], set[int]()
    while todo and len(seen) < 96:
        j = todo.pop()
        if j == k:
            return True
        if j < 0 or j in seen:
            continue
        seen.add(j)
        todo.extend(i for i, _ in flow.inputs[j])
    return False


def _constant(flow: Flow, k: int, depth: int = 0) -> bool:
    """Whether node k's value comes from constants alone (a coefficient, not a rate)."""
    if flow.op_type[k] == "Const":
        return True
    ins = [j for j, _ in flow.inputs[k]]
    if not ins or depth > 6 or any(j < 0 for j in ins):
        return False
    return all(_constant(flow, j, depth + 1) for j in ins)


def _raw(flow: Flow, t: Tensor, want: Sig, sig_f: object, traced: np.ndarray
         ) -> Tensor | None:
    """The first backward-pass tensor shaped like the variable up `t`'s chain (`t` itself
    when it is one): what the gradient was before clipping or scaling."""
    queue: deque[Tensor] = deque([t])
    seen: set[Tensor] = set()
    while queue and len(seen) < 96:
        j, slot = queue.popleft()
        if j < 0 or (j, slot) in seen:
            continue
        seen.add((j, slot))
        if flow.op_type[j] in READS:
            continue
        if flow.phase[j] == BWD and sig_class(sig_f((j, slot))) == want:  # type: ignore[operator]
            return _traced(flow, (j, slot), traced)
        if flow.op_type[j] == "IdentityN":
            if slot < len(flow.inputs[j]):
                queue.append(flow.inputs[j][slot])
        else:
            queue.extend(flow.inputs[j])
    return _traced(flow, t, traced)


def _traced(flow: Flow, t: Tensor, traced: np.ndarray) -> Tensor | None:
    """`t`, or the first recorded tensor up its chain of Identity/Cast-like ops."""
    node, slot = t
    hops = 0
    while node >= 0 and hops < 8:
        if slot < traced.shape[1] and traced[node, slot]:
            return node, slot
        if flow.op_type[node] not in ("Identity", "IdentityN", "Snapshot", "Cast") \
                or not flow.inputs[node]:
            return None
        node, slot = flow.inputs[node][0 if flow.op_type[node] != "IdentityN" else slot]
        hops += 1
    return None


def _tape_gradients(flow: Flow, roles: Roles, consumers: list[list[int]], sig: object,
                    traced: np.ndarray) -> None:
    """Gradients without a recorded path to the update (eager tape results): the terminal
    backward tensors shaped like each variable, last layer first."""
    missing = [h for h in roles.variables if h not in roles.grad]
    if not missing:
        return
    taken = set(roles.grad.values())
    terminal: list[Tensor] = []
    for k in range(len(flow)):
        if flow.phase[k] != BWD or not traced[k, 0]:
            continue
        if any(flow.phase[c] == BWD for c in consumers[k]):
            continue
        for s in range(traced.shape[1]):
            if traced[k, s] and (k, s) not in taken:
                terminal.append((k, s))
    by_sig: dict[Sig, list[Tensor]] = {}
    for t in terminal:
        by_sig.setdefault(sig_class(sig(t)), []).append(t)  # type: ignore[operator]
    wanted: dict[Sig, list[str]] = {}
    for h in roles.variables:
        wanted.setdefault(sig_class(roles.sig[h]), []).append(h)
    for key, hs in wanted.items():
        cands = by_sig.get(key, [])[::-1]  # backprop reaches the first layer last
        free = [h for h in hs if h not in roles.grad]
        if len(cands) >= len(hs):
            got = cands[:len(hs)]
            for h, t in zip(hs, got, strict=True):
                if h in free:
                    roles.grad[h] = t


MAX_CHAIN = 48  # tensors of a learning-rate schedule looked at


def _lr_chain(flow: Flow, lr: Tensor, trained: set[str], sig: object, traced: np.ndarray
              ) -> list[Tensor]:
    """The float scalars the learning rate is computed from, in dataflow order: what feeds
    it, not reads of trained variables (a schedule reads the step counter, never a weight),
    nor the gradient path; bounded by MAX_CHAIN."""
    seen: set[int] = set()
    todo = [lr[0]]
    while todo and len(seen) < MAX_CHAIN:
        k = todo.pop()
        if k < 0 or k in seen or flow.phase[k] == BWD:
            continue
        if flow.op_type[k] in READS and flow.handle[k] in trained:
            continue
        seen.add(k)
        todo.extend(j for j, _ in flow.inputs[k])
    out = []
    for k in sorted(seen):
        if (k, 0) == lr or not traced[k, 0] or flow.op_type[k] in _SHAPE_ONLY:
            continue
        s = sig((k, 0))  # type: ignore[operator]
        if s[0] in _FLOATS and s[1] == 0:
            out.append((k, 0))
    return out
