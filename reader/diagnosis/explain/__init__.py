"""Say in one sentence, with numbers, why an op produced NaN/∞ — the rule table.

Each rule knows an op's arithmetic (log 0 = −∞, x/0 = ∞, 0/0 = NaN, exp overflows above
≈88.7 in float32…) and reads the inputs' health counts. FULL_HEALTH gives the counts of zeros,
negatives and positives; FULL_TENSOR gives the values themselves, so the rules can count the
exact culprits (x == −1 for Log1p, pairs with a zero divisor) and quote extremes. CONCISE and
CURT_HEALTH do not count zeros or signs; then the sentence says what is known and what is not.

Adding a rule = one function in a rules module (`arith` for primitive ops, `gradient` for
gradient ops, `cause` for data, variables, deliberate ∞ and function calls) + one line in a
table below + a test on a real logdir.
"""

from __future__ import annotations

from collections.abc import Callable

from reader.diagnosis import optable
from reader.diagnosis.explain.arith import (
    _cast,
    _div,
    _exp,
    _generic,
    _inverse_trig,
    _log,
    _pow,
    _softmax,
    _source,
    _sqrt,
)
from reader.diagnosis.explain.common import NO_INPUTS, In, plural, produced
from reader.diagnosis.explain.gradient import (
    GradRule,
    atan2_grad,
    div_grad,
    inverse_trig_grad,
    log1p_grad,
    log_grad,
    pow_grad,
    reciprocal_grad,
    rsqrt_grad,
    sqrt_grad,
)
from reader.diagnosis.explain.special import MOVERS, SPECIAL_RULES, reduction, unknown_op
from reader.diagnosis.gradients import GRAD_TYPES
from reader.diagnosis.index import Health
from reader.modes import CURT_HEALTH

__all__ = ["In", "explain_gradient", "explain_origin", "explain_step", "produced"]

_RULES: dict[str, Callable[[str, Health, list[In]], str]] = {
    **dict.fromkeys(("Log", "Log1p"), _log),
    **dict.fromkeys(("Sqrt", "Rsqrt", "Reciprocal", "Inv"), _sqrt),
    **dict.fromkeys(("Exp", "Expm1", "Softplus"), _exp),
    **dict.fromkeys(("Acos", "Asin", "Atanh"), _inverse_trig),
    **dict.fromkeys(("RealDiv", "Div", "FloorDiv", "TruncateDiv", "Xdivy", "FloorMod"), _div),
    "Pow": _pow,
    "Cast": _cast,
    **dict.fromkeys(("Softmax", "LogSoftmax"), _softmax),
    **dict.fromkeys(("Const", "ReadVariableOp", "VarHandleOp", "Placeholder"), _source),
    **SPECIAL_RULES,
}
# no rule of their own: an empty reduction is said as such; "overflowed" only where that is
# the one way the op makes NaN/∞ (explain/special.py)
_REDUCTION = reduction(_generic)
_UNKNOWN = unknown_op(_generic)
_GENERIC = (_generic, _REDUCTION, _UNKNOWN)
_RULES.update(dict.fromkeys(("Mean", "Max", "Min"), _REDUCTION))

# Ops without a rule of their own that always have inputs: with none recorded, the inputs are
# unknown (an op with no inputs at all, e.g. a constant, is where its value enters).
_ARITHMETIC = frozenset({
    "Add", "AddV2", "AddN", "Sub", "Mul", "MatMul", "BatchMatMulV2", "Sum", "Mean", "Prod",
    "Square", "BiasAdd", "Neg", "Abs", "Tanh", "Sigmoid", "Relu", "Maximum", "Minimum",
    "Conv2D", "SquaredDifference", "Sin", "Cos", "Tan",
})

_NAMED = 5  # unrecorded inputs named one by one; the rest are counted


