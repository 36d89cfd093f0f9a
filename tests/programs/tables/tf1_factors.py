"""Matrix factorization in TF1 (graph, Session): a user table and an item table, each looked
up once per distinct id (tf.unique, then embedding_lookup of the distinct ids, then a gather
back to the examples: a batch that rates an item ten times reads its row once), score =
<user row, item row> + b, mean squared error, GradientDescentOptimizer(0.5) (a sparse update
of the rows looked up). Prints each step's loss and the final weights as JSON.

python tf1_factors.py
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LR, STEPS, data

tf.compat.v1.disable_eager_execution()
users_value, items_value, ratings_value, init = data()
W = {n: tf.compat.v1.get_variable(n, initializer=a) for n, a in init.items()}  # LINE:var
users = tf.compat.v1.placeholder(tf.int32, [None])
items = tf.compat.v1.placeholder(tf.int32, [None])
ratings = tf.compat.v1.placeholder(tf.float32, [None])


def lookup(table, ids):
    distinct, where = tf.unique(ids)
    return tf.gather(tf.nn.embedding_lookup(table, distinct), where)


score = tf.reduce_sum(lookup(W["users"], users) * lookup(W["items"], items), 1) + W["bias"]
loss = tf.reduce_mean(tf.square(score - ratings))
train_op = tf.compat.v1.train.GradientDescentOptimizer(LR).minimize(loss)  # LINE:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    feed = {users: users_value, items: items_value, ratings: ratings_value}
    for step in range(STEPS):
        value, _ = sess.run([loss, train_op], feed)
        print("step", step, "loss", repr(float(value)))
    print("final", json.dumps({n: a.tolist() for n, a in sess.run(W).items()}))
