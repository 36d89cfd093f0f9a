"""tf1_conv1d.py rewritten eagerly: Conv1D (dilation_rate=2, relu), GlobalAveragePooling1D and
Dense(3) in a Sequential model called from a plain loop under GradientTape; each example
weighted by its class through the loss's sample_weight; SGD on a CosineDecay with warmup. The
TF1 weights from the saved arrays.

python tf2_conv1d_causal_eager.py DATA_DIR     (DATA_DIR/conv1d.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "conv1d.npz")))
class_weights = tf.constant([1.0, 2.0, 0.5])

model = tf.keras.Sequential([
    tf.keras.Input(shape=(8, 2)),
    tf.keras.layers.Conv1D(4, 3, padding="same", dilation_rate=2, activation="relu", name="conv"),  # BUG:conv1d_causal_eager
    tf.keras.layers.GlobalAveragePooling1D(name="pool"),  # CALL:pool
    tf.keras.layers.Dense(3, name="fc"),  # CALL:logits
])
model.set_weights([saved["conv/kernel"], saved["conv/bias"], saved["fc/kernel"], saved["fc/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.CosineDecay(0.05, decay_steps=4, alpha=0.1, warmup_target=0.2, warmup_steps=2)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

x, y = saved["x"], saved["y"]
losses = []
for step in range(4):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # CALL:forward
        loss = loss_fn(y, logits, sample_weight=tf.gather(class_weights, y))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step %d loss %.6f" % (step, float(loss)))
    losses.append(float(loss))
if os.environ.get("BLIND_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