def explain_origin(op_type: str, out: Health, ins: list[In], where: str = "") -> str:
    """One sentence: what the origin produced and why, from its inputs' health."""
    head = produced(op_type, out)
    moves = optable.cannot(op_type) or op_type in MOVERS
    if op_type == "Placeholder" or (ins and all(x.health is None for x in ins)
                                    and op_type not in _RULES and moves):
        # "outside" is the cause only when the op cannot make NaN/∞ from finite values
        notes = "; ".join(dict.fromkeys(x.note for x in ins if x.note))
        reason = where or notes or "its source was not recorded"
        why = (f" ({op_type} cannot make NaN/∞ from finite inputs)"
               if op_type != "Placeholder" else "")
        return f"{head}: it came in from outside{why} — {reason}"
    rule = _RULES.get(op_type, _UNKNOWN)
    if not ins and (rule not in (*_GENERIC, _source) or op_type in _ARITHMETIC):
        ins = [NO_INPUTS]  # a Log, a division… always has inputs: they were not recorded
    unknown = [x for x in ins if x.health is None]
    if ins and op_type in ("Const", "ReadVariableOp", "VarHandleOp"):
        rule = _source
    sentence = f"{head}: {rule(op_type, out, ins)}"
    if unknown and rule not in _GENERIC:
        said = [x.name for x in unknown if x.name not in sentence]
        sentence += "; " + ", ".join(f"{n} was not recorded" for n in said[:_NAMED])
        if len(said) > _NAMED:
            sentence += f", nor {len(said) - _NAMED:,} more inputs"
    if out.mode == CURT_HEALTH and "CURT_HEALTH" not in sentence:
        sentence += " (CURT_HEALTH records only a NaN/∞ flag per tensor, no counts)"
    return sentence.rstrip("; ") + "."


def explain_step(op_type: str, out: Health, ins: list[In]) -> str | None:
    """When an op turns ∞ into NaN (no input had NaN), name the operation that did it."""
    known = [x for x in ins if x.health is not None and x.health.nan is not None]
    if not out.nan or not known or any(x.health.nan for x in known if x.health):
        return None
    if not any((x.health.pos_inf or x.health.neg_inf) for x in known if x.health):
        return None

    def inf_desc(x: In) -> str:
        h = x.health
        assert h is not None
        bits = [f"{h.pos_inf:,} +∞" if h.pos_inf else "", f"{h.neg_inf:,} −∞" if h.neg_inf else ""]
        if h.zero:
            bits.append(plural(h.zero, "zero"))
        return f"{x.name} holds " + (", ".join(b for b in bits if b) or "no ∞")

    law = {"Sub": "∞ − ∞ = NaN", "Add": "∞ + (−∞) = NaN", "AddV2": "∞ + (−∞) = NaN",
           "Mul": "0 × ∞ = NaN", "RealDiv": "∞/∞ = NaN, 0/0 = NaN", "Div": "∞/∞ = NaN",
           "MatMul": "0 × ∞ or ∞ − ∞ inside the dot products = NaN",
           "Softmax": "a row of all −∞, or any +∞, gives NaN",
           "LogSoftmax": "a row of all −∞, or any +∞, gives NaN"}.get(
        op_type, "an operation on ∞ gave NaN")
    descs = "; ".join(inf_desc(x) for x in known)
    return f"{op_type} turned ∞ into NaN in {plural(out.nan, 'element')} ({law}): {descs}."


GRADIENT_RULES: dict[str, GradRule] = {
    "Sqrt": sqrt_grad,
    "Rsqrt": rsqrt_grad,
    **dict.fromkeys(("Reciprocal", "Inv"), reciprocal_grad),
    "Log": log_grad,
    "Log1p": log1p_grad,
    "Acos": inverse_trig_grad("Acos"),
    "Asin": inverse_trig_grad("Asin"),
    "Atanh": inverse_trig_grad("Atanh"),
    "Pow": pow_grad,
    **dict.fromkeys(("RealDiv", "Div"), div_grad),
    "Atan2": atan2_grad,
}


def explain_gradient(grad_type: str, fwd_type: str, fwd_name: str, out: Health,
                     ins: list[In]) -> str:
    """A gradient op's NaN/∞ in words: the forward op's derivative at the recorded values."""
    head = f"{produced(grad_type, out)} in the gradient of {fwd_type} ({fwd_name})"
    rule = GRADIENT_RULES.get(fwd_type)
    if rule is not None and fwd_type in GRAD_TYPES.get(grad_type, frozenset()):
        sentence = f"{head}: {rule(grad_type, fwd_name, out, ins)}"
    else:
        primitive = explain_origin(grad_type, out, ins).rstrip(".")
        sentence = f"{head}: {primitive.split(': ', 1)[-1]}"
    if out.mode == CURT_HEALTH and "CURT_HEALTH" not in sentence:
        sentence += " (CURT_HEALTH records only a NaN/∞ flag per tensor, no counts)"
    return sentence.rstrip("; ") + "."
