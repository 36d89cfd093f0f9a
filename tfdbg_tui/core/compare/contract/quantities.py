"""Stage 0, the vocabulary: what a training step consumes and produces, in the order a step
does it (the step contract). `diff --json` names a quantity by QUANTITIES (indices are part
of its contract: new ones are appended); a first divergence is the first quantity in
CONTRACT's order, at the earliest step, whose values differ.
"""

from __future__ import annotations

# indices are part of `diff --json`'s contract (a quantity's name): new ones are appended
QUANTITIES = ("variable", "layer_output", "loss", "learning_rate", "gradient", "update",
              "metric", "other", "regularization", "applied_gradient", "state")


(Q_VARIABLE, Q_LAYER, Q_LOSS, Q_LR, Q_GRADIENT, Q_UPDATE, Q_METRIC, Q_OTHER, Q_REG,
 Q_APPLIED, Q_STATE) = range(11)


# The step contract: what a training step consumes and produces, in the order a step does
# it and a divergence is looked for (the first quantity in this order, at the earliest step,
# whose values differ). Metrics and unroled op pairs come after every roled quantity.
CONTRACT = (Q_VARIABLE, Q_LAYER, Q_LOSS, Q_REG, Q_GRADIENT, Q_APPLIED, Q_LR, Q_UPDATE, Q_STATE)


def contract_position(q: int) -> int | None:
    """Where quantity `q` falls in the step contract (0-based), None outside it."""
    return CONTRACT.index(q) if q in CONTRACT else None
