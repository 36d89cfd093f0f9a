"""tf1_sepconv_gn.py as a functional Keras model trained eagerly under GradientTape, each
gradient clipped to norm 0.5 in the loop (tf.clip_by_norm, as in TF1); GroupNormalization with
TF1's groups and epsilon; BinaryCrossentropy(from_logits=True); the TF1 weights copied in with
model.set_weights.

python tf2_sepconv_gn_eager.py [DATA_DIR]     (DATA_DIR unused)
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

inputs = tf.keras.Input(shape=(5, 5, 2))
h = tf.keras.layers.SeparableConv2D(4, 3, padding="same", name="sep")(inputs)  # CALL:sep
h = tf.keras.layers.GroupNormalization(groups=2, epsilon=1e-5, name="gn")(h)  # CALL:gn
h = tf.keras.layers.ReLU(name="relu")(h)  # CALL:relu
h = tf.keras.layers.GlobalAveragePooling2D(name="pool")(h)  # CALL:pool
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, name="head")(h))  # CALL:logits
model.set_weights(init)  # CALL:restore

optimizer = tf.keras.optimizers.Adam(learning_rate=0.02, epsilon=1e-8)  # CALL:opt
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(images)  # CALL:forward
        loss = loss_fn(labels, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    grads = [tf.clip_by_norm(g, 0.5) for g in grads]  # CALL:clip
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["sep/depthwise_kernel", "sep/pointwise_kernel", "sep/bias", "gn/gamma", "gn/beta", "head/kernel", "head/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
