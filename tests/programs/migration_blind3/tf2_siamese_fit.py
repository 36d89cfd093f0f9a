"""tf1_siamese.py as a two-input functional Keras model trained by Model.fit: one tower
(Dense(6, tanh), Dense(3, tanh)) shared by both inputs, the model's output the distance of the
two embeddings; the contrastive loss (margin 1.5) as the compiled loss; Adamax with TF1's
epsilon. The TF1 weights from the saved arrays.

python tf2_siamese_fit.py DATA_DIR     (DATA_DIR/siamese.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow import keras

MARGIN = 1.5
saved = dict(np.load(os.path.join(sys.argv[1], "siamese.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "embed/kernel", "embed/bias"]

tower = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(6, activation="tanh", name="hidden"),  # CALL:hidden
    keras.layers.Dense(3, activation="tanh", name="embed"),  # CALL:embed
], name="tower")
left = keras.Input(shape=(4,), name="left")
right = keras.Input(shape=(4,), name="right")
distance = keras.ops.norm(tower(left) - tower(right), axis=1, keepdims=True)  # CALL:distance
model = keras.Model([left, right], distance)
tower.set_weights([saved[n] for n in NAMES])  # CALL:restore


def contrastive_loss(y, distance):
    """Per pair: y d^2 + (1 - y) max(margin - d, 0)^2, halved (Keras averages it)."""
    return (y * tf.square(distance) + (1.0 - y) * tf.square(tf.maximum(MARGIN - distance, 0.0))) / 2.0  # CALL:loss


model.compile(optimizer=keras.optimizers.Adamax(learning_rate=0.05, epsilon=1e-8), loss=contrastive_loss)  # CALL:opt CALL:loss
history = model.fit([saved["x1"], saved["x2"]], saved["y"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, tower.get_weights())}}))
