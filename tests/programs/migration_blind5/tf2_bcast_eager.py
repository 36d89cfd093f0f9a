"""tf1_bcast.py in Keras, trained eagerly: Dense(5, "swish"), Dense(1); MeanAbsoluteError()
on the (8,) targets against the (8, 1) predictions (Keras' loss squeezes the extra axis);
SGD(0.05, momentum=0.9). The TF1 weights from the saved arrays.

python tf2_bcast_eager.py DATA_DIR     (DATA_DIR/bcast.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "bcast.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="swish", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)  # CALL:opt
mae = tf.keras.losses.MeanAbsoluteError()  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = mae(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
