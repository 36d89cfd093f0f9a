"""Rules for ops whose NaN/∞ is not an overflow: reductions over nothing, special functions
with poles or a bounded domain, and ops this tool has no rule for.

"Its inputs were finite, so the result overflowed" is true of sums, products and dot
products, and of nothing else: the mean of an empty tensor is 0/0, ndtri(1) is +∞ by
definition, lgamma(0) is a pole. Saying "overflowed" there sends the user to scale values
that are not too large. So an op without a rule of its own is said to have overflowed only
when overflowing is the one way it can make NaN/∞ from finite inputs (`OVERFLOW_ONLY`); for
any other op the sentence says what is known and that the rest is not.
"""

from __future__ import annotations

from collections.abc import Callable

from reader.diagnosis import optable
from reader.diagnosis.explain.arith import _overflow
from reader.diagnosis.explain.common import (
    DTYPE_MAX,
    In,
    count,
    counts_known,
    plural,
    unknown_counts,
    unrecorded,
    unrecorded_all,
)
from reader.diagnosis.explain.family import family_rule, overflow_fix
from reader.diagnosis.index import Health
from reader.io.tensors import dtype_name

Rule = Callable[[str, Health, list[In]], str]

# ops that make NaN/∞ out of finite inputs only by overflowing (∞, then ∞ − ∞ or 0 × ∞)
OVERFLOW_ONLY = frozenset({
    "Add", "AddV2", "AddN", "Sub", "Mul", "MatMul", "BatchMatMul", "BatchMatMulV2",
    "BatchMatMulV3", "Sum", "Mean", "Prod", "Square", "SquaredDifference", "BiasAdd", "Neg",
    "Cosh", "Sinh", "Conv1D", "Conv2D", "Conv3D", "DepthwiseConv2dNative", "Conv2DBackpropInput",
    "Conv2DBackpropFilter", "Einsum", "Cumsum", "Cumprod", "L2Loss", "Relu", "Elu", "Selu",
    "LeakyRelu", "AvgPool", "AvgPool3D", "EuclideanNorm", "UnsortedSegmentSum", "SegmentSum",
    "ScatterNd", "TensorScatterAdd",
    "Expm1", "Exp", "Softplus", "MulNoNan", "DivNoNan", "BiasAddGrad", "ReluGrad",
    "TanhGrad", "SigmoidGrad", "ApplyAdam", "ResourceApplyAdam", "ResourceApplyGradientDescent",
    "ResourceApplyKerasMomentum", "ResourceApplyMomentum",
})

# ops that only move, pick or compare values: they cannot make NaN/∞ at all
MOVERS = frozenset({
    "Identity", "IdentityN", "Reshape", "Transpose", "ConcatV2", "Pack", "Unpack", "Split",
    "SplitV", "Squeeze", "ExpandDims", "StridedSlice", "Slice", "GatherV2", "GatherNd",
    "ResourceGather", "Tile", "BroadcastTo", "Pad", "PadV2", "MirrorPad", "ReverseV2",
    "SelectV2", "Select", "Abs", "Relu6", "ClipByValue", "Sign", "Round", "Floor", "Ceil",
    "Tanh", "Sigmoid", "Sin", "Cos", "Atan", "Erf", "Erfc", "Max", "Min", "Maximum", "Minimum",
    "MaxPool",
})


# ---------------------------------------------------------------------- reductions
def reduction(generic: Rule) -> Rule:
    """Mean/Max/Min over an empty tensor (a boolean_mask or filter that kept nothing)."""
    empty_law = {"Mean": "the mean of no values is 0/0 = NaN",
                 "Max": "the maximum of no values is −∞",
                 "Min": "the minimum of no values is +∞"}

    def rule(op: str, out: Health, ins: list[In]) -> str:
        x = ins[0] if ins else None
        if op in empty_law and x is not None and x.health is not None and x.health.size == 0:
            guard = "skip the term when nothing is selected"
            if op == "Mean":
                guard = ("divide the sum by the count with tf.math.divide_no_nan, or "
                         + guard)
            return (f"its input {x.name} is empty (0 elements; a tf.boolean_mask, tf.gather or "
                    f"dataset filter that selected nothing), and {empty_law[op]}: {guard}")
        return generic(op, out, ins)

    return rule


# ---------------------------------------------------------------------- special functions
def _edges(op: str, out: Health, ins: list[In]) -> str:
    """Functions infinite at the edges of a bounded domain: ndtri on [0, 1], erfinv on
    [−1, 1]."""
    x = ins[0]
    if op == "Ndtri":
        law = "ndtri(0) = −∞, ndtri(1) = +∞, ndtri outside [0, 1] = NaN"
        edge_lo, edge_hi, lo = "0", "1", 0.0
    else:
        law = "erfinv(−1) = −∞, erfinv(1) = +∞, erfinv outside [−1, 1] = NaN"
        edge_lo, edge_hi, lo = "−1", "1", -1.0
    if x.health is None:
        return f"{unrecorded(x)}; {law}"
    h = x.health
    at_lo = count(h, lambda v: v == lo)
    at_hi = count(h, lambda v: v == 1.0)
    outside = count(h, lambda v: (v < lo) | (v > 1.0))
    if at_lo is not None and at_hi is not None and outside is not None:
        return (f"its input {x.name} holds {plural(at_lo, 'value')} equal to {edge_lo}, "
                f"{plural(at_hi, 'value')} equal to {edge_hi} and {plural(outside, 'value')} "
                f"outside the domain ({law}); an input computed as rank / (n − 1) or a "
                "probability that saturates reaches the edges: clip it into the open interval")
    bits = []
    if op == "Ndtri" and counts_known(h):
        if out.neg_inf:
            bits.append(f"{plural(h.zero or 0, 'zero')} (the −∞)")
        if out.nan and h.negative:
            bits.append(f"{plural(h.negative, 'negative value')} (the NaN)")
    known = f"its input {x.name} holds {' and '.join(bits)}; " if bits else ""
    rest = ("the values equal to 1 that give +∞ are not counted in this mode"
            if out.pos_inf else "")
    return (f"{known}{rest}{'; ' if rest else ''}{law}: the input reaches the edge of the "
            "domain (a rank / (n − 1) or a saturated probability); clip it into the open "
            "interval").replace("; ;", ";")


