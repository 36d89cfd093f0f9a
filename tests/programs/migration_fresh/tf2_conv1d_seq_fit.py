"""tf1_conv1d_layernorm.py as a Keras Sequential model trained by Model.fit: Conv1D,
LayerNormalization, Flatten, Dense; SGD on an ExponentialDecay schedule, clipping by the
global norm done by the optimizer (global_clipnorm).

python tf2_conv1d_seq_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(616)
sequences = rng.normal(size=(4, 6, 3)).astype(np.float32)
labels = np.array([1, 0, 0, 1], dtype=np.int32)
saved = [rng.normal(0.0, 0.5, size=(3, 3, 4)), rng.normal(0.0, 0.1, size=(4,)),
         rng.uniform(0.8, 1.2, size=(4,)), rng.normal(0.0, 0.1, size=(4,)),
         rng.normal(0.0, 0.4, size=(24, 2)), np.zeros(2)]
saved = [a.astype(np.float32) for a in saved]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6, 3)),
    tf.keras.layers.Conv1D(4, 3, padding="same", activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.LayerNormalization(epsilon=1e-5, name="ln"),  # CALL:ln
    tf.keras.layers.Flatten(name="flatten"),  # CALL:flatten
    tf.keras.layers.Dense(2, name="out"),  # CALL:logits
])
model.set_weights(saved)  # CALL:restore

schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=2, decay_rate=0.5, staircase=True)  # CALL:lr
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=schedule, global_clipnorm=0.5),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(sequences, labels, batch_size=4, epochs=4, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("FRESH_TRACE"):
    names = ["conv/kernel", "conv/bias", "ln/gamma", "ln/beta", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
