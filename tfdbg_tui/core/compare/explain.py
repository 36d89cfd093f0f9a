"""One differing pair in words and numbers: why it differs, by how much, and where.

Only the pairs that are shown (the first divergence and the first few after it) get here, so
this re-reads FULL_TENSOR records freely to find the worst element and its two values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reader import GRAPH, ReaderError
from reader.io.tensors import dtype_name
from tfdbg_tui.core.compare.contract import (
    Q_APPLIED,
    Q_GRADIENT,
    Q_LAYER,
    Q_LOSS,
    Q_LR,
    Q_REG,
    Q_STATE,
    Q_UPDATE,
    Q_VARIABLE,
)
from tfdbg_tui.core.compare.creation import layer_build
from tfdbg_tui.core.compare.lines import loss_weighting, state_by_user
from tfdbg_tui.core.compare.pairs import (
    EQUAL,
    HOW_NAMES,
    R_COUNTS,
    R_DTYPE,
    R_MISSING,
    R_NONFINITE,
    R_NONFINITE_COUNT,
    R_OP_TYPE,
    R_SHAPE,
    R_UNREADABLE,
    R_VALUES,
    REASON_NAMES,
)
from tfdbg_tui.core.compare.rates import RatePair, describe
from tfdbg_tui.core.compare.result import Comparison
from tfdbg_tui.core.compare.standing import UNKNOWN, claims_before, lead, unknown
from tfdbg_tui.core.compare.values import Outcome, RecordReader, compare_records

_LABELS = {"nan": "NaN", "neg_inf": "−∞", "pos_inf": "+∞"}
_SIGNS = {"neg": "negative", "zero": "zero", "pos": "positive"}


@dataclass(frozen=True)
class Detail:
    """A differing pair, described. `index` is a trace index (graph) or an execution index
    (eager, with `slot` the output); `occurrence` counts earlier rows of the same tensor in A."""

    pair: int
    kind: int  # A's kind
    a_index: int
    a_slot: int
    b_index: int
    b_slot: int
    aligned_by: str
    reason_code: str
    reason: str
    max_abs: float | None
    max_rel: float | None
    worst_index: list[int] | None
    occurrence: int
    b_kind: int = -1  # B's kind (a graph trace may pair with an eager output); -1: as A's


def _where(c: Comparison, side: str, kind: int, row: int) -> tuple[int, int]:
    logdir = c.a if side == "a" else c.b
    if kind == GRAPH:
        return row, int(logdir.traces.slot[row])
    return int(logdir.outputs.execution[row]), int(logdir.outputs.slot[row])


def _occurrence(c: Comparison, kind: int, row: int) -> int:
    tensors = c.tensor_of("a", kind, np.arange(row + 1, dtype=np.int64))
    return int(np.count_nonzero(tensors == tensors[-1])) - 1


def _number(x: float) -> float | None:
    return x if math.isfinite(x) else None


def explain(c: Comparison, p: int) -> Detail:
    """Describe pair `p` (normally a differing one)."""
    pairs = c.pairs
    kind, row_a, row_b = int(pairs.kind[p]), int(pairs.a_row[p]), int(pairs.b_row[p])
    kind_b = int(pairs.kind_b[p])
    a_index, a_slot = _where(c, "a", kind, row_a)
    b_index, b_slot = _where(c, "b", kind_b, row_b)
    code = int(pairs.reason[p])
    rate = inferred_rate(c, p)
    if rate is not None:  # two scalars, one inferred from its update: no element to show
        return Detail(p, kind, a_index, a_slot, b_index, b_slot, HOW_NAMES[int(pairs.how[p])],
                      REASON_NAMES[code], describe(rate), _number(float(pairs.max_abs[p])),
                      _number(float(pairs.max_rel[p])), None, _occurrence(c, kind, row_a),
                      kind_b)
    outcome: Outcome | None = None
    try:
        outcome = compare_records(RecordReader(c.a), RecordReader(c.b), kind, row_a, row_b,
                                  c.tolerance.for_step(int(pairs.step[p])), kind_b)
    except ReaderError:
        outcome = None
    worst = None
    if outcome is not None and outcome.worst >= 0 and outcome.shapes is not None:
        shape = outcome.shapes[0] or (1,)
        worst = [int(i) for i in np.unravel_index(outcome.worst, shape)]
    return Detail(p, kind, a_index, a_slot, b_index, b_slot, HOW_NAMES[int(pairs.how[p])],
                  REASON_NAMES[code], _reason(c, p, code, outcome, worst),
                  _number(float(pairs.max_abs[p])), _number(float(pairs.max_rel[p])), worst,
                  _occurrence(c, kind, row_a), kind_b)


SEED_HINT = (
    "the runs start from different weights. Seed the random ops alike: "
    "`tf.keras.utils.set_random_seed(N)` before building each model, or an explicit seed in "
    "each initializer (`GlorotUniform(seed=N)`), or the migration guide's "
    "`DeterministicRandomTestTool` (gone from TF 2.21's Keras, kept in `tf_keras`: "
    "`pip install tf_keras`, then with TF_USE_LEGACY_KERAS=1 it is "
    "`tf.compat.v1.keras.utils.DeterministicRandomTestTool`) — or "
    "load one checkpoint into both programs before the first step")


RESTORE_HINT = (
    "the weights the first step reads differ, and they were assigned before it (a "
    "`set_weights`, `load_weights`, checkpoint restore or `assign`, the line shown): check "
    "what each program restores — the same file, every layer, in the same order and layout "
    "(a TF1 kernel is (in, out), as Keras'; a conv kernel HWIO in both)")
UNRESTORED_HINT = (
    "{one}'s weights were assigned before the first step (a restore, `set_weights`, "
    "`load_weights` or `assign`: its line) and {other}'s are the initial draw of the layer "
    "building them (its line): whatever {other} restores does not reach them. Check "
    "{other}'s restore: the path, that it runs once the model is built, and its keys — an "
    "object checkpoint matches the names given to `tf.train.Checkpoint(...)` (`model=` "
    "against a checkpoint written with `net=` restores nothing, silently); "
    "`checkpoint.restore(path).assert_consumed()` raises when nothing matches")
# how to fix a first divergence, by the quantity of the step contract it is in; each is
# said after what is known of the quantities before it (`standing.claims_before`: "the
# gradient of w and the learning rate agree and its update does not", or which of them
# were not compared)
QUANTITY_HINTS = {
    Q_LAYER: "compare its construction (activation, use_bias, data_format, padding, the "
             "`training` flag of dropout and batch normalization, epsilon) with A's",
    Q_LOSS: "compare the loss object's arguments (`from_logits`, reduction, label smoothing, "
            "sparse or one-hot labels)",
    Q_REG: "`tf.nn.l2_loss(w)` is half the sum of squares, so `0.01 * l2_loss` is "
           "`regularizers.l2(0.005)`; check which weights carry one",
    Q_GRADIENT: "a term of the loss only one run differentiates, a `stop_gradient`, or a "
                "different set of trainable variables",
    Q_APPLIED: "clipping differs — `clipnorm` clips each tensor, `global_clipnorm` and "
               "`clip_by_global_norm` all together, `clipvalue` each element",
    Q_LR: "the learning rate differs: compare the schedule's arguments (initial rate, decay "
          "steps and rate, power, end rate, staircase) and when the step counter advances",
    Q_UPDATE: "the optimizer's other hyperparameters differ (momentum, nesterov, epsilon, "
              "betas, rho, initial accumulator, weight decay — Keras multiplies "
              "`weight_decay` by the rate); clipping inside the optimizer (`clipnorm`, "
              "`global_clipnorm`, `clipvalue`) shows here too when a run does not record its "
              "clipped gradients (eager ops behind an Identity, which tfdbg skips)",
    Q_STATE: "the non-trainable state (batch normalization's moving statistics) differs: "
             "Keras' `momentum` is TF1's `decay`; check it and that the update runs "
             "(UPDATE_OPS in TF1, `training=True` in Keras)",
}
# non-trainable state both programs write themselves (no layer's statistics)
_USER_STATE_HINT = ("the state written after the update differs: for a moving average (of "
                    "the weights, of batch statistics) compare its decay and what it is given "
                    "as the step count (TF1's and `tf.train.ExponentialMovingAverage` decay "
                    "by min(decay, (1 + n) / (10 + n)) given `num_updates`, by decay without; "
                    "Keras' `momentum` is TF1's `decay`); for a copy of the weights (a target "
                    "network) after which steps each run assigns it and from which variables")
# where the learning rate was not compared, what an update's difference may come from
_RATE_UNKNOWN = ("Check the rate each run applies at this step (a schedule's step counter, "
                 "off by one?) and the optimizer's other hyperparameters (momentum, "
                 "nesterov, epsilon, betas, rho, weight decay)")


def fix_hint(c: Comparison, p: int) -> str | None:
    """How to fix a first divergence, by its quantity in the step contract. Differing values
    of a variable at step 0: restored weights when an assignment before the step gave them
    (its line says `set_weights`, `load_weights`, `restore` or `assign`), else different
    starting draws (seed alike, or load one checkpoint); with different dtypes a dtype's
    rounding, not a seed's."""
    pairs = c.pairs
    q = int(pairs.quantity[p])
    if q == Q_LOSS:
        weighted = loss_weighting(c, p)
        if weighted is not None:
            one, other = ("A", "B") if weighted[0] else ("B", "A")
            return (f"{one} weights each example's loss and {other} does not: pass the same "
                    "per-example weights to the loss call (`sample_weight=` in Keras, "
                    "`weights=` in TF1's losses, `sample_weight` in `fit`)")
    if q == Q_STATE and int(pairs.reason[p]) == R_MISSING:
        label = pairs.label[p] or ""
        one = "B" if "state in B only" in label else "A"
        other = "A" if one == "B" else "B"
        return (f"{one} keeps state that {other} does not have at all (an average or a copy "
                f"of the weights, written after the update): the training may agree, but "
                f"what {one} leaves for evaluation does not — keep it in {other} too "
                "(`tf.train.ExponentialMovingAverage`, Keras' `use_ema=True`, the assignments "
                f"of a copy), or drop it from {one} if it was never used")
    if q == Q_LR and (split := _rate_split(c, p)):
        return split
    if q == Q_GRADIENT and int(pairs.reason[p]) == R_MISSING:
        return ("one run trains a variable the other keeps frozen: make it not trainable "
                "where it should not learn (`trainable=False` on the layer, or leave it out "
                "of the variables you differentiate), or trainable in both")
    if q == Q_LR and inferred_rate(c, p) is not None:
        return ("the learning rate applied differs (a rate with no tensor — a Python number — "
                "is inferred from its update ÷ its gradient): compare the rate each run "
                "computes for this step — a schedule's arguments and its step counter (off "
                "by one?), the initial rate")
    if q != Q_VARIABLE:
        projecting = _projecting(c, p) if q == Q_UPDATE else None
        advice = _projection_hint(projecting) if projecting else QUANTITY_HINTS.get(q)
        if q == Q_STATE and state_by_user(c, p):
            advice = _USER_STATE_HINT
        said = claims_before(c, p)
        if advice is None or said is None:
            return advice
        claims, subject = said
        if q == Q_UPDATE and not projecting and any(n == "the learning rate" and s == UNKNOWN
                                 for n, s, _, _ in claims):
            claims = [(n, s, why or "a Python number in one run is no tensor to record", pl)
                      if n == "the learning rate" else (n, s, why, pl)
                      for n, s, why, pl in claims]
            return lead(claims, subject) + ". " + _RATE_UNKNOWN
        if unknown(claims):  # the difference may come from what was not compared
            return lead(claims, subject) + ". If what was not compared agrees, " + advice
        return lead(claims, subject) + ": " + advice
    if int(pairs.step[p]) != 0 or int(pairs.reason[p]) != R_VALUES:
        return None
    da = _health(c, "a", int(pairs.kind[p]), int(pairs.a_row[p]))["dtype"]
    db = _health(c, "b", int(pairs.kind_b[p]), int(pairs.b_row[p]))["dtype"]
    if da != db:
        return (f"the initial values differ in dtype ({dtype_name(da)} vs {dtype_name(db)}): "
                "the same weights rounded differently — make the variable's dtype the same "
                "(a layer's `dtype=`, the mixed-precision policy), not its seed")
    restored = [_restored(c, p, side) for side in ("a", "b")]
    if restored[0] != restored[1] and _drawn(c, p, "b" if restored[0] else "a"):
        one, other = ("A", "B") if restored[0] else ("B", "A")
        return UNRESTORED_HINT.format(one=one, other=other)
    if any(restored):
        return RESTORE_HINT
    return SEED_HINT


