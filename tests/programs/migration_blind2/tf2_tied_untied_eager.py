"""tf1_tied.py in Keras, trained eagerly: a Model subclass with an Embedding, a tanh Dense
and a Dense output layer given the embedding's transpose and TF1's output bias; sparse
cross-entropy from logits, SGD at 0.5. The TF1 weights from the saved arrays.

python tf2_tied_untied_eager.py DATA_DIR     (DATA_DIR/tied.npz: prepare_data.py)
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
        self.out = tf.keras.layers.Dense(6)  # CALL:logits

    def call(self, x):
        h = self.hidden(tf.reduce_mean(self.embed(x), axis=1))  # CALL:embed CALL:hidden
        return self.out(h)  # CALL:logits


model = TiedLM()
model(saved["x"][:1])  # CALL:build
model.embed.embeddings.assign(saved["embedding/embeddings"])  # CALL:restore
model.hidden.set_weights([saved["hidden/kernel"], saved["hidden/bias"]])  # CALL:restore
model.out.set_weights([saved["embedding/embeddings"].T, saved["out/bias"]])  # BUG:tied_untied_eager

optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss CALL:forward
    grads = tape.gradient(value, model.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        "embedding/embeddings": model.embed.embeddings.numpy().tolist(),
        "hidden/kernel": model.hidden.kernel.numpy().tolist(),
        "hidden/bias": model.hidden.bias.numpy().tolist(),
        "out/bias": model.out.bias.numpy().tolist(),
        "out/kernel": model.out.kernel.numpy().tolist()}}))
