"""tf1_lstm.py as a Keras Sequential model (LSTM + Dense) trained by a tf.function step; the
penalty moves to the layer (recurrent_regularizer: l2(5e-4) is 1e-3 * l2_loss), added to the
loss from model.losses; the TF1 weights copied in with model.set_weights.

python tf2_lstm_fn.py [DATA_DIR]     (DATA_DIR unused)
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

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4, 2)),
    tf.keras.layers.LSTM(UNITS, recurrent_regularizer=tf.keras.regularizers.l2(5e-4), name="lstm"),  # CALL:lstm
    tf.keras.layers.Dense(2, name="out"),  # CALL:logits
])
model.set_weights(init)  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # CALL:forward
        loss = loss_fn(y, logits) + tf.add_n(model.losses)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(sequences, labels)
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["lstm/kernel", "lstm/recurrent_kernel", "lstm/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.tolist() for n, v in zip(names, model.get_weights())}}))
