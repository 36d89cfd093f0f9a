"""tf1_tagger.py in Keras: Embedding, Bidirectional(SimpleRNN(3, return_sequences=True)), a
Dense per token; SparseCategoricalCrossentropy(from_logits=True, ignore_class=0) (the pad
tag left out of the mean), SGD with momentum 0.9; the train step in tf.function. The TF1
weights from the saved arrays.

python tf2_tagger_fn.py DATA_DIR     (DATA_DIR/tagger.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "tagger.npz")))
NAMES = ["embedding/embeddings", "fwd/kernel", "fwd/recurrent_kernel", "fwd/bias",
         "bwd/kernel", "bwd/recurrent_kernel", "bwd/bias", "tags/kernel", "tags/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,), dtype="int32"),
    tf.keras.layers.Embedding(7, 3, name="embedding"),  # CALL:embed
    tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(3, return_sequences=True), name="birnn"),  # CALL:rnn
    tf.keras.layers.Dense(4, name="tags"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
