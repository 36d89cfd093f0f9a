"""Stage 3, the learning rate: the rate each variable's update consumes, paired with the rate
its partner's update consumes.

One optimizer for the whole model makes one rate per step, and one pair says it. Two
optimizers for two parts of a model (Adam at 0.01 for an encoder, momentum at 0.1 for a head)
make a rate per part: the step's most common rate against the other run's says nothing of a
variable handed to the other optimizer (the encoder's bias under the head's), whose rate is
0.1 against 0.01 while its gradient agrees — the rate comes before the update in the step
contract, and is where that mistake is first seen. So where either run's updates consume more
than one rate tensor, each variable pair's two rates are paired (a tensor pair two variables
share is one pair); a variable whose rate one run does not say (Adam's folded into its bias
corrections) has none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.quantities import Q_LR
from tfdbg_tui.core.compare.contract.roles import Roles

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.pairing import StepPairs


def pair_rates(out: StepPairs, k: int, ma: RunModel, ra: Roles, mb: RunModel, rb: Roles,
               vp: list[tuple[str, str]]) -> None:
    """Add step `k`'s learning-rate pairs to `out` (see the module docstring)."""
    several = len(set(ra.lr_of.values())) > 1 or len(set(rb.lr_of.values())) > 1
    per = [(ha, ma.row(k, ra.lr_of.get(ha)), mb.row(k, rb.lr_of.get(hb))) for ha, hb in vp]
    per = [(ha, a, b) for ha, a, b in per if a is not None and b is not None]
    if not several or not per:
        out.add(ma.row(k, ra.lr), mb.row(k, rb.lr), k, Q_LR, "learning rate")
        return
    for ha, a, b in per:
        name = ma.names.get(ha, ha)
        out.add(a, b, k, Q_LR, f"learning rate applied to {name}", name)
