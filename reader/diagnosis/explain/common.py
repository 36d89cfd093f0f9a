"""What every explanation rule shares: the input view, counting helpers, dtype limits.

(The rules themselves: `reader.diagnosis.explain`.) Original overview of the rules:
Say in one sentence, with numbers, why an op produced NaN/∞ from its inputs' health.

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
from reader.modes import mode_name

# exp(x) overflows above log(max) of the dtype; max finite magnitude per dtype
EXP_LIMIT = {1: 88.72, 2: 709.78, 19: 11.09, 14: 88.72}
DTYPE_MAX = {1: 3.4028235e38, 2: 1.7976931348623157e308, 19: 65504.0, 14: 3.3895e38}
# smallest positive (subnormal) value per dtype: anything smaller rounds to 0
SMALLEST = {1: 1.4e-45, 2: 4.9e-324, 19: 5.96e-8, 14: 9.2e-41}


@dataclass(frozen=True)
class In:
    """One input as the explanation sees it."""

    name: str
    health: Health | None  # None: not recorded
    note: str = ""


def then(text: str, more: str) -> str:
    """`more` as the next sentence after `text`, with the stop `text` may lack (some stories
    end on a parenthesis or a clause: "…or drop such elements with dataset.filter)")."""
    text = text.rstrip()
    if text and not text.endswith((".", "!", "?")):
        text += "."
    return f"{text} {more}" if text else more


def plural(n: int, word: str, plural: str | None = None) -> str:
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


def counts_known(h: Health | None) -> bool:
    return h is not None and None not in (h.zero, h.negative, h.positive)


def count(h: Health, pred: Callable[[np.ndarray], np.ndarray]) -> int | None:
    if h.values is None:
        return None
    return int(np.count_nonzero(pred(np.asarray(h.values, dtype=np.float64))))


def max_finite(h: Health) -> float | None:
    fin = h.finite_values()
    return float(fin.max()) if fin is not None and fin.size else None


def max_abs(h: Health) -> float | None:
    fin = h.finite_values()
    return float(np.abs(fin).max()) if fin is not None and fin.size else None


def unknown_counts(x: In) -> str:
    assert x.health is not None
    return (f"{x.name} had no NaN/∞, but {mode_name(x.health.mode)} does not count zeros "
            "or negative values")


# Stands for the inputs of an op whose record lists none although its arithmetic needs some
# (an eager Log with no input tensor ids): the rules then say the inputs are unknown.
NO_INPUTS = In("", None, "the record lists none")


_OUTSIDE = " was made outside"


def unrecorded_all(xs: list[In], named: int = 5) -> str:
    """`unrecorded` for each of the first `named` inputs; the rest counted (an eager op may
    list thousands of inputs, and one sentence must stay readable). Inputs with the same
    reason are said once: "its inputs a:0 and b:0 were not recorded (made outside …)"."""
    shown = xs[:named]
    out = ""
    if len(shown) > 1 and all(x.name for x in shown):
        names = ", ".join(x.name for x in shown[:-1]) + f" and {shown[-1].name}"
        notes = [x.note for x in shown]
        tails = {n.partition(_OUTSIDE)[2] for n in notes}
        if len(set(notes)) == 1:
            out = f"its inputs {names} were not recorded" + (f" ({notes[0]})" if notes[0]
                                                              else "")
        elif all(_OUTSIDE in n for n in notes) and len(tails) == 1:
            heads = "; ".join(n.partition(_OUTSIDE)[0] for n in notes)
            out = (f"its inputs {names} were not recorded ({heads} — each made outside"
                   f"{tails.pop()})")
    out = out or "; ".join(unrecorded(x) for x in shown)
    if len(xs) > named:
        out += f"; nor were {len(xs) - named:,} more inputs"
    return out


def unrecorded(x: In) -> str:
    if not x.name:
        return "its inputs were not recorded" + (f" ({x.note})" if x.note else "")
    return f"its input {x.name} was not recorded" + (f" ({x.note})" if x.note else "")


