"""tf1_tagger.py in Keras, trained eagerly: a Model subclass with an Embedding, two
SimpleRNN(3, return_sequences=True) layers (the second with go_backwards=True) concatenated
into a bidirectional layer, a Dense per token; ignore_class=0 on the loss; SGD with momentum
0.9. The TF1 weights from the saved arrays.

python tf2_tagger_reverse_eager.py DATA_DIR     (DATA_DIR/tagger.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "tagger.npz")))
NAMES = ["embedding/embeddings", "fwd/kernel", "fwd/recurrent_kernel", "fwd/bias",
         "bwd/kernel", "bwd/recurrent_kernel", "bwd/bias", "tags/kernel", "tags/bias"]


class Tagger(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.embed = tf.keras.layers.Embedding(7, 3)  # CALL:embed
        self.fwd = tf.keras.layers.SimpleRNN(3, return_sequences=True)  # CALL:fwd
        self.bwd = tf.keras.layers.SimpleRNN(3, return_sequences=True, go_backwards=True)  # CALL:bwd
        self.tags = tf.keras.layers.Dense(4)  # CALL:logits

    def call(self, x):
        e = self.embed(x)  # CALL:embed
        both = tf.concat([self.fwd(e), self.bwd(e)], axis=-1)  # BUG:tagger_reverse_eager
        return self.tags(both)  # CALL:logits


model = Tagger()
model(saved["x"][:1])  # CALL:build
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss CALL:forward
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
