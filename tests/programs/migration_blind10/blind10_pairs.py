"""The tenth blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind10.py both read it. Written, with the numpy proof, before
tfdbg-tui was run on any of them.

A pair: A = the TF1 program, B = its TF2 rewrite, the expected exit (0 equivalent, 1
diverge), and for a buggy pair the first divergence's step, its quantity (the names of
`diff --json`'s steps[].quantities) and the marks accepted as each side's line: `AT:<name>`
in A's program, `BUG:<pair>` / `CALL:<name>` in B's. `steps`: how many training steps both
programs run.
"""

from __future__ import annotations

from migration_table import CONTRACT as CONTRACT  # the contract the pairs are judged in
from migration_table import Pair, programs_of
from migration_table import bug as _bug
from migration_table import eq as _eq

GNN = "tf1_gnn.py"
QUANT = "tf1_quant.py"
AUX = "tf1_aux.py"

PAIRS: dict[str, Pair] = {
    # one message-passing layer of a graph network, node regression
    "gnn_dense_eager": _eq(GNN, "tf2_gnn_dense_eager.py", "eager",
                           "a dense adjacency matrix times the messages for TF1's gather of "
                           "the source nodes and unsorted_segment_sum into the destinations"),
    "gnn_sparse_fn": _eq(GNN, "tf2_gnn_sparse_fn.py", "function",
                         "a tf.SparseTensor adjacency and sparse_dense_matmul, in tf.function"),
    "gnn_mean_fit": _bug(GNN, "tf2_gnn_mean_fit.py", "fit",
                         "unsorted_segment_mean for TF1's unsorted_segment_sum: the messages "
                         "averaged, not summed", 0, "layer_output", ("AT:agg", "AT:hidden"),
                         ("BUG:gnn_mean_fit", "CALL:hidden")),
    "gnn_transpose_fn": _bug(GNN, "tf2_gnn_transpose_fn.py", "function",
                             "the adjacency built as A[src, dst] (the edges reversed: each "
                             "node sums what it sends, not what it receives)", 0,
                             "layer_output", ("AT:agg", "AT:hidden"),
                             ("BUG:gnn_transpose_fn", "CALL:agg", "CALL:hidden")),
    # three quantiles under the pinball loss, a natural-exponential learning-rate decay
    "quant_where_eager": _eq(QUANT, "tf2_quant_where_eager.py", "eager",
                             "the pinball loss through tf.where(e >= 0, q e, (q - 1) e) for "
                             "TF1's maximum(q e, (q - 1) e); ExponentialDecay(decay_rate="
                             "exp(-k)) for natural_exp_decay(k)"),
    "quant_loss_fit": _eq(QUANT, "tf2_quant_loss_fit.py", "fit",
                          "a custom loss function (y_true, y_pred) in compile, the schedule "
                          "in fit"),
    "quant_sign_fn": _bug(QUANT, "tf2_quant_sign_fn.py", "function",
                          "the residual taken as pred - y: quantile q becomes 1 - q", 0,
                          "loss", ("AT:loss", "AT:error"),
                          ("BUG:quant_sign_fn", "CALL:loss")),
    "quant_rate_eager": _bug(QUANT, "tf2_quant_rate_eager.py", "eager",
                             "ExponentialDecay(decay_rate=0.5) for natural_exp_decay's 0.5: "
                             "0.2·0.5^k, not 0.2·exp(-0.5k)", 1, "learning_rate",
                             ("AT:lr", "AT:update"), ("BUG:quant_rate_eager", "CALL:update")),
    # a classifier whose hidden activations carry a penalty (Keras: add_loss in a layer)
    "aux_fit": _eq(AUX, "tf2_aux_fit.py", "fit",
                   "a custom layer's add_loss for TF1's penalty added to the loss; fit adds "
                   "model.losses itself"),
    "aux_eager": _eq(AUX, "tf2_aux_eager.py", "eager",
                     "the custom layer in an eager loop, loss + tf.add_n(model.losses)"),
    "aux_fn": _eq(AUX, "tf2_aux_fn.py", "function",
                  "the same in tf.function, a subclassed model"),
    "aux_forgot_eager": _bug(AUX, "tf2_aux_forgot_eager.py", "eager",
                             "model.losses never added in the custom loop: the layer's "
                             "add_loss penalty is computed and dropped", 0, "regularization",
                             ("AT:aux", "AT:loss"), ("BUG:aux_forgot_eager", "CALL:aux")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
