"""tf1_sepconv_gn.py as a subclassed Keras model (SeparableConv2D same, GroupNormalization
with TF1's 2 groups and epsilon, ReLU, GlobalAveragePooling2D, Dense), the train step in
tf.function; BinaryCrossentropy(from_logits=True); Adam with clipnorm=0.5 (each gradient by
its own norm) and TF1's epsilon; each variable assigned its TF1 value after a build call.

python tf2_sepconv_gn_fn.py [DATA_DIR]     (DATA_DIR unused)
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


class SepNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.sep = tf.keras.layers.SeparableConv2D(4, 3, padding="same")
        self.gn = tf.keras.layers.GroupNormalization(groups=2, epsilon=1e-5)
        self.relu = tf.keras.layers.ReLU()
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.head = tf.keras.layers.Dense(1)

    def call(self, x):
        h = self.sep(x)  # CALL:sep
        h = self.gn(h)  # CALL:gn
        h = self.relu(h)  # CALL:relu
        h = self.pool(h)  # CALL:pool
        return self.head(h)  # CALL:logits


model = SepNet()
model(images[:1])  # CALL:build
for variable, value in zip(model.trainable_variables, init):
    variable.assign(value)  # CALL:restore

optimizer = tf.keras.optimizers.Adam(learning_rate=0.02, epsilon=1e-8, clipnorm=0.5)  # CALL:opt
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x)  # CALL:forward
        loss = loss_fn(y, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(images, labels)
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["sep/depthwise_kernel", "sep/pointwise_kernel", "sep/bias", "gn/gamma", "gn/beta", "head/kernel", "head/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
