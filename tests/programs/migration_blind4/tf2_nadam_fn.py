"""tf1_nadam.py in Keras: Dense(8), PReLU(alpha_initializer=Constant(0.25)), Dense(1); the
weighted cross-entropy (tf.nn.weighted_cross_entropy_with_logits, pos_weight 3); contrib's
Nadam written out with tf.Variable slots (Adam with Nesterov momentum, as TF1's kernel with
use_nesterov computes it); the train step in tf.function. The Dense layers get the TF1
weights; the PReLU's slopes are its initializer's 0.25, as TF1's were.

python tf2_nadam_fn.py DATA_DIR     (DATA_DIR/nadam.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

LR, BETA_1, BETA_2, EPSILON = 0.01, 0.9, 0.999, 1e-8
saved = dict(np.load(os.path.join(sys.argv[1], "nadam.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "prelu/alpha", "out/kernel", "out/bias"]

hidden = tf.keras.layers.Dense(8, name="hidden")  # CALL:hidden
prelu = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25), name="prelu")  # CALL:prelu
out = tf.keras.layers.Dense(1, name="out")  # CALL:logits
model = tf.keras.Sequential([tf.keras.Input(shape=(6,)), hidden, prelu, out])
hidden.set_weights([saved["hidden/kernel"], saved["hidden/bias"]])  # CALL:restore
out.set_weights([saved["out/kernel"], saved["out/bias"]])  # CALL:restore

slots_m = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]
slots_v = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]
t = tf.Variable(0.0, trainable=False)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.weighted_cross_entropy_with_logits(labels=y, logits=model(x, training=True), pos_weight=3.0))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    t.assign_add(1.0)
    lr_t = LR * tf.sqrt(1.0 - BETA_2 ** t) / (1.0 - BETA_1 ** t)  # CALL:lr
    for var, g, m, v in zip(model.trainable_variables, grads, slots_m, slots_v):
        m.assign(BETA_1 * m + (1.0 - BETA_1) * g)
        v.assign(BETA_2 * v + (1.0 - BETA_2) * tf.square(g))
        var.assign_sub(lr_t * (BETA_1 * m + (1.0 - BETA_1) * g) / (tf.sqrt(v) + EPSILON))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
