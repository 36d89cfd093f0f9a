"""The table every user-style migration corpus (migration_heldout, migration_fresh,
migration_wild) writes its pairs in: the step contract's order, one `Pair` per TF1 program
and its TF2 rewrite with what numpy proved of it (equivalent, or the step and quantity where
it first diverges and the marked lines that may be shown), and the programs they need."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

# the step contract, in its order (issue 29)
CONTRACT = ("variable", "layer_output", "loss", "regularization", "gradient",
            "applied_gradient", "learning_rate", "update", "state")


class Pair(NamedTuple):
    a: str
    b: str
    form: str  # B's form: eager, function or fit
    klass: str  # the class of migration difference this pair is about
    exit: int
    step: int | None = None
    quantity: str | None = None
    a_marks: tuple[str, ...] = ()
    b_marks: tuple[str, ...] = ()
    steps: int = 3


def eq(a: str, b: str, form: str, klass: str, steps: int = 3) -> Pair:
    """An equivalent pair: `diff` must exit 0."""
    return Pair(a, b, form, klass, 0, steps=steps)


def bug(a: str, b: str, form: str, klass: str, step: int, quantity: str,
        a_marks: tuple[str, ...], b_marks: tuple[str, ...], steps: int = 3) -> Pair:
    """A pair with one migration mistake: `diff` must exit 1 at (step, quantity)."""
    return Pair(a, b, form, klass, 1, step, quantity, a_marks, b_marks, steps)


def programs_of(pairs: Mapping[str, Pair]) -> list[str]:
    """Every program the pairs need, once each, in the order they first appear."""
    out: list[str] = []
    for pair in pairs.values():
        for program in (pair.a, pair.b):
            if program not in out:
                out.append(program)
    return out
