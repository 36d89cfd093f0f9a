"""tf1_lstm.py as a Keras Sequential model trained by Model.fit; the penalty on the recurrent
kernel as the layer's recurrent_regularizer; SGD with momentum 0.9.

python tf2_lstm_nesterov_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

UNITS = 3
rng = np.random.RandomState(1111)
sequences = rng.normal(size=(4, 4, 2)).astype(np.float32)
labels = np.array([1, 0, 1, 0], dtype=np.int32)
init = [rng.uniform(-0.6, 0.6, size=(2, 4 * UNITS)).astype(np.float32),
        rng.uniform(-0.6, 0.6, size=(UNITS, 4 * UNITS)).astype(np.float32),
        rng.uniform(-0.2, 0.2, size=(4 * UNITS,)).astype(np.float32),
        rng.normal(0.0, 0.6, size=(UNITS, 2)).astype(np.float32),
        np.zeros(2, np.float32)]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4, 2)),
    tf.keras.layers.LSTM(UNITS, recurrent_regularizer=tf.keras.regularizers.l2(5e-4), name="lstm"),  # CALL:lstm
    tf.keras.layers.Dense(2, name="out"),  # CALL:logits
])
model.set_weights(init)  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9),  # BUG:lstm_nesterov_fit
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(sequences, labels, batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("WILD_TRACE"):
    names = ["lstm/kernel", "lstm/recurrent_kernel", "lstm/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
