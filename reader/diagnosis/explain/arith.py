"""Rules for primitive ops: why an op produced NaN/∞ from its inputs' health (see
`reader.diagnosis.explain` for the table that maps op types to these rules)."""

from __future__ import annotations

import numpy as np

from reader.diagnosis.explain.common import (
    DTYPE_MAX,
    EXP_LIMIT,
    SMALLEST,
    In,
    count,
    counts_known,
    max_abs,
    max_finite,
    plural,
    unknown_counts,
    unrecorded,
    unrecorded_all,
)
from reader.diagnosis.index import Health
from reader.io.tensors import dtype_name


# ---------------------------------------------------------------------- unary math
def _log(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    law = "log 0 = −∞, log of a negative = NaN"
    if op == "Log1p":
        law = "log1p(−1) = −∞, log1p below −1 = NaN"
    if x.health is None:
        return f"{unrecorded(x)}; {law}"
    h = x.health
    if op == "Log1p":
        m1 = count(h, lambda v: v == -1)
        below = count(h, lambda v: v < -1)
        if m1 is not None and below is not None:
            return (f"its input {x.name} holds {plural(m1, 'value')} equal to −1 and "
                    f"{plural(below, 'value')} below −1 ({law})")
        if h.negative is not None:
            return f"its input {x.name} holds {plural(h.negative, 'negative value')} ({law})"
        return f"{unknown_counts(x)} ({law})"
    if not counts_known(h):
        return f"{unknown_counts(x)}; it must hold zeros or negative values ({law})"
    bits = []
    if out.neg_inf or h.zero:
        bits.append(f"{plural(h.zero or 0, 'zero')} (log 0 = −∞)")
    if out.nan or h.negative:
        bits.append(f"{plural(h.negative or 0, 'negative value')} (log of a negative = NaN)")
    return f"its input {x.name} holds " + " and ".join(bits)


def _sqrt(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    laws = {"Sqrt": "√ of a negative = NaN", "Rsqrt": "1/√0 = +∞, 1/√negative = NaN",
            "Reciprocal": "1/0 = ∞", "Inv": "1/0 = ∞"}
    law = laws.get(op, "")
    if x.health is None:
        return f"{unrecorded(x)}; {law}"
    h = x.health
    if not counts_known(h):
        return f"{unknown_counts(x)} ({law})"
    bits = []
    if op != "Sqrt" and (h.zero or not h.negative):
        bits.append(plural(h.zero or 0, "zero"))
    if op != "Reciprocal" and op != "Inv" and (h.negative or not bits):
        bits.append(plural(h.negative or 0, "negative value"))
    return f"its input {x.name} holds {' and '.join(bits)} ({law})"


def _exp(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    dt = out.dtype if out.dtype is not None else (x.health.dtype if x.health else None)
    limit = EXP_LIMIT.get(dt or 1, 88.72)
    dname = dtype_name(dt) if dt is not None else "float32"
    law = (f"exp overflows {dname} above ≈{limit:g}" if op in ("Exp", "Expm1")
           else "large positive inputs overflow")
    if x.health is None and not x.name:  # the record lists no input at all
        return f"{unrecorded(x)}; {law}"
    if x.health is None:
        return (f"{unrecorded(x)}, so whether it already held ∞ is not known; if it was "
                f"finite, some of its values were too large: {law}")
    h = x.health
    big = count(h, lambda v: v > limit)
    top = max_finite(h)
    if big is not None and top is not None:
        return (f"its input {x.name} holds {plural(big, 'value')} above {limit:g} "
                f"(largest {top:.6g}); {law}")
    if h.positive is not None:
        return (f"its input {x.name} holds {plural(h.positive, 'positive value')}, of which "
                f"at least {out.pos_inf or 0:,} must be too large: {law}")
    return f"{x.name} had no NaN/∞, so some of its values are too large: {law}"


def _inverse_trig(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    law = {"Acos": "acos(|x| > 1) = NaN", "Asin": "asin(|x| > 1) = NaN",
           "Atanh": "atanh(±1) = ±∞, atanh(|x| > 1) = NaN"}.get(op, "")
    if x.health is None:
        return f"{unrecorded(x)}; {law}"
    over = count(x.health, lambda v: np.abs(v) > 1)
    edge = count(x.health, lambda v: np.abs(v) == 1)
    if op == "Atanh" and over is not None and edge is not None:
        return (f"its input {x.name} holds {plural(edge, 'value')} equal to ±1 and "
                f"{plural(over, 'value')} outside [−1, 1] ({law}): a value that saturates "
                "(tanh, a clipped correlation) reaches the edge — clip into (−1, 1)")
    if over is not None:
        return (f"its input {x.name} holds {plural(over, 'value')} outside [−1, 1], where "
                f"{op.lower()} is not defined ({law})")
    if op == "Atanh" and not out.nan:
        return (f"its input {x.name} had no NaN, so it must hold values equal to ±1, the "
                f"edge of the domain ({law}): a value that saturates (tanh rounds to exactly "
                "1.0 in float32 above ≈9, a clipped correlation) reaches it — clip into "
                "(−1, 1), or use the value before the tanh (atanh(tanh(z)) = z)")
    return f"its input {x.name} must hold values outside [−1, 1] ({law})"


# ---------------------------------------------------------------------- binary math
def _div(op: str, out: Health, ins: list[In]) -> str:
    if len(ins) < 2:
        return _generic(op, out, ins)
    x, y = ins[0], ins[1]
    law = "x/0 = ±∞" if op == "Xdivy" else "x/0 = ±∞, 0/0 = NaN"
    if y.health is None:
        return f"its divisor {y.name} was not recorded ({law})"
    hy = y.health
    if x.health is not None and x.health.values is not None and hy.values is not None:
        try:
            xv, yv = np.broadcast_arrays(x.health.values, hy.values)
            zero_div = (yv == 0) & (xv != 0) & ~np.isnan(xv)
            zero_zero = (yv == 0) & (xv == 0)
            return (f"{plural(int(zero_div.sum()), 'element')} of {x.name} are nonzero over a zero "
                    f"of {y.name} and {plural(int(zero_zero.sum()), 'element')} are 0/0 ({law})")
        except ValueError:
            pass
    if hy.zero is None:
        return f"{unknown_counts(y)}; it must hold zeros or tiny values ({law})"
    if not hy.zero:
        if out.nan and hy.bad == 0 and x.health is not None and x.health.bad == 0:
            # finite / nonzero is never NaN: these records are not this division's operands
            return (f"its divisor {y.name} as recorded holds no zeros and the numerator "
                    f"{x.name} no NaN/∞, yet a quotient is NaN only for 0/0 or ∞/∞: the "
                    "records paired with this division are not its operands (calls of one "
                    "function that overlap interleave their records), so which held the "
                    f"zero is unknown ({law})")
        return (f"its divisor {y.name} holds no zeros, so the quotient overflowed: tiny "
                "divisors make huge results")
    numer = f" and the numerator {x.name} holds {plural(x.health.zero, 'zero')}" if (
        x.health is not None and x.health.zero is not None) else ""
    return f"its divisor {y.name} holds {plural(hy.zero, 'zero')}{numer} ({law}){_tiny(hy)}"


def _tiny(h: Health) -> str:
    """For half-precision divisors: small constants (epsilons) round to 0 there."""
    smallest = SMALLEST.get(h.dtype or 0)
    if h.dtype not in (19, 14) or smallest is None:
        return ""
    return (f"; in {dtype_name(h.dtype)} any value below ≈{smallest:.2g} rounds to 0 — an "
            "epsilon such as 1e-8 added to the divisor is lost")


def _pow(op: str, out: Health, ins: list[In]) -> str:
    if len(ins) >= 2 and ins[0].health is None:
        return _pow_unrecorded_base(out, ins[0], ins[1])
    if len(ins) < 2:
        return _generic(op, out, ins)
    x, y = ins[0], ins[1]
    hx = x.health
    assert hx is not None
    law = "0 to a negative power = ∞, a negative base to a fractional power = NaN"
    if hx.values is not None and y.health is not None and y.health.values is not None:
        try:
            xv, yv = np.broadcast_arrays(hx.values, y.health.values)
            inf = int(((xv == 0) & (yv < 0)).sum())
            nan = int(((xv < 0) & (yv != np.round(yv))).sum())
            return (f"{plural(inf, 'element')} raise 0 to a negative power and "
                    f"{plural(nan, 'element')} raise a negative base to a fractional power "
                    f"({law})")
        except ValueError:
            pass
    if hx.zero is None:
        return f"{unknown_counts(x)} ({law}; large results overflow)"
    hy = y.health
    if not out.nan and (hx.zero == 0 or (hy is not None and hy.negative == 0)):
        # ±∞ without a zero raised to a negative power: the only way left is overflow
        return _overflow(op, out, ins)
    exp_neg = ""
    if y.health is not None and y.health.negative is not None:
        exp_neg = f", its exponent {y.name} holds {plural(y.health.negative, 'negative value')}"
    return (f"its base {x.name} holds {plural(hx.zero, 'zero')} and "
            f"{plural(hx.negative or 0, 'negative value')}{exp_neg} "
            f"({law}; large results overflow)")


def _pow_unrecorded_base(out: Health, x: In, y: In) -> str:
    """The base was not recorded: say what the output and the exponent leave possible."""
    law = "0 to a negative power = ∞, a negative base to a fractional power = NaN"
    hy = y.health
    if out.nan and hy is not None and hy.nan == 0 and not hy.pos_inf and not hy.neg_inf:
        return (f"{unrecorded(x)}; with a finite exponent {y.name}, pow gives NaN only for a "
                "negative base raised to a fractional power (or a NaN base), so the base must "
                f"hold negative values (or NaN) ({law})")
    return f"{unrecorded(x)} ({law}; large results overflow)"


def _overflow(op: str, out: Health, ins: list[In]) -> str:
    """Finite inputs, non-finite output: an arithmetic overflow (sums, products, dot products)."""
    unknown = [x for x in ins if x.health is None]
    dt = out.dtype if out.dtype is not None else 1
    limit = DTYPE_MAX.get(dt, 3.4e38)
    mags = [(x.name, max_abs(x.health)) for x in ins if x.health is not None]
    quoted = ", ".join(f"{n} up to {m:.3g}" for n, m in mags if m is not None)
    what = {"MatMul": "the dot products", "BatchMatMulV2": "the dot products",
            "Sum": "the sum", "Mean": "the sum", "Prod": "the product", "Mul": "the product",
            "Square": "the square", "AddV2": "the sum", "Add": "the sum", "Sub": "the difference",
            "AddN": "the sum", "BiasAdd": "the sum", "Pow": "the power"}.get(op, "the result")
    nan_note = ""
    if out.nan:
        nan_note = "; NaN from finite inputs means an overflow met its opposite (∞ − ∞ or 0 × ∞)"
    if unknown:
        # an input made outside any recorded op is the cause only if it held the NaN/∞;
        # that is not known, so both are said, the overflow conditionally
        bad = [x.name for x in ins if x.health is not None and x.health.bad == 1]
        if bad:
            return (f"NaN/∞ came in through {', '.join(bad)}; "
                    f"{unrecorded_all(unknown)}")
        they = "it" if len(unknown) == 1 else "they"
        held = "NaN/∞" if out.nan else "∞"
        rest = (f"; the recorded inputs were finite{': ' + quoted if quoted else ''}"
                if len(unknown) < len(ins) else "")
        return (f"{unrecorded_all(unknown)}, so whether {they} already held {held} is not "
                f"known{rest}; if {they} held finite values, {what} overflowed "
                f"{dtype_name(dt)} (largest finite ≈{limit:.3g}){nan_note}")
    return (f"its inputs were finite{': ' + quoted if quoted else ''}, so {what} overflowed "
            f"{dtype_name(dt)} (largest finite ≈{limit:.3g}){nan_note}")


def _cast(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0] if ins else None
    dst = dtype_name(out.dtype) if out.dtype is not None else "a narrower type"
    limit = DTYPE_MAX.get(out.dtype or 0)
    rng = f" (largest finite ≈{limit:.3g})" if limit else ""
    if x is None or x.health is None:
        return f"its input was not recorded; values beyond {dst}'s range{rng} become ±∞"
    src = dtype_name(x.health.dtype) if x.health.dtype is not None else "a wider type"
    big = max_abs(x.health)
    over = (count(x.health, lambda v: np.isfinite(v) & (np.abs(v) > limit))
            if limit else None)
    if big is not None and over is not None:
        return (f"its {src} input {x.name} holds {plural(over, 'value')} beyond {dst}'s "
                f"range{rng}, the largest {big:.6g}")
    return f"its {src} input {x.name} holds values beyond {dst}'s range{rng}"


def _source(op: str, out: Health, ins: list[In]) -> str:
    if op == "Const":
        return "the constant itself holds it: it is written in the program"
    if op in ("ReadVariableOp", "VarHandleOp", "VariableV2"):
        return "the variable already held it when read: an earlier update wrote it"
    return "it is where this value enters the computation; nothing upstream was recorded"


def _softmax(op: str, out: Health, ins: list[In]) -> str:
    return ("its inputs were finite, and a softmax of finite values is finite; "
            "check the numbers below") if ins and ins[0].health is not None else (
            f"{unrecorded(ins[0]) if ins else 'its input was not recorded'}; a row of all −∞ "
            "gives NaN, +∞ gives NaN")


def _generic(op: str, out: Health, ins: list[In]) -> str:
    if not ins:
        return _source(op, out, ins)
    known = [x for x in ins if x.health is not None]
    if not known:
        notes = unrecorded_all(ins)
        return f"{notes}, so the cause cannot be read from this logdir"
    return _overflow(op, out, ins)
