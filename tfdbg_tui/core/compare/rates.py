"""Beside stage 3 of the step contract (`contract.pairing`): the learning rate a plain
gradient-descent update applied where no tensor holds it. A hand-written
`variable.assign_sub(learning_rate * grad)` with a Python float for the rate records the
product and the gradient, never the rate (a Python number is no op), so the learning-rate
quantity of that step had nothing to compare and a wrong rate showed only as a different
update. For the updates that are `var -= rate * gradient` (`ApplyGradientDescent`, an
`AssignSub` of a product with the gradient as applied, an `Assign` of `var - product`), the
rate is what the recorded values say: the update's delta divided by the gradient, when that
ratio is one scalar across the tensor within the rounding of the values it comes from.
Where the ratio is not one scalar (momentum, Adam, a weight decay: the update is not the
gradient times a number) no rate is claimed, and what is unknown is kept for the verdict.

Per step without a compared learning rate, per variable pair: each side's rate is its
recorded rate tensor or the inferred one; both known, they are a `learning_rate` pair
(`StepPairs.rates`), judged after the records (`judge_rates`) on the two scalars within
the tolerance plus each inference's rounding bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader import DebugLogdir, ReaderError
from reader.modes import FULL_TENSOR
from tfdbg_tui.core.compare.contract.dataflow import READS, Flow
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.pairing import StepPairs
from tfdbg_tui.core.compare.contract.quantities import Q_LR
from tfdbg_tui.core.compare.contract.roles import Roles
from tfdbg_tui.core.compare.contract.tensors import Tensor
from tfdbg_tui.core.compare.pairs import DIFFERENT, EQUAL, R_NONE, R_VALUES, Pairs
from tfdbg_tui.core.compare.values import RecordReader, Tolerance

_DESCENT = frozenset({"ResourceApplyGradientDescent", "ApplyGradientDescent"})
_SUBTRACT = frozenset({"AssignSubVariableOp", "AssignSub"})
_ADD = frozenset({"AssignAddVariableOp", "AssignAdd"})
_SET = frozenset({"AssignVariableOp", "Assign"})
# the machine epsilon of each floating dtype (TensorFlow's DataType numbers)
_EPS = {1: 2.0 ** -23, 2: 2.0 ** -52, 14: 2.0 ** -7, 19: 2.0 ** -10}
MAX_READS = 2048  # records read to infer rates (a long run: its first steps)
_LOOSE = 1e-3  # an inferred rate known no better than this, relatively, is no rate


@dataclass(frozen=True)
class Rate:
    """One side's learning rate at a step: `spread` bounds the error of an inferred one."""

    value: float
    spread: float = 0.0
    inferred: bool = False


@dataclass(frozen=True)
class RatePair:
    """A learning-rate pair of which at least one side was inferred from its update."""

    step: int
    var: str  # A's variable's name
    a: Rate
    b: Rate


def ratio(delta: np.ndarray, grad: np.ndarray, bound: np.ndarray) -> Rate | str:
    """The one scalar r with `delta ≈ r · grad` within `bound` (each element's rounding),
    as a Rate; or why there is none (in words). The least-squares r, its error bounded by
    Σ bound·|g| / Σ g², then every element checked against it: a momentum's or Adam's
    update is no multiple of the gradient and fails here — given elements of more than one
    magnitude: Adam's or RMSprop's step on one element (a bias of one unit) is its gradient
    times a scalar too."""
    d = np.asarray(delta, np.float64).reshape(-1)
    g = np.asarray(grad, np.float64).reshape(-1)
    b = np.asarray(bound, np.float64).reshape(-1)
    if d.shape != g.shape or not len(g):
        return "its update and its gradient have different shapes"
    if not (np.isfinite(d).all() and np.isfinite(g).all()):
        return "its update or its gradient is not finite"
    tiny = np.finfo(np.float64).tiny
    gg = float(np.dot(g, g))
    if gg == 0.0:
        return "its gradient is zero"
    mags = np.abs(g[g != 0])
    if float(mags.max() - mags.min()) <= _LOOSE * float(mags.max()):
        # a single element, or all of one magnitude: whatever an optimizer does to each
        # element (Adam's, RMSprop's g / √v) is then the gradient times one scalar, which
        # says nothing of a rate
        return ("its gradient's elements are all of one magnitude (one element?): any "
                "update of it is its gradient times one scalar, whatever the optimizer")
    r = float(np.dot(d, g)) / gg
    spread = float(np.dot(b, np.abs(g))) / gg
    if np.any(np.abs(d - r * g) > 2 * b + spread * np.abs(g) + tiny):
        return "its update is not its gradient times one scalar (momentum, Adam, a decay...)"
    if spread > _LOOSE * abs(r):
        return "its update is within the rounding of the variable's values"
    return Rate(r, spread, True)


