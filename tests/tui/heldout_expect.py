"""What the TUI must say on each held-out NaN program (tests/programs/heldout_nan/), written
from the programs' own marked lines (their docstring, EXPECT header, `# FIX` comment, the
STEPS/BAD constants) before tfdbg-tui was opened on any of them (issue 31).

step      the 0-based training step of the first NaN/∞ (the program's BAD, or the step its
          `proof` names), of `steps` steps in all;
own_line  the line of the user's code that created the origin op (the frame the Stack Trace
          must show first);
fix_line  the `# FIX` line: what Source Code must show as the line to change (the same as
          own_line unless the cause is a setting made elsewhere: momentum's learning rate,
          Adam's epsilon, the dataset that carries the ∞);
origin    the op type the diagnosis must walk back to; cause: words one of which it says.
"""

from __future__ import annotations

from typing import NamedTuple


class Expect(NamedTuple):
    step: int
    steps: int
    form: str  # how the steps are run: tf.function, eager, fit
    origin: str
    own_line: int
    fix_line: int
    cause: tuple[str, ...]


EXPECT = {
    "xent_log_zero": Expect(2, 6, "tf.function", "Log", 62, 62, ("log(0)", "zero")),
    "pair_norm_sqrt": Expect(4, 6, "eager", "Sqrt", 59, 59, ("negative",)),
    "fit_stuck_sensor": Expect(3, 6, "fit", "RealDiv", 44, 44, ("0/0", "zero")),
    "hand_softmax": Expect(3, 6, "tf.function", "Exp", 57, 57, ("overflow",)),
    "momentum_blowup": Expect(9, 12, "eager", "Square", 57, 52, ("learning rate",)),
    "conv_dataset_inf": Expect(2, 5, "eager", "IteratorGetNext", 46, 45,
                               ("data", "dataset", "input pipeline")),
    "fit_adam_eps0": Expect(0, 4, "fit", "RealDiv", 44, 43, ("epsilon",)),
    "attention_empty": Expect(1, 5, "tf.function", "RealDiv", 52, 52, ("0/0", "zero")),
}
