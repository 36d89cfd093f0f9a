"""tf1_ema.py in Keras: Dense(6, relu), Dense(1, activation="exponential") under the Poisson
loss; SGD with momentum 0.9 at 0.05; the train step in tf.function, a
tf.train.ExponentialMovingAverage of the weights (decay 0.9) applied after each update. The
TF1 weights from the saved arrays.

python tf2_ema_num_updates_fn.py DATA_DIR     (DATA_DIR/ema.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "ema.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "rate/kernel", "rate/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="relu", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, activation="exponential", name="rate"),  # CALL:rate
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)  # CALL:opt
loss_fn = tf.keras.losses.Poisson()  # CALL:loss
weights = [w.value for w in model.trainable_variables]  # the tf.Variables under Keras 3's weights
ema = tf.train.ExponentialMovingAverage(decay=0.9)  # BUG:ema_num_updates_fn
ema.apply(weights)  # the averages start from the restored weights  # CALL:state


@tf.function
def train_step(x, counts):
    with tf.GradientTape() as tape:
        loss = loss_fn(counts, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    ema.apply(weights)  # CALL:state
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses,
                               "weights": {n: w.tolist() for n, w in zip(NAMES, model.get_weights())},
                               "state": {"ema/" + n: ema.average(w).numpy().tolist() for n, w in zip(NAMES, weights)}}))
