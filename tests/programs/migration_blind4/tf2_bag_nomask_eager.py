"""tf1_bag.py in Keras, trained eagerly: Embedding(7, 4), GlobalAveragePooling1D,
Dense(3); SparseCategoricalCrossentropy(from_logits=True); SGD(0.5). The TF1 weights from
the saved arrays.

python tf2_bag_nomask_eager.py DATA_DIR     (DATA_DIR/bag.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "bag.npz")))
NAMES = ["embedding/embeddings", "out/kernel", "out/bias"]

inputs = tf.keras.Input(shape=(5,), dtype="int32")
embedded = tf.keras.layers.Embedding(7, 4, name="embedding")(inputs)  # BUG:bag_nomask_eager
sentence = tf.keras.layers.GlobalAveragePooling1D(name="pool")(embedded)  # CALL:pool
logits = tf.keras.layers.Dense(3, name="out")(sentence)  # CALL:logits
model = tf.keras.Model(inputs, logits)
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["labels"], model(saved["ids"], training=True))  # CALL:loss
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
