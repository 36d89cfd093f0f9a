"""The step contract: what each training step of a run consumes and produces, paired across
two runs whatever form each took (a TF1 `Session.run`, an eager `train_step`, a
`tf.function`, Keras `fit`). Read top to bottom, one module per stage:

0. `quantities` — the vocabulary and its order: variables as the step reads them, layer
   outputs, the loss and its terms (data loss, penalties), raw gradients, gradients as
   applied, the learning rate as applied, the update, non-trainable state.
1. find the steps — `find_steps.find_training`: a step is one forward pass, one backward
   pass and the optimizer's updates; graph forms in `graph_steps`, the eager form in
   `eager_steps` (its dataflow rebuilt from tensor ids); `variable_kinds` tells trained
   variables from the optimizer's own (moments, counters) and batch norm's statistics; on
   the model of `dataflow` (a
   `Flow` per step; `handles` ties a function's placeholders to the eager variables and
   their last assignment before step 0; `branches` gives an untraced `If` — a `tf.cond`
   or `tf.case` — the row of what its taken branch returned).
2. name each tensor's place — `roles.analyse` (variables, layers, loss and penalties: the
   loss split into its data term and the penalties of weights or activations beside it in
   `loss_terms`) with `update_roles` (what each update consumed: gradients raw and
   applied, the learning rate — `rate_factor` tells it from other scalars — and its
   schedule); `model.model_run` runs stages 1 and 2 for one run.
3. pair the runs stage by stage — `pairing.pair_steps`, step k of A with step k of B (the
   learning rates per variable where a run has several: `rate_pairing`).
4. join with the op-by-op pairs and order them — `merge` (the contract's order within a
   step, unroled pairs last); the judging is `..verdict`'s.

To add a quantity (a second optimizer slot, say): name it in `quantities`, find it in
`roles`/`update_roles`, pair it in `pairing`.
"""

from tfdbg_tui.core.compare.contract.dataflow import Flow, Training, node_frames
from tfdbg_tui.core.compare.contract.merge import merge, step_order
from tfdbg_tui.core.compare.contract.model import RunModel, model_run
from tfdbg_tui.core.compare.contract.pairing import StepPairs, pair_steps
from tfdbg_tui.core.compare.contract.quantities import (
    CONTRACT,
    Q_APPLIED,
    Q_GRADIENT,
    Q_LAYER,
    Q_LOSS,
    Q_LR,
    Q_METRIC,
    Q_OTHER,
    Q_REG,
    Q_STATE,
    Q_UPDATE,
    Q_VARIABLE,
    QUANTITIES,
    contract_position,
)
from tfdbg_tui.core.compare.contract.variable_pairing import Mapping, read_map

__all__ = [
    "CONTRACT",
    "QUANTITIES",
    "Q_APPLIED",
    "Q_GRADIENT",
    "Q_LAYER",
    "Q_LOSS",
    "Q_LR",
    "Q_METRIC",
    "Q_OTHER",
    "Q_REG",
    "Q_STATE",
    "Q_UPDATE",
    "Q_VARIABLE",
    "Flow",
    "Mapping",
    "RunModel",
    "StepPairs",
    "Training",
    "contract_position",
    "merge",
    "model_run",
    "node_frames",
    "pair_steps",
    "read_map",
    "step_order",
]
