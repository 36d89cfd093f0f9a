"""Stage 3, non-trainable state: batch normalization's moving statistics of the two runs
paired for each step, as the step first reads them (what the previous step's update left).

TF1's `tf.nn.batch_normalization` and Keras read a layer's moving mean and variance in
opposite orders, and both are vectors of one shape: they pair by what the step does with
each first (a variance is added to epsilon, a mean multiplied; a fused kernel's operand),
then what is left by signature, in forward order.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

import numpy as np

from tfdbg_tui.core.compare.contract.dataflow import Flow
from tfdbg_tui.core.compare.contract.model import RunModel, _name
from tfdbg_tui.core.compare.contract.quantities import Q_STATE
from tfdbg_tui.core.compare.contract.roles import Roles
from tfdbg_tui.core.compare.contract.state_outside import OutsideState, Write
from tfdbg_tui.core.compare.contract.tensors import sig_class

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.pairing import StepPairs


def pair_state(out: StepPairs, k: int, ma: RunModel, mb: RunModel) -> None:
    """Non-trainable state after step k - 1's update (as step k first reads it), paired by
    forward order and dtype class and shape; its line is the update's. At the last step,
    which no step reads after, the state as it writes it (`_pair_written`)."""
    ea, eb = _entries(ma, k), _entries(mb, k)
    if k == ma.n_steps - 1 or k == mb.n_steps - 1:
        _pair_written(out, k, ma, ea, mb, eb)
    if k == 0:
        return
    _, _, ra = ma.steps[k]
    _, _, rb = mb.steps[k]
    # whether each run moves its statistics, seen in step k's own update (step 0's rows of
    # a graph also hold what ran before it: the restore's assignments), or between steps
    moved_a = [h for h in _inside(ma, ra) if _moves(ma, k, ra, h)] + [
        o.key for o in ma.outside if o.writes]
    moved_b = [h for h in _inside(mb, rb) if _moves(mb, k, rb, h)] + [
        o.key for o in mb.outside if o.writes]
    if bool(moved_a) != bool(moved_b) and k == 1:
        # one run moves statistics the other never moves: where both have them, what each
        # step reads of them is compared (below: the one never moved keeps its initial
        # value, said in a note where that value stands in for a read); else nothing to
        # compare them to
        side, other = ("B", "A") if moved_b else ("A", "B")
        what = ", ".join(_state_name(h) for h in moved_b or moved_a)
        still = (ra, ma) if moved_b else (rb, mb)
        unread = any(still[1].row(k, still[0].state_read[h]) is None
                     for h in _inside(still[1], still[0]))
        if not (ea and eb):
            _alone(out, ma, ea, mb, eb, "A" if ea else "B")
        elif unread:
            out.notes.append(
                f"{side} updates non-trainable state ({what}) that {other} never updates "
                f"in its steps: a batch norm's moving statistics — is {other}'s update "
                "running (UPDATE_OPS in TF1, `training=True` in Keras)? — or an average or "
                f"a copy of the weights {other} does not keep (or keeps in its optimizer: "
                "Keras' `use_ema`)")
    for i, j in _match(ea, eb):
        (ha, ia), (hb, ib) = ea[i][:2], eb[j][:2]
        name = ma.names.get(ha) or _name(ha, i).replace("variable", "state")
        got = out.add(_read(ma, k, ha, ia, moved_a), _read(mb, k, hb, ib, moved_b), k - 1,
                      Q_STATE, f"{name} after step {k - 1}'s update")
        if got < 0:
            continue
        for where, model, h, o in ((out.where_a, ma, ha, ia), (out.where_b, mb, hb, ib)):
            at = _update_at(model, k - 1, h, o)
            if at is not None:
                where[got] = at


def _alone(out: StepPairs, ma: RunModel, ea: list[Entry], mb: RunModel, eb: list[Entry],
           side: str) -> None:
    """State only one run keeps — it updates it and the other run has no state at all: an
    average of the weights or a copy of them dropped in the migration (or added). Both
    trainings may agree, yet the programs leave different things (the averaged weights an
    evaluation reads), so it is a divergence at step 0, the state as step 0 writes it (else as
    step 1 reads it) shown beside the other run's first weight after step 0 (`alone`:
    judged different whatever the values), at the line that writes the state."""
    model, entries, other = (ma, ea, mb) if side == "A" else (mb, eb, ma)
    _, _, ro = other.steps[1]
    near = next((other.row(1, ro.read[h]) for h in ro.variables
                 if other.row(1, ro.read.get(h)) is not None), None)
    if near is None:
        return
    for i, e in enumerate(entries):
        w = _written(model, 0, e)
        mine = w.value if w is not None and w.value is not None else _read(
            model, 1, e[0], e[1], [e[0]])
        if mine is None:
            continue
        name = model.names.get(e[0]) or _name(e[0], i).replace("variable", "state")
        label = (f"{name}: state in {side} only ({'B' if side == 'A' else 'A'} keeps no "
                 "such state)")
        a, b = (mine, near) if side == "A" else (near, mine)
        got = out.add(a, b, 0, Q_STATE, label)
        if got < 0:
            continue
        out.alone.append(got)
        at = _update_at(model, 0, e[0], e[1])
        if at is not None:
            (out.where_a if side == "A" else out.where_b)[got] = at


@dataclass(frozen=True)
class Derived:
    """A pair whose `side` ("A" or "B") holds an amount: its value after is `before` (the
    (kind, row) of the value the step read) plus `sign` times the amount
    (`..derived_state` judges it)."""

    side: str
    before: tuple[int, int]
    sign: float


# a step's state: (handle, the `RunModel.outside` entry or None, (signature, first use))
Entry = tuple[str, "OutsideState | None", tuple[tuple[int, int, int], tuple[str, int]]]


def _entries(model: RunModel, k: int) -> list[Entry]:
    """Step k's state: what its own ops update (`roles.state`), then what is written
    between steps (`state_outside`)."""
    _, _, roles = model.steps[k]
    out: list[Entry] = [(h, None, (sig_class(_state_sig(model, k, roles, h)),
                                   _state_use(model, k, roles, h)))
                        for h in _inside(model, roles)]
    out += [(o.key, o, (sig_class(o.sig), ("", -1))) for o in model.outside]
    return out


def _inside(model: RunModel, roles: Roles) -> list[str]:
    """The state a step's own ops write, less what is judged as written between steps (an
    eager step's state written after its update: `state_outside._written_after`)."""
    between = {o.key for o in model.outside}
    return [h for h in roles.state if h not in between]


