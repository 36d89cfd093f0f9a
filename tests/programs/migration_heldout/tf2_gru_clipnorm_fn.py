"""tf1_gru_adam.py in Keras: GRU(reset_after=False) is TF1's GRUCell formulation;
train step in tf.function; the clipping moved into the optimizer.

python tf2_gru_clipnorm_fn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

UNITS = 4
rs = np.random.RandomState(8)
sequences = rs.normal(size=(4, 5, 3)).astype(np.float32)
labels = np.array([1, 0, 0, 1], dtype=np.int32)
params = {
    "gru/kernel": rs.uniform(-0.7, 0.7, size=(3, 3 * UNITS)).astype(np.float32),
    "gru/recurrent_kernel": rs.uniform(-0.7, 0.7, size=(UNITS, 3 * UNITS)).astype(np.float32),
    "gru/bias": rs.uniform(-0.2, 0.2, size=(3 * UNITS,)).astype(np.float32),
    "out/kernel": rs.uniform(-1.0, 1.0, size=(UNITS, 2)).astype(np.float32),
    "out/bias": np.zeros(2, np.float32),
}

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5, 3)),
    tf.keras.layers.GRU(UNITS, reset_after=False),  # CALL:gru
    tf.keras.layers.Dense(2),  # CALL:logits
])
for variable, value in zip(model.trainable_variables, params.values()):
    variable.assign(value)  # CALL:restore

optimizer = tf.keras.optimizers.Adam(learning_rate=0.02, epsilon=1e-8, clipnorm=0.25)  # BUG:gru_clipnorm_fn
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
for step in range(3):
    value = train_step(sequences, labels)
    print(f"step {step} loss {float(value):.6f}")
    losses.append(float(value))
if os.environ.get("HELDOUT_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        k: w.numpy().tolist() for k, w in zip(params, model.trainable_variables)}}))
