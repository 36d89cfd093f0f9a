"""tf1_dqn.py in Keras: an online Q-network and a target network built alike (Dense(8, relu),
Dense(3)), the target not trainable and given the online weights after every second update;
the mean squared TD error of the taken actions' values (tf.gather) against r + 0.9 (1 - done)
max Q'(s'); Adam at 0.01 with TF1's epsilon; the train step in tf.function. Both networks
start from the saved arrays.

python tf2_dqn_fn.py DATA_DIR     (DATA_DIR/dqn.npz: prepare_data.py)
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


@tf.function
def train_step(states, actions, rewards, next_states, done):
    next_q = target_model(next_states)  # CALL:target
    td_target = rewards + DISCOUNT * (1.0 - done) * tf.reduce_max(next_q, axis=1)  # CALL:target
    with tf.GradientTape() as tape:
        q_taken = tf.gather(model(states, training=True), actions, batch_dims=1)  # CALL:q
        loss = tf.reduce_mean(tf.square(td_target - q_taken))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


@tf.function
def sync_target():
    for target_weight, weight in zip(target_model.weights, model.weights):
        target_weight.assign(weight)  # CALL:sync


losses = []
for step in range(3):
    value = train_step(saved["states"], saved["actions"], saved["rewards"], saved["next_states"], saved["done"])
    if (step + 1) % SYNC_EVERY == 0:
        sync_target()
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses,
                               "weights": {n: w.tolist() for n, w in zip(NAMES, model.get_weights())},
                               "state": {"target/" + n: w.tolist() for n, w in zip(NAMES, target_model.get_weights())}}))
