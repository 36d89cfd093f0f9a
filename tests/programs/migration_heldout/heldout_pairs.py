"""The held-out pairs and what `tfdbg-tui diff` must say of each (EXPECTATIONS.md gives the
reasons). Plain data, no TensorFlow: verify.py and tests/compare/test_migration_heldout.py
both read it.

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

MLP, PIECE, CNN = "tf1_mlp_nesterov.py", "tf1_mlp_piecewise.py", "tf1_cnn_adam.py"
BN, BNINF, EMBED = "tf1_cnn_bn.py", "tf1_cnn_bninf.py", "tf1_embed_rmsprop.py"
GRU, ATTN, RES = "tf1_gru_adam.py", "tf1_attention.py", "tf1_resblock.py"

PAIRS: dict[str, Pair] = {
    "mlp_nesterov_fn": _eq(MLP, "tf2_mlp_nesterov_fn.py", "function",
                           "optimizer constants (Nesterov momentum), model.set_weights"),
    "mlp_momentum_schedule": _bug(PIECE, "tf2_mlp_momentum_schedule_eager.py", "eager",
                                  "momentum with a schedule (slot holds lr-scaled steps)",
                                  2, "update", ("AT:opt", "AT:update"),
                                  ("BUG:mlp_momentum_schedule", "CALL:update"), steps=4),
    "cnn_flatten_eager": _eq(CNN, "tf2_cnn_flatten_eager.py", "eager",
                             "conv in eager, reshape [-1,36] vs Flatten, Adam constants"),
    "cnn_adam_beta2": _bug(CNN, "tf2_cnn_adam_beta2_fn.py", "function",
                           "Adam constants (beta_2 default)", 0, "update",
                           ("AT:opt", "AT:update"), ("BUG:cnn_adam_beta2", "CALL:update")),
    "cnn_fit": _eq(CNN, "tf2_cnn_fit.py", "fit",
                   "fit, load_weights, reshape vs Flatten, Adam constants"),
    "cnn_fit_avgpool": _bug(CNN, "tf2_cnn_fit_avgpool.py", "fit",
                            "fit: the model-building line of a layer", 0, "layer_output",
                            ("AT:pool",), ("BUG:cnn_fit_avgpool",)),
    "bn_train_eager": _eq(BN, "tf2_bn_train_eager.py", "eager",
                          "batch norm in training, eager conv, TF1 checkpoint + assign"),
    "bn_momentum_fn": _bug(BN, "tf2_bn_momentum_fn.py", "function",
                           "batch norm momentum/decay", 0, "state",
                           ("AT:state",), ("BUG:bn_momentum_fn", "CALL:bn")),
    "bn_fit_epsilon": _bug(BN, "tf2_bn_fit_epsilon.py", "fit",
                           "batch norm epsilon; fit: the layer's construction line", 0,
                           "layer_output", ("AT:bn",), ("BUG:bn_fit_epsilon",)),
    "bninf_fn": _eq(BNINF, "tf2_bninf_fn.py", "function",
                    "batch norm in inference (fused TF1), Adagrad"),
    "bninf_training_eager": _bug(BNINF, "tf2_bninf_training_eager.py", "eager",
                                 "batch norm training flag", 0, "layer_output", ("AT:bn",),
                                 ("BUG:bninf_training_eager", "CALL:bn")),
    "embed_fit": _eq(EMBED, "tf2_embed_fit.py", "fit",
                     "regularization (l2_loss half vs l2), RMSprop slots restored, fit"),
    "embed_l2_eager": _bug(EMBED, "tf2_embed_l2_eager.py", "eager",
                           "regularization: l2(0.01) vs 0.01*l2_loss", 0, "regularization",
                           ("AT:reg",), ("BUG:embed_l2_eager", "CALL:reg")),
    "gru_eager": _eq(GRU, "tf2_gru_eager.py", "eager",
                     "clipping: clip_by_global_norm vs global_clipnorm, GRU, assign"),
    "gru_clipnorm_fn": _bug(GRU, "tf2_gru_clipnorm_fn.py", "function",
                            "clipping: clipnorm (per tensor) vs clip_by_global_norm", 0,
                            "applied_gradient", ("AT:clip",),
                            ("BUG:gru_clipnorm_fn", "CALL:update")),
    "attention_fn": _eq(ATTN, "tf2_attention_fn.py", "function",
                        "clipping: clip_by_value vs clipvalue, exponential decay, attention"),
    "attention_decay_fit": _bug(ATTN, "tf2_attention_fit.py", "fit",
                                "schedule creation line (decay_steps) in fit", 1,
                                "learning_rate", ("AT:lr", "AT:update"),
                                ("BUG:attention_decay_fit", "CALL:opt")),
    "resblock_fn": _eq(RES, "tf2_resblock_fn.py", "function",
                       "residual block, dropout in inference, L2, label smoothing, assign"),
    "resblock_weight_decay_eager": _bug(RES, "tf2_resblock_weight_decay_eager.py", "eager",
                                        "Keras weight_decay on top of the L2 penalty", 0,
                                        "update", ("AT:update",),
                                        ("BUG:resblock_weight_decay_eager", "CALL:update")),
    "resblock_label_smoothing_fn": _bug(RES, "tf2_resblock_label_smoothing_fn.py", "function",
                                        "loss object's creation line (label_smoothing)", 0,
                                        "loss", ("AT:loss",),
                                        ("BUG:resblock_label_smoothing_fn", "CALL:loss")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
