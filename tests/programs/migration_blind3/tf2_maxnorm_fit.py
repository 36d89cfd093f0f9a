"""tf1_maxnorm.py as a Keras Sequential model trained by Model.fit: Dense(6, relu,
kernel_constraint=MaxNorm(1.0)), Dense(3) logits, BinaryFocalCrossentropy(
apply_class_balancing=True, alpha=0.25, gamma=2, from_logits=True); SGD on
CosineDecayRestarts(0.5, 2, alpha=0.1). The TF1 weights from the saved arrays.

python tf2_maxnorm_fit.py DATA_DIR     (DATA_DIR/maxnorm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "maxnorm.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(6, activation="relu", kernel_constraint=tf.keras.constraints.MaxNorm(1.0), name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="logits"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

schedule = tf.keras.optimizers.schedules.CosineDecayRestarts(0.5, first_decay_steps=2, alpha=0.1)  # CALL:lr
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=schedule),  # CALL:opt
              loss=tf.keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, gamma=2.0, from_logits=True))  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
