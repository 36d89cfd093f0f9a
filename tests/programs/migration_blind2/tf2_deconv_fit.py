"""tf1_deconv.py as a Keras Sequential model trained by Model.fit: two
Conv2DTranspose(strides=2, padding="same") layers (relu, then sigmoid), MeanSquaredError;
SGD on PolynomialDecay(0.5, 3, 0.05, power=2.0). The TF1 weights from the saved arrays
(Conv2DTranspose keeps conv2d_transpose's kernel layout).

python tf2_deconv_fit.py DATA_DIR     (DATA_DIR/deconv.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "deconv.npz")))
NAMES = ["up1/kernel", "up1/bias", "up2/kernel", "up2/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(2, 2, 2)),
    tf.keras.layers.Conv2DTranspose(2, 3, strides=2, padding="same", activation="relu", name="up1"),  # CALL:up1
    tf.keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid", name="up2"),  # CALL:up2
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

schedule = tf.keras.optimizers.schedules.PolynomialDecay(0.5, decay_steps=3, end_learning_rate=0.05, power=2.0)  # CALL:lr
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=schedule),  # CALL:opt
              loss=tf.keras.losses.MeanSquaredError())  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=2, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
