"""tf1_maxnorm.py in Keras, trained eagerly: Dense(6, relu), Dense(3) logits,
BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, gamma=2, from_logits=True);
SGD on CosineDecayRestarts(0.5, 2, alpha=0.1). The TF1 weights from the saved arrays.

python tf2_maxnorm_forgotten_eager.py DATA_DIR     (DATA_DIR/maxnorm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "maxnorm.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]

inputs = tf.keras.Input(shape=(5,))
hidden = tf.keras.layers.Dense(6, activation="relu", name="hidden")(inputs)  # BUG:maxnorm_forgotten_eager
logits = tf.keras.layers.Dense(3, name="logits")(hidden)  # CALL:logits
model = tf.keras.Model(inputs, logits)
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

schedule = tf.keras.optimizers.schedules.CosineDecayRestarts(0.5, first_decay_steps=2, alpha=0.1)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, gamma=2.0, from_logits=True)  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
