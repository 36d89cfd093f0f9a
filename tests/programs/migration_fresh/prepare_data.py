"""Writes the files some of the fresh programs restore their weights from, as a user would
have them from an earlier run (run once, not recorded):

  DATA_DIR/depthwise.ckpt.*   a TF1 (name-based) checkpoint of tf1_depthwise_bn.py's model:
                              dw/depthwise_kernel, bn/{gamma,beta,moving_mean,moving_variance},
                              head/{kernel,bias}
  DATA_DIR/cnn.weights.h5     tf1_cnn_rmsprop.py's weights as a Keras functional model's

python prepare_data.py DATA_DIR
"""
import os
import sys

import numpy as np
import tensorflow as tf


def depthwise_weights():
    rng = np.random.RandomState(717)
    rng.normal(size=(4, 5, 5, 2))  # the images (drawn first by the programs)
    return {
        "dw/depthwise_kernel": rng.normal(0.0, 0.4, size=(3, 3, 2, 2)).astype(np.float32),
        "bn/gamma": rng.uniform(0.7, 1.3, size=(4,)).astype(np.float32),
        "bn/beta": rng.uniform(-0.2, 0.2, size=(4,)).astype(np.float32),
        "bn/moving_mean": rng.uniform(-0.2, 0.2, size=(4,)).astype(np.float32),
        "bn/moving_variance": rng.uniform(0.6, 1.5, size=(4,)).astype(np.float32),
        "head/kernel": rng.normal(0.0, 0.6, size=(4, 3)).astype(np.float32),
        "head/bias": rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32),
    }


def cnn_weights():
    rng = np.random.RandomState(919)
    rng.normal(size=(4, 4, 4, 2))  # the images
    return [rng.normal(0.0, 0.4, size=(3, 3, 2, 3)).astype(np.float32),
            rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32),
            rng.normal(0.0, 0.4, size=(12, 3)).astype(np.float32),
            rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)]


def main(out):
    os.makedirs(out, exist_ok=True)
    graph = tf.Graph()
    with graph.as_default():
        variables = [tf.compat.v1.get_variable(name, initializer=value)
                     for name, value in depthwise_weights().items()]
        saver = tf.compat.v1.train.Saver(variables)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(out, "depthwise.ckpt"), write_meta_graph=False)
    inputs = tf.keras.Input(shape=(4, 4, 2))
    h = tf.keras.layers.Conv2D(3, 3, padding="same", activation="relu", name="conv")(inputs)
    h = tf.keras.layers.MaxPooling2D(2, name="pool")(h)
    h = tf.keras.layers.Flatten(name="flatten")(h)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(3, name="fc")(h))
    model.set_weights(cnn_weights())
    model.save_weights(os.path.join(out, "cnn.weights.h5"))


if __name__ == "__main__":
    main(sys.argv[1])
