"""tf1_ftrl.py in Keras, trained eagerly: Dense(1) logits in a Sequential model, the mean
BinaryCrossentropy(from_logits=True), Ftrl(0.5) with the same L1 and L2 strengths, in a plain
loop under GradientTape. The TF1 weights from the saved arrays.

python tf2_ftrl_eager.py DATA_DIR     (DATA_DIR/ftrl.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "ftrl.npz")))

model = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(1, name="linear")])  # CALL:logits
model.set_weights([saved["linear/kernel"], saved["linear/bias"]])  # CALL:restore

optimizer = tf.keras.optimizers.Ftrl(learning_rate=0.5, l1_regularization_strength=0.01, l2_regularization_strength=0.01)  # CALL:opt
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step %d loss %.6f" % (step, float(loss)))
    losses.append(float(loss))
if os.environ.get("BLIND_TRACE"):
    final = model.get_weights()
    print("trace", json.dumps({"loss": losses, "weights": {"linear/kernel": final[0].tolist(), "linear/bias": final[1].tolist()}}))
