"""conv 3x3 (no bias) -> batch norm (training, moving averages in UPDATE_OPS) -> relu ->
reshape -> dense, momentum SGD; the weights restored from a TF1 checkpoint, read with
tf.train.load_checkpoint and assigned after the initializer (Saver.restore and
init_from_checkpoint cannot run under tfdbg2's instrumentation in TF 2.21: "Variable to save
is not a Variable").

python tf1_cnn_bn.py DATA_DIR     (DATA_DIR/bn.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

DECAY = 0.9
EPSILON = 1e-5
rng = np.random.RandomState(99)
images = rng.normal(size=(6, 5, 5, 1)).astype(np.float32)
labels = np.array([0, 1, 2, 2, 1, 0], dtype=np.int32)

graph = tf.Graph()
with graph.as_default():
    x = tf.compat.v1.placeholder(tf.float32, [None, 5, 5, 1], name="images")
    y = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
    with tf.compat.v1.variable_scope("conv"):
        kernel = tf.compat.v1.get_variable("kernel", [3, 3, 1, 3])  # AT:var
    with tf.compat.v1.variable_scope("bn"):
        gamma = tf.compat.v1.get_variable("gamma", [3], initializer=tf.compat.v1.ones_initializer())  # AT:var
        beta = tf.compat.v1.get_variable("beta", [3], initializer=tf.compat.v1.zeros_initializer())  # AT:var
        moving_mean = tf.compat.v1.get_variable("moving_mean", [3], initializer=tf.compat.v1.zeros_initializer(), trainable=False)  # AT:var
        moving_var = tf.compat.v1.get_variable("moving_variance", [3], initializer=tf.compat.v1.ones_initializer(), trainable=False)  # AT:var
    with tf.compat.v1.variable_scope("dense"):
        w = tf.compat.v1.get_variable("kernel", [27, 3])  # AT:var
        b = tf.compat.v1.get_variable("bias", [3], initializer=tf.compat.v1.zeros_initializer())  # AT:var
    reader = tf.train.load_checkpoint(os.path.join(sys.argv[1], "bn.ckpt"))
    restore = [tf.compat.v1.assign(v, reader.get_tensor(v.op.name)) for v in  # AT:restore
               [kernel, gamma, beta, moving_mean, moving_var, w, b]]

    conv = tf.nn.conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")  # AT:conv
    mean, variance = tf.nn.moments(conv, axes=[0, 1, 2])  # AT:moments
    normed = tf.nn.batch_normalization(conv, mean, variance, beta, gamma, EPSILON)  # AT:bn
    update_mean = tf.compat.v1.assign_sub(moving_mean, (moving_mean - mean) * (1 - DECAY))  # AT:state
    update_var = tf.compat.v1.assign_sub(moving_var, (moving_var - variance) * (1 - DECAY))  # AT:state
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update_mean)
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update_var)
    act = tf.nn.relu(normed)  # AT:relu
    flat = tf.reshape(act, [-1, 27])  # AT:flatten
    logits = tf.matmul(flat, w) + b  # AT:logits
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

    optimizer = tf.compat.v1.train.MomentumOptimizer(learning_rate=0.05, momentum=0.9)  # AT:opt
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss)  # AT:update
    init = tf.compat.v1.global_variables_initializer()

with tf.compat.v1.Session(graph=graph) as sess:
    sess.run(init)
    sess.run(restore)  # AT:restore
    history = []
    for step in range(3):
        loss_value, _ = sess.run([loss, train_op], feed_dict={x: images, y: labels})
        print("step", step, "loss", loss_value)
        history.append(float(loss_value))
    if os.environ.get("HELDOUT_TRACE"):
        names = ["conv/kernel", "bn/gamma", "bn/beta", "dense/kernel", "dense/bias"]
        weights = sess.run([kernel, gamma, beta, w, b])
        state = sess.run([moving_mean, moving_var])
        print("trace", json.dumps({
            "loss": history,
            "weights": {n: v.tolist() for n, v in zip(names, weights)},
            "state": {"bn/moving_mean": state[0].tolist(), "bn/moving_variance": state[1].tolist()}}))
