"""Stage 1's sorting of a step's variables by what their values are for: the *trained*
variables (read by the forward pass, updated from the gradients), the optimizer's own state
(moments, accumulators, step counters: updated, read only by other variables' updates), and
non-trainable state the forward pass updates itself (batch norm's moving statistics). The
loss is computed from the first kind only, so only it is a model variable.
"""

from __future__ import annotations

from tfdbg_tui.core.compare.contract.dataflow import (
    ASSIGNS,
    BWD,
    FORWARD,
    READS,
    STATE_REACH,
    UPDATES,
    Flow,
    float_update,
    reach,
    training_update,
)


def trained_handles(flow: Flow, dtype_of: dict[int, int]) -> set[str]:
    """Variables read by the forward pass and updated with a float value in the flow."""
    updated = {flow.handle[k] for k in range(len(flow))
               if flow.handle[k] and training_update(flow, k, dtype_of)}
    consumers: dict[int, list[int]] = {}
    for k, ins in enumerate(flow.inputs):
        for j, _ in ins:
            if j >= 0:
                consumers.setdefault(j, []).append(k)
    out = set()
    for k, t in enumerate(flow.op_type):
        h = flow.handle[k]
        if t in READS and h in updated:
            if any(flow.phase[c] in FORWARD and flow.op_type[c] not in UPDATES
                   and flow.op_type[c] not in READS for c in consumers.get(k, [])):
                out.add(h)
    for k, hs in flow.passes.items():  # a forward loop or call given the handle reads it
        if flow.phase[k] in FORWARD:
            out |= hs & updated
    found = {h for h in out if h is not None}
    return (found - optimizer_state(flow, found, consumers, dtype_of)
            - for_itself(flow, found, consumers))


def for_itself(flow: Flow, candidates: set[str], consumers: dict[int, list[int]]) -> set[str]:
    """Candidates whose recorded reads go only to their own next value: the loss is not
    computed from them, so they are no model variable, whatever an eager assignment's
    unrecorded operand was — a statistic of the gradients kept by an optimizer written by
    hand (`optimizer_state`), or an exponential moving average of the weights run eagerly
    (`ema.apply`: `shadow.assign_sub((shadow - w) * (1 - decay))`, w's value reaching it
    through no recorded read), state the step writes after its update (`state_outside`)."""
    reads: dict[str, list[int]] = {}
    for k, t in enumerate(flow.op_type):
        h = flow.handle[k]
        if t in READS and h in candidates:
            reads.setdefault(h, []).append(k)
    out = set()
    for h in candidates:
        todo = [c for k in reads.get(h, []) for c in consumers.get(k, [])]
        seen: set[int] = set()
        own = elsewhere = False
        while todo and not elsewhere and len(seen) < STATE_REACH:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            if flow.op_type[k] in UPDATES:
                own |= flow.handle[k] == h
                elsewhere |= flow.handle[k] != h
                continue
            more = consumers.get(k, [])
            # the backward pass, or a value nothing consumes (returned, printed, the loss)
            elsewhere |= flow.phase[k] == BWD or not more
            todo.extend(more)
        if own and not elsewhere and len(seen) < STATE_REACH:
            out.add(h)
    return out


def optimizer_state(flow: Flow, candidates: set[str], consumers: dict[int, list[int]],
                    dtype_of: dict[int, int]) -> set[str]:
    """Candidates that are the optimizer's state, not trained variables: what their reads
    compute reaches another variable's training update and never the backward pass. A
    gradient accumulator (summed over micro-batches, applied once) and a hand-written
    momentum are updated from the gradients and read in the user's code like a weight, but
    the loss is not computed from them — the gradient of a trained variable's read is. The
    walk goes on through the variables it assigns that are not candidates (Keras' momentum:
    the accumulated gradient makes the slot, the slot the update)."""
    reads: dict[str | None, list[int]] = {}
    for k, t in enumerate(flow.op_type):
        if t in READS:
            reads.setdefault(flow.handle[k], []).append(k)
    out = set()
    for h in candidates:
        seeds = reads.get(h, [])
        todo = [c for k in seeds for c in consumers.get(k, [])]
        seen: set[int] = set()
        feeds_update = backward = elsewhere = False
        own: list[int] = []  # its own updates the walk reached
        while todo and len(seen) < STATE_REACH:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            if flow.phase[k] == BWD:
                backward = True
                break
            if flow.op_type[k] in UPDATES:
                other = flow.handle[k]
                if other == h:
                    own.append(k)
                feeds_update |= (other in candidates and other != h
                                 and training_update(flow, k, dtype_of))
                elsewhere |= other != h
                if other and other not in candidates:
                    todo.extend(reads.get(other, []))
                continue
            more = consumers.get(k, [])
            elsewhere |= not more  # a value nothing consumes: returned, printed, the loss
            todo.extend(more)
        if backward or len(seen) >= STATE_REACH:
            continue
        # read only for its own next value, made from the gradients (`v.assign(0.999 * v +
        # 0.001 * g²)` by hand in an eager step, whose `tf.sqrt(v)` reads v through an
        # Identity tfdbg never records): a statistic of the gradients kept by the optimizer,
        # no value the loss is made from (not a moving average of the weights: it is made
        # from their reads, not from the backward pass)
        if feeds_update or (own and not elsewhere
                            and any(_from_backward(flow, k) for k in own)):
            out.add(h)
    return out


def _from_backward(flow: Flow, k: int) -> bool:
    """Whether update k's value is computed (within a few dozen ops, through no variable's
    read) from a backward-pass tensor."""
    todo = [j for j, _ in flow.inputs[k][1:]]
    seen: set[int] = set()
    while todo and len(seen) < 48:
        j = todo.pop()
        if j < 0 or j in seen or flow.op_type[j] in READS:
            continue
        seen.add(j)
        if flow.phase[j] == BWD:
            return True
        todo.extend(i for i, _ in flow.inputs[j])
    return False


def state_handles(flow: Flow, dtype_of: dict[int, int], trained: set[str]) -> set[str]:
    """Non-trainable state a step updates: variables assigned a float value in forward code
    (not from the gradients, not a metric's) and read by the forward pass — batch
    normalization's moving mean and variance. Not a variable the gradients are added to
    (a gradient accumulator, zeroed in forward code), nor one only trained variables'
    updates read (a hand-written optimizer's step counter): those are the optimizer's."""
    assigned, from_gradients = set(), set()
    for k in range(len(flow)):
        h = flow.handle[k]
        if not h or h in trained or flow.op_type[k] not in ASSIGNS:
            continue
        if training_update(flow, k, dtype_of):
            from_gradients.add(h)
        elif flow.phase[k] in FORWARD and float_update(flow, k, dtype_of):
            assigned.add(h)
    read = {flow.handle[k] for k in range(len(flow))
            if flow.op_type[k] in READS and flow.phase[k] in FORWARD}
    return {h for h in (assigned - from_gradients) & read
            if h is not None and not (reach(flow, h).optimizer_own
                                      and reach(flow, h).updates <= trained)}
