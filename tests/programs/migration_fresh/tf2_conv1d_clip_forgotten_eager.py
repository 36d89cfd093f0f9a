"""tf1_conv1d_layernorm.py as a subclassed Keras model, trained eagerly by a hand-written loop
with the same SGD schedule.

python tf2_conv1d_clip_forgotten_eager.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(616)
sequences = rng.normal(size=(4, 6, 3)).astype(np.float32)
labels = np.array([1, 0, 0, 1], dtype=np.int32)
saved = [rng.normal(0.0, 0.5, size=(3, 3, 4)), rng.normal(0.0, 0.1, size=(4,)),
         rng.uniform(0.8, 1.2, size=(4,)), rng.normal(0.0, 0.1, size=(4,)),
         rng.normal(0.0, 0.4, size=(24, 2)), np.zeros(2)]
saved = [a.astype(np.float32) for a in saved]


class SequenceClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv1D(4, 3, padding="same", activation="relu")
        self.norm = tf.keras.layers.LayerNormalization(epsilon=1e-5)
        self.flatten = tf.keras.layers.Flatten()
        self.out = tf.keras.layers.Dense(2)

    def call(self, x):
        h = self.conv(x)  # CALL:conv
        h = self.norm(h)  # CALL:ln
        h = self.flatten(h)  # CALL:flatten
        return self.out(h)  # CALL:logits


model = SequenceClassifier()
model(sequences[:1])  # CALL:build
model.set_weights(saved)  # CALL:restore

schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=2, decay_rate=0.5, staircase=True)
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # BUG:conv1d_clip_forgotten_eager
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

losses = []
for step in range(4):
    with tf.GradientTape() as tape:
        logits = model(sequences)  # CALL:forward
        loss = loss_fn(labels, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    names = ["conv/kernel", "conv/bias", "ln/gamma", "ln/beta", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
