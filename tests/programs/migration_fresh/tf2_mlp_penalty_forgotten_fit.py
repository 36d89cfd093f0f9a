"""tf1_mlp_smooth.py as a Keras Sequential model trained by Model.fit with sample weights and
label smoothing; Dropout(0.0) for this debugging run (TF1 fed keep_prob 1.0).

python tf2_mlp_penalty_forgotten_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(818)
inputs = rng.normal(size=(6, 6)).astype(np.float32)
onehot = np.eye(4, dtype=np.float32)[[3, 0, 1, 2, 3, 1]]
example_weights = np.array([1.0, 0.5, 2.0, 1.0, 1.5, 0.5], dtype=np.float32)
saved = [rng.normal(0.0, 0.4, size=(6, 10)), rng.normal(0.0, 0.1, size=(10,)),
         rng.normal(0.0, 0.4, size=(10, 4)), rng.normal(0.0, 0.1, size=(4,))]
saved = [a.astype(np.float32) for a in saved]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6,)),
    tf.keras.layers.Dense(10, activation="relu", name="hidden"),  # CALL:hidden BUG:mlp_penalty_forgotten_fit
    tf.keras.layers.Dropout(0.0, name="dropout"),  # CALL:dropout
    tf.keras.layers.Dense(4, name="out"),  # CALL:logits
])
model.set_weights(saved)  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9),  # CALL:opt
              loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1))  # CALL:loss
history = model.fit(inputs, onehot, sample_weight=example_weights, batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.7f" % (step, value))
if os.environ.get("FRESH_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
