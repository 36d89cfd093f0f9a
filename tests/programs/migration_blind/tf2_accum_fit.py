"""tf1_accum.py trained by Model.fit: a Keras Sequential MLP with L1L2(l1=1e-3, l2=1e-3)
kernel regularizers; fit in batches of 4 with SGD(momentum=0.9, gradient_accumulation_steps=2),
which averages the gradients of 2 batches and updates once. The TF1 weights from the saved
arrays.

python tf2_accum_fit.py DATA_DIR     (DATA_DIR/accum.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "accum.npz")))

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="relu", kernel_regularizer=tf.keras.regularizers.L1L2(l1=1e-3, l2=1e-3), name="hidden"),  # CALL:hidden CALL:reg
    tf.keras.layers.Dense(3, kernel_regularizer=tf.keras.regularizers.L1L2(l1=1e-3, l2=1e-3), name="out"),  # CALL:logits CALL:reg
])
model.set_weights([saved["hidden/kernel"], saved["hidden/bias"], saved["out/kernel"], saved["out/bias"]])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, gradient_accumulation_steps=2),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
