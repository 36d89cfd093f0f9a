"""tf1_twohead_adam.py as a subclassed Keras model, the train step in tf.function, each head's
loss from a Keras loss object.

python tf2_twohead_sum_reduction_fn.py [DATA_DIR]     (DATA_DIR unused)
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
        return {"cls": self.cls(h), "reg": self.reg(h)}  # CALL:heads


model = TwoHeads()
model(features[:1])  # CALL:build
for layer, name in ((model.trunk, "trunk"), (model.cls, "cls"), (model.reg, "reg")):
    layer.set_weights([saved[name + "/kernel"], saved[name + "/bias"]])  # CALL:restore

optimizer = tf.keras.optimizers.Adam(learning_rate=0.02, beta_1=0.8, beta_2=0.95, epsilon=1e-6)
classification_loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
regression_loss = tf.keras.losses.MeanSquaredError(reduction="sum")  # BUG:twohead_sum_reduction_fn


@tf.function
def train_step(x, y_cls, y_reg):
    with tf.GradientTape() as tape:
        out = model(x)  # CALL:forward
        cls_loss = classification_loss(y_cls, out["cls"])  # CALL:loss_cls
        reg_loss = regression_loss(y_reg, out["reg"])  # CALL:loss_reg
        loss = cls_loss + 0.5 * reg_loss  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(features, classes, targets)
    print("step", step, "loss", loss.numpy())
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(saved, model.trainable_variables)}}))
