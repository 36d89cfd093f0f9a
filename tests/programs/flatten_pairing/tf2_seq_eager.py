"""tf1_seq.py as a Keras Sequential model called eagerly inside a GradientTape: Conv1D with
the activation given by name (argv[1]: "elu", TF1's, or "relu", a port that took the
activation from another example), Flatten, Dense; the TF1 weights set with set_weights;
mean squared error; SGD(0.05), three steps.

python tf2_seq_eager.py elu|relu
"""
import json
import os
import sys

import tensorflow as tf

from seq_data import arrays

d = arrays()
NAMES = ["conv/kernel", "conv/bias", "out/kernel", "out/bias"]
activation = sys.argv[1]
model = tf.keras.Sequential([
    tf.keras.Input(shape=(10, 2)),
    tf.keras.layers.Conv1D(3, 3, padding="valid", activation=activation, name="conv"),  # BUG:relu
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(1, name="out"),
])
model.set_weights([d[n] for n in NAMES])
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)
mse = tf.keras.losses.MeanSquaredError()

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = mse(d["y"], model(d["x"], training=True))  # CALL
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("SEQ_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
