"""tf1_upsample.py as a Keras Sequential model trained by Model.fit: Conv2D(2, 3, same,
relu), UpSampling2D(2, interpolation="bilinear"), Conv2D(1, 3, same); loss="mse";
SGD(0.05, momentum=0.9). The TF1 weights from the saved arrays.

python tf2_upsample_layer_fit.py DATA_DIR     (DATA_DIR/upsample.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "upsample.npz")))
NAMES = ["conv1/kernel", "conv1/bias", "conv2/kernel", "conv2/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4, 4, 1)),
    tf.keras.layers.Conv2D(2, 3, padding="same", activation="relu", name="conv1"),  # CALL:conv1
    tf.keras.layers.UpSampling2D(2, interpolation="bilinear", name="resize"),  # BUG:upsample_layer_fit
    tf.keras.layers.Conv2D(1, 3, padding="same", name="conv2"),  # CALL:conv2
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9), loss="mse")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
