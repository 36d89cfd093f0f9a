"""Explanations for ops without a rule of their own, from their family in the op table.

`reader.diagnosis.optable` says how an op can make NaN/∞ from finite inputs (a singular
matrix, a pole, the edge of a domain, an impossible alignment…). The sentence built here
says which of that the recorded inputs show, what they cannot show, and the standard fix:
- a recorded input's zeros and negative values are quoted (the edges most domains and
  poles have), never claimed absent when the mode did not count them;
- an input that was not recorded is said to be unknown — "whether it already held NaN/∞
  is not known" — and the family's cause is then said conditionally ("if it was finite"),
  since an input made outside any recorded op is the cause only if it held the NaN/∞;
- integer and boolean inputs cannot hold NaN; where they decide the result (CTC's labels
  and lengths) they are named as the reason.
"""

from __future__ import annotations

import numpy as np

from reader.diagnosis import optable
from reader.diagnosis.explain.common import In, counts_known, plural, unrecorded_all
from reader.diagnosis.index import Health
from reader.modes import mode_name

# op → the law that breaks, said in the explanation (the family's text is the fallback)
LAWS: dict[str, str] = {
    "Betainc": "betainc(a, b, x) needs a > 0, b > 0 and 0 ≤ x ≤ 1; outside its domain it is "
               "NaN",
    "Igamma": "igamma(a, x) needs a > 0 and x ≥ 0; outside its domain it is NaN",
    "Igammac": "igammac(a, x) needs a > 0 and x ≥ 0; outside its domain it is NaN",
    "IgammaGradA": "the derivative of igamma in a needs a > 0 and x ≥ 0",
    "Acosh": "acosh(x) needs x ≥ 1: below 1 (outside its domain) it is NaN",
    "Spence": "spence(x) needs x ≥ 0: for a negative x (outside its domain) it is NaN",
    "Xlog1py": "xlog1py(x, y) = x·log1p(y): −∞ at y = −1 and NaN below (the domain's edge)",
    "Polygamma": "polygamma(n, x) has a pole at x = 0 and at every negative integer",
    "Zeta": "zeta(x, q) has a pole at x = 1, and at q = 0 and every negative integer",
    "Tan": "tan has a pole at every odd multiple of π/2",
    "BesselY0": "bessel_y0 has a pole at 0 (−∞) and is NaN for negative x",
    "BesselY1": "bessel_y1 has a pole at 0 (−∞) and is NaN for negative x",
    "BesselK0": "bessel_k0 has a pole at 0 (+∞) and is NaN for negative x",
    "BesselK1": "bessel_k1 has a pole at 0 (+∞) and is NaN for negative x",
    "BesselK0e": "bessel_k0e has a pole at 0 (+∞) and is NaN for negative x",
    "BesselK1e": "bessel_k1e has a pole at 0 (+∞) and is NaN for negative x",
    "Expint": "expint (Ei) has a pole at 0 (−∞)",
    "LRN": "local response normalisation raises (bias + α·sum x²) to −β: a pole when "
           "bias is 0 and the window is all zeros",
    "LogMatrixDeterminant": "the log-determinant of a singular matrix is −∞ (and NaN when "
                            "the factorisation meets 0 × ∞)",
    "MatrixTriangularSolve": "a zero on the triangular matrix's diagonal makes it singular, "
                             "and the solve divides by that 0",
    "BatchMatrixTriangularSolve": "a zero on the triangular matrix's diagonal makes it "
                                  "singular, and the solve divides by that 0",
    "BandedTriangularSolve": "a zero on the banded matrix's diagonal makes it singular, and "
                             "the solve divides by that 0",
    "TridiagonalSolve": "a singular tridiagonal system makes the solve divide by 0",
    "MatrixLogarithm": "the logarithm of a singular matrix is −∞",
    "MatrixSquareRoot": "the square root of a matrix with negative eigenvalues is NaN in "
                        "real arithmetic",
    "Cholesky": "Cholesky needs a positive definite matrix: for an indefinite or singular "
                "one it takes √ of a non-positive pivot, NaN",
    "BatchCholesky": "Cholesky needs a positive definite matrix: for an indefinite or "
                     "singular one it takes √ of a non-positive pivot, NaN",
}

FIXES: dict[str, str] = {
    "MatrixTriangularSolve": "keep the diagonal away from 0 (e.g. softplus(d) + 1e-6 for a "
                             "learned factor)",
    "BatchMatrixTriangularSolve": "keep the diagonal away from 0 (e.g. softplus(d) + 1e-6 "
                                  "for a learned factor)",
    "BesselI0": "use the scaled tf.math.bessel_i0e and add |x| in log space",
    "BesselI1": "use the scaled tf.math.bessel_i1e and add |x| in log space",
    "MatrixDeterminant": "use tf.linalg.slogdet (the log of |det|) instead",
    "BatchMatrixDeterminant": "use tf.linalg.slogdet (the log of |det|) instead",
    "Cumprod": "work in log space (a cumulative sum of logs)",
    "Prod": "work in log space (a sum of logs)",
    "Exp": "subtract the maximum first (log-sum-exp), or compute in float32",
    "Cosh": "work in log space, or compute in float64",
    "Sinh": "work in log space, or compute in float64",
    "Expm1": "bound the input (e.g. tf.minimum(x, 80.0)) or work in log space",
    "Cast": "check the values' range before narrowing, or keep the wider type",
}

# said of CTC when its integer labels were not recorded; replaced by the example when they
# were (`reader.diagnosis.ctc`)
UNKNOWN_EXAMPLE = ("the health modes do not trace integers and the float logits cannot show "
                   "it, so which example is too long is not known from this logdir")
