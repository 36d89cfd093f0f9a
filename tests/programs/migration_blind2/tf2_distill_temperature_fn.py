"""tf1_distill.py in Keras: Dense(5, relu), Dense(3); the teacher's softened distribution
against the student's logits / T by CategoricalCrossentropy(from_logits=True); SGD whose rate
is set before each step; the train step in tf.function. The TF1 weights from the saved
arrays.

python tf2_distill_temperature_fn.py DATA_DIR     (DATA_DIR/distill.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

T = 2.0
RATES = [0.5, 0.3, 0.1]
saved = dict(np.load(os.path.join(sys.argv[1], "distill.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]

student = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="relu", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="logits"),  # CALL:logits
])
student.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=RATES[0])  # CALL:opt
loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True)  # CALL:loss
soft_targets = tf.nn.softmax(saved["y"] / T)  # CALL:soft


@tf.function
def train_step(x, soft):
    with tf.GradientTape() as tape:
        loss = loss_fn(soft, student(x, training=True) / T)  # BUG:distill_temperature_fn
    grads = tape.gradient(loss, student.trainable_variables)
    optimizer.apply_gradients(zip(grads, student.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    optimizer.learning_rate = RATES[step]  # CALL:lr
    value = train_step(saved["x"], soft_targets)
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, student.get_weights())}}))
