"""tf1_sepconv_gn.py as a Keras Sequential model trained by Model.fit; GroupNormalization
with TF1's groups and epsilon; Adam with clipnorm=0.5 and TF1's epsilon; binary
cross-entropy; the TF1 weights copied in with model.set_weights.

python tf2_sepconv_from_logits_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(4444)
images = rng.normal(size=(4, 5, 5, 2)).astype(np.float32)
labels = np.array([[1.0], [0.0], [0.0], [1.0]], dtype=np.float32)
init = [rng.normal(0.0, 0.5, size=(3, 3, 2, 1)).astype(np.float32),
        rng.normal(0.0, 0.5, size=(1, 1, 2, 4)).astype(np.float32),
        rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
        rng.uniform(0.8, 1.2, size=(4,)).astype(np.float32),
        rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
        rng.normal(0.0, 0.7, size=(4, 1)).astype(np.float32),
        np.zeros(1, np.float32)]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5, 5, 2)),
    tf.keras.layers.SeparableConv2D(4, 3, padding="same", name="sep"),  # CALL:sep
    tf.keras.layers.GroupNormalization(groups=2, epsilon=1e-5, name="gn"),  # CALL:gn
    tf.keras.layers.ReLU(name="relu"),  # CALL:relu
    tf.keras.layers.GlobalAveragePooling2D(name="pool"),  # CALL:pool
    tf.keras.layers.Dense(1, name="head"),  # CALL:logits
])
model.set_weights(init)  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=0.02, epsilon=1e-8, clipnorm=0.5),  # CALL:opt
              loss=tf.keras.losses.BinaryCrossentropy())  # BUG:sepconv_from_logits_fit
history = model.fit(images, labels, batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("WILD_TRACE"):
    names = ["sep/depthwise_kernel", "sep/pointwise_kernel", "sep/bias", "gn/gamma", "gn/beta", "head/kernel", "head/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
