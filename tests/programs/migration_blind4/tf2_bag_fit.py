"""tf1_bag.py as a Keras Sequential model trained by Model.fit: Embedding(7, 4,
mask_zero=True), GlobalAveragePooling1D, Dense(3); the sparse categorical cross-entropy from
logits; SGD(0.5). The TF1 weights from the saved arrays.

python tf2_bag_fit.py DATA_DIR     (DATA_DIR/bag.npz: prepare_data.py)
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

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.5),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(saved["ids"], saved["labels"], batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
