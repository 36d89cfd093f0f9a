"""The cause behind the cause: zeros that an upstream op made by underflowing.

`log(softplus(x))` in float16: Log's −∞ is explained by the zeros of its input, but those
zeros exist because softplus of a very negative x (≈ e^x) is below float16's smallest
value (6e-8) and rounds to 0 — in float32 it would be ~1e-9 and the Log finite. The line
to change is the softplus (compute it in float32, or in log space), not the Log.

Said only when the records show it: the origin's rule blames an input's zeros, that input
was recorded, and its producer could not have made an exact 0 from its recorded inputs —
an op whose result is never 0 for finite inputs (exp, softplus, sigmoid, 1/√x), or one that
is 0 only where an input is 0 (a product, a power, a quotient, a narrowing cast) while its
inputs held no zeros. A 0 made by cancellation (1 − 1, a sum) is not an underflow.
"""

from __future__ import annotations

from dataclasses import dataclass

from reader.diagnosis.explain.common import SMALLEST, In
from reader.diagnosis.places import Place, place_of_ref
from reader.diagnosis.trail import in_of, op_type
from reader.diagnosis.walk import Link, Walker
from reader.io.tensors import dtype_name

# origin op → the input position whose zeros make its NaN/∞
ZERO_INPUT: dict[str, int] = {
    "Log": 0, "Reciprocal": 0, "Inv": 0, "Rsqrt": 0, "Lgamma": 0, "Digamma": 0,
    "RealDiv": 1, "Div": 1, "Xdivy": 1, "Xlogy": 1, "Pow": 0,
}
# ops whose exact result is never 0 for finite inputs
NEVER_ZERO = frozenset({"Exp", "Softplus", "Sigmoid", "Rsqrt", "Reciprocal", "Inv"})
# ops whose exact result is 0 only where an input is 0
ZERO_ONLY_FROM_ZERO = frozenset({"Mul", "Square", "Pow", "RealDiv", "Div", "Cast", "Expm1",
                                 "Tanh", "Sinh"})
_LOG_SPACE = {"Softplus": "or stay in log space (log(softplus(x)) ≈ x for very negative x)",
              "Sigmoid": "or use tf.math.log_sigmoid(x) instead of log(sigmoid(x))",
              "Exp": "or stay in log space (log(exp(x)) is x)"}


@dataclass(frozen=True)
class Underflow:
    text: str  # the clause added to the explanation
    producer: Place  # the op whose result underflowed: the line to change


def underflow_behind(walker: Walker, op: str, ins: list[In], links: list[Link]
                     ) -> Underflow | None:
    """The upstream underflow behind the zeros the origin's rule blames, or None."""
    p = ZERO_INPUT.get(op)
    if p is None or p >= len(ins) or p >= len(links):
        return None
    x, link = ins[p], links[p]
    h = x.health
    if h is None or not h.zero or h.bad != 0 or link.ref is None:
        return None
    producer = op_type(walker, link.ref)
    if producer not in NEVER_ZERO and producer not in ZERO_ONLY_FROM_ZERO:
        return None
    feeds = [in_of(walker, lk, False) for lk in walker.inputs(link.ref)]
    if not feeds or any(f.health is None or f.health.bad != 0 for f in feeds):
        return None  # an unrecorded or non-finite input: an underflow is not shown
    if producer in ZERO_ONLY_FROM_ZERO and any(f.health is None or f.health.zero != 0
                                               for f in feeds):
        return None  # zeros in (or not counted in) its inputs explain the zeros
    dt = h.dtype if h.dtype is not None else 1
    name = dtype_name(dt)
    smallest = SMALLEST.get(dt)
    below = f" (≈{smallest:.2g})" if smallest else ""
    nonzero = "" if producer in NEVER_ZERO else " nonzero"
    fix = "compute it in float32" if dt in (19, 14) else "rescale it, or use float64"
    extra = _LOG_SPACE.get(producer)
    place = place_of_ref(walker.idx, link.ref)
    uf = place.user_frame
    at = f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""
    return Underflow(
        f"those zeros are {name} underflow: {producer}{at} made them from finite{nonzero} "
        f"inputs — its true results are below {name}'s smallest value{below} and round to 0 "
        f"— so the line to change is the {producer}: {fix}{', ' + extra if extra else ''}",
        place)