class _Side:
    """One run's records, read once each within a budget shared by both runs."""

    def __init__(self, logdir: DebugLogdir, model: RunModel, budget: list[int]) -> None:
        self.reader = RecordReader(logdir)
        self.model = model
        self.budget = budget
        self.cache: dict[tuple[int, int], tuple[np.ndarray, float] | None] = {}

    def value(self, row: tuple[int, int] | None) -> tuple[np.ndarray, float] | None:
        """A row's FULL_TENSOR float values and its dtype's epsilon, or None."""
        if row is None:
            return None
        if row in self.cache:
            return self.cache[row]
        got = None
        if self.budget[0] > 0:
            self.budget[0] -= 1
            try:
                if self.reader.mode(*row) == FULL_TENSOR:
                    tv = self.reader.tensor(*row)
                    if tv is not None and tv.dtype in _EPS and tv.values.dtype.kind == "f":
                        got = (np.asarray(tv.values, np.float64), _EPS[tv.dtype])
            except ReaderError:
                got = None
        self.cache[row] = got
        return got

    def rate(self, k: int, h: str) -> tuple[Rate, tuple[int, int], int | None] | str:
        """Step `k`'s rate for variable `h`: (rate, the row standing for it, the update
        node whose line is its line, None for a recorded rate's own), or why unknown."""
        flow, local, roles = self.model.steps[k]
        lr_row = self.model.row(k, roles.lr)
        if lr_row is not None:
            got = self.value(lr_row)
            if got is None or got[0].size != 1:
                return "its learning rate tensor holds no value to compare"
            return Rate(float(got[0].reshape(-1)[0])), lr_row, None
        return self._inferred(k, h, flow, local, roles)

    def _inferred(self, k: int, h: str, flow: Flow, local: int, roles: Roles
                  ) -> tuple[Rate, tuple[int, int], int | None] | str:
        u = roles.update.get(h)
        g_t = roles.applied.get(h) or roles.grad.get(h)
        if u is None or g_t is None:
            return "its update or its gradient as applied was not found"
        t, ins = flow.op_type[u], flow.inputs[u]
        sigs = self.model.cache.get(("sig", id(flow)))
        product: Tensor | None = None
        sign = 1.0
        if t in _SUBTRACT | _ADD and len(ins) > 1 and _times(flow, ins[1], g_t, sigs):
            product, sign = ins[1], (1.0 if t in _SUBTRACT else -1.0)
        elif (t in _SET and len(ins) > 1 and ins[1][0] >= 0 and flow.op_type[ins[1][0]] == "Sub"
              and len(flow.inputs[ins[1][0]]) == 2):
            x, y = flow.inputs[ins[1][0]]
            if not (x[0] >= 0 and flow.op_type[x[0]] in READS and _times(flow, y, g_t, sigs)):
                return f"its update ({t}) is not var − rate × gradient"
            product = y
        elif t not in _DESCENT:
            return f"its update ({t}) is not var − rate × gradient"
        g = self.value(self.model.row(k, g_t))
        if g is None:
            return "its gradient as applied holds no recorded values"
        p_row = self.model.row(k, product)
        p = self.value(p_row)
        if p is not None:
            delta, bound = sign * p[0], p[1] * np.abs(p[0])
            row = p_row
        else:  # a fused apply op has no output: the variable before and after it
            before = self.value(self.model.row(k, roles.read.get(h)))
            after_row = (self.model.row(k + 1, self.model.steps[k + 1][2].read.get(h))
                         if k + 1 < self.model.n_steps else None)
            after = self.value(after_row)
            if before is None or after is None or before[0].shape != after[0].shape:
                return "its values before and after the update were not both recorded"
            delta = before[0] - after[0]
            bound = before[1] * (np.abs(after[0]) + np.abs(delta))
            row = after_row
        if row is None or delta.shape != g[0].shape:
            return "its update and its gradient have different shapes"
        got = ratio(delta, g[0], bound)
        return got if isinstance(got, str) else (got, row, u)


def _times(flow: Flow, t: Tensor, g: Tensor, sigs: np.ndarray | None) -> bool:
    """Whether tensor `t` is a product (`Mul`) of the gradient `g` (or the unrecorded
    Identity/Cast chain `g` was found at) with one scalar: the other operand a recorded
    scalar or a number no op made (a Python float). A recorded tensor of more elements
    (RMSprop's `lr / sqrt(ms + eps)` computed first) scales each element its own way: no
    rate, whatever the ratio says (`sigs[node, slot]`: dtype, rank, size; -1 unknown)."""
    j = t[0]
    if j < 0 or flow.op_type[j] != "Mul" or len(flow.inputs[j]) != 2:
        return False
    for x, other in (flow.inputs[j], flow.inputs[j][::-1]):
        hops = 0
        while x != g and x[0] >= 0 and hops < 4 and flow.inputs[x[0]] and \
                flow.op_type[x[0]] in ("Identity", "Snapshot", "Cast"):
            x, hops = flow.inputs[x[0]][0], hops + 1
        if x == g:
            node, slot = other
            rank = (int(sigs[node, slot, 1]) if sigs is not None and node >= 0
                    and slot < sigs.shape[1] else -1)
            return rank <= 0
    return False


