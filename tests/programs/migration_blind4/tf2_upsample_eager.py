"""tf1_upsample.py in Keras, trained eagerly: two Conv2D layers called by a forward function
that resizes between them with tf.compat.v1.image.resize (bilinear; the TF 1.x pixel grid);
the squared error averaged by hand; SGD(0.05, momentum=0.9). The TF1 weights assigned to the
layers' variables.

python tf2_upsample_eager.py DATA_DIR     (DATA_DIR/upsample.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "upsample.npz")))
NAMES = ["conv1/kernel", "conv1/bias", "conv2/kernel", "conv2/bias"]

conv1 = tf.keras.layers.Conv2D(2, 3, padding="same", activation="relu", name="conv1")  # CALL:conv1
conv2 = tf.keras.layers.Conv2D(1, 3, padding="same", name="conv2")  # CALL:conv2
conv1.build((None, 4, 4, 1))
conv2.build((None, 8, 8, 2))
variables = conv1.trainable_variables + conv2.trainable_variables
for var, name in zip(variables, NAMES):
    var.assign(saved[name])  # CALL:restore


def forward(x):
    features = conv1(x)  # CALL:conv1
    upscaled = tf.compat.v1.image.resize(features, [8, 8], method=tf.compat.v1.image.ResizeMethod.BILINEAR)  # CALL:resize
    return conv2(upscaled)  # CALL:conv2


optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)  # CALL:opt

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = tf.reduce_mean(tf.square(forward(saved["x"]) - saved["y"]))  # CALL:loss
    grads = tape.gradient(value, variables)
    optimizer.apply_gradients(zip(grads, variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(NAMES, variables)}}))
