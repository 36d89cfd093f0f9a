"""Rules for causes that are not one op's arithmetic: function calls whose ops were not
traced, NaN made from deliberate ±∞ constants. (Data and variables: `reader.diagnosis.data`
and `reader.diagnosis.variables`, which also find the place to fix.)

Each says what the records show and, where they cannot show it, what stays unknown — a
confident wrong reason is worse than none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reader.diagnosis.explain.common import In, plural, produced, unrecorded
from reader.diagnosis.index import Health

if TYPE_CHECKING:
    from reader.diagnosis.calls import Candidate
    from reader.diagnosis.places import Place

_WHY_UNTRACED = ("TensorFlow records the ops of a gradient function called from eager code "
                 "(tape.gradient over tf.functions called eagerly) but never traces their "
                 "values")
_HOW_TO_SEE = ("to record the gradient's values, compute loss and gradient inside one "
               "tf.function (a train step)")


def _inputs_state(ins: list[In]) -> str:
    unknown = [x for x in ins if x.health is None]
    bad = [x for x in ins if x.health is not None and x.health.bad == 1]
    if bad:
        return "NaN/∞ came in through " + ", ".join(x.name for x in bad)
    if unknown:
        return "; ".join(unrecorded(x) for x in unknown) + "; the recorded inputs were finite"
    return "its inputs were finite"


def function_call(call: str, name: str, out: Health, ins: list[In], note: str) -> str:
    """An eager tf.function call whose own ops recorded no NaN/∞ (or were not traced)."""
    head = produced(call, out)
    where = f" ({note})" if note else ""
    return (f"{head}: the NaN/∞ was born inside the function {name}, whose ops recorded no "
            f"NaN/∞ during this call{where}; {_inputs_state(ins)}. A function call is not "
            "one operation, so no arithmetic rule applies: which op inside it made the "
            "NaN/∞ is not in this logdir.")


def untraced_gradient(call: str, name: str, out: Health, ins: list[In],
                      cands: list[Candidate]) -> tuple[str, Candidate | None]:
    """A backward function's NaN/∞ with no traces inside: deduce it from forward values.

    Names a cause only when exactly one forward op's derivative is singular at the recorded
    values; otherwise lists what could be, and says why it is not known.
    """
    head = (f"{produced(call, out)}: the NaN/∞ was born inside the gradient function {name} "
            f"({_WHY_UNTRACED}); {_inputs_state(ins)}")
    shown = [c for c in cands if c.evidence]
    if len(shown) == 1:
        c = shown[0]
        return (f"{head}. Of the forward ops it differentiates, only {c.forward.op_type} "
                f"({c.forward.op_name}) has a derivative that is infinite at the recorded "
                f"values — {c.evidence}, and {c.law} — so its gradient op "
                f"{c.gradient.op_type} made it (inferred from the forward values; {_HOW_TO_SEE}"
                ").", c)
    if len(shown) > 1:
        names = "; ".join(f"{c.forward.op_type} ({c.forward.op_name}): {c.evidence}"
                          for c in shown)
        return (f"{head}. Several forward ops have derivatives that are infinite at the "
                f"recorded values, so which one is not known: {names}. {_HOW_TO_SEE}.", None)
    unsure = [c for c in cands if c.unknown]
    if unsure:
        names = ", ".join(f"{c.forward.op_type} ({c.forward.op_name})" for c in unsure)
        return (f"{head}. Forward ops whose derivative can be infinite: {names}; the recorded "
                f"values cannot tell whether they reached the singular point. {_HOW_TO_SEE}.",
                None)
    return (f"{head}. No forward op's derivative is singular at the recorded values: the "
            f"gradient overflowed or met a NaN that was not recorded. {_HOW_TO_SEE}.", None)


def deliberate_infinity(op: str, out: Health, ins: list[In], consts: list[Place]) -> str:
    """NaN born at `op` from ±∞ that constants hold on purpose (a −∞ mask)."""
    head = produced(op, out)
    law = {"Mul": "0 × ∞ = NaN", "Sub": "∞ − ∞ = NaN", "AddV2": "∞ + (−∞) = NaN",
           "Add": "∞ + (−∞) = NaN", "MatMul": "0 × ∞ inside the dot products = NaN",
           "BatchMatMulV2": "0 × ∞ inside the dot products = NaN",
           "Softmax": "a softmax of a row that is all −∞ is 0/0 = NaN",
           "LogSoftmax": "a log-softmax of a row that is all −∞ is NaN",
           "RealDiv": "∞/∞ = NaN"}.get(op, "arithmetic on ∞ gives NaN")
    where = []
    for c in consts:
        uf = c.user_frame
        at = f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""
        text = f"{c.op_name or c.op_type}{at}"
        if text not in where:
            where.append(text)
    infs = [x for x in ins if x.health is not None and (x.health.pos_inf or x.health.neg_inf)]
    counts = "; ".join(
        f"{x.name} holds " + ", ".join(b for b in (
            plural(x.health.neg_inf, "−∞", "−∞") if x.health and x.health.neg_inf else "",
            plural(x.health.pos_inf, "+∞", "+∞") if x.health and x.health.pos_inf else "")
            if b) for x in infs)
    return (f"{head}: NaN first appears here ({law}). The ∞ is deliberate — it comes from "
            f"the constant {', '.join(where)} (a mask); the bug is the operation that meets "
            f"it here{': ' + counts if counts else ''}. Mask with a large finite value "
            "(e.g. −1e9) or keep masked entries out of this operation.")
