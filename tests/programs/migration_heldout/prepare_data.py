"""Writes the files that some of the held-out programs restore their weights from, as a user
would have them from an earlier TF1 run (run once, not recorded):

  DATA_DIR/bn.ckpt.*          a TF1 (name-based) checkpoint of the conv+BN model of
                              tf1_cnn_bn.py: conv/kernel, bn/{gamma,beta,moving_mean,
                              moving_variance}, dense/{kernel,bias}
  DATA_DIR/cnn.weights.h5     the CNN of tf1_cnn_adam.py as Keras weights (tf2_cnn_fit*.py)

python prepare_data.py DATA_DIR
"""
import os
import sys

import numpy as np
import tensorflow as tf


def bn_weights():
    rng = np.random.RandomState(99)
    rng.normal(size=(6, 5, 5, 1))  # the images (drawn first by the programs)
    return {
        "conv/kernel": rng.normal(0.0, 0.5, size=(3, 3, 1, 3)).astype(np.float32),
        "bn/gamma": rng.uniform(0.6, 1.4, size=(3,)).astype(np.float32),
        "bn/beta": rng.uniform(-0.3, 0.3, size=(3,)).astype(np.float32),
        "bn/moving_mean": rng.uniform(-0.3, 0.3, size=(3,)).astype(np.float32),
        "bn/moving_variance": rng.uniform(0.5, 2.0, size=(3,)).astype(np.float32),
        "dense/kernel": rng.normal(0.0, 0.3, size=(27, 3)).astype(np.float32),
        "dense/bias": rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32),
    }


def cnn_weights():
    rng = np.random.RandomState(2024)
    rng.normal(size=(4, 6, 6, 2))  # the images
    conv_k = rng.normal(0.0, 0.35, size=(3, 3, 2, 4)).astype(np.float32)
    conv_b = rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32)
    fc_k = rng.normal(0.0, 0.25, size=(36, 3)).astype(np.float32)
    fc_b = rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)
    return [conv_k, conv_b, fc_k, fc_b]


def main(out):
    os.makedirs(out, exist_ok=True)
    graph = tf.Graph()
    with graph.as_default():
        variables = [tf.compat.v1.get_variable(name, initializer=value)
                     for name, value in bn_weights().items()]
        saver = tf.compat.v1.train.Saver(variables)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(out, "bn.ckpt"), write_meta_graph=False)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 6, 2)),
        tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="conv"),
        tf.keras.layers.MaxPooling2D(2, name="pool"),
        tf.keras.layers.Flatten(name="flatten"),
        tf.keras.layers.Dense(3, name="fc"),
    ])
    model.set_weights(cnn_weights())
    model.save_weights(os.path.join(out, "cnn.weights.h5"))


if __name__ == "__main__":
    main(sys.argv[1])
