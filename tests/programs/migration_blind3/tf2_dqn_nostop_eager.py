"""tf1_dqn.py in Keras, trained eagerly: an online Q-network and a target network built alike
(Dense(8, relu), Dense(3)), the target not trainable and given the online weights after every
second update; the mean squared TD error of the taken actions' values against r + 0.9 (1 -
done) max Q(s'); Adam at 0.01 with TF1's epsilon. Both networks start from the saved arrays.

python tf2_dqn_nostop_eager.py DATA_DIR     (DATA_DIR/dqn.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

DISCOUNT, SYNC_EVERY = 0.9, 2
saved = dict(np.load(os.path.join(sys.argv[1], "dqn.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "q/kernel", "q/bias"]


def q_network():
    return tf.keras.Sequential([
        tf.keras.Input(shape=(4,)),
        tf.keras.layers.Dense(8, activation="relu", name="hidden"),  # CALL:hidden
        tf.keras.layers.Dense(3, name="q"),  # CALL:q
    ])


model = q_network()
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
target_model = q_network()
target_model.set_weights(model.get_weights())  # CALL:state
target_model.trainable = False
optimizer = tf.keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-8)  # CALL:opt

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        next_q = model(saved["next_states"], training=True)  # BUG:dqn_nostop_eager
        td_target = saved["rewards"] + DISCOUNT * (1.0 - saved["done"]) * tf.reduce_max(next_q, axis=1)  # CALL:target
        q_taken = tf.gather(model(saved["states"], training=True), saved["actions"], batch_dims=1)  # CALL:q
        loss = tf.reduce_mean(tf.square(td_target - q_taken))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    if (step + 1) % SYNC_EVERY == 0:
        for target_weight, weight in zip(target_model.weights, model.weights):
            target_weight.assign(weight)  # CALL:sync
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses,
                               "weights": {n: w.tolist() for n, w in zip(NAMES, model.get_weights())},
                               "state": {"target/" + n: w.tolist() for n, w in zip(NAMES, target_model.get_weights())}}))
