"""tf1_cnn_rmsprop.py as a subclassed Keras model, the train step in tf.function; the weights
the earlier run saved are assigned layer by layer; RMSprop with clipvalue, its velocities set
to 1.0 as TF1's mean square starts.

python tf2_cnn_restore_bias_fn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(919)
images = rng.normal(size=(4, 4, 4, 2)).astype(np.float32)
labels = np.array([0, 2, 1, 0], dtype=np.int32)
saved = [rng.normal(0.0, 0.4, size=(3, 3, 2, 3)).astype(np.float32),
         rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32),
         rng.normal(0.0, 0.4, size=(12, 3)).astype(np.float32),
         rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)]


class SmallCNN(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(3, 3, padding="same", activation="relu")
        self.pool = tf.keras.layers.MaxPooling2D(2)
        self.flatten = tf.keras.layers.Flatten()
        self.fc = tf.keras.layers.Dense(3)

    def call(self, x):
        h = self.conv(x)  # CALL:conv
        h = self.pool(h)  # CALL:pool
        h = self.flatten(h)  # CALL:flatten
        return self.fc(h)  # CALL:logits


model = SmallCNN()
model(images[:1])  # CALL:build
model.conv.kernel.assign(saved[0])  # CALL:restore BUG:cnn_restore_bias_fn
model.fc.kernel.assign(saved[2])  # CALL:restore
model.fc.bias.assign(saved[3])  # CALL:restore

optimizer = tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.9, epsilon=1e-6, clipvalue=0.05)
optimizer.build(model.trainable_variables)
for slot in optimizer.variables:
    if "velocity" in slot.path:
        slot.assign(tf.ones(slot.shape))
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


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
    print("step", step, "loss", loss.numpy())
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
