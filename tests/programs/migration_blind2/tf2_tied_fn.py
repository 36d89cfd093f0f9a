"""tf1_tied.py in Keras: a Model subclass whose output projection reuses the Embedding's
matrix (tf.matmul(h, embeddings, transpose_b=True)) and adds a bias of its own; sparse
cross-entropy from logits, SGD at 0.5; the train step in tf.function. The TF1 weights from
the saved arrays.

python tf2_tied_fn.py DATA_DIR     (DATA_DIR/tied.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "tied.npz")))


class TiedLM(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.embed = tf.keras.layers.Embedding(6, 4)  # CALL:embed
        self.hidden = tf.keras.layers.Dense(4, activation="tanh")  # CALL:hidden
        self.out_bias = self.add_weight(shape=(6,), initializer="zeros", name="out_bias")  # CALL:bias

    def call(self, x):
        h = self.hidden(tf.reduce_mean(self.embed(x), axis=1))  # CALL:embed CALL:hidden
        return tf.matmul(h, self.embed.embeddings, transpose_b=True) + self.out_bias  # CALL:logits


model = TiedLM()
model(saved["x"][:1])  # CALL:build
model.embed.embeddings.assign(saved["embedding/embeddings"])  # CALL:restore
model.hidden.set_weights([saved["hidden/kernel"], saved["hidden/bias"]])  # CALL:restore
model.out_bias.assign(saved["out/bias"])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))  # CALL:loss CALL:forward
    grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        "embedding/embeddings": model.embed.embeddings.numpy().tolist(),
        "hidden/kernel": model.hidden.kernel.numpy().tolist(),
        "hidden/bias": model.hidden.bias.numpy().tolist(),
        "out/bias": model.out_bias.numpy().tolist()}}))