def _poles(op: str, out: Health, ins: list[In]) -> str:
    """lgamma and digamma: poles at 0 and at the negative integers."""
    x = ins[0]
    law = (f"{op.lower()} has poles at 0 and at every negative integer "
           f"({op.lower()}(0) is {'+∞' if op == 'Lgamma' else 'not finite'})")
    if x.health is None:
        return f"{unrecorded(x)}; {law}"
    h = x.health
    if not counts_known(h):
        return f"{unknown_counts(x)}; it must hold 0 or a negative integer ({law})"
    return (f"its input {x.name} holds {plural(h.zero or 0, 'zero')} and "
            f"{plural(h.negative or 0, 'negative value')} ({law}; e.g. a shape or "
            "concentration parameter that reached 0: keep it positive, e.g. softplus(z) + 1e-6)")


def _xlogy(op: str, out: Health, ins: list[In]) -> str:
    """xlogy(x, y) = x·log(y), and 0 where x = 0."""
    law = "xlogy(x, 0) = −∞ for x ≠ 0, xlogy(x, y < 0) = NaN; xlogy(0, y) = 0"
    if len(ins) < 2:
        return f"its inputs were not recorded ({law})"
    y = ins[1]
    if y.health is None:
        return f"{unrecorded(y)}; {law}"
    if not counts_known(y.health):
        return f"{unknown_counts(y)} ({law})"
    return (f"its second input {y.name} holds {plural(y.health.zero or 0, 'zero')} and "
            f"{plural(y.health.negative or 0, 'negative value')} ({law})")


def _python(op: str, out: Health, ins: list[In]) -> str:
    """tf.py_function / tf.numpy_function: Python code TensorFlow runs without tracing it."""
    bad = [x.name for x in ins if x.health is not None and x.health.bad == 1]
    came = f" (NaN/∞ came in through {', '.join(bad)})" if bad else ""
    return (f"its values are computed by a Python function (tf.py_function or "
            f"tf.numpy_function) that TensorFlow runs but does not trace{came}: the NaN/∞ was "
            "made inside that Python function or is in the data it reads — check it there")


SPECIAL_RULES: dict[str, Rule] = {
    **dict.fromkeys(("PyFunc", "PyFuncStateless", "EagerPyFunc"), _python),
    **dict.fromkeys(("Ndtri", "Erfinv"), _edges),
    **dict.fromkeys(("Lgamma", "Digamma"), _poles),
    "Xlogy": _xlogy,
}


# ---------------------------------------------------------------------- no rule at all
def unknown_op(generic: Rule) -> Rule:
    """The rule for an op that has none of its own: its family in the op table
    (`reader.diagnosis.optable`) says how it can make NaN/∞; overflow only where that is the
    one way; for an op the table does not know, what is known and that the rest is not."""

    def rule(op: str, out: Health, ins: list[In]) -> str:
        fam = optable.family(op)
        said = family_rule(op, out, ins)
        if said is not None:
            return said
        real = [x for x in ins if x.name or x.health is not None]  # not NO_INPUTS
        if real and (fam == "overflow" or (fam is None and op in OVERFLOW_ONLY)):
            fix = overflow_fix(op)
            return _overflow(op, out, ins) + (f" — {fix}" if fix else "")
        said = generic(op, out, ins)
        known = [x for x in ins if x.health is not None]
        unknown = [x for x in ins if x.health is None]
        moves = optable.cannot(op) or op in MOVERS
        if not known:
            return said  # "not recorded", which is what is known
        finite = ("its inputs were finite" if all(x.health is not None and x.health.bad == 0
                                                   for x in ins) else "see its inputs")
        if unknown and moves and all(x.health is not None and x.health.bad == 0
                                     for x in known):
            return (f"{unrecorded_all(unknown)}: {op} cannot make NaN/∞ from finite inputs "
                    "and its recorded inputs were finite, so the NaN/∞ came in through "
                    f"{'it' if len(unknown) == 1 else 'one of them'}")
        if unknown and not moves:  # an op the table does not know: overflow is a guess too
            they = "it" if len(unknown) == 1 else "they"
            return (f"{unrecorded_all(unknown)}, so whether {they} already held NaN/∞ is not "
                    f"known; this tool has no rule for {op} (it is not in the op table of the "
                    "TensorFlow it knows), so even with finite inputs it cannot tell an "
                    "overflow from a pole or the edge of its domain")
        if unknown:
            return said
        if moves:
            return (f"{finite}, and {op} cannot make NaN/∞ itself from finite inputs: the "
                    "inputs recorded here are not the values it read (a trace of another "
                    "step or call), so where this NaN/∞ was born is not known")
        dt = out.dtype if out.dtype is not None else 1
        limit = DTYPE_MAX.get(dt)
        at = f" (largest finite ≈{limit:.3g})" if limit else ""
        return (f"{finite}; this tool has no rule for {op} (it is not in the op table of "
                f"the TensorFlow it knows), so it cannot tell whether the result overflowed "
                f"{dtype_name(dt)}{at} or {op} is infinite or undefined at some of these input "
                "values (a pole or the edge of its domain)")

    return rule