def _projecting(c: Comparison, p: int) -> str | None:
    """The run ("A" or "B") that alone writes update pair `p`'s variable again after its
    optimizer's update, with a function of its new value (`contract.projections`)."""
    sp = c.training.sp
    return sp.projected.get(p - (len(c.pairs) - len(sp.row_a))) if sp is not None else None


def _projection_hint(run: str) -> str:
    other = "B" if run == "A" else "A"
    return (f"after its optimizer's update {run} writes this variable again with a function of "
            f"its new value (a projection: a max-norm or other constraint, a clip) and "
            f"{other} does not — the optimizer is not what differs: give {other} the same "
            "projection (in Keras the layer's `kernel_constraint=` or `bias_constraint=`, "
            "which the optimizer applies after each update; in TF1 an `assign` of the "
            f"projected value run after `minimize`), or drop it from {run}")


def inferred_rate(c: Comparison, p: int) -> RatePair | None:
    """Pair `p`'s learning rates when one was inferred from its update (`compare.rates`)."""
    sp = c.training.sp
    if sp is None or not sp.rates:
        return None
    return sp.rates.get(p - (len(c.pairs) - len(sp.row_a)))


def _restored(c: Comparison, p: int, side: str) -> bool:
    """Whether `side`'s step-0 value came from a restoring assignment (its line)."""
    from tfdbg_tui.core.compare.lines import where_frames

    logdir = c.a if side == "a" else c.b
    frames = where_frames(c, p, side) or []
    uf = logdir.user_frame(frames)
    code = (logdir.code_line(uf) or "") if uf is not None else ""
    names = " ".join(f.function for f in frames)
    return any(w in code or w in names for w in ("set_weights", "load_weights", "restore",
                                                 ".assign(", "load_variable"))


