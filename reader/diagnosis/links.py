"""What the walk hands around: one input of an op (`Link`) and the op families it treats
specially. Apart from `walk.py` so the walk's helpers (`feeders.py`) can share them."""

from __future__ import annotations

from dataclasses import dataclass

from reader.diagnosis.index import Ref

# Ops the dumping callback never instruments; their outputs equal (one of) their inputs.
LOOK_THROUGH = frozenset({"Identity", "Enter", "Exit", "NextIteration", "Switch", "RefIdentity",
                          "Snapshot", "Merge"})
WHILE_OPS = frozenset({"While", "StatelessWhile"})
IF_OPS = frozenset({"If", "StatelessIf", "Case", "StatelessCase"})
ASSIGN_OPS = frozenset({"AssignVariableOp", "AssignSubVariableOp", "AssignAddVariableOp"})
MAX_HOPS = 64
# Inputs of one eager execution that are followed: a real op has at most a few hundred, a
# crafted record millions (each a producer lookup); past it the explanation says so.
MAX_EAGER_INPUTS = 1024


@dataclass(frozen=True)
class Link:
    """One input of an op: how the op names it, and the record holding its value (if any)."""

    name: str
    ref: Ref | None
    via: tuple[str, ...] = ()  # pass-through tensors crossed to reach `ref`
    note: str = ""  # why `ref` is None
    call: int | None = None  # a function argument from outside: the calling execution
    arg: tuple[str, str] | None = None  # … and its Placeholder (graph id, op name)
    tid: int | None = None  # the eager tensor id a function argument was called with
    outside: bool = False  # an eager op's input made by no recorded op (numpy, tf.constant)
