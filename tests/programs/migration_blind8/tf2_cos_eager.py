"""tf1_cos.py in Keras, trained eagerly: Dense(4) and 1 + tf.keras.losses.CosineSimilarity
(which normalizes both sides itself and returns -cos: the 1 keeps TF1's cosine distance);
SGD(0.5). The TF1 weights from the saved arrays.

python tf2_cos_eager.py DATA_DIR     (DATA_DIR/cos.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "cos.npz")))
NAMES = ["emb/kernel", "emb/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(4, name="emb"),  # CALL:z
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
cosine = tf.keras.losses.CosineSimilarity(axis=1)  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = 1.0 + cosine(saved["t"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
