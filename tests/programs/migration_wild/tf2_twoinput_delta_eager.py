"""tf1_twoinput_huber.py as a subclassed Keras model built from a custom Layer (a dense
branch with its own add_weight variables and activation), trained eagerly under GradientTape;
Huber loss; centered RMSprop with momentum, velocities set to TF1's 1.0; the TF1 weights
assigned variable by variable.

python tf2_twoinput_delta_eager.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(3333)
feats_a = rng.normal(size=(6, 3)).astype(np.float32)
feats_b = rng.normal(size=(6, 2)).astype(np.float32)
target = rng.normal(0.0, 1.0, size=(6, 1)).astype(np.float32)
init = [rng.normal(0.0, 0.5, size=(3, 4)).astype(np.float32),
        rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
        rng.normal(0.0, 0.5, size=(2, 4)).astype(np.float32),
        rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
        rng.normal(0.0, 0.5, size=(8, 1)).astype(np.float32),
        np.zeros(1, np.float32)]


class Branch(tf.keras.layers.Layer):
    """x @ kernel + bias, then an activation."""

    def __init__(self, units, activation, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.activation = tf.keras.activations.get(activation)

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units))
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, x):
        return self.activation(tf.matmul(x, self.kernel) + self.bias)  # CALL:branch


class TwoInput(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.branch_a = Branch(4, "relu")
        self.branch_b = Branch(4, "tanh")
        self.head = Branch(1, None)

    def call(self, inputs):
        a, b = inputs
        merged = tf.concat([self.branch_a(a), self.branch_b(b)], axis=1)  # CALL:concat
        return self.head(merged)  # CALL:head


model = TwoInput()
model([feats_a[:1], feats_b[:1]])  # CALL:build
for variable, value in zip(model.trainable_variables, init):
    variable.assign(value)  # CALL:restore

optimizer = tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.9, momentum=0.5, epsilon=1e-6, centered=True)
optimizer.build(model.trainable_variables)
for slot in optimizer.variables:
    if "velocity" in slot.path:
        slot.assign(tf.ones(slot.shape))
loss_fn = tf.keras.losses.Huber()  # BUG:twoinput_delta_eager

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        prediction = model([feats_a, feats_b])  # CALL:forward
        loss = loss_fn(target, prediction)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["branch_a/kernel", "branch_a/bias", "branch_b/kernel", "branch_b/bias", "head/kernel", "head/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
