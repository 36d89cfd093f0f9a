"""tf1_ema.py in Keras, trained eagerly: Dense(6, relu), Dense(1, activation="exponential")
(the rate) under the Poisson loss; SGD with momentum 0.9 at 0.05; tf.train.ExponentialMovingAverage
of the weights with decay 0.9 and num_updates a step counter, applied after each update. The
TF1 weights from the saved arrays.

python tf2_ema_eager.py DATA_DIR     (DATA_DIR/ema.npz: prepare_data.py)
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
# tf.train.ExponentialMovingAverage wants tf.Variables: Keras 3 keeps one in each weight's .value
weights = [w.value for w in model.trainable_variables]
step_counter = tf.Variable(0, dtype=tf.int64, trainable=False)
ema = tf.train.ExponentialMovingAverage(decay=0.9, num_updates=step_counter)  # CALL:ema
ema.apply(weights)  # the averages start from the restored weights, as TF1's initializer did  # CALL:state

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    step_counter.assign_add(1)
    ema.apply(weights)  # CALL:state
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses,
                               "weights": {n: w.tolist() for n, w in zip(NAMES, model.get_weights())},
                               "state": {"ema/" + n: ema.average(w).numpy().tolist() for n, w in zip(NAMES, weights)}}))
