"""Rules for gradient ops: why the derivative of a forward op is NaN/∞ at the recorded values.

Keyed by the FORWARD op's type (the gradient op's type alone is ambiguous: a `Reciprocal` in
the backward pass belongs to log, acos, asin or atanh). Each rule reads the gradient op's
inputs, which are the forward op's inputs or outputs (SqrtGrad(y, dy) reads y = √x), and
names the law in words a search can find ("the derivative of sqrt(x) … is infinite at x = 0").
"""

from __future__ import annotations

from collections.abc import Callable

from reader.diagnosis.explain.common import (
    DTYPE_MAX,
    In,
    counts_known,
    max_abs,
    plural,
    unknown_counts,
    unrecorded,
)
from reader.diagnosis.index import Health
from reader.io.tensors import dtype_name


def _zeros(x: In, law: str, what: str = "zero") -> str:
    """"its input y holds 3 zeros (law)" — or what the mode leaves unknown."""
    if x.health is None:
        return f"{unrecorded(x)}; {law}"
    if not counts_known(x.health):
        return f"{unknown_counts(x)}; {law}"
    if not x.health.zero:
        return (f"{x.name} holds no exact {what}s, so tiny values made it overflow; {law}")
    return f"{x.name} holds {plural(x.health.zero, what)}: {law}"


def _dtype(out: Health) -> str:
    return dtype_name(out.dtype) if out.dtype is not None else "its dtype"


def _as_forward(x: In, fwd_name: str) -> In:
    """The forward output as the gradient op reads it, named as the forward op's output: in
    a cond or while gradient it arrives through `…_grad/…/OptionalGetValue`, a name that
    says nothing to the user."""
    gradient_path = x.name.startswith("gradient_tape/") or "_grad/" in x.name
    if not gradient_path or fwd_name.startswith("eager "):
        return x
    return In(f"{fwd_name}:0", x.health, x.note)


def sqrt_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    law = "the derivative of sqrt(x), 1/(2·sqrt(x)), is infinite at x = 0"
    if "norm" in fwd_name.split("/"):
        law += (" — this is the norm of a zero vector: the gradient of ‖x‖ is x/‖x‖ = 0/0 "
                "there (add a small epsilon inside the sqrt)")
    if not ins:
        return law
    return f"the forward output {_zeros(_as_forward(ins[0], fwd_name), law)}"


def rsqrt_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    dt = _dtype(out)
    limit = DTYPE_MAX.get(out.dtype or 0)
    law = ("the derivative of rsqrt(x) = 1/sqrt(x) is −y³/2 with y = rsqrt(x): infinite at "
           f"x = 0, and y³ overflows {dt}"
           + (f" (largest finite ≈{limit:.5g})" if limit else "") + " when x is small")
    if not ins or ins[0].health is None:
        return law
    y = ins[0]
    assert y.health is not None
    big = max_abs(y.health)
    if big is not None and limit:
        cube = big ** 3
        return (f"{law}: the forward output {y.name} reaches {big:.4g}, whose cube "
                f"{'≈' + format(cube, '.3g')} {'exceeds' if cube > limit else 'nears'} "
                f"the {dt} limit")
    return f"{law}; the forward output is {y.name}"


def reciprocal_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    dt = _dtype(out)
    limit = DTYPE_MAX.get(out.dtype or 0)
    law = ("the derivative of 1/x, −1/x², is infinite at x = 0 and overflows "
           f"{dt}" + (f" (largest finite ≈{limit:.3g})" if limit else "") + " for tiny x")
    if not ins or ins[0].health is None:
        return law
    y = ins[0]
    assert y.health is not None
    big = max_abs(y.health)
    if big is not None and limit:
        return (f"{law}: the forward output {y.name} = 1/x reaches {big:.3g}, and its square "
                f"≈{big * big:.3g} {'overflows' if big * big > limit else 'nears the limit of'}"
                f" {dt}")
    return f"{law}; the forward output is {y.name}"


def log_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    law = "the derivative of log(x), 1/x, is infinite at x = 0"
    return f"the forward input {_zeros(ins[0], law)}" if ins else law


def log1p_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    law = "the derivative of log1p(x), 1/(1+x), is infinite at x = −1"
    return f"{_zeros(ins[0], law)}" if ins else law


GradRule = Callable[[str, str, Health, list[In]], str]  # (grad op, forward name, out, ins)


def inverse_trig_grad(fwd_type: str) -> GradRule:
    laws = {"Acos": "the derivative of acos(x), −1/sqrt(1−x²), is infinite at x = ±1",
            "Asin": "the derivative of asin(x), 1/sqrt(1−x²), is infinite at x = ±1",
            "Atanh": "the derivative of atanh(x), 1/(1−x²), is infinite at x = ±1"}

    def rule(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
        law = laws[fwd_type] + " (a rounded cosine or correlation of exactly 1 hits it)"
        if not ins:
            return law
        return f"{_zeros(ins[0], law)} (each zero of 1 − x² is an x of ±1)"
    return rule


def pow_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    law = ("the derivative of x^y, y·x^(y−1), is infinite at x = 0 when y < 1 (e.g. x**0.5), "
           "and x^y·log(x) is NaN for x < 0")
    if not ins or ins[0].health is None:
        return law
    x = ins[0]
    h = x.health
    assert h is not None
    if counts_known(h):
        return (f"the base {x.name} holds {plural(h.zero or 0, 'zero')} and "
                f"{plural(h.negative or 0, 'negative value')}: {law}")
    return f"{unknown_counts(x)}; {law}"


def div_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    law = ("the derivative of x/y with respect to y, −x/y², is infinite at y = 0 and "
           f"overflows {_dtype(out)} for tiny y")
    divisor = ins[1] if len(ins) > 1 else None
    if divisor is None:
        return law
    return f"the divisor {_zeros(divisor, law)}"


def atan2_grad(grad: str, fwd_name: str, out: Health, ins: list[In]) -> str:
    """atan2's gradient divides by x² + y²: 0/0 at the origin, where no angle is defined."""
    law = ("the derivative of atan2(y, x), (x, −y)/(x² + y²), is 0/0 at x = y = 0 (a zero "
           "vector has no direction) and overflows " + _dtype(out) + " when both are tiny; "
           "keep such points out of atan2, or add a tiny epsilon to x")
    divisor = ins[1] if len(ins) > 1 else None
    if divisor is None:
        return law
    return f"the divisor x² + y², {_zeros(divisor, law)}"
