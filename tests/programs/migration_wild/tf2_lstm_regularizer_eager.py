"""tf1_lstm.py rewritten eagerly: a Keras LSTM layer and a Dense head called from a plain
loop under GradientTape, the TF1 penalty given to the LSTM as a regularizer, the weights
copied in with set_weights after one call builds the layers.

python tf2_lstm_regularizer_eager.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

UNITS = 3
rng = np.random.RandomState(1111)
sequences = rng.normal(size=(4, 4, 2)).astype(np.float32)
labels = np.array([1, 0, 1, 0], dtype=np.int32)
init = [rng.uniform(-0.6, 0.6, size=(2, 4 * UNITS)).astype(np.float32),
        rng.uniform(-0.6, 0.6, size=(UNITS, 4 * UNITS)).astype(np.float32),
        rng.uniform(-0.2, 0.2, size=(4 * UNITS,)).astype(np.float32),
        rng.normal(0.0, 0.6, size=(UNITS, 2)).astype(np.float32),
        np.zeros(2, np.float32)]

lstm = tf.keras.layers.LSTM(UNITS, kernel_regularizer=tf.keras.regularizers.l2(5e-4))  # BUG:lstm_regularizer_eager
head = tf.keras.layers.Dense(2)
head(lstm(sequences[:1]))  # CALL:build
lstm.set_weights(init[:3])  # CALL:restore
head.set_weights(init[3:])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
variables = lstm.trainable_variables + head.trainable_variables

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = head(lstm(sequences))  # CALL:forward
        loss = loss_fn(labels, logits) + tf.add_n(lstm.losses)  # CALL:loss
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["lstm/kernel", "lstm/recurrent_kernel", "lstm/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, variables)}}))
