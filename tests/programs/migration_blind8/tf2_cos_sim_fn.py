"""tf1_cos.py in Keras, the train step in tf.function: Dense(4) and
tf.keras.losses.CosineSimilarity as the cosine distance; SGD(0.5). The TF1 weights from the
saved arrays.

python tf2_cos_sim_fn.py DATA_DIR     (DATA_DIR/cos.npz: prepare_data.py)
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
loss_fn = tf.keras.losses.CosineSimilarity(axis=1)  # CALL:lossfn


@tf.function
def train_step(x, t):
    with tf.GradientTape() as tape:
        loss = loss_fn(t, model(x, training=True))  # BUG:cos_sim_fn
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["t"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
