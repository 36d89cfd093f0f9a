"""Variables one run trains and the other keeps frozen. A TF1 program reads a layer's
weights made with `trainable=False`; its rewrite leaves the layer trainable: both runs have
the variable, only one differentiates and updates it. That is where the runs part — at step
0, the gradient only one run takes — not the layer output a step later that the first
update changes, nor a variable "in B only" (it is in A, unchanged).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, UPDATES, Flow, value_input
from tfdbg_tui.core.compare.contract.quantities import Q_GRADIENT
from tfdbg_tui.core.compare.contract.tensors import FLOATS, sig_class

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.model import RunModel
    from tfdbg_tui.core.compare.contract.pairing import StepPairs
    from tfdbg_tui.core.compare.contract.roles import Roles


def frozen_reads(model: RunModel, flow: Flow) -> list[tuple[str, int]]:
    """(handle, first forward read) of the float variables a step reads and does not train,
    in forward order: not the step counter (an integer), and not state the step moves
    (batch norm's statistics: assigned from what the trained weights computed) — a frozen
    weight's only assignments are its initial value or a restore."""
    trained = model.training.trained
    sig = model.cache.get(("sig", id(flow)))
    moved = {flow.handle[k] for k, t in enumerate(flow.op_type)
             if t in UPDATES and flow.handle[k] and _from_trained(flow, k, trained)}
    seen: dict[str, int] = {}
    for k, t in enumerate(flow.op_type):
        h = flow.handle[k]
        if (t in READS and h and h not in trained and h not in moved and h not in seen
                and flow.phase[k] in FORWARD and sig is not None and sig[k][0][0] in FLOATS):
            seen[h] = k
    return list(seen.items())


def _from_trained(flow: Flow, k: int, trained: set[str]) -> bool:
    """Whether update k's value is computed (within a bounded walk) from a trained weight."""
    v = value_input(flow.op_type[k])
    todo = [j for j, _ in flow.inputs[k][v:v + 1]]
    seen: set[int] = set()
    while todo and len(seen) < 64:
        j = todo.pop()
        if j < 0 or j in seen:
            continue
        seen.add(j)
        if flow.op_type[j] in READS and flow.handle[j] in trained:
            return True
        todo.extend(i for i, _ in flow.inputs[j])
    return False


def pair_trained_one_side(out: StepPairs, ma: RunModel, ra: Roles, fa: Flow, mb: RunModel,
                          rb: Roles, fb: Flow, vp: list[tuple[str, str]]) -> set[str]:
    """Pair each variable one run trains without a partner with a variable the other run
    reads frozen, in forward order and of one dtype class and shape — all of them or none:
    the pair is that step-0 gradient (the frozen side: the variable's read, whose line
    creates it). Returns the handles so paired (no longer "in one run only")."""
    done: set[str] = set()
    for side, (m1, r1, f1), (m2, f2) in (("b", (mb, rb, fb), (ma, fa)),
                                         ("a", (ma, ra, fa), (mb, fb))):
        paired = {b for _, b in vp} if side == "b" else {a for a, _ in vp}
        lone = [h for h in r1.variables if h not in paired]
        frozen = frozen_reads(m2, f2)
        if not lone or len(frozen) != len(lone):
            continue
        sig1, sig2 = m1.cache.get(("sig", id(f1))), m2.cache.get(("sig", id(f2)))
        if sig1 is None or sig2 is None or any(
                sig_class(tuple(sig1[r1.read[h][0]][0])) != sig_class(tuple(sig2[k][0]))
                for h, (_, k) in zip(lone, frozen, strict=True)):
            continue
        for h, (hf, k) in zip(lone, frozen, strict=True):
            grad = m1.row(0, r1.grad.get(h))
            # the frozen side's value as made (its line: the one creating the variable,
            # `trainable=False`), else as the step reads it
            read = f2.init.get(hf) or m2.row(0, (k, 0))
            name = m1.names.get(h, h)
            frozen_name = m2.names.get(hf) or (hf.split("/", 1)[1] if "/" in hf else hf)
            other = "A" if side == "b" else "B"
            label = (f"gradient of {name}: {side.upper()} trains it, {other} keeps "
                     f"{frozen_name} frozen")
            got = (out.add(read, grad, 0, Q_GRADIENT, label, frozen_name) if side == "b"
                   else out.add(grad, read, 0, Q_GRADIENT, label, name))
            if got >= 0:
                out.one_sided.append(got)
                done.add(h)
    return done
