"""tf1_maxnorm.py in Keras: Dense(6, relu, kernel_constraint=MaxNorm(1.0)), Dense(3) logits,
BinaryFocalCrossentropy(alpha=0.25, gamma=2, from_logits=True);
SGD on CosineDecayRestarts(0.5, 2, alpha=0.1); the train step in tf.function. The TF1 weights
from the saved arrays.

python tf2_maxnorm_alpha_fn.py DATA_DIR     (DATA_DIR/maxnorm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "maxnorm.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(6, activation="relu", kernel_constraint=tf.keras.constraints.MaxNorm(1.0), name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="logits"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

schedule = tf.keras.optimizers.schedules.CosineDecayRestarts(0.5, first_decay_steps=2, alpha=0.1)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.BinaryFocalCrossentropy(alpha=0.25, gamma=2.0, from_logits=True)  # BUG:maxnorm_alpha_fn


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
