"""Stage 3: Pair two runs' training steps quantity by quantity, whatever form each run took.

Each run's steps come from `training.find_training`, each step's roles from `roles.analyse`. Then
step k of A pairs with step k of B, and within it:
- the **variables** pair by their order in the forward pass and their dtype class and shape
  (`difflib` on the signatures: a variable one side lacks stays unpaired without shifting
  the rest), or first by a user mapping (`--map`: name patterns from A to B): `variable_pairing`;
- step 0's `variable` quantity is each variable's initial value (the value assigned to it
  before its first read, when recorded — its line is the one that initialises it — else its
  first read); step k's `update` quantity is the variable read at step k + 1, i.e. its value
  after step k's update (the last step's update is seen only if the run reads it again);
- layer outputs pair by the set of paired variables they depend on, then by what each is
  (`layer_pairing`); the loss, the learning rate and each paired variable's gradient pair
  with theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from reader import GRAPH
from tfdbg_tui.core.compare.contract.dataflow import Flow
from tfdbg_tui.core.compare.contract.frozen_pairing import pair_trained_one_side
from tfdbg_tui.core.compare.contract.layer_pairing import pair_layer_outputs
from tfdbg_tui.core.compare.contract.loss_terms import comparable
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.penalty_pairing import pair_penalties
from tfdbg_tui.core.compare.contract.projections import projection
from tfdbg_tui.core.compare.contract.quantities import (
    Q_APPLIED,
    Q_GRADIENT,
    Q_LOSS,
    Q_LR,
    Q_UPDATE,
    Q_VARIABLE,
)
from tfdbg_tui.core.compare.contract.rate_pairing import pair_rates
from tfdbg_tui.core.compare.contract.roles import Roles
from tfdbg_tui.core.compare.contract.state_pairing import pair_state
from tfdbg_tui.core.compare.contract.tables import ById, key_tables, pair_tables
from tfdbg_tui.core.compare.contract.tensors import Tensor
from tfdbg_tui.core.compare.contract.variable_order import Features, SameValue, untangle
from tfdbg_tui.core.compare.contract.variable_pairing import Mapping, pair_variables

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.state_pairing import Derived
    from tfdbg_tui.core.compare.rates import RatePair

@dataclass
class StepPairs:
    """The paired quantities of two runs, as parallel lists (one entry per pair)."""

    kind_a: list[int] = field(default_factory=list)
    row_a: list[int] = field(default_factory=list)
    kind_b: list[int] = field(default_factory=list)
    row_b: list[int] = field(default_factory=list)
    step: list[int] = field(default_factory=list)
    quantity: list[int] = field(default_factory=list)
    label: list[str] = field(default_factory=list)
    var: list[str] = field(default_factory=list)  # A's variable a pair is of ("" if none)
    n_steps: int = 0
    variables: list[tuple[str, str]] = field(default_factory=list)  # paired names at step 0
    unpaired_a: list[str] = field(default_factory=list)
    unpaired_b: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # required quantities not recorded
    required: list[list[int]] = field(default_factory=list)  # per step: its pair ids
    # pairs standing for a variable one run lacks (with its neighbour in the other run):
    # divergences whatever their values (`compare` marks them)
    lacking: list[int] = field(default_factory=list)
    # pairs standing for a variable one run trains and the other keeps frozen: the gradient
    # only one run takes (`frozen_pairing`), divergences at step 0 whatever their values
    one_sided: list[int] = field(default_factory=list)
    # pairs standing for state only one run keeps (an average or a copy of the weights the
    # other does not have: `state_pairing._alone`), beside the other run's weights it
    # would be computed from: divergences at step 0 whatever their values
    alone: list[int] = field(default_factory=list)
    # layer pairs whose output one run transposes next, as a layer output of the same group
    # (a recurrent layer's time-major stack, then batch-major): pair id → (A's transposed
    # row or None, B's) — compared instead where the two layouts differ (`layer_pairing`)
    relaid: dict[int, tuple[tuple[int, int] | None, tuple[int, int] | None]] = field(
        default_factory=dict)
    # the last step's state one run assigns and the other subtracts or adds: pair id → how
    # the amount's run's value after is computed (`..derived_state`)
    derived: dict[int, Derived] = field(default_factory=dict)
    # pair → (flow, node) whose stack holds the line to show, when it is not the tensor's
    # own (a loss: where the loss function is called; an update: the optimizer's update op)
    # (None, i): eager execution i (an assignment made before a graph flow's first step)
    where_a: dict[int, tuple[Flow | None, int]] = field(default_factory=dict)
    where_b: dict[int, tuple[Flow | None, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # per step, its variable pairs (A's handle, B's); learning rates inferred from updates
    # ÷ gradients where no rate tensor was compared (`rates`: pair id → `RatePair`), and
    # per step why a run's rate could not be inferred
    var_pairs: list[list[tuple[str, str]]] = field(default_factory=list)
    rates: dict[int, RatePair] = field(default_factory=dict)
    rate_unknown: dict[int, str] = field(default_factory=dict)
    # updates that only one run projects after its optimizer's write (`projections`): pair
    # id → the run that does ("A" or "B")
    projected: dict[int, str] = field(default_factory=dict)
    # pairs of an embedding table's tensors the runs gathered differently, compared by id
    # (`tables`, `..keyed`): pair id → each side's ids
    by_id: dict[int, ById] = field(default_factory=dict)
    _seen: dict[tuple[int, int, int, int], int] = field(default_factory=dict, repr=False)

    def add(self, a: tuple[int, int] | None, b: tuple[int, int] | None, step: int, q: int,
            label: str, var: str = "") -> int:
        """Pair `a` with `b` as quantity `q` of `step` (`var`: A's variable it is of, if any);
        its id, or -1 when either side was not recorded."""
        if a is None or b is None:
            return -1
        key = (a[0], a[1], b[0], b[1])
        seen = self._seen.get(key)
        if seen is not None:  # one tensor pair, two roles (a gradient applied unclipped)
            return seen
        self._seen[key] = len(self.row_a)
        self.kind_a.append(a[0])
        self.row_a.append(a[1])
        self.kind_b.append(b[0])
        self.row_b.append(b[1])
        self.step.append(step)
        self.quantity.append(q)
        self.label.append(label)
        self.var.append(var)
        return len(self.row_a) - 1

    def find(self, a: tuple[int, int], b: tuple[int, int]) -> int | None:
        """The id of the pair of rows `a` and `b` (None: not paired)."""
        return self._seen.get((a[0], a[1], b[0], b[1]))


def pair_steps(ma: RunModel, mb: RunModel,
               mapping: Mapping | None = None,
               same: SameValue | None = None) -> StepPairs:
    """Pair the steps of two modelled runs (see the module docstring; `same` tells whether
    two variables hold equal values at step 0, for variables of one shape that what their
    values feed cannot tell apart: `variable_order`)."""
    out = StepPairs()
    features: dict[int, Features] = {}  # a graph's steps share their roles

    def feats(flow: Flow, roles: Roles) -> Features:
        if id(roles) not in features:
            features[id(roles)] = Features(flow, roles)
        return features[id(roles)]

    n = min(ma.n_steps, mb.n_steps)
    out.n_steps = n
    if ma.n_steps != mb.n_steps:
        out.notes.append(f"A has {ma.n_steps} training steps, B {mb.n_steps}: the first {n} "
                         "are compared")
    for k in range(n):
        _, _, ra = ma.steps[k]
        _, _, rb = mb.steps[k]
        vp = pair_variables(ma, ra, mb, rb, mapping or [])
        vp += pair_tables(vp, ma.steps[k][0], ra, mb.steps[k][0], rb)
        vp = untangle(vp, feats(ma.steps[k][0], ra), ra, feats(mb.steps[k][0], rb), rb, same,
                      ma.names, out.notes if k == 0 else [])
        out.var_pairs.append(vp)
        req: list[int] = []
        if k == 0:
            out.variables = [(ma.names.get(a, a), mb.names.get(b, b)) for a, b in vp]
            pa = {a for a, _ in vp}
            pb = {b for _, b in vp}
            out.unpaired_a = [ma.names.get(h, h) for h in ra.variables if h not in pa]
            out.unpaired_b = [mb.names.get(h, h) for h in rb.variables if h not in pb]
            fa, fb = ma.steps[0][0], mb.steps[0][0]
            trained_one_side = pair_trained_one_side(out, ma, ra, fa, mb, rb, fb, vp)
            out.unpaired_a = [n for h, n in ((h, ma.names.get(h, h)) for h in ra.variables)
                              if n in out.unpaired_a and h not in trained_one_side]
            out.unpaired_b = [n for h, n in ((h, mb.names.get(h, h)) for h in rb.variables)
                              if n in out.unpaired_b and h not in trained_one_side]
            _lacking(out, ma, ra, fa, mb, rb, fb, vp, trained_one_side)
            for ha, hb in vp:
                if ha in ra.summed or hb in rb.summed:
                    out.notes.append(
                        f"{ma.names.get(ha, ha)}'s gradient as applied is not compared: "
                        f"{'A' if ha in ra.summed else 'B'} sums the rows of repeated ids "
                        "before its sparse update (its raw gradient and its update are)")
            for ha, hb in vp:
                # the value step 0 reads — never an initializer's draw that a later
                # assignment (set_weights, a restore) replaced; its line is the last
                # assignment's, the one that gave the variable that value
                a = ma.row(0, ra.read.get(ha)) or fa.init.get(ha)
                b = mb.row(0, rb.read.get(hb)) or fb.init.get(hb)
                got = out.add(a, b, 0, Q_VARIABLE, f"initial {ma.names.get(ha, ha)}",
                              ma.names.get(ha, ha))
                if got < 0:
                    out.missing.append(f"step 0: initial value of {ma.names.get(ha, ha)}")
                    continue
                for where, flow, h in ((out.where_a, fa, ha), (out.where_b, fb, hb)):
                    at = flow.assigned.get(h)
                    if at is not None:
                        where[got] = (flow if at[0] == GRAPH and flow.kind == GRAPH else None,
                                      at[1])
        else:
            _, _, pra = ma.steps[k - 1]
            _, _, prb = mb.steps[k - 1]
            for ha, hb in vp:
                got = out.add(ma.row(k, ra.read.get(ha)), mb.row(k, rb.read.get(hb)), k - 1,
                              Q_UPDATE, f"{ma.names.get(ha, ha)} after step {k - 1}'s update",
                              ma.names.get(ha, ha))
                if got < 0:
                    out.missing.append(f"step {k - 1}: {ma.names.get(ha, ha)} after the update")
                    continue
                out.required[k - 1].append(got)
                fa, fb = ma.steps[k - 1][0], mb.steps[k - 1][0]
                if ha in pra.update:
                    out.where_a[got] = (fa, pra.update[ha])
                if hb in prb.update:
                    out.where_b[got] = (fb, prb.update[hb])
                # a projection after the optimizer's update in one run only (a max-norm
                # constraint): the line of its write, not the optimizer's
                ja = projection(fa, ha, pra.update.get(ha))
                jb = projection(fb, hb, prb.update.get(hb))
                if (ja is None) != (jb is None):
                    out.projected[got] = "A" if ja is not None else "B"
                    if ja is not None:
                        out.where_a[got] = (fa, ja)
                    if jb is not None:
                        out.where_b[got] = (fb, jb)
        pair_state(out, k, ma, mb)
        pair_layer_outputs(out, k, ma, ra, mb, rb, vp)
        la, lb = comparable(ra, rb)  # (a loss split one run could not make: kept whole)
        got = out.add(ma.row(k, la.loss), mb.row(k, lb.loss), k, Q_LOSS, "loss")
        if got < 0:
            out.missing.append(f"step {k}: the loss" + _which(ra.loss, rb.loss))
        else:
            if ra.loss_entry is not None:
                out.where_a[got] = (ma.steps[k][0], ra.loss_entry)
            if rb.loss_entry is not None:
                out.where_b[got] = (mb.steps[k][0], rb.loss_entry)
        req.append(got)
        pair_penalties(out, k, ma, la, mb, lb, vp)
        pair_rates(out, k, ma, ra, mb, rb, vp)
        _pair_chain(out, k, ma, ra, mb, rb)
        for ha, hb in vp:
            got = out.add(ma.row(k, ra.grad.get(ha)), mb.row(k, rb.grad.get(hb)), k,
                          Q_GRADIENT, f"gradient of {ma.names.get(ha, ha)}", ma.names.get(ha, ha))
            if got < 0:
                out.missing.append(f"step {k}: the gradient of {ma.names.get(ha, ha)}"
                                   + _which(ra.grad.get(ha), rb.grad.get(hb)))
            req.append(got)
        for ha, hb in vp:  # the gradient as the update consumed it (after clipping)
            xa, xb = ra.applied.get(ha), rb.applied.get(hb)
            if xa is not None and xb is not None:
                got = out.add(ma.row(k, xa), mb.row(k, xb), k, Q_APPLIED,
                              f"gradient of {ma.names.get(ha, ha)} as applied",
                              ma.names.get(ha, ha))
                # a gradient applied as the backward pass made it (nothing clipped it):
                # its line is the optimizer's applying one, not the tape's — unless the pair
                # is the raw gradient's too (both runs apply it unclipped): that one is the
                # tape's, where a gradient only one run sums (a tied weight) is made
                for where, model, r, h in ((out.where_a, ma, ra, ha), (out.where_b, mb, rb, hb)):
                    if got >= 0 and out.quantity[got] == Q_APPLIED \
                            and r.applied.get(h) == r.grad.get(h) and h in r.update:
                        where[got] = (model.steps[k][0], r.update[h])
        out.required.append([r for r in req if r >= 0])
    if n:
        out.notes.append(f"step {n - 1}'s update is not compared: neither run reads the "
                         "variables after it")
    key_tables(out, ma, mb)
    return out


def _pair_chain(out: StepPairs, k: int, ma: RunModel, ra: Roles, mb: RunModel, rb: Roles
                ) -> None:
    """The learning-rate schedules' intermediates, paired by op type in dataflow order
    (`difflib`: an op one schedule lacks — a constant folded into an eager call — stays
    unpaired without shifting the rest)."""
    if not ra.lr_chain or not rb.lr_chain:
        return
    fa, fb = ma.steps[k][0], mb.steps[k][0]
    ta = [fa.op_type[n] for n, _ in ra.lr_chain]
    tb = [fb.op_type[n] for n, _ in rb.lr_chain]
    m = SequenceMatcher(None, ta, tb, autojunk=False)
    if m.ratio() < 0.75:  # two schedules computed another way (a user's own subclass
        return  # against a built-in): only the rate itself compares
    for block in m.get_matching_blocks():
        for i in range(block.size):
            x, y = ra.lr_chain[block.a + i], rb.lr_chain[block.b + i]
            out.add(ma.row(k, x), mb.row(k, y), k, Q_LR,
                    f"learning rate: the schedule's {ta[block.a + i]}")


def _init_row(model: RunModel, roles: Roles, flow: Flow, h: str) -> tuple[int, int] | None:
    return model.row(0, roles.read.get(h)) or flow.init.get(h)


def _lacking(out: StepPairs, ma: RunModel, ra: Roles, fa: Flow, mb: RunModel, rb: Roles,
             fb: Flow, vp: list[tuple[str, str]], skip: set[str]) -> None:
    """A variable one run lacks (a dropped bias) is a step-0 `variable` divergence: its
    initial value against the initial value of the other run's variable next to where it
    would be (the same layer's kernel) — so both lines shown are those that create them."""
    to_b, to_a = dict(vp), {b: a for a, b in vp}
    for side, order, partner, names in (("a", ra.variables, to_b, ma.names),
                                        ("b", rb.variables, to_a, mb.names)):
        for i, h in enumerate(order):
            if h in partner or h in skip:
                continue
            near = [order[j] for j in range(i - 1, -1, -1) if order[j] in partner]
            near += [order[j] for j in range(i + 1, len(order)) if order[j] in partner]
            if not near:
                continue
            other = partner[near[0]]
            if side == "a":
                a, b = _init_row(ma, ra, fa, h), _init_row(mb, rb, fb, other)
                label = f"{names.get(h, h)}: in A only (no such variable in B)"
            else:
                a, b = _init_row(ma, ra, fa, other), _init_row(mb, rb, fb, h)
                label = f"{names.get(h, h)}: in B only (no such variable in A)"
            got = out.add(a, b, 0, Q_VARIABLE, label)
            if got >= 0:
                out.lacking.append(got)


def _which(a: Tensor | None, b: Tensor | None) -> str:
    if a is None and b is None:
        return " (found in neither run)"
    return " (not found in A)" if a is None else " (not found in B)" if b is None else \
        " (not recorded)"
