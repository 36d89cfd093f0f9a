"""tf1_conv1d.py as a Keras Sequential model trained by Model.fit: Conv1D(padding="causal",
dilation_rate=2, relu), GlobalAveragePooling1D, Dense(3); the per-class weights given to fit
as class_weight; SGD on a CosineDecay with its linear warmup (0.05 -> 0.2 over 2 steps, then
decay over 4 steps to alpha 0.1). The TF1 weights from the saved arrays.

python tf2_conv1d_fit.py DATA_DIR     (DATA_DIR/conv1d.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "conv1d.npz")))

model = tf.keras.Sequential([
    tf.keras.Input(shape=(8, 2)),
    tf.keras.layers.Conv1D(4, 3, padding="causal", dilation_rate=2, activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.GlobalAveragePooling1D(name="pool"),  # CALL:pool
    tf.keras.layers.Dense(3, name="fc"),  # CALL:logits
])
model.set_weights([saved["conv/kernel"], saved["conv/bias"], saved["fc/kernel"], saved["fc/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.CosineDecay(0.05, decay_steps=4, alpha=0.1, warmup_target=0.2, warmup_steps=2)  # CALL:lr
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=schedule),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=6, epochs=4, shuffle=False, verbose=0,  # CALL:fit
                    class_weight={0: 1.0, 1: 2.0, 2: 0.5})  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
