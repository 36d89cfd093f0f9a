"""Say in one sentence, with numbers, why an op produced NaN/∞ from its inputs' health.

Each rule knows the op's arithmetic (log 0 = −∞, x/0 = ∞, 0/0 = NaN, exp overflows above
≈88.7 in float32…) and reads the inputs' health counts. FULL_HEALTH gives the counts of zeros,
negatives and positives; FULL_TENSOR gives the values themselves, so the rules can count the
exact culprits (x == −1 for Log1p, pairs with a zero divisor) and quote extremes. CONCISE and
CURT_HEALTH do not count zeros or signs; then the sentence says what is known and what is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from reader.diagnosis.index import Health
from reader.index.tensors import dtype_name
from reader.modes import CURT_HEALTH, mode_name

# exp(x) overflows above log(max) of the dtype; max finite magnitude per dtype
_LOG_MAX = {1: 88.72, 2: 709.78, 19: 11.09, 14: 88.72}
_MAX = {1: 3.4028235e38, 2: 1.7976931348623157e308, 19: 65504.0, 14: 3.39e38}


@dataclass(frozen=True)
class In:
    """One input as the explanation sees it."""

    name: str
    health: Health | None  # None: not recorded
    note: str = ""


def _n(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def produced(op_type: str, out: Health) -> str:
    """"Log produced −∞ in 3 of 10 elements" (or what the mode allows)."""
    parts = [(out.neg_inf, "−∞"), (out.pos_inf, "+∞"), (out.nan, "NaN")]
    if any(c is None for c, _ in parts):
        return f"{op_type} produced NaN or ∞ ({mode_name(out.mode)} records only a flag)"
    named = [f"{label} in {c:,}" for c, label in parts if c]
    what = " and ".join(named) if named else "NaN/∞"
    size = f" of {out.size:,} elements" if out.size is not None else ""
    return f"{op_type} produced {what}{size}"


def _counts_known(h: Health | None) -> bool:
    return h is not None and None not in (h.zero, h.negative, h.positive)


def _count(h: Health, pred: Callable[[np.ndarray], np.ndarray]) -> int | None:
    if h.values is None:
        return None
    return int(np.count_nonzero(pred(np.asarray(h.values, dtype=np.float64))))


def _max(h: Health) -> float | None:
    fin = h.finite_values()
    return float(fin.max()) if fin is not None and fin.size else None


def _max_abs(h: Health) -> float | None:
    fin = h.finite_values()
    return float(np.abs(fin).max()) if fin is not None and fin.size else None


def _unknown_counts(x: In) -> str:
    assert x.health is not None
    return (f"{x.name} had no NaN/∞, but {mode_name(x.health.mode)} does not count zeros "
            "or negative values")


def _unrecorded(x: In) -> str:
    return f"its input {x.name} was not recorded" + (f" ({x.note})" if x.note else "")


# ---------------------------------------------------------------------- unary math
def _log(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    law = "log 0 = −∞, log of a negative = NaN"
    if op == "Log1p":
        law = "log1p(−1) = −∞, log1p below −1 = NaN"
    if x.health is None:
        return f"{_unrecorded(x)}; {law}"
    h = x.health
    if op == "Log1p":
        m1 = _count(h, lambda v: v == -1)
        below = _count(h, lambda v: v < -1)
        if m1 is not None and below is not None:
            return (f"its input {x.name} holds {_n(m1, 'value')} equal to −1 and "
                    f"{_n(below, 'value')} below −1 ({law})")
        if h.negative is not None:
            return f"its input {x.name} holds {_n(h.negative, 'negative value')} ({law})"
        return f"{_unknown_counts(x)} ({law})"
    if not _counts_known(h):
        return f"{_unknown_counts(x)}; it must hold zeros or negative values ({law})"
    bits = []
    if out.neg_inf or h.zero:
        bits.append(f"{_n(h.zero or 0, 'zero')} (log 0 = −∞)")
    if out.nan or h.negative:
        bits.append(f"{_n(h.negative or 0, 'negative value')} (log of a negative = NaN)")
    return f"its input {x.name} holds " + " and ".join(bits)


def _sqrt(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    laws = {"Sqrt": "√ of a negative = NaN", "Rsqrt": "1/√0 = +∞, 1/√negative = NaN",
            "Reciprocal": "1/0 = ∞", "Inv": "1/0 = ∞"}
    law = laws.get(op, "")
    if x.health is None:
        return f"{_unrecorded(x)}; {law}"
    h = x.health
    if not _counts_known(h):
        return f"{_unknown_counts(x)} ({law})"
    bits = []
    if op != "Sqrt" and (h.zero or not h.negative):
        bits.append(_n(h.zero or 0, "zero"))
    if op != "Reciprocal" and op != "Inv" and (h.negative or not bits):
        bits.append(_n(h.negative or 0, "negative value"))
    return f"its input {x.name} holds {' and '.join(bits)} ({law})"


def _exp(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    dt = out.dtype if out.dtype is not None else (x.health.dtype if x.health else None)
    limit = _LOG_MAX.get(dt or 1, 88.72)
    dname = dtype_name(dt) if dt is not None else "float32"
    law = (f"exp overflows {dname} above ≈{limit:g}" if op in ("Exp", "Expm1")
           else "large positive inputs overflow")
    if x.health is None:
        return f"{_unrecorded(x)}; {law}"
    h = x.health
    big = _count(h, lambda v: v > limit)
    top = _max(h)
    if big is not None and top is not None:
        return (f"its input {x.name} holds {_n(big, 'value')} above {limit:g} "
                f"(largest {top:.6g}); {law}")
    if h.positive is not None:
        return (f"its input {x.name} holds {_n(h.positive, 'positive value')}, of which "
                f"at least {out.pos_inf or 0:,} must be too large: {law}")
    return f"{x.name} had no NaN/∞, so some of its values are too large: {law}"


def _inverse_trig(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0]
    law = {"Acos": "acos(|x| > 1) = NaN", "Asin": "asin(|x| > 1) = NaN",
           "Atanh": "atanh(±1) = ±∞, atanh(|x| > 1) = NaN"}.get(op, "")
    if x.health is None:
        return f"{_unrecorded(x)}; {law}"
    over = _count(x.health, lambda v: np.abs(v) > 1)
    if over is not None:
        return f"its input {x.name} holds {_n(over, 'value')} with |x| > 1 ({law})"
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
            return (f"{_n(int(zero_div.sum()), 'element')} of {x.name} are nonzero over a zero "
                    f"of {y.name} and {_n(int(zero_zero.sum()), 'element')} are 0/0 ({law})")
        except ValueError:
            pass
    if hy.zero is None:
        return f"{_unknown_counts(y)}; it must hold zeros or tiny values ({law})"
    if not hy.zero:
        tiny = ""
        return (f"its divisor {y.name} holds no zeros, so the quotient overflowed: tiny "
                f"divisors make huge results{tiny}")
    numer = f" and the numerator {x.name} holds {_n(x.health.zero, 'zero')}" if (
        x.health is not None and x.health.zero is not None) else ""
    return f"its divisor {y.name} holds {_n(hy.zero, 'zero')}{numer} ({law})"


def _pow(op: str, out: Health, ins: list[In]) -> str:
    if len(ins) < 2 or ins[0].health is None:
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
            return (f"{_n(inf, 'element')} raise 0 to a negative power and {_n(nan, 'element')} "
                    f"raise a negative base to a fractional power ({law})")
        except ValueError:
            pass
    if hx.zero is None:
        return f"{_unknown_counts(x)} ({law}; large results overflow)"
    exp_neg = ""
    if y.health is not None and y.health.negative is not None:
        exp_neg = f", its exponent {y.name} holds {_n(y.health.negative, 'negative value')}"
    return (f"its base {x.name} holds {_n(hx.zero, 'zero')} and "
            f"{_n(hx.negative or 0, 'negative value')}{exp_neg} ({law}; large results overflow)")


def _overflow(op: str, out: Health, ins: list[In]) -> str:
    """Finite inputs, non-finite output: an arithmetic overflow (sums, products, dot products)."""
    unknown = [x for x in ins if x.health is None]
    if unknown:
        notes = "; ".join(_unrecorded(x) for x in unknown)
        return (f"{notes} — NaN/∞ may have come in through it; the recorded inputs were "
                "finite")
    dt = out.dtype if out.dtype is not None else 1
    limit = _MAX.get(dt, 3.4e38)
    mags = [(x.name, _max_abs(x.health)) for x in ins if x.health is not None]
    quoted = ", ".join(f"{n} up to {m:.3g}" for n, m in mags if m is not None)
    what = {"MatMul": "the dot products", "BatchMatMulV2": "the dot products",
            "Sum": "the sum", "Mean": "the sum", "Prod": "the product", "Mul": "the product",
            "Square": "the square", "AddV2": "the sum", "Add": "the sum", "Sub": "the difference",
            "AddN": "the sum", "BiasAdd": "the sum"}.get(op, "the result")
    nan_note = ""
    if out.nan:
        nan_note = "; NaN from finite inputs means an overflow met its opposite (∞ − ∞ or 0 × ∞)"
    return (f"its inputs were finite{': ' + quoted if quoted else ''}, so {what} overflowed "
            f"{dtype_name(dt)} (largest finite ≈{limit:.3g}){nan_note}")


def _cast(op: str, out: Health, ins: list[In]) -> str:
    x = ins[0] if ins else None
    dst = dtype_name(out.dtype) if out.dtype is not None else "a narrower type"
    limit = _MAX.get(out.dtype or 0)
    rng = f" (largest finite ≈{limit:.3g})" if limit else ""
    if x is None or x.health is None:
        return f"its input was not recorded; values beyond {dst}'s range{rng} become ±∞"
    src = dtype_name(x.health.dtype) if x.health.dtype is not None else "a wider type"
    big = _max_abs(x.health)
    over = (_count(x.health, lambda v: np.isfinite(v) & (np.abs(v) > limit))
            if limit else None)
    if big is not None and over is not None:
        return (f"its {src} input {x.name} holds {_n(over, 'value')} beyond {dst}'s range{rng}, "
                f"the largest {big:.6g}")
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
            f"{_unrecorded(ins[0]) if ins else 'its input was not recorded'}; a row of all −∞ "
            "gives NaN, +∞ gives NaN")


def _generic(op: str, out: Health, ins: list[In]) -> str:
    if not ins:
        return _source(op, out, ins)
    known = [x for x in ins if x.health is not None]
    if not known:
        notes = "; ".join(_unrecorded(x) for x in ins)
        return f"{notes}, so the cause cannot be read from this logdir"
    return _overflow(op, out, ins)


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
}


def explain_origin(op_type: str, out: Health, ins: list[In], where: str = "") -> str:
    """One sentence: what the origin produced and why, from its inputs' health."""
    head = produced(op_type, out)
    if op_type == "Placeholder" or (ins and all(x.health is None for x in ins)
                                    and op_type not in _RULES):
        notes = "; ".join(x.note for x in ins if x.note)
        reason = where or notes or "its source was not recorded"
        return f"{head}: it came in from outside — {reason}"
    unknown = [x for x in ins if x.health is None]
    rule = _RULES.get(op_type, _generic)
    if ins and op_type in ("Const", "ReadVariableOp", "VarHandleOp"):
        rule = _source
    sentence = f"{head}: {rule(op_type, out, ins)}"
    if unknown and rule is not _generic:
        sentence += "; " + ", ".join(f"{x.name} was not recorded" for x in unknown
                                     if x.name not in sentence)
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
            bits.append(_n(h.zero, "zero"))
        return f"{x.name} holds " + (", ".join(b for b in bits if b) or "no ∞")

    law = {"Sub": "∞ − ∞ = NaN", "Add": "∞ + (−∞) = NaN", "AddV2": "∞ + (−∞) = NaN",
           "Mul": "0 × ∞ = NaN", "RealDiv": "∞/∞ = NaN, 0/0 = NaN", "Div": "∞/∞ = NaN",
           "MatMul": "0 × ∞ or ∞ − ∞ inside the dot products = NaN",
           "Softmax": "a row of all −∞, or any +∞, gives NaN",
           "LogSoftmax": "a row of all −∞, or any +∞, gives NaN"}.get(
        op_type, "an operation on ∞ gave NaN")
    descs = "; ".join(inf_desc(x) for x in known)
    return f"{op_type} turned ∞ into NaN in {_n(out.nan, 'element')} ({law}): {descs}."
