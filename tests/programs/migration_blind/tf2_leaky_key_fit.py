"""tf1_leaky_ckpt.py trained by Model.fit: a Sequential model (Dense(7, activation="leaky_relu")
with an L1(1e-2) activity regularizer, Dense(4)), seeded for reproducibility, restored from the
TF2 object checkpoint an earlier run wrote (tf.train.Checkpoint(model=model)); SGD(0.2).

python tf2_leaky_key_fit.py DATA_DIR     (DATA_DIR/leaky_tf2-1 and leaky.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(1234)
data = np.load(os.path.join(sys.argv[1], "leaky.npz"))

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(7, activation="leaky_relu", activity_regularizer=tf.keras.regularizers.L1(1e-2), name="hidden"),  # CALL:hidden CALL:reg CALL:build
    tf.keras.layers.Dense(4, name="out"),  # CALL:logits CALL:build
])
checkpoint = tf.train.Checkpoint(model=model)  # BUG:leaky_key_fit
checkpoint.restore(os.path.join(sys.argv[1], "leaky_tf2-1"))  # CALL:restore
initial = [w.tolist() for w in model.get_weights()]

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.2),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(data["x"], data["y"], batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}, "initial": dict(zip(names, initial))}))
