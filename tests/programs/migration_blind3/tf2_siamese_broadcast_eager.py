"""tf1_siamese.py in Keras, trained eagerly: one Sequential tower (Dense(6, tanh), Dense(3,
tanh)) called on both inputs, the contrastive loss on the distance of the two embeddings
(margin 1.5), Adamax with TF1's epsilon. The TF1 weights from the saved arrays.

python tf2_siamese_broadcast_eager.py DATA_DIR     (DATA_DIR/siamese.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

MARGIN = 1.5
saved = dict(np.load(os.path.join(sys.argv[1], "siamese.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "embed/kernel", "embed/bias"]

tower = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, activation="tanh", name="embed"),  # CALL:embed
])
tower.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.Adamax(learning_rate=0.05, epsilon=1e-8)  # CALL:opt

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        e1, e2 = tower(saved["x1"], training=True), tower(saved["x2"], training=True)
        distance = tf.norm(e1 - e2, axis=1)  # BUG:siamese_broadcast_eager
        y = saved["y"]
        loss = tf.reduce_mean(y * tf.square(distance) + (1.0 - y) * tf.square(tf.maximum(MARGIN - distance, 0.0))) / 2.0  # CALL:loss
    grads = tape.gradient(loss, tower.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, tower.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, tower.get_weights())}}))
