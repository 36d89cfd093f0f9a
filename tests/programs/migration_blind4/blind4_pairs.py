"""The fourth blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind4.py both read it. Written, with the numpy proof, before
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

NADAM = "tf1_nadam.py"
UPSAMPLE = "tf1_upsample.py"
GATED = "tf1_gated.py"
BAG = "tf1_bag.py"
LION = "tf1_lion.py"

PAIRS: dict[str, Pair] = {
    # PReLU, the weighted cross-entropy, Nadam as tf.contrib had it (ApplyAdam, use_nesterov)
    "nadam_fn": _eq(NADAM, "tf2_nadam_fn.py", "function",
                    "contrib's Nadam written out with tf.Variable slots, Keras PReLU with "
                    "Constant(0.25) slopes (not restored), weighted_cross_entropy_with_logits"),
    "nadam_fit": _eq(NADAM, "tf2_nadam_fit.py", "fit",
                     "a Keras Adam subclass whose update_step takes the Nesterov step; "
                     "BinaryCrossentropy(from_logits) with class_weight {0: 1, 1: 3} for "
                     "pos_weight=3"),
    "nadam_keras_eager": _bug(NADAM, "tf2_nadam_keras_eager.py", "eager",
                              "keras.optimizers.Nadam for contrib's NadamOptimizer: Keras' "
                              "momentum schedule (0.96^t) is another algorithm", 0, "update",
                              ("AT:opt", "AT:update"),
                              ("BUG:nadam_keras_eager", "CALL:update")),
    # bilinear upscaling: TF 1.x's pixel grid against TF 2's half-pixel centers
    "upsample_fn": _eq(UPSAMPLE, "tf2_upsample_fn.py", "function",
                       "a custom layer calling tf.compat.v1.image.resize_bilinear (TF 1.x's "
                       "grid) between two Conv2D; SGD(momentum=0.9) vs MomentumOptimizer"),
    "upsample_eager": _eq(UPSAMPLE, "tf2_upsample_eager.py", "eager",
                          "Conv2D layers called by hand, tf.compat.v1.image.resize(BILINEAR) "
                          "between them, variables assigned"),
    "upsample_layer_fit": _bug(UPSAMPLE, "tf2_upsample_layer_fit.py", "fit",
                               "UpSampling2D(interpolation='bilinear'): half-pixel centers, "
                               "where TF1's resize_bilinear had none", 0, "layer_output",
                               ("AT:resize",), ("BUG:upsample_layer_fit",)),
    "upsample_resize_fn": _bug(UPSAMPLE, "tf2_upsample_resize_fn.py", "function",
                               "tf.image.resize(method='bilinear') as the drop-in for "
                               "resize_bilinear (half-pixel centers since TF 2)", 0,
                               "layer_output", ("AT:resize",),
                               ("BUG:upsample_resize_fn", "CALL:resize")),
    # a hard-sigmoid gate, the squared hinge, a cyclic polynomial decay
    "gated_fn": _eq(GATED, "tf2_gated_fn.py", "function",
                    "Keras 2's hard sigmoid written out as a Dense activation in a Model "
                    "subclass, SquaredHinge on 0/1 labels, PolynomialDecay(cycle=True)",
                    steps=4),
    "gated_fit": _eq(GATED, "tf2_gated_fit.py", "fit",
                     "the same as a functional model with Multiply, loss='squared_hinge'",
                     steps=4),
    "gated_hard_sigmoid_eager": _bug(GATED, "tf2_gated_hard_sigmoid_eager.py", "eager",
                                     "activation='hard_sigmoid': Keras 3's is x/6 + 1/2, "
                                     "Keras 2's (TF 1.x) 0.2 x + 1/2", 0, "layer_output",
                                     ("AT:gate", "AT:gated"),
                                     ("BUG:gated_hard_sigmoid_eager", "CALL:gated"), steps=4),
    "gated_labels_fn": _bug(GATED, "tf2_gated_labels_fn.py", "function",
                            "the squared hinge written out on the 0/1 labels (TF1 mapped "
                            "them to -1/+1)", 0, "loss", ("AT:loss",),
                            ("BUG:gated_labels_fn",), steps=4),
    "gated_cycle_fit": _bug(GATED, "tf2_gated_cycle_fit.py", "fit",
                            "PolynomialDecay without cycle=True: the rate stays at its end "
                            "value after the first 2 steps", 3, "learning_rate",
                            ("AT:lr", "AT:update"), ("BUG:gated_cycle_fit", "CALL:opt"),
                            steps=4),
    # a bag of words: the mean of a sentence's embeddings over its real tokens
    "bag_fn": _eq(BAG, "tf2_bag_fn.py", "function",
                  "Embedding(mask_zero=True) + GlobalAveragePooling1D vs "
                  "embedding_lookup_sparse(combiner='mean') on the real tokens"),
    "bag_fit": _eq(BAG, "tf2_bag_fit.py", "fit", "the same in fit"),
    "bag_nomask_eager": _bug(BAG, "tf2_bag_nomask_eager.py", "eager",
                             "mask_zero=True forgotten: the pads' embedding averaged in", 0,
                             "layer_output", ("AT:pool",),
                             ("BUG:bag_nomask_eager", "CALL:pool")),
    # Lion written out with assign ops vs keras Lion; log-cosh
    "lion_eager": _eq(LION, "tf2_lion_eager.py", "eager",
                      "keras.optimizers.Lion vs Lion written out in TF1 (sign of "
                      "b1 m + (1-b1) g, m's own non-trainable variables), LogCosh vs "
                      "e + softplus(-2e) - log 2"),
    "lion_betas_fn": _bug(LION, "tf2_lion_betas_fn.py", "function",
                          "Lion's betas swapped (beta_1=0.99, beta_2=0.9): step 0 takes "
                          "sign(g) either way; step 1's sign mixes m and g otherwise", 1,
                          "update", ("AT:opt", "AT:update"),
                          ("BUG:lion_betas_fn", "CALL:update")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
