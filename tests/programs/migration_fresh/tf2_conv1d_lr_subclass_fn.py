"""tf1_conv1d_layernorm.py as a Keras functional model; the train step in tf.function clips
the gradients by their global norm itself, and the learning rate is a LearningRateSchedule
subclass written to reproduce TF1's staircase exponential_decay.

python tf2_conv1d_lr_subclass_fn.py [DATA_DIR]     (DATA_DIR unused)
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


class HalveEvery(tf.keras.optimizers.schedules.LearningRateSchedule):
    """initial * 0.5 ** floor(step / every), as tf.compat.v1.train.exponential_decay(staircase=True)."""

    def __init__(self, initial, every):
        self.initial = initial
        self.every = every

    def __call__(self, step):
        exponent = tf.floor(tf.cast(step, tf.float32) / self.every)  # CALL:lr
        return self.initial * tf.pow(0.5, exponent)  # CALL:lr

    def get_config(self):
        return {"initial": self.initial, "every": self.every}


inputs = tf.keras.Input(shape=(6, 3))
h = tf.keras.layers.Conv1D(4, 3, padding="same", activation="relu")(inputs)  # CALL:conv
h = tf.keras.layers.LayerNormalization(epsilon=1e-5)(h)  # CALL:ln
h = tf.keras.layers.Flatten()(h)  # CALL:flatten
logits = tf.keras.layers.Dense(2)(h)  # CALL:logits
model = tf.keras.Model(inputs, logits)
model.set_weights(saved)  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=HalveEvery(0.2, 2))
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 0.5)  # CALL:clip
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
