"""What is known of the quantities a first divergence's hint speaks of: "the gradients and
the learning rate agree and the update does not" is a claim about two quantities before the
update in the step contract, and it holds only where they were compared. A gradient tfdbg
did not record (an `--op-regex` that left its op out), one without a partner, a rate that
is a Python number: those were not compared, and the hint says so — unknown, never agreed.

`standing(c, step, q, var)` is AGREE, DIFFER or UNKNOWN for quantity `q` at `step` (for one
of A's variables where `q` is per variable, else for all the step's variables: unknown when
any of them was not compared); `lead` puts a few of them in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tfdbg_tui.core.compare.contract import (
    Q_APPLIED,
    Q_GRADIENT,
    Q_LAYER,
    Q_LOSS,
    Q_LR,
    Q_REG,
    Q_UPDATE,
    Q_VARIABLE,
)
from tfdbg_tui.core.compare.pairs import DIFFERENT, EQUAL

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.result import Comparison

AGREE, DIFFER, UNKNOWN = "agree", "differ", "unknown"

# quantities compared once per variable (a learning rate inferred from updates is too; a
# recorded one is the step's, its pairs name no variable)
PER_VARIABLE = frozenset({Q_VARIABLE, Q_GRADIENT, Q_APPLIED, Q_UPDATE})


def variable_of(c: Comparison, p: int) -> str:
    """A's variable a contract pair is of ("" for an op pair or a quantity of the step)."""
    sp = c.training.sp
    if sp is None:
        return ""
    i = p - (len(c.pairs) - len(sp.row_a))
    return sp.var[i] if 0 <= i < len(sp.var) else ""


def standing(c: Comparison, step: int, q: int, var: str = "") -> str:
    """AGREE when quantity `q` of `step` was compared and is equal (for `var`, or for every
    variable of the step), DIFFER when a compared pair differs, else UNKNOWN."""
    sp = c.training.sp
    if sp is None or step < 0:
        return UNKNOWN
    off = len(c.pairs) - len(sp.row_a)
    ids = off + np.flatnonzero((c.pairs.quantity[off:] == q) & (c.pairs.step[off:] == step))
    names = [sp.var[i - off] for i in ids.tolist()]
    if var and (q in PER_VARIABLE or q == Q_LR):
        keep = [n in (var, "") if q == Q_LR else n == var for n in names]
        ids, names = ids[np.asarray(keep, bool)], [n for n, k in zip(names, keep, strict=True) if k]
    st = c.pairs.status[ids]
    seen = (st == EQUAL) | (st == DIFFERENT)
    if np.any(st == DIFFERENT):
        return DIFFER
    if not np.any(seen):
        return UNKNOWN
    if q in PER_VARIABLE and not var:  # every variable of the step, not some
        vp = sp.var_pairs[step] if step < len(sp.var_pairs) else []
        done = {n for n, s in zip(names, seen.tolist(), strict=True) if s}
        want = {c.training.a.names.get(h, h) for h, _ in vp}
        if want - done:
            return UNKNOWN
    return AGREE


def why_missing(c: Comparison, step: int, q: int, var: str) -> str:
    """The reason a quantity was not compared, when the pairing said one (`missing`)."""
    sp = c.training.sp
    if sp is None:
        return ""
    if q == Q_LR:
        return sp.rate_unknown.get(step, "")
    for m in sp.missing:  # "step k: the gradient of w (not found in B)"
        if m.startswith(f"step {step}: ") and var and var in m and m.endswith(")") \
                and " (" in m:
            return m[m.rindex(" (") + 2:-1]
    return ""


Claim = tuple[str, str, str, bool]  # noun, standing, why unknown, plural noun


def unknown(claims: list[Claim]) -> bool:
    return any(s == UNKNOWN for _, s, _, _ in claims)


