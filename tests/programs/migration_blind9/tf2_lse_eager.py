"""tf1_lse.py in Keras, trained eagerly: TimeDistributed(Dense(5, "tanh")),
GlobalAveragePooling1D, Dense(3); the softmax cross-entropy written as logsumexp of the
logits minus the true class's logit, the batch mean; SGD(0.5) on two minibatches of 3 in
turn, 4 steps. The TF1 weights from the saved arrays.

python tf2_lse_eager.py DATA_DIR     (DATA_DIR/lse.npz: prepare_data.py)
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

losses = []
for step in range(4):
    batch = slice(3 * (step % 2), 3 * (step % 2) + 3)
    with tf.GradientTape() as tape:
        logits = model(saved["x"][batch], training=True)  # CALL:forward
        true = tf.gather(logits, saved["labels"][batch], batch_dims=1)
        loss = tf.reduce_mean(tf.reduce_logsumexp(logits, axis=1) - true)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND9_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
