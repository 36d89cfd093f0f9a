"""tf1_ema.py as a Keras Sequential model trained by Model.fit: Dense(6, relu), Dense(1,
activation="exponential"), loss="poisson", SGD with momentum 0.9 at 0.05; the moving average
of the weights kept by a callback after each batch, with TF1's decay min(0.9, (1 + n)/(10 + n))
(n the optimizer's iterations). The TF1 weights from the saved arrays.

python tf2_ema_fit.py DATA_DIR     (DATA_DIR/ema.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "ema.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "rate/kernel", "rate/bias"]


class WeightAverage(tf.keras.callbacks.Callback):
    """Moving averages of the weights, as tf.train.ExponentialMovingAverage(0.9,
    num_updates=global_step) kept them in the TF1 program."""

    def on_train_begin(self, logs=None):
        self.averages = [tf.Variable(w, trainable=False) for w in self.model.get_weights()]  # CALL:ema

    def on_train_batch_end(self, batch, logs=None):
        n = float(self.model.optimizer.iterations.numpy())
        decay = min(0.9, (1.0 + n) / (10.0 + n))
        for average, weight in zip(self.averages, self.model.trainable_variables):
            average.assign_sub((average - weight.value) * (1.0 - decay))  # CALL:state


model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="relu", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, activation="exponential", name="rate"),  # CALL:rate
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9), loss="poisson")  # CALL:opt CALL:loss
averages = WeightAverage()
history = model.fit(saved["x"], saved["y"], batch_size=8, epochs=3, shuffle=False, verbose=0, callbacks=[averages])  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"],
                               "weights": {n: w.tolist() for n, w in zip(NAMES, model.get_weights())},
                               "state": {"ema/" + n: a.numpy().tolist() for n, a in zip(NAMES, averages.averages)}}))