def _drawn(c: Comparison, p: int, side: str) -> bool:
    """Whether `side`'s step-0 value is the draw of the Keras layer building the variable."""
    from tfdbg_tui.core.compare.lines import where_frames

    return layer_build(where_frames(c, p, side) or [])


def _health(c: Comparison, side: str, kind: int, row: int) -> dict[str, int]:
    logdir = c.a if side == "a" else c.b
    t = logdir.traces if kind == GRAPH else logdir.outputs
    names = ("dtype", "rank", "size", "nan", "neg_inf", "pos_inf", "neg", "zero", "pos", "bad")
    return {n: int(getattr(t, n)[row]) for n in names}


def _reason(c: Comparison, p: int, code: int, outcome: Outcome | None,
            worst: list[int] | None) -> str:
    kind = int(c.pairs.kind[p])
    ha = _health(c, "a", kind, int(c.pairs.a_row[p]))
    hb = _health(c, "b", int(c.pairs.kind_b[p]), int(c.pairs.b_row[p]))
    tol = c.tolerance.for_step(int(c.pairs.step[p]))
    if code == R_VALUES and outcome is not None:
        text = (f"values differ in {outcome.mismatched:,} of {outcome.total:,} elements "
                f"(|a − b| > {tol.atol:g} + {tol.rtol:g}·max(|b|, rms b))")
        if math.isfinite(outcome.max_abs):
            text += f"; max abs error {outcome.max_abs:.6g}, max rel error {outcome.max_rel:.6g}"
        if worst is not None and outcome.at_worst is not None:
            text += f"; worst at {worst}: A {outcome.at_worst[0]!r}, B {outcome.at_worst[1]!r}"
        return text
    if code == R_NONFINITE:
        return _nonfinite(ha, hb)
    if code in (R_NONFINITE_COUNT, R_COUNTS):
        names = ("nan", "neg_inf", "pos_inf") if code == R_NONFINITE_COUNT else tuple(_SIGNS)
        diffs = [f"{_LABELS.get(n) or _SIGNS[n]} {ha[n]:,} vs {hb[n]:,}" for n in names
                 if ha[n] >= 0 and hb[n] >= 0 and ha[n] != hb[n]]
        if not diffs:
            return "−/0/+ counts differ (one side's from its FULL_TENSOR values)"
        return "counts differ beyond rtol: " + ", ".join(diffs)
    if code == R_DTYPE:
        return f"dtype {dtype_name(ha['dtype'])} vs {dtype_name(hb['dtype'])}"
    if code == R_SHAPE:
        if outcome is not None and outcome.shapes is not None:
            return f"shape {list(outcome.shapes[0])} vs {list(outcome.shapes[1])}"
        return (f"shape: rank {ha['rank']}, {ha['size']:,} elements vs rank {hb['rank']}, "
                f"{hb['size']:,} elements")
    if code == R_OP_TYPE:
        return "op type differs (nothing else recorded to compare)"
    if code == R_UNREADABLE:
        return "a record could not be read"
    if code == R_MISSING and int(c.pairs.quantity[p]) == Q_GRADIENT:
        return ("only one run trains this variable: " + (c.pairs.label[p] or "?")
                + "; the other reads it and never updates it")
    if code == R_MISSING and int(c.pairs.quantity[p]) == Q_STATE:
        return ("state only one run keeps: " + (c.pairs.label[p] or "?")
                + "; shown beside the other run's first weight after step 0")
    if code == R_MISSING:
        return ("a variable without a partner of the same dtype and shape: "
                + (c.pairs.label[p] or "?") + "; shown beside its neighbour in the other run")
    return "equal"