def _match(ea: list[Entry], eb: list[Entry]) -> list[tuple[int, int]]:
    """Pairs of entries by signature and what the step does with the statistic first (a
    moving variance is added to epsilon, a moving mean multiplied or subtracted: TF1 and
    Keras read the two in opposite orders), then what is left by signature alone, in
    order."""
    sig_a = [e[2] for e in ea]
    sig_b = [e[2] for e in eb]
    pairs: list[tuple[int, int]] = []
    m = SequenceMatcher(None, sig_a, sig_b, autojunk=False)
    for block in m.get_matching_blocks():
        pairs += [(block.a + i, block.b + i) for i in range(block.size)]
    done_b = {j for _, j in pairs}
    done_a = {i for i, _ in pairs}
    for i, (sa, _) in enumerate(sig_a):
        if i in done_a:
            continue
        j = next((j for j, (sb, _) in enumerate(sig_b) if j not in done_b and sb == sa), -1)
        if j >= 0:
            pairs.append((i, j))
            done_b.add(j)
    return sorted(pairs)


def _read(model: RunModel, k: int, h: str, o: OutsideState | None, moved: list[str]
          ) -> tuple[int, int] | None:
    """Entry `h` as step k reads it: its first read in the step, or, for state written
    between steps that step k does not read, the value step k - 1 assigned it."""
    if o is None:
        return _state_value(model, k, model.steps[k][2], h, moved)
    got = o.reads.get(k)
    if got is None and (w := o.writes.get(k - 1)) is not None and w.how == "set":
        got = w.value
    return got


def _update_at(model: RunModel, k: int, h: str, o: OutsideState | None
               ) -> tuple[Flow | None, int] | None:
    """Where step k's update of entry `h` is (its line is the state's)."""
    if o is not None:
        w = o.writes.get(k)
        return w.where if w is not None else None
    flow, _, roles = model.steps[k]
    node = roles.state_update.get(h)
    return (flow, node) if node is not None else None


def _pair_written(out: StepPairs, k: int, ma: RunModel, ea: list[Entry], mb: RunModel,
                  eb: list[Entry]) -> None:
    """The last step's state as it writes it — the value assigned, or the amount added or
    subtracted when both runs add or subtract (the value before is compared at the step
    that reads it) — since no later step reads it."""
    unlike: list[tuple[str, str, str]] = []  # (name, how A writes it, how B does)
    for i, j in _match(ea, eb):
        wa, wb = _written(ma, k, ea[i]), _written(mb, k, eb[j])
        if wa is not None and wb is not None and wa.how != wb.how:
            # one run assigns the new value, the other adds or subtracts an amount: the two
            # recorded tensors are different quantities, and no step reads the result —
            # unless the amount's run read the value before (`derived_state`)
            if not _derived(out, k, ma, ea[i], wa, mb, eb[j], wb, i):
                unlike.append((ma.names.get(ea[i][0]) or _name(ea[i][0], i).replace(
                    "variable", "state"), wa.how, wb.how))
        if wa is None or wb is None or wa.how != wb.how:
            continue
        h = ea[i][0]
        name = ma.names.get(h) or _name(h, i).replace("variable", "state")
        label = (f"{name} after step {k}'s update" if wa.how == "set"
                 else f"{name}: step {k}'s {'increment' if wa.how == 'add' else 'decrement'}")
        got = out.add(wa.value, wb.value, k, Q_STATE, label)
        if got >= 0:
            out.where_a[got] = wa.where
            out.where_b[got] = wb.where
    if unlike:
        names = [n for n, _, _ in unlike]
        verb = {"set": "assigns", "add": "adds to", "sub": "subtracts from"}
        how_a, how_b = (verb.get(x, x) for x in unlike[0][1:])
        out.notes.append(
            f"step {k}'s state is not compared ({', '.join(names[:4])}"
            f"{f' and {len(names) - 4} more' if len(names) > 4 else ''}): A {how_a} it and "
            f"B {how_b} it — the recorded tensors are the new value and the amount, not one "
            f"quantity — and neither run reads it after step {k}")


