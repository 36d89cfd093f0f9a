"""The third blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind3.py both read it. Written, with the numpy proof, before
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

SIAMESE = "tf1_siamese.py"
EMA = "tf1_ema.py"
MAXNORM = "tf1_maxnorm.py"
TWOOPT = "tf1_twoopt.py"
DQN = "tf1_dqn.py"

PAIRS: dict[str, Pair] = {
    # a Siamese tower shared by both inputs, the contrastive loss, AdaMax (contrib's kernel)
    "siamese_fn": _eq(SIAMESE, "tf2_siamese_fn.py", "function",
                      "one Keras tower called on both inputs vs variable_scope reuse, "
                      "contrastive loss, Adamax(epsilon=1e-8) vs contrib's AdaMaxOptimizer"),
    "siamese_fit": _eq(SIAMESE, "tf2_siamese_fit.py", "fit",
                       "a two-input functional model whose output is the distance "
                       "(keras.ops.norm), the contrastive loss as a compile loss"),
    "siamese_broadcast_eager": _bug(SIAMESE, "tf2_siamese_broadcast_eager.py", "eager",
                                    "the distance without keepdims: (N,) against labels "
                                    "(N, 1), the loss averages an (N, N) grid", 0, "loss",
                                    ("AT:loss", "AT:distance"),
                                    ("BUG:siamese_broadcast_eager", "CALL:loss")),
    # Poisson regression, momentum, an exponential moving average of the weights
    "ema_eager": _eq(EMA, "tf2_ema_eager.py", "eager",
                     "tf.train.ExponentialMovingAverage(0.9, num_updates=step) created before "
                     "the first step; Dense(activation='exponential') + Poisson() vs "
                     "log_poisson_loss on the log-rate"),
    "ema_fit": _eq(EMA, "tf2_ema_fit.py", "fit",
                   "a Keras-side average of the weights in a callback (decay min(0.9, "
                   "(1+n)/(10+n))), loss='poisson'"),
    "ema_num_updates_fn": _bug(EMA, "tf2_ema_num_updates_fn.py", "function",
                               "ExponentialMovingAverage without num_updates: decay 0.9 from "
                               "the first step (TF1 2/11, 3/12, 4/13)", 0, "state",
                               ("AT:state", "AT:ema"),
                               ("BUG:ema_num_updates_fn", "CALL:state")),
    "ema_log_rate_eager": _bug(EMA, "tf2_ema_log_rate_eager.py", "eager",
                               "Poisson() given the log-rate (the output layer without the "
                               "exponential): NaN where the log-rate is negative", 0, "loss",
                               ("AT:loss",), ("BUG:ema_log_rate_eager", "CALL:loss")),
    # multi-label focal loss, a max-norm kernel constraint, cosine decay with restarts
    "maxnorm_fn": _eq(MAXNORM, "tf2_maxnorm_fn.py", "function",
                      "kernel_constraint=MaxNorm(1.0) vs clip_by_norm(axes=[0]) assigned after "
                      "the step, BinaryFocalCrossentropy(apply_class_balancing) vs a "
                      "hand-written focal loss, CosineDecayRestarts vs cosine_decay_restarts"),
    "maxnorm_fit": _eq(MAXNORM, "tf2_maxnorm_fit.py", "fit", "the same in fit"),
    "maxnorm_forgotten_eager": _bug(MAXNORM, "tf2_maxnorm_forgotten_eager.py", "eager",
                                    "the max-norm constraint forgotten", 0, "update",
                                    ("AT:constraint", "AT:update"),
                                    ("BUG:maxnorm_forgotten_eager", "CALL:update")),
    "maxnorm_alpha_fn": _bug(MAXNORM, "tf2_maxnorm_alpha_fn.py", "function",
                             "BinaryFocalCrossentropy(alpha=0.25) without "
                             "apply_class_balancing=True: alpha ignored", 0, "loss",
                             ("AT:loss",), ("BUG:maxnorm_alpha_fn", "CALL:loss")),
    "maxnorm_restarts_fit": _bug(MAXNORM, "tf2_maxnorm_restarts_fit.py", "fit",
                                 "CosineDecay where TF1 restarts (cosine_decay_restarts)", 2,
                                 "learning_rate", ("AT:lr", "AT:update"),
                                 ("BUG:maxnorm_restarts_fit", "CALL:opt")),
    # two optimizers for two parts of the model, KL divergence to target distributions
    "twoopt_eager": _eq(TWOOPT, "tf2_twoopt_eager.py", "eager",
                        "Adam on the encoder and momentum on the head (two apply_gradients) vs "
                        "two minimize(var_list=...), KLDivergence vs a hand-written KL"),
    "twoopt_split_fn": _bug(TWOOPT, "tf2_twoopt_split_fn.py", "function",
                            "the variables split by layer count: the encoder's bias given to "
                            "the head's optimizer (momentum at 0.1 instead of Adam at 0.01)",
                            0, "learning_rate", ("AT:opt", "AT:update"),
                            ("BUG:twoopt_split_fn", "CALL:update", "CALL:opt")),
    "twoopt_kl_swap_fit": _bug(TWOOPT, "tf2_twoopt_kl_swap_fit.py", "fit",
                               "KLDivergence's arguments swapped in a train_step override "
                               "with two optimizers", 0, "loss", ("AT:loss",),
                               ("BUG:twoopt_kl_swap_fit", "CALL:loss")),
    # Q-learning with a target network synced every 2 steps
    "dqn_fn": _eq(DQN, "tf2_dqn_fn.py", "function",
                  "a second Keras Q-network as the target (trainable=False), synced by assign "
                  "every 2 steps, vs trainable=False variables and a sync op; gather vs "
                  "one_hot"),
    "dqn_nostop_eager": _bug(DQN, "tf2_dqn_nostop_eager.py", "eager",
                             "the TD target computed by the online network inside the tape "
                             "(no target network, no stop_gradient)", 0, "gradient",
                             ("AT:grads", "AT:target"),
                             ("BUG:dqn_nostop_eager", "CALL:grads")),
    "dqn_sync_fn": _bug(DQN, "tf2_dqn_sync_fn.py", "function",
                        "the target network synced when step % 2 == 0 (TF1: after every "
                        "second step)", 0, "state", ("AT:sync", "AT:state"),
                        ("BUG:dqn_sync_fn", "CALL:sync")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
