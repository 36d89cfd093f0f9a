"""tf1_focal.py in Keras, trained eagerly: a linear Dense(1) (the logit);
BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, gamma=2.0, from_logits=True);
SGD(0.5). The TF1 weights from the saved arrays.

python tf2_focal_eager.py DATA_DIR     (DATA_DIR/focal.npz: prepare_data.py)
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
focal = tf.keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, gamma=2.0, from_logits=True)  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = focal(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
