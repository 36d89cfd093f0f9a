"""Stage 2, a helper: which scalar of an update written as ops is its learning rate.

A fused apply op (`ResourceApplyAdaMax`) names its rate input; an update written as ops
(Keras' `Adamax`: `var -= lr · m / ((1 − β₁ᵗ)(u + ε))`) holds several scalars. The rate is
the one the update is *proportional* to: a scalar the update is divided by (the bias
correction `1 − β₁ᵗ` inside the divisor) is no rate, whatever its value. And a scalar that
multiplies an optimizer's slot rather than the gradient (`lr · m`) is the rate only when it
is what the optimizer holds as its rate — a variable the step reads and never writes (Keras'
`learning_rate`, a TF1 rate variable), not a product computed in the step (Adam's
`lr · √(1 − β₂ᵗ) / (1 − β₁ᵗ)`, a rate folded with corrections: unknown, never guessed).
"Never writes" is the step's own ops: an eager run's first step also holds what ran before
its forward pass (the optimizer's constructor assigning its rate variable its initial
value), and that write made the value the step reads, not a counter the step bumps.
"""

from __future__ import annotations

from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, Flow
from tfdbg_tui.core.compare.contract.tensors import Tensor

# ops dividing by their second input, and ops inverting their only input
_DIVIDES = frozenset({"RealDiv", "Div", "DivNoNan", "TruncateDiv", "Xdivy"})
_INVERTS = frozenset({"Reciprocal", "Inv", "Rsqrt"})


def divides(op_type: str, index: int) -> bool:
    """Whether op `op_type`'s output is inversely proportional to its input `index`."""
    return (op_type in _DIVIDES and index == 1) or op_type in _INVERTS


def held_rate(flow: Flow, t: Tensor, last_assign: dict[str, list[int]]) -> bool:
    """Whether tensor `t` is (through Identity/Cast) a read of a variable no op of the step
    writes: a rate the optimizer holds, not one the step computes or a counter it bumps."""
    j, hops = t[0], 0
    while j >= 0 and hops < 4 and flow.inputs[j] and \
            flow.op_type[j] in ("Identity", "Snapshot", "Cast"):
        j, hops = flow.inputs[j][0][0], hops + 1
    if j < 0 or flow.op_type[j] not in READS:
        return False
    h = flow.handle[j]
    start = next((k for k, p in enumerate(flow.phase) if p in FORWARD), 0)
    return bool(h) and all(a < start for a in last_assign.get(h or "", []))
