"""Stage 2, the optimizer's side: from each variable's update back to what it consumed — the
gradient as applied, the raw gradient the backward pass made (clipping or scaling between
them, in user code or inside the optimizer), and the learning rate with the schedule's
computation of it. Roles come from dataflow only: a constant is never the learning rate
(Adam's 1 - beta_1 is a coefficient), whatever its value.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np

from reader import EAGER
from tfdbg_tui.core.compare.contract.accumulators import assigned_before, holds_gradients
from tfdbg_tui.core.compare.contract.dataflow import (
    APPLY,
    BWD,
    OPT,
    READS,
    UPDATES,
    Flow,
    value_input,
)
from tfdbg_tui.core.compare.contract.rate_factor import divides, held_rate
from tfdbg_tui.core.compare.contract.tensors import FLOATS, SHAPE_ONLY, Sig, Tensor, sig_class

if TYPE_CHECKING:
    pass


_PASS = frozenset({"Identity", "IdentityN", "Cast", "Neg", "Mul", "Sub", "AddV2", "Add",
                   "RealDiv", "StopGradient", "Snapshot"})


def walk(flow: Flow, update: int, var_sig: Sig, sig: object, last_assign: dict[str, list[int]],
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
        raw = (_raw(flow, ins[gi], want, sig_f, traced, last_assign) if gi < len(ins)
               else None)
        return raw, lr, applied
    v = value_input(t)
    if len(ins) <= v:
        return None, None, None
    # each tensor with whether the update is divided by it (a divisor's scalar, a bias
    # correction, is no rate: `rate_factor`)
    queue: deque[tuple[Tensor, bool]] = deque([(ins[v], False)])
    seen: set[Tensor] = set()
    lr = applied = None
    # in an eager step, what the optimizer consumed was made after the backward pass began:
    # an earlier producer (an initializer's op before step 0) is a tensor id seen again,
    # not this step's rate or gradient
    floor = backward_start(flow) if flow.kind == EAGER else -1
    while queue and len(seen) < 96:
        (j, slot), inv = queue.popleft()
        if j < 0 or (j, slot) in seen:
            continue
        seen.add((j, slot))
        typ = flow.op_type[j]
        if typ in READS:
            before = assigned_before(flow, j, last_assign)
            if before is not None:
                queue.append((before, inv))
            continue
        s = sig_class(sig_f((j, slot)))  # type: ignore[operator]
        if flow.phase[j] == BWD and s == want:
            grad = _traced(flow, (j, slot), traced)
            # the applied gradient only when it is computed from this one (a tensor
            # without a recorded producer proves nothing)
            if (applied is None or grad is None
                    or not _depends(flow, applied, grad[0], last_assign)):
                applied = grad
            return grad, lr, applied
        # a scalar product is a schedule's own arithmetic (0.01 * decay ** p, with the
        # 0.01 an unrecorded Python constant), never the rate times a variable's gradient
        if (typ in ("Mul", "RealDiv") and lr is None and not inv
                and not (s[1] == 0 and want[1] != 0)):
            a, b = (flow.inputs[j] + [(-1, 0), (-1, 0)])[:2]
            # the scalar times the gradient, not a slot; a numerator's, not a divisor's
            for x, y in ((a, b), (b, a))[:1 if typ == "RealDiv" else 2]:
                if y[0] >= 0:  # through an unrecorded Identity(N): Keras passes its clipped
                    y = _traced(flow, y, traced) or y  # gradients through one in graphs
                if x[0] >= 0:  # and a tf.cond's rate (its If's output) through one too
                    x = _traced(flow, x, traced) or x
                sx = sig_f(x) if x[0] >= 0 else (-1, -1, -1)  # type: ignore[operator]
                sy = sig_f(y) if y[0] >= 0 else (-1, -1, -1)  # type: ignore[operator]
                # times a slot (`lr · m`), or a tensor computed from one (Nesterov's
                # `lr_t · (β₁m + (1 − β₁)g)`): the rate only when the optimizer holds it
                moment = sy[1] != 0 and (flow.op_type[y[0]] in READS or _reads_slot(
                    flow, y[0], flow.handle[update], last_assign))
                y_grad = y[0] < 0 or (sy[1] != 0 and not moment)
                y_slot = moment and held_rate(flow, x, last_assign)
                if (x[0] > floor and sx[1] == 0 and sx[0] in FLOATS and (y_grad or y_slot)
                        and not _constant(flow, x[0])):
                    lr = _traced(flow, x, traced)
                    if (y[0] > floor and sig_class(sy) == want
                            and not _reads_any(flow, y[0], last_assign)):
                        applied = _traced(flow, y, traced)
                    break
        if typ == "IdentityN":  # output k is input k: the other inputs are other tensors
            if slot < len(flow.inputs[j]):
                queue.append((flow.inputs[j][slot], inv))
        elif typ in _PASS or flow.phase[j] == OPT:
            queue.extend((i, inv != divides(typ, n)) for n, i in enumerate(flow.inputs[j]))
    # no recorded path to the backward pass (eager tape results): the applied gradient
    # stands on its own when the optimizer computed it after the backward pass
    return None, lr, applied if floor >= 0 else None


MAX_AFTER = 512  # optimizer nodes looked at after a raw gradient


def applied_after(flow: Flow, raw: Tensor, update: int, want: Sig, sig: object,
                  traced: np.ndarray, consumers: list[list[int]]) -> Tensor | None:
    """The gradient as a graph's optimizer applied it when nothing multiplies it by the
    rate (Keras' Adam, RMSprop... clip inside `apply_gradients` with `clipnorm`): the
    tensor shaped like the variable, computed from the raw gradient without reading any
    variable, that every path from the raw gradient to the variable's update passes through
    (through the slots the optimizer assigns and reads back: Adam's m from the gradient, v
    from its square), the nearest to the raw gradient. Adam's `g - m` and `g²` are each on
    one path only, so without clipping the raw gradient is the one applied. None when no
    such tensor is found. A sparse update (a scatter into an embedding's rows: `-lr · g`
    of the rows looked up) is no optimizer that clips: what lies between is its own
    arithmetic, not a gradient applied."""
    if "Scatter" in flow.op_type[update]:
        return None
    reads_of: dict[str, list[int]] = {}
    for k, t in enumerate(flow.op_type):
        if t in READS and flow.handle[k]:
            reads_of.setdefault(flow.handle[k] or "", []).append(k)

    def after(k: int) -> list[int]:
        out = [c for c in consumers[k] if flow.phase[c] != BWD]
        if flow.op_type[k] in UPDATES and flow.handle[k]:  # a slot assigned, read back
            out += [r for r in reads_of.get(flow.handle[k] or "", []) if r > k]
        return out

    def reaches(avoid: int) -> tuple[bool, list[int]]:
        order, seen, todo = [], {raw[0]}, deque([raw[0]])
        while todo and len(seen) < MAX_AFTER:
            k = todo.popleft()
            for c in after(k):
                if c == update:
                    if avoid < 0:
                        order.append(c)
                        continue
                    return True, order
                if c != avoid and c not in seen:
                    seen.add(c)
                    order.append(c)
                    todo.append(c)
        return update in order, order

    found, order = reaches(-1)
    if not found:
        return None
    for k in order[:64]:
        if (k == update or flow.phase[k] == BWD or flow.op_type[k] == "IdentityN"
                or not traced[k, 0] or sig_class(sig((k, 0))) != want  # type: ignore[operator]
                or _reads_any(flow, k)):
            continue
        if not reaches(k)[0]:
            return (k, 0)
    return None


def _reads_any(flow: Flow, k: int, last_assign: dict[str, list[int]] | None = None) -> bool:
    """Whether node k is computed from a read of any variable outside the backward pass (a
    rate, a slot, the variable itself): then it is not the gradient alone. A variable the
    backward pass's tensors are assigned or added to (a gradient accumulator) holds
    gradients."""
    todo, seen = [k], set[int]()
    while todo and len(seen) < 64:
        j = todo.pop()
        if j < 0 or j in seen or flow.phase[j] == BWD:
            continue
        seen.add(j)
        if flow.op_type[j] in READS:
            if last_assign is None or not holds_gradients(flow, flow.handle[j], last_assign):
                return True
            continue
        todo.extend(i for i, _ in flow.inputs[j])
    return False


def _reads_slot(flow: Flow, k: int, own: str | None, last_assign: dict[str, list[int]]
                ) -> bool:
    """Whether node k is computed, outside the backward pass, from a read of an optimizer's
    slot: a variable the step assigns that is neither the updated variable `own` (decoupled
    weight decay's `g + λw` is still the gradient's side) nor a gradient accumulator. A
    read follows what was last assigned to its variable before it (`m.assign(...)` then
    `β₁ · m`: the slot, whatever it was assigned)."""
    todo, seen = [k], set[int]()
    while todo and len(seen) < 64:
        j = todo.pop()
        if j < 0 or j in seen or flow.phase[j] == BWD:
            continue
        seen.add(j)
        if flow.op_type[j] in READS:
            h = flow.handle[j]
            if (h and h != own and h in last_assign
                    and not holds_gradients(flow, h, last_assign)):
                return True
            continue
        todo.extend(i for i, _ in flow.inputs[j])
    return False


def backward_start(flow: Flow) -> int:
    """The first backward-pass node of a flow (-1: none; everything may be consumed)."""
    for k, phase in enumerate(flow.phase):
        if phase == BWD:
            return k
    return -1


def _depends(flow: Flow, t: Tensor, k: int, last_assign: dict[str, list[int]]) -> bool:
    """Whether tensor `t` is computed from node `k` (within a few dozen ops; a read holds
    what was last assigned to its variable before)."""
    todo: deque[Tensor] = deque([t])
    seen: set[int] = set()
    while todo and len(seen) < 256:
        j, slot = todo.popleft()
        if j == k:
            return True
        if j < 0 or j in seen:
            continue
        if flow.op_type[j] in READS:
            seen.add(j)
            held = assigned_before(flow, j, last_assign)
            if held is not None:
                todo.append(held)
            continue
        if flow.op_type[j] == "IdentityN":  # output k is input k (Keras' clipped gradients)
            if slot < len(flow.inputs[j]):
                todo.append(flow.inputs[j][slot])
            continue
        seen.add(j)
        todo.extend(flow.inputs[j])
    return False


def _constant(flow: Flow, k: int, depth: int = 0) -> bool:
    """Whether node k's value comes from constants alone (a coefficient, not a rate)."""
    if flow.op_type[k] == "Const":
        return True
    ins = [j for j, _ in flow.inputs[k]]
    if not ins or depth > 6 or any(j < 0 for j in ins):
        return False
    return all(_constant(flow, j, depth + 1) for j in ins)


def _raw(flow: Flow, t: Tensor, want: Sig, sig_f: object, traced: np.ndarray,
         last_assign: dict[str, list[int]]) -> Tensor | None:
    """The first backward-pass tensor shaped like the variable up `t`'s chain (`t` itself
    when it is one): what the gradient was before clipping or scaling. A variable read on
    the way (a gradient accumulator) holds what was last assigned to it before."""
    queue: deque[Tensor] = deque([t])
    seen: set[Tensor] = set()
    while queue and len(seen) < 96:
        j, slot = queue.popleft()
        if j < 0 or (j, slot) in seen:
            continue
        seen.add((j, slot))
        if flow.op_type[j] in READS:
            before = assigned_before(flow, j, last_assign)
            if before is not None:
                queue.append(before)
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


MAX_CHAIN = 48  # tensors of a learning-rate schedule looked at


def lr_chain(flow: Flow, lr: Tensor, trained: set[str], sig: object, traced: np.ndarray
              ) -> list[Tensor]:
    """The schedule evaluated at this step: the float scalars the learning rate is computed
    from that depend on the step counter (a read of a variable that is not trained), in
    dataflow order; bounded by MAX_CHAIN. Not the schedule's constants (decay steps,
    boundaries, an end rate: hyper-parameters, whose difference shows in the rate or in what
    the step counter makes of them at the step where it matters), nor reads of trained
    variables (a schedule reads the step counter, never a weight), nor the gradient path."""
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
    varying: set[int] = set()
    for k in sorted(seen):  # inputs before consumers (creation or execution order)
        if flow.op_type[k] in READS or any(j in varying for j, _ in flow.inputs[k]):
            varying.add(k)
    out = []
    for k in sorted(varying):
        if (k, 0) == lr or not traced[k, 0] or flow.op_type[k] in SHAPE_ONLY:
            continue
        s = sig((k, 0))  # type: ignore[operator]
        if s[0] in FLOATS and s[1] == 0:
            out.append((k, 0))
    return out