# families whose cause the recorded health cannot confirm (a matrix's rank, eigenvalues)
_UNSEEN = ("singular", "not_positive_definite")
# values checked for rank/eigenvalues up to these sizes (an SVD per matrix: kept cheap)
_MAX_MATRIX, _MAX_ORDER, _MAX_BATCH = 4_000_000, 512, 256
# the families whose cause the zero / negative counts of the inputs speak to
_EDGE_FAMILIES = ("domain", "pole")
_NAMED = 5


def _counts(x: In) -> str:
    """"x:0 holds 2 zeros and 1 negative value" — only what was counted and is there."""
    h = x.health
    assert h is not None
    if not counts_known(h):
        return ""
    bits = [plural(h.zero, "zero")] if h.zero else []
    if h.negative:
        bits.append(plural(h.negative, "negative value"))
    return f"{x.name} holds {' and '.join(bits)}" if bits else ""


def _known_part(fam: str, known: list[In]) -> str:
    bad = [x.name for x in known if x.health is not None and x.health.bad == 1]
    if bad:
        return "NaN/∞ came in through " + ", ".join(bad)
    found = [c for c in (_counts(x) for x in known) if c] if fam in _EDGE_FAMILIES else []
    head = ("its recorded inputs were finite" if len(known) > 1 else
            f"its input {known[0].name} was finite")
    if found and len(known) == 1:
        return f"{head} and holds {found[0].split(' holds ', 1)[1]}"
    if found:
        return f"{head}: {'; '.join(found)}"
    uncounted = [x for x in known if not counts_known(x.health)]
    if fam in _EDGE_FAMILIES and uncounted and uncounted[0].health is not None:
        return f"{head} ({mode_name(uncounted[0].health.mode)} does not count zeros or signs)"
    return head


def _unknown_part(unknown: list[In]) -> str:
    if not any(x.name for x in unknown):  # the record lists no input: nothing to hedge on
        return unrecorded_all(unknown, _NAMED)
    they = "it" if len(unknown) == 1 else "they"
    return (f"{unrecorded_all(unknown, _NAMED)}, so whether {they} already held NaN/∞ is "
            "not known")


def _alignment(op: str) -> str:
    ints = ", ".join(optable.nonfloat_inputs(op).values()) or "labels and lengths"
    return (f"CTC's loss is +∞ when no alignment exists: a label sequence longer than its "
            f"logit length allows (each repeated label needs a blank between). Its integer "
            f"inputs ({ints}) cannot hold NaN but are the reason; {UNKNOWN_EXAMPLE}")


def _matrix_evidence(fam: str, x: In) -> str:
    """From a recorded matrix's values: its rank (singular) or smallest eigenvalue (not
    positive definite), for the first batch matrix that shows it; "" when not recorded."""
    v = x.health.values if x.health is not None else None
    if (v is None or v.ndim < 2 or v.shape[-1] != v.shape[-2] or v.size > _MAX_MATRIX
            or not 0 < v.shape[-1] <= _MAX_ORDER):
        return ""
    n = v.shape[-1]
    for k, m in enumerate(np.asarray(v, dtype=np.float64).reshape(-1, n, n)[:_MAX_BATCH]):
        if not np.isfinite(m).all():
            continue
        which = f" (batch matrix {k})" if v.ndim > 2 else ""
        if fam == "singular":
            rank = int(np.linalg.matrix_rank(m))
            if rank < n:
                return f"the recorded values show it: {x.name}{which} has rank {rank} of {n}"
        else:
            low = float(np.linalg.eigvalsh((m + m.T) / 2)[0])
            if low <= 0:
                return (f"the recorded values show it: {x.name}{which} has an eigenvalue of "
                        f"{low:.3g}")
    return ""


def family_rule(op: str, out: Health, ins: list[In]) -> str | None:
    """The sentence for an op of a table family other than overflow; None if it has none."""
    fam = optable.family(op)
    if fam is None or fam == "overflow":
        return None
    known = [x for x in ins if x.health is not None]
    unknown = [x for x in ins if x.health is None]
    text = optable.family_text(fam)
    parts = []
    if known:
        parts.append(_known_part(fam, known))
    if unknown:
        parts.append(_unknown_part(unknown))
    if any(x.health is not None and x.health.bad == 1 for x in known):
        return "; ".join(parts)  # it is passed on, not made here: the walk goes on upstream
    cond = ("" if not unknown or not any(x.name for x in unknown)  # none listed at all
            else "if it was finite, " if len(unknown) == 1 else "if they were finite, ")
    if fam == "alignment":
        law = _alignment(op)
    elif op in LAWS:
        law = LAWS[op]
        if fam in _UNSEEN and known and not unknown:
            # the matrix's values (FULL_TENSOR) show it; else what the health cannot, said
            law += f" ({_matrix_evidence(fam, known[0]) or text['tells']})"
    else:  # no law of its own: what the family makes likely, and what health can tell
        law = (f"{op} is in the op table's {fam.replace('_', ' ')} family: from finite "
               f"inputs, NaN/∞ comes from {text['when']} ({text['tells']})")
    fix = FIXES.get(op) or text["fix"]
    parts.append(f"{cond}{law}{' — ' + fix if fix else ''}")
    return "; ".join(p for p in parts if p)


def overflow_fix(op: str) -> str:
    """The standard fix for an overflow of this op (empty when the family's is generic)."""
    return FIXES.get(op, "")
