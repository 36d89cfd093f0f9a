"""tf1_focal.py as a Keras Sequential model trained by Model.fit: Dense(1, "sigmoid");
BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, gamma=2.0) on the
probabilities; SGD(0.5). The TF1 weights from the saved arrays.

python tf2_focal_fit.py DATA_DIR     (DATA_DIR/focal.npz: prepare_data.py)
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
    tf.keras.layers.Dense(1, activation="sigmoid", name="out"),  # CALL:prob
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.5),
              loss=tf.keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, gamma=2.0))  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=10, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