def _nonfinite(ha: dict[str, int], hb: dict[str, int]) -> str:
    parts = []
    for n, label in _LABELS.items():
        if ha[n] >= 0 and hb[n] >= 0 and (ha[n] > 0) != (hb[n] > 0):
            side, h = ("A", ha) if ha[n] > 0 else ("B", hb)
            parts.append(f"{label} in {side} only ({h[n]:,} of {h['size']:,} elements)")
    if parts:
        return "; ".join(parts)
    side = "A" if ha["bad"] > 0 else "B"
    return f"NaN/∞ in {side} only (this mode records only a flag)"


def _rate_split(c: Comparison, p: int) -> str | None:
    """For a rate recorded per variable (`contract.rate_pairing`) that differs where another
    variable's rates agree at the same step: one run updates this variable with another of
    its optimizers. None otherwise (a wrong rate or schedule: the usual advice)."""
    sp = c.training.sp
    if sp is None or inferred_rate(c, p) is not None:
        return None
    off = len(c.pairs) - len(sp.row_a)
    var = sp.var[p - off] if 0 <= p - off < len(sp.var) else ""
    step = c.pairs.step[off:]
    same = (c.pairs.quantity[off:] == Q_LR) & (step == c.pairs.step[p]) \
        & (c.pairs.status[off:] == EQUAL)
    if not var or not same.any():
        return None
    return (f"the rates of the other variables agree and {var}'s does not: the runs update "
            f"{var} with different optimizers — check which variables each optimizer is "
            "given (`var_list=` of TF1's `minimize`; what each `apply_gradients` is passed: a "
            "split of `model.trainable_variables` by count can cut a layer's bias from its "
            "kernel)")
