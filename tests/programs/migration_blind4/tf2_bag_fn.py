"""tf1_bag.py in Keras: Embedding(7, 4, mask_zero=True), GlobalAveragePooling1D (which
averages over the unmasked tokens only), Dense(3); SparseCategoricalCrossentropy(
from_logits=True); SGD(0.5); the train step in tf.function. The TF1 weights from the saved
arrays (row 0 of the table, the pad's, is never used by either).

python tf2_bag_fn.py DATA_DIR     (DATA_DIR/bag.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "bag.npz")))
NAMES = ["embedding/embeddings", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,), dtype="int32"),
    tf.keras.layers.Embedding(7, 4, mask_zero=True, name="embedding"),  # CALL:embed
    tf.keras.layers.GlobalAveragePooling1D(name="pool"),  # CALL:pool
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:loss


@tf.function
def train_step(ids, labels):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(ids, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["ids"], saved["labels"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
