"""tf1_twohead_adam.py as a subclassed Keras model returning both heads; a hand-written
training loop, run eagerly.

python tf2_twohead_eager.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(515)
features = rng.normal(size=(6, 5)).astype(np.float32)
classes = np.array([0, 2, 1, 2, 0, 1], dtype=np.int32)
targets = rng.normal(0.0, 0.5, size=(6, 2)).astype(np.float32)
saved = {
    "trunk/kernel": rng.normal(0.0, 0.5, size=(5, 8)), "trunk/bias": rng.normal(0.0, 0.1, size=(8,)),
    "cls/kernel": rng.normal(0.0, 0.5, size=(8, 3)), "cls/bias": np.zeros(3),
    "reg/kernel": rng.normal(0.0, 0.5, size=(8, 2)), "reg/bias": rng.normal(0.0, 0.1, size=(2,)),
}
saved = {k: v.astype(np.float32) for k, v in saved.items()}


class TwoHeads(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.trunk = tf.keras.layers.Dense(8, activation="relu")
        self.cls = tf.keras.layers.Dense(3)
        self.reg = tf.keras.layers.Dense(2)

    def call(self, x):
        h = self.trunk(x)  # CALL:trunk
        return self.cls(h), self.reg(h)  # CALL:heads


model = TwoHeads()
model(features[:1])  # CALL:build
model.set_weights([saved[n] for n in saved])  # CALL:restore

optimizer = tf.keras.optimizers.Adam(0.02, beta_1=0.8, beta_2=0.95, epsilon=1e-6)
cls_loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
reg_loss_fn = tf.keras.losses.MeanSquaredError()

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        cls_logits, reg_out = model(features)  # CALL:forward
        loss = cls_loss_fn(classes, cls_logits) + 0.5 * reg_loss_fn(targets, reg_out)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(saved, model.trainable_variables)}}))
