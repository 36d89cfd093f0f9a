"""Stage 2, the optimizer's side, where the recorded links end: eager gradients that no
recorded path ties to their variable's update (the tape's results, an optimizer's clipping
through an `Identity` tfdbg never records). Apart from `update_roles`, which follows the
links that exist, because these rules guess from order and shape and must say so: each
takes a tensor only where its count per signature is the count of variables lacking one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reader import EAGER
from tfdbg_tui.core.compare.contract.dataflow import BWD, OPT, Flow, value_input
from tfdbg_tui.core.compare.contract.tape_order import tape_order
from tfdbg_tui.core.compare.contract.tensors import FLOATS, Sig, Tensor, sig_class
from tfdbg_tui.core.compare.contract.update_roles import backward_start

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.roles import Roles


def tape_gradients(flow: Flow, roles: Roles, consumers: list[list[int]], sig: object,
                    traced: np.ndarray, loss: int | None = None) -> None:
    """Gradients without a recorded path to the update (eager tape results): the terminal
    backward tensors shaped like each variable, in the order the tape completes them
    (`tape_order`, from the loss node `loss`), else last layer first."""
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
    done = tape_order(flow, roles, consumers, loss) if flow.kind == EAGER else {}
    for key, hs in wanted.items():
        cands = by_sig.get(key, [])[::-1]  # backprop reaches the first layer last
        free = [h for h in hs if h not in roles.grad]
        if free and all(h in done for h in free):
            # the order the tape completes them in, whatever the forward order (a PReLU's
            # slopes are negated before the layer's input exists, yet the tape reaches
            # them before the bias that input was made with)
            free = sorted(free, key=lambda h: done[h], reverse=True)
        if free and len(cands) >= len(free):
            for h, t in zip(free, cands[:len(free)], strict=True):
                roles.grad[h] = t


def unlinked_applied(flow: Flow, roles: Roles, consumers: list[list[int]], sig: object,
                     traced: np.ndarray) -> None:
    """Gradients the optimizer transformed where the link to the update is lost (eager
    only): Keras clips (`clipnorm`, `global_clipnorm`) in eager code whose result reaches the
    update through an `Identity`, an op tfdbg never records, so the update consumes a tensor
    without a producer. The clipped gradients are then the optimizer's float tensors shaped
    like a variable that nothing recorded consumes, made in the order the updates run; they
    are taken only when their number per signature is the number of variables lacking one."""
    if flow.kind != EAGER:
        return
    lacking = sorted((roles.update[h], h) for h in roles.variables
                     if h not in roles.applied and h in roles.update)
    if not lacking:
        return
    start = backward_start(flow)
    last = max(k for k, _ in lacking)
    orphans: dict[Sig, list[Tensor]] = {}
    for k in range(max(start, 0), last):
        if flow.phase[k] != OPT or not traced[k, 0] or consumers[k]:
            continue
        s = sig_class(sig((k, 0)))  # type: ignore[operator]
        if s[0] in FLOATS and s[1] > 0:
            orphans.setdefault(s, []).append((k, 0))
    wanted: dict[Sig, list[str]] = {}
    for _, h in lacking:
        wanted.setdefault(sig_class(roles.sig[h]), []).append(h)
    for key, hs in wanted.items():
        got = orphans.get(key, [])
        if len(got) != len(hs):
            continue
        pairs = list(zip(hs, got, strict=True))
        if all(t[0] < roles.update[h] for h, t in pairs):
            for h, t in pairs:
                roles.applied[h] = t
    # nothing the optimizer made stands in between: where no orphan of a variable's shape
    # exists and nothing recorded consumed its raw gradient, the tensor without a producer
    # that the update consumes is the raw gradient passed through an Identity (a clipping
    # would have read it: its norm, its product)
    for _, h in lacking:
        raw = roles.grad.get(h)
        if (h not in roles.applied and raw is not None
                and not orphans.get(sig_class(roles.sig[h]))
                and all(flow.phase[c] == BWD for c in consumers[raw[0]])
                and any(j < 0 for j, _ in _update_inputs(flow, roles.update[h]))):
            roles.applied[h] = raw


def _update_inputs(flow: Flow, update: int) -> list[Tensor]:
    """The tensors an update's value is computed from, one op deep (the value itself and
    its producer's inputs): where an unrecorded input shows."""
    ins = flow.inputs[update]
    v = value_input(flow.op_type[update])
    if len(ins) <= v:
        return []
    j = ins[v][0]
    return [ins[v]] + (list(flow.inputs[j]) if j >= 0 else [])