def infer_rates(sp: StepPairs, a: DebugLogdir, b: DebugLogdir, ma: RunModel, mb: RunModel
                ) -> None:
    """Add a learning-rate pair per variable pair at every step where none was compared and
    both sides' rates are known (recorded or inferred, at least one inferred); where a side's
    rate cannot be inferred, say why in `sp.rate_unknown` (per step)."""
    budget = [MAX_READS]
    sides = (_Side(a, ma, budget), _Side(b, mb, budget))
    compared = {s for s, q in zip(sp.step, sp.quantity, strict=True) if q == Q_LR}
    for k, vp in enumerate(sp.var_pairs[:sp.n_steps]):
        if k in compared or not vp:
            continue
        if (ma.row(k, ma.steps[k][2].lr) is not None
                and mb.row(k, mb.steps[k][2].lr) is not None):
            continue  # both recorded: compared as they are, or not recorded at this step
        for ha, hb in vp:
            if budget[0] <= 0:
                sp.notes.append(f"learning rates inferred from updates ÷ gradients up to "
                                f"step {k - 1} only (a budget of {MAX_READS} records)")
                return
            got_a, got_b = sides[0].rate(k, ha), sides[1].rate(k, hb)
            name = ma.names.get(ha, ha)
            if isinstance(got_a, str) or isinstance(got_b, str):
                side, text = ("A", got_a) if isinstance(got_a, str) else ("B", got_b)
                sp.rate_unknown.setdefault(
                    k, f"no recorded tensor of {side} was found to be its learning rate (a "
                       f"Python number is none), and none can be inferred from {name}'s "
                       f"update: {text}")
                continue
            (ra, row_a, ua), (rb, row_b, ub) = got_a, got_b
            if not (ra.inferred or rb.inferred):
                continue
            who = "both runs'" if ra.inferred and rb.inferred else \
                "A's" if ra.inferred else "B's"
            before = len(sp.row_a)
            pid = sp.add(row_a, row_b, k, Q_LR, f"learning rate applied to {name} ({who} "
                         "inferred: its update ÷ its gradient)", name)
            if pid < before:  # that tensor pair has another role already
                continue
            sp.rates[pid] = RatePair(k, name, ra, rb)
            for where, model, u in ((sp.where_a, ma, ua), (sp.where_b, mb, ub)):
                if u is not None:
                    where[pid] = (model.steps[k][0], u)


def rate_pairs(pairs: Pairs, sp: StepPairs) -> np.ndarray:
    """The ids in `pairs` of the inferred learning-rate pairs (not judged on records)."""
    off = len(pairs) - len(sp.row_a)
    return off + np.fromiter(sp.rates, np.int64, len(sp.rates))


def judge_rates(pairs: Pairs, sp: StepPairs, tol: Tolerance) -> None:
    """Judge each inferred learning-rate pair on its two scalars: different when they are
    further apart than the step's tolerance plus both inferences' rounding bounds."""
    off = len(pairs) - len(sp.row_a)
    for i, rp in sp.rates.items():
        p = off + i
        x, y = rp.a.value, rp.b.value
        t = tol.for_step(rp.step)
        diff = abs(x - y)
        same = (np.isnan(x) and np.isnan(y)) or (
            diff <= t.atol + t.rtol * abs(y) + rp.a.spread + rp.b.spread)
        pairs.status[p] = EQUAL if same else DIFFERENT
        pairs.reason[p] = R_NONE if same else R_VALUES
        pairs.max_abs[p] = diff
        pairs.max_rel[p] = diff / abs(y) if y else np.nan
        pairs.worst[p] = -1


def describe(rp: RatePair) -> str:
    """The pair's two rates in words, each said recorded or inferred."""
    def one(side: str, r: Rate) -> str:
        if not r.inferred:
            return f"{side} {r.value:.6g} (its rate tensor)"
        return f"{side} {r.value:.6g} (inferred: update ÷ gradient, ±{r.spread:.1g})"

    return (f"learning rate applied to {rp.var}: {one('A', rp.a)}, {one('B', rp.b)}; "
            f"|a − b| {abs(rp.a.value - rp.b.value):.6g}")
