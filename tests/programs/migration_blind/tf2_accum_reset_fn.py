"""tf1_accum.py with tf.function steps: a Keras Sequential MLP with L1L2(l1=1e-3, l2=1e-3)
kernel regularizers; the micro-batches' gradients added into non-trainable tf.Variables by one
tf.function, applied divided by 2 by SGD(momentum=0.9) in another. The TF1 weights from the
saved arrays.

python tf2_accum_reset_fn.py DATA_DIR     (DATA_DIR/accum.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "accum.npz")))
MICRO_BATCHES = 2

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="relu", kernel_regularizer=tf.keras.regularizers.L1L2(l1=1e-3, l2=1e-3), name="hidden"),  # CALL:hidden CALL:reg
    tf.keras.layers.Dense(3, kernel_regularizer=tf.keras.regularizers.L1L2(l1=1e-3, l2=1e-3), name="out"),  # CALL:logits CALL:reg
])
model.set_weights([saved["hidden/kernel"], saved["hidden/bias"], saved["out/kernel"], saved["out/bias"]])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
accumulators = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]  # CALL:accum


@tf.function
def accumulate(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True)) + tf.add_n(model.losses)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
    for a, g in zip(accumulators, grads):
        a.assign_add(g)  # CALL:accum
    return loss


@tf.function
def apply_accumulated():
    optimizer.apply_gradients(zip([a / MICRO_BATCHES for a in accumulators], model.trainable_variables))  # BUG:accum_reset_fn


losses = []
for step in range(3):
    step_losses = []
    for i in range(MICRO_BATCHES):
        step_losses.append(float(accumulate(saved["x"][4 * i:4 * i + 4], saved["y"][4 * i:4 * i + 4])))
    apply_accumulated()
    print("step %d loss %.6f" % (step, np.mean(step_losses)))
    losses.append(float(np.mean(step_losses)))
if os.environ.get("BLIND_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
