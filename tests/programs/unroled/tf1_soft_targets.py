"""A student trained on a teacher's soft targets (TF1, graph, Session): softmax(teacher / T)
against the student's logits / T, the cross-entropy times T². The soft targets are computed
in the graph from a fed teacher and depend on no variable: their division is a forward op
no role of the step names. With a second temperature for the targets only (`T_SOFT`), the
targets differ — and so does the loss, the first quantity of the step that does.

python tf1_soft_targets.py T_SOFT
"""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
T, T_SOFT = 2.0, float(sys.argv[1])
rng = np.random.RandomState(0)
w = tf.compat.v1.get_variable("w", initializer=rng.normal(size=(4, 3)).astype(np.float32))
b = tf.compat.v1.get_variable("b", initializer=np.zeros(3, np.float32))
x = tf.compat.v1.placeholder(tf.float32, [None, 4])
teacher = tf.compat.v1.placeholder(tf.float32, [None, 3])
logits = tf.matmul(x, w) + b
soft = tf.nn.softmax(teacher / T_SOFT)
xent = tf.nn.softmax_cross_entropy_with_logits(labels=soft, logits=logits / T)
loss = T * T * tf.reduce_mean(xent)
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(loss)

feed = {x: rng.normal(size=(8, 4)).astype(np.float32),
        teacher: 3 * rng.normal(size=(8, 3)).astype(np.float32)}
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train_op], feed)
        print(f"step {step} loss {value:.6f}")
