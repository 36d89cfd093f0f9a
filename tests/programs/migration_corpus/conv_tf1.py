"""TF1 side of the conv pairs: conv 3x3 → batch norm → relu → reshape → dense, Session.

Usage: python conv_tf1.py LOGDIR --variant V     (LOGDIR '-': print the trace, no dump)

V  convbn  batch norm in training: batch moments (tf.nn.moments), epsilon 1e-5, moving
           statistics updated as assign_moving_average did (decay 0.9) in UPDATE_OPS, which the
           train op depends on (what tf.layers.batch_normalization did, unfused)
   bninf   batch norm in inference (a frozen, restored normalization: the moving statistics
           normalize and are never updated; gamma and beta still train)

Plain gradient descent (0.1); weights restored from a checkpoint an earlier run saved
(read with tf.train.load_checkpoint, each variable set with `Variable.load` after the
initializer: `Saver.restore` fails when tfdbg2 instruments the graph — "Variable to save is
not a Variable" — in TF 2.21). Marked lines: `# AT:<name>`.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorflow as tf
from corpus_common import STEPS, conv_data, emit, parse, start, stop

logdir, variant = parse(("convbn", "bninf"))
data = conv_data()
v1 = tf.compat.v1
NAMES = ["conv/kernel", "conv/bias", "bn/gamma", "bn/beta", "logits/kernel", "logits/bias"]
STATE = ["bn/moving_mean", "bn/moving_variance"]


def variables():
    with v1.variable_scope("conv"):
        k = v1.get_variable("kernel", (3, 3, 2, 4))  # AT:var
        b = v1.get_variable("bias", (4,))  # AT:var
    with v1.variable_scope("bn"):
        gamma = v1.get_variable("gamma", (4,), initializer=v1.ones_initializer())  # AT:var
        beta = v1.get_variable("beta", (4,), initializer=v1.zeros_initializer())  # AT:var
        mean = v1.get_variable("moving_mean", (4,), initializer=v1.zeros_initializer(), trainable=False)  # AT:state_var  # noqa: E501
        var = v1.get_variable("moving_variance", (4,), initializer=v1.ones_initializer(), trainable=False)  # AT:state_var  # noqa: E501
    with v1.variable_scope("logits"):
        k2 = v1.get_variable("kernel", (64, 3))  # AT:var
        b2 = v1.get_variable("bias", (3,))  # AT:var
    return [k, b, gamma, beta, k2, b2], [mean, var]


# the checkpoint of an earlier run (written before this run's recording starts)
ckpt_dir = tempfile.mkdtemp()
with tf.Graph().as_default() as g0, v1.Session(graph=g0) as s0:
    tv, sv = variables()
    s0.run([v.assign(data[n]) for v, n in zip(tv + sv, NAMES + STATE, strict=True)])
    ckpt = v1.train.Saver().save(s0, os.path.join(ckpt_dir, "model.ckpt"))

start(logdir)
graph = tf.Graph()
with graph.as_default():
    x = v1.placeholder(tf.float32, (None, 6, 6, 2))
    y = v1.placeholder(tf.int32, (None,))
    tvars, (moving_mean, moving_var) = variables()
    k, b, gamma, beta, k2, b2 = tvars
    conv = tf.nn.bias_add(tf.nn.conv2d(x, k, strides=1, padding="VALID"), b)  # AT:conv
    if variant == "convbn":
        mean, var = tf.nn.moments(conv, axes=[0, 1, 2])  # AT:moments
        bn = tf.nn.batch_normalization(conv, mean, var, beta, gamma, 1e-5)  # AT:bn
        v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, v1.assign_sub(moving_mean, (moving_mean - mean) * (1 - 0.9)))  # AT:state  # noqa: E501
        v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, v1.assign_sub(moving_var, (moving_var - var) * (1 - 0.9)))  # AT:state  # noqa: E501
    else:
        bn = tf.nn.batch_normalization(conv, moving_mean, moving_var, beta, gamma, 1e-5)  # AT:bn
    relu = tf.nn.relu(bn)  # AT:relu
    flat = tf.reshape(relu, [-1, 4 * 4 * 4])  # AT:flatten
    logits = tf.nn.bias_add(tf.matmul(flat, k2), b2)  # AT:logits
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss  # noqa: E501
    opt = v1.train.GradientDescentOptimizer(0.1)  # AT:opt
    grads_and_vars = opt.compute_gradients(loss, var_list=tvars)  # AT:grads
    with tf.control_dependencies(v1.get_collection(v1.GraphKeys.UPDATE_OPS)):
        train_op = opt.apply_gradients(grads_and_vars)  # AT:update
    fetch = {"loss": loss, "total_loss": loss,
             "layer_output": {"conv": conv, "bn": bn, "relu": relu, "flatten": flat,
                              "logits": logits},
             "gradient": dict(zip(NAMES, (g for g, _ in grads_and_vars), strict=True))}

with v1.Session(graph=graph) as sess:
    sess.run(v1.global_variables_initializer())
    reader = tf.train.load_checkpoint(ckpt)
    for v in [*tvars, moving_mean, moving_var]:
        v.load(reader.get_tensor(v.op.name), sess)  # AT:restore
    trace = []
    for _step in range(STEPS):
        before = dict(zip(NAMES, sess.run(tvars), strict=True)) if logdir == "-" else None
        logs, _ = sess.run([fetch, train_op], {x: data["x"], y: data["y"]})
        if logdir == "-":
            logs.update(variable=before, learning_rate=0.1,
                        applied_gradient=logs["gradient"],
                        variable_after=dict(zip(NAMES, sess.run(tvars), strict=True)),
                        state=dict(zip(STATE, sess.run([moving_mean, moving_var]), strict=True)))
            trace.append(logs)
stop(logdir)
if logdir == "-":
    emit(trace)
