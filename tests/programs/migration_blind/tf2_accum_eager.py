"""tf1_accum.py rewritten eagerly: a Keras Sequential MLP with L1L2(l1=1e-3, l2=1e-3) kernel
regularizers, the two micro-batches' gradients summed in a Python list and applied divided by 2
by SGD(momentum=0.9) once per step. The TF1 weights from the saved arrays.

python tf2_accum_eager.py DATA_DIR     (DATA_DIR/accum.npz: prepare_data.py)
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

losses = []
for step in range(3):
    accumulated = [tf.zeros_like(v) for v in model.trainable_variables]
    step_losses = []
    for i in range(MICRO_BATCHES):
        xb, yb = saved["x"][4 * i:4 * i + 4], saved["y"][4 * i:4 * i + 4]
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True)) + tf.add_n(model.losses)  # CALL:loss
        grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
        accumulated = [a + g for a, g in zip(accumulated, grads)]  # CALL:accum
        step_losses.append(float(loss))
    optimizer.apply_gradients(zip([a / MICRO_BATCHES for a in accumulated], model.trainable_variables))  # CALL:update
    print("step %d loss %.6f" % (step, np.mean(step_losses)))
    losses.append(float(np.mean(step_losses)))
if os.environ.get("BLIND_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
