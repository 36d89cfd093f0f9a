"""Q-learning on a batch of six transitions from a replay buffer: an online Q-network (4 -> 8
relu -> 3 actions) regressed by the mean squared TD error onto r + 0.9 (1 - done) max_a Q'(s',
a), Q' a target network (the same layers in variables of its own, not trainable) given the
online weights after every second update; Adam at 0.01 (TF1, Session). Both networks start
from the arrays an earlier run saved.

python tf1_dqn.py DATA_DIR     (DATA_DIR/dqn.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

DISCOUNT, SYNC_EVERY = 0.9, 2
saved = dict(np.load(os.path.join(sys.argv[1], "dqn.npz")))
names = ["hidden/kernel", "hidden/bias", "q/kernel", "q/bias"]
online = {n: tf.compat.v1.get_variable("online/" + n, initializer=saved[n]) for n in names}  # AT:var
target = {n: tf.compat.v1.get_variable("target/" + n, initializer=saved[n], trainable=False) for n in names}  # AT:state


def q_network(states, W):
    hidden = tf.nn.relu(tf.matmul(states, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
    return tf.matmul(hidden, W["q/kernel"]) + W["q/bias"]  # AT:q


states = tf.compat.v1.placeholder(tf.float32, [None, 4])
actions = tf.compat.v1.placeholder(tf.int32, [None])
rewards = tf.compat.v1.placeholder(tf.float32, [None])
next_states = tf.compat.v1.placeholder(tf.float32, [None, 4])
done = tf.compat.v1.placeholder(tf.float32, [None])

q_taken = tf.reduce_sum(q_network(states, online) * tf.one_hot(actions, 3), axis=1)  # AT:q
next_q = q_network(next_states, target)  # AT:target
td_target = rewards + DISCOUNT * (1.0 - done) * tf.reduce_max(next_q, axis=1)  # AT:target
loss = tf.reduce_mean(tf.square(td_target - q_taken))  # AT:loss

optimizer = tf.compat.v1.train.AdamOptimizer(0.01)  # AT:opt
train_op = optimizer.minimize(loss, var_list=[online[n] for n in names])  # AT:update AT:grads
sync_target = tf.group(*[target[n].assign(online[n]) for n in names])  # AT:sync

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    feed = {states: saved["states"], actions: saved["actions"], rewards: saved["rewards"],
            next_states: saved["next_states"], done: saved["done"]}
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], feed)
        if (step + 1) % SYNC_EVERY == 0:
            sess.run(sync_target)
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND3_TRACE"):
        final, synced = sess.run(online), sess.run(target)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()},
                                   "state": {"target/" + n: a.tolist() for n, a in synced.items()}}))
