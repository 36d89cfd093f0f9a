"""tf1_chinge.py in Keras, trained eagerly: Dense(6, "relu6"), Dense(3);
tf.keras.losses.CategoricalHinge on the one-hot labels; SGD(0.1). The TF1 weights from the
saved arrays.

python tf2_chinge_eager.py DATA_DIR     (DATA_DIR/chinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "chinge.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="relu6", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:scores
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt
hinge = tf.keras.losses.CategoricalHinge()  # CALL:lossfn
onehot = tf.one_hot(saved["labels"], 3)

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = hinge(onehot, model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
