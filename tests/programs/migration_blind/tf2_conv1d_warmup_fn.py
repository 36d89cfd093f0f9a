"""tf1_conv1d.py as a Keras Model subclass trained by a tf.function step: a causal dilated
Conv1D, GlobalAveragePooling1D and Dense(3); each example weighted by its class through the
loss's sample_weight; SGD on a CosineDecay with warmup whose decay_steps counts the whole run
(6 steps, as the TF1 code's total). The TF1 weights from the saved arrays.

python tf2_conv1d_warmup_fn.py DATA_DIR     (DATA_DIR/conv1d.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "conv1d.npz")))
class_weights = tf.constant([1.0, 2.0, 0.5])


class TemporalClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv1D(4, 3, padding="causal", dilation_rate=2, activation="relu")  # CALL:conv
        self.pool = tf.keras.layers.GlobalAveragePooling1D()
        self.fc = tf.keras.layers.Dense(3)  # CALL:logits

    def call(self, x):
        return self.fc(self.pool(self.conv(x)))  # CALL:conv CALL:pool CALL:logits


model = TemporalClassifier()
model(saved["x"][:1])  # CALL:build
model.set_weights([saved["conv/kernel"], saved["conv/bias"], saved["fc/kernel"], saved["fc/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.CosineDecay(0.05, decay_steps=6, alpha=0.1, warmup_target=0.2, warmup_steps=2)  # BUG:conv1d_warmup_fn
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True), sample_weight=tf.gather(class_weights, y))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(4):
    loss = train_step(saved["x"], saved["y"])
    print("step %d loss %.6f" % (step, float(loss)))
    losses.append(float(loss))
if os.environ.get("BLIND_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
