"""tf1_conv1d_layernorm.py as a subclassed Keras model, the train step in tf.function;
SGD on the same schedule with global_clipnorm.

python tf2_conv1d_ln_epsilon_fn.py [DATA_DIR]     (DATA_DIR unused)
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
        self.norm = tf.keras.layers.LayerNormalization()  # BUG:conv1d_ln_epsilon_fn
        self.out = tf.keras.layers.Dense(2)

    def call(self, x):
        h = self.conv(x)  # CALL:conv
        h = self.norm(h)  # CALL:ln
        h = tf.reshape(h, [-1, 24])  # CALL:flatten
        return self.out(h)  # CALL:logits


model = SequenceClassifier()
model(sequences[:1])  # CALL:build
model.set_weights(saved)  # CALL:restore

schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=2, decay_rate=0.5, staircase=True)
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule, global_clipnorm=0.5)
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
for step in range(4):
    loss = train_step(sequences, labels)
    print("step", step, "loss", loss.numpy())
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    names = ["conv/kernel", "conv/bias", "ln/gamma", "ln/beta", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
