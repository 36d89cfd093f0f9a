"""tf1_upsample.py in Keras: Conv2D(2, 3, same, relu), a layer resizing with TF1's
resize_bilinear (tf.compat.v1.image.resize_bilinear keeps the TF 1.x pixel grid), Conv2D(1,
3, same); MeanSquaredError; SGD(0.05, momentum=0.9); the train step in tf.function. The TF1
weights from the saved arrays.

python tf2_upsample_fn.py DATA_DIR     (DATA_DIR/upsample.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "upsample.npz")))
NAMES = ["conv1/kernel", "conv1/bias", "conv2/kernel", "conv2/bias"]


class LegacyResize(tf.keras.layers.Layer):
    """Bilinear resizing as TF 1.x did it (no half-pixel centers)."""

    def __init__(self, size, **kwargs):
        super().__init__(**kwargs)
        self.size = size

    def call(self, x):
        return tf.compat.v1.image.resize_bilinear(x, self.size)  # CALL:resize


model = tf.keras.Sequential([
    tf.keras.Input(shape=(4, 4, 1)),
    tf.keras.layers.Conv2D(2, 3, padding="same", activation="relu", name="conv1"),  # CALL:conv1
    LegacyResize([8, 8], name="resize"),  # CALL:resize
    tf.keras.layers.Conv2D(1, 3, padding="same", name="conv2"),  # CALL:conv2
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)  # CALL:opt
loss_fn = tf.keras.losses.MeanSquaredError()  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
