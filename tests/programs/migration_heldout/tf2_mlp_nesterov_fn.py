"""The 4-16-8-3 MLP of tf1_mlp_nesterov.py in Keras, trained in a tf.function.

python tf2_mlp_nesterov_fn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(1234)
x_data = rng.normal(size=(6, 4)).astype(np.float32)
y_data = np.array([0, 2, 1, 1, 0, 2], dtype=np.int64)
w1 = rng.uniform(-0.6, 0.6, size=(4, 16)).astype(np.float32)
b1 = rng.uniform(-0.1, 0.1, size=(16,)).astype(np.float32)
w2 = rng.uniform(-0.5, 0.5, size=(16, 8)).astype(np.float32)
b2 = rng.uniform(-0.1, 0.1, size=(8,)).astype(np.float32)
w3 = rng.uniform(-0.7, 0.7, size=(8, 3)).astype(np.float32)
b3 = rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)


class MLP(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.fc1 = tf.keras.layers.Dense(16, activation="relu")
        self.fc2 = tf.keras.layers.Dense(8, activation="relu")
        self.out = tf.keras.layers.Dense(3)

    def call(self, inputs):
        h = self.fc1(inputs)  # CALL:fc1
        h = self.fc2(h)  # CALL:fc2
        return self.out(h)  # CALL:logits


model = MLP()
model(x_data[:1])  # builds the layers
model.set_weights([w1, b1, w2, b2, w3, b3])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, nesterov=True)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = loss_fn(y, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(x_data, y_data)
    print("step", step, "loss", loss.numpy())
    losses.append(float(loss))
if os.environ.get("HELDOUT_TRACE"):
    names = ["fc1/kernel", "fc1/bias", "fc2/kernel", "fc2/bias", "out/kernel", "out/bias"]
    final = dict(zip(names, (w.tolist() for w in model.get_weights())))
    print("trace", json.dumps({"loss": losses, "weights": final}))