def _derived(out: StepPairs, k: int, ma: RunModel, ea: Entry, wa: Write, mb: RunModel,
             eb: Entry, wb: Write, i: int) -> bool:
    """Pair the last step's state one run assigns (`set`) with the other's amount, when that
    other run's own step read the value before (state its step's ops write: its first read
    in the step): judged as `before ± amount` against the value (`derived_state`)."""
    if "set" not in (wa.how, wb.how) or wa.value is None or wb.value is None:
        return False
    side, model, e, w = ("B", mb, eb, wb) if wa.how == "set" else ("A", ma, ea, wa)
    if w.how not in ("add", "sub") or e[1] is not None:
        return False
    roles = model.steps[k][2]
    if e[0] not in roles.state_read:
        return False
    before = model.row(k, roles.state_read[e[0]])
    if before is None:
        return False
    name = ma.names.get(ea[0]) or _name(ea[0], i).replace("variable", "state")
    how = "minus the amount it subtracts" if w.how == "sub" else "plus the amount it adds"
    got = out.add(wa.value, wb.value, k, Q_STATE, f"{name} after step {k}'s update ({side}'s: "
                  f"its value before {how})")
    if got < 0:
        return False
    out.derived[got] = Derived(side, before, -1.0 if w.how == "sub" else 1.0)
    out.where_a[got] = wa.where
    out.where_b[got] = wb.where
    return True


def _written(model: RunModel, k: int, e: Entry) -> Write | None:
    h, o, _ = e
    if o is not None:
        return o.writes.get(k)
    return model.written[k].get(h) if k < len(model.written) else None


def _state_value(model: RunModel, k: int, roles: Roles, h: str, moved: list[str]
                 ) -> tuple[int, int] | None:
    """A statistic as step k reads it; for one its run never updates and whose read did not
    run (a TF1 batch norm in training mode reads its statistics only in their updates), the
    value its initializer gave it, which it keeps."""
    got = model.row(k, roles.state_read[h])
    if got is None and h not in moved:
        got = model.steps[k][0].init.get(h)
    return got


_STATE_PASS = frozenset({"Identity", "Cast", "Reshape", "Squeeze", "ExpandDims"})


def _state_use(model: RunModel, k: int, roles: Roles, h: str) -> tuple[str, int]:
    """(op type, operand) of the first op that uses a statistic's read, through casts and
    reshapes: `AddV2` for a variance plus epsilon, slot 3 or 4 of a fused batch norm. A
    graph's steps share one flow: its uses are found once (`model.cache`)."""
    flow, _, _ = model.steps[k]
    node = roles.state_read[h][0]
    key = ("state_use", id(flow))
    found = model.cache.get(key)
    if found is None or len(found) != len(flow):
        found = model.cache[key] = _first_uses(flow)
    for _ in range(8):
        c = int(found[node, 0]) if 0 <= node < len(flow) else -1
        if c < 0:
            return ("", -1)
        if flow.op_type[c] not in _STATE_PASS:
            return (flow.op_type[c], int(found[node, 1]))
        node = c
    return ("", -1)


def _first_uses(flow: Flow) -> np.ndarray:
    """Per node, (the first node consuming it, the operand it takes it as); -1 for none."""
    out = np.full((len(flow), 2), -1, np.int64)
    for c, ins in enumerate(flow.inputs):
        for s, (j, _) in enumerate(ins):
            if 0 <= j < len(flow) and out[j, 0] < 0:
                out[j] = (c, s)
    return out


def _state_sig(model: RunModel, k: int, roles: Roles, h: str) -> tuple[int, int, int]:
    flow, _, _ = model.steps[k]
    sigs = model.cache.get(("sig", id(flow)))
    if sigs is None:
        return (-1, -1, -1)
    node, slot = roles.state_read[h]
    s = sigs[node, slot]
    return (int(s[0]), int(s[1]), int(s[2]))


def _moves(model: RunModel, k: int, roles: Roles, h: str) -> bool:
    """Whether step k updates statistic `h`: the value its update assigns was computed (an
    assignment in a TF1 graph that no control dependency runs never is)."""
    node = roles.state_update.get(h)
    if node is None:
        return False
    flow, _, _ = model.steps[k]
    ins = flow.inputs[node]
    if len(ins) < 2 or ins[1][0] < 0:
        return True  # a value without a recorded producer (eager): assume it ran
    return model.row(k, ins[1]) is not None


def _state_name(h: str) -> str:
    """A statistic's name as its run knows it (`bn/moving_mean`, or the scope of the op that
    reads it in a Keras function graph); `state N` in an eager run."""
    if h.startswith("id:"):
        return "a moving statistic"
    name = h.split("/", 1)[1] if "/" in h else h
    return name.split("/ReadVariableOp")[0]

