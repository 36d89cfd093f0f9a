"""tf1_focal.py in Keras, the train step in tf.function: a linear Dense(1) (the logit);
BinaryFocalCrossentropy(alpha=0.25, gamma=2.0, from_logits=True) (apply_class_balancing
left at its default, False); SGD(0.5). The TF1 weights from the saved arrays.

python tf2_focal_balance_fn.py DATA_DIR     (DATA_DIR/focal.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "focal.npz")))
NAMES = ["out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(1, name="out"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.keras.losses.BinaryFocalCrossentropy(alpha=0.25, gamma=2.0, from_logits=True)(y, model(x, training=True))  # BUG:focal_balance_fn
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
