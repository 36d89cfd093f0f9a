"""tf1_lse.py as a Keras Sequential model trained by Model.fit: TimeDistributed(Dense(5,
"tanh")), GlobalAveragePooling1D, Dense(3), SparseCategoricalCrossentropy(from_logits=True);
SGD(0.5), batch_size=3 without shuffling (two minibatches an epoch, 2 epochs: 4 steps), two
steps per call of the compiled train function (steps_per_execution=2). The TF1 weights from
the saved arrays. fit's history holds each epoch's mean loss; with BLIND9_TRACE set (never
when recorded) a callback also computes the loss of each call's first step before it runs,
so that every step's loss can be printed.

python tf2_lse_spe_fit.py DATA_DIR     (DATA_DIR/lse.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "lse.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3, 4)),
    tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(5, activation="tanh"), name="hid"),  # CALL:hidden
    tf.keras.layers.GlobalAveragePooling1D(name="pool"),  # CALL:pooled
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:lossfn


class FirstLoss(tf.keras.callbacks.Callback):
    """The loss of the step a call of the train function starts with (trace only)."""

    def __init__(self):
        super().__init__()
        self.values = []

    def on_train_batch_begin(self, batch, logs=None):
        part = slice(3 * batch, 3 * batch + 3)
        self.values.append(float(loss_fn(saved["labels"][part], self.model(saved["x"][part]))))


trace = [FirstLoss()] if os.environ.get("BLIND9_TRACE") else []
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.5), loss=loss_fn, steps_per_execution=2)  # CALL:loss CALL:opt
history = model.fit(saved["x"], saved["labels"], batch_size=3, epochs=2, shuffle=False, verbose=0, callbacks=trace)  # CALL:fit
for epoch, value in enumerate(history.history["loss"]):
    print("epoch %d loss %.6f" % (epoch, value))
if os.environ.get("BLIND9_TRACE"):
    first, means = trace[0].values, history.history["loss"]  # an epoch: one call of two steps
    losses = [v for f, m in zip(first, means) for v in (f, 2 * m - f)]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
