"""tf1_lse.py in Keras, the train step in tf.function: TimeDistributed(Dense(5, "tanh")),
GlobalAveragePooling1D, Dense(3); the softmax cross-entropy written with
tf.reduce_logsumexp minus the true class's logit, the batch mean; SGD(0.5) on two
minibatches of 3 in turn, 4 steps. The TF1 weights from the saved arrays.

python tf2_lse_axis_fn.py DATA_DIR     (DATA_DIR/lse.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "lse.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3, 4)),
    tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(5, activation="tanh"), name="hid"),  # CALL:hidden
    tf.keras.layers.GlobalAveragePooling1D(name="pool"),  # CALL:pooled
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # CALL:forward
        true = tf.gather(logits, labels, batch_dims=1)
        loss = tf.reduce_mean(tf.reduce_logsumexp(logits) - true)  # BUG:lse_axis_fn
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(4):
    batch = slice(3 * (step % 2), 3 * (step % 2) + 3)
    value = train_step(saved["x"][batch], saved["labels"][batch])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND9_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
