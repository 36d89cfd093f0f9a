"""tf1_cnn_adam.py as a Keras model whose train step is a tf.function.

python tf2_cnn_adam_beta2_fn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(2024)
images = rng.normal(size=(4, 6, 6, 2)).astype(np.float32)
classes = np.array([1, 0, 2, 1], dtype=np.int32)
conv_k = rng.normal(0.0, 0.35, size=(3, 3, 2, 4)).astype(np.float32)
conv_b = rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32)
fc_k = rng.normal(0.0, 0.25, size=(36, 3)).astype(np.float32)
fc_b = rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)


class SmallCNN(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(4, (3, 3), padding="same", activation="relu")
        self.pool = tf.keras.layers.MaxPool2D((2, 2))
        self.flat = tf.keras.layers.Flatten()
        self.fc = tf.keras.layers.Dense(3)

    def call(self, x):
        x = self.conv(x)  # CALL:conv
        x = self.pool(x)  # CALL:pool
        return self.fc(self.flat(x))  # CALL:logits


model = SmallCNN()
model(images[:1])
model.set_weights([conv_k, conv_b, fc_k, fc_b])  # CALL:restore

# TF1 used AdamOptimizer(0.01, beta1=0.9, beta2=0.99, epsilon=1e-7)
opt = tf.keras.optimizers.Adam(learning_rate=0.01)  # BUG:cnn_adam_beta2
xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = xent(y, model(x))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = [float(train_step(images, classes)) for _ in range(3)]
for step, value in enumerate(losses):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("HELDOUT_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses,
                               "weights": {n: w.tolist() for n, w in zip(names, model.get_weights())}}))