def lead(claims: list[Claim], subject: str) -> str:
    """"X and Y agree and <subject> does not", from claims (noun, standing, why unknown,
    plural): the agreeing ones said to agree, the others said not compared (with why, when
    known) or to differ too."""
    agree = [(n, pl) for n, s, _, pl in claims if s == AGREE]
    differ = [n for n, s, _, _ in claims if s == DIFFER]
    unknown = [f"{n} {'were' if pl else 'was'} not compared" + (f" ({why})" if why else "")
               for n, s, why, pl in claims if s == UNKNOWN]
    if agree:
        plural = len(agree) > 1 or agree[0][1]
        text = (f"{_join([n for n, _ in agree])} {'agree' if plural else 'agrees'} and "
                f"{subject} does not")
    else:
        text = f"{subject} differs"
    if differ:
        text += f" ({_join(differ)} {'differ' if len(differ) > 1 else 'differs'} too)"
    if unknown:
        text += ", and " + "; ".join(unknown)
    return text


def claims_before(c: Comparison, p: int) -> tuple[list[Claim], str] | None:
    """The quantities a hint for first divergence `p` speaks of, each with what is known
    of it, and the subject that differs; None for a quantity whose hint claims nothing."""
    pr = c.pairs
    q, k, var = int(pr.quantity[p]), int(pr.step[p]), variable_of(c, p)
    if q == Q_UPDATE:
        rate = ("the learning rate", standing(c, k, Q_LR, var), why_missing(c, k, Q_LR, var),
                False)
        return [*_gradient_claims(c, k, var), rate], "its update" if var else "the update"
    if q == Q_APPLIED:
        return [(f"the gradient of {var}" if var else "the raw gradients",
                 standing(c, k, Q_GRADIENT, var), why_missing(c, k, Q_GRADIENT, var),
                 not var)], "the gradient as applied"
    if q == Q_GRADIENT:
        return [("the loss", standing(c, k, Q_LOSS), "", False)], \
            f"the gradient of {var}" if var else "its gradients"
    if q == Q_REG:
        return [("the data loss", standing(c, k, Q_LOSS), "", False)], "a penalty"
    if q == Q_LOSS:
        return [("the layer outputs", standing(c, k, Q_LAYER), "", True)], "the loss"
    if q == Q_LAYER:  # the weights as this step reads them: step 0's, or the last update's
        weights = standing(c, 0, Q_VARIABLE) if k == 0 else standing(c, k - 1, Q_UPDATE)
        return [("the weights this step reads", weights, "", True)], "this layer's output"
    return None


def _gradient_claims(c: Comparison, k: int, var: str) -> list[Claim]:
    """The gradient an update consumed: as applied where that was compared, else as the
    backward pass made it — and then, where a run applies something else (clipped inside
    its optimizer, rows summed), the applied one said not compared."""
    applied = standing(c, k, Q_APPLIED, var)
    noun = f"the gradient of {var}" if var else "the gradients"
    if applied != UNKNOWN:
        return [(f"{noun} as applied", applied, "", not var)]
    out = [(noun, standing(c, k, Q_GRADIENT, var), why_missing(c, k, Q_GRADIENT, var),
            not var)]
    unseen = _applied_unseen(c, k, var)
    if out[0][1] == AGREE and unseen is not None:
        out.append((f"what the optimizer applied{f' to {var}' if var else ''}", UNKNOWN,
                    unseen, False))
    return out


def _applied_unseen(c: Comparison, k: int, var: str) -> str | None:
    """None when both runs apply the raw gradient of `var` (of every variable) as the
    backward pass made it; else why the gradient as applied is not known."""
    sp = c.training.sp
    if sp is None or k >= len(sp.var_pairs) or k >= min(c.training.a.n_steps,
                                                        c.training.b.n_steps):
        return ""
    ra, rb = c.training.a.steps[k][2], c.training.b.steps[k][2]
    sides = set()
    for ha, hb in sp.var_pairs[k]:
        if var and c.training.a.names.get(ha, ha) != var:
            continue
        for side, r, h in (("A", ra, ha), ("B", rb, hb)):
            if r.applied.get(h) != r.grad.get(h):
                sides.add(side if r.applied.get(h) is None else "")
    if not sides:
        return None
    named = sorted(x for x in sides if x)
    return f"not found in {' and '.join(named)}" if named else ""


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
