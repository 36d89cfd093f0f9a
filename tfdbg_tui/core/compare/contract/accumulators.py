"""Stage 2, a helper: what a variable read holds, for the walk from an update back to its
gradient. A gradient accumulator (micro-batches' gradients summed into a variable, applied
once) stands between the backward pass and the update: its read holds gradients, not a
weight, a rate or an optimizer's slot.
"""

from __future__ import annotations

from tfdbg_tui.core.compare.contract.dataflow import BWD, READS, Flow, value_input
from tfdbg_tui.core.compare.contract.tensors import Tensor


def assigned_before(flow: Flow, read: int, last_assign: dict[str, list[int]]
                     ) -> Tensor | None:
    """The value last assigned to the variable a read reads, before it (None: none)."""
    earlier = [a for a in last_assign.get(flow.handle[read] or "", []) if a < read]
    if not earlier or len(flow.inputs[earlier[-1]]) <= value_input(flow.op_type[earlier[-1]]):
        return None
    return flow.inputs[earlier[-1]][value_input(flow.op_type[earlier[-1]])]


_ZEROS = frozenset({"Const", "ZerosLike", "Fill"})


def holds_gradients(flow: Flow, handle: str | None, assigns: dict[str, list[int]]) -> bool:
    """Whether a variable accumulates gradients: every assignment to it writes zeros, a
    backward-pass tensor (`assign_add(g)`), or itself plus one (`assign(acc + g)`), and one
    does. Adam's or momentum's slots are computed (`m + (g - m)(1 - b1)`): not these."""
    found = False
    for a in assigns.get(handle or "", []):
        v = value_input(flow.op_type[a])
        j = flow.inputs[a][v][0] if len(flow.inputs[a]) > v else -1
        if j < 0:
            return False
        ins = [i for i, _ in flow.inputs[j]]
        if flow.phase[j] == BWD or (
                flow.op_type[j] in ("AddV2", "Add") and len(ins) == 2 and min(ins) >= 0
                and {flow.phase[i] == BWD for i in ins} == {True, False}
                and any(flow.op_type[i] in READS and flow.handle[i] == handle for i in ins)):
            found = True
        elif flow.op_type[j] not in _ZEROS:
            return False
    return found
