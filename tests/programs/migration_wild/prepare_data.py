"""Writes the files some of the wild programs restore their weights from, as a user would
have them from an earlier run (run once, not recorded):

  DATA_DIR/mlp_bn.ckpt.*      a TF1 (name-based) checkpoint of tf1_mlp_bn.py's model:
                              hidden/kernel, bn/{gamma,beta,moving_mean,moving_variance},
                              out/{kernel,bias}
  DATA_DIR/mlp_bn.weights.h5  the same weights as a Keras Sequential model's
  DATA_DIR/cnn.weights.h5     tf1_cnn_adamw.py's weights as a Keras Sequential model's

python prepare_data.py DATA_DIR
"""
import os
import sys

import numpy as np
import tensorflow as tf


def mlp_bn_weights():
    rng = np.random.RandomState(5555)
    rng.normal(size=(6, 5))  # the inputs (drawn first by the programs)
    rng.normal(size=(6, 1))  # the targets
    return {
        "hidden/kernel": rng.normal(0.0, 0.5, size=(5, 8)).astype(np.float32),
        "bn/gamma": rng.uniform(0.7, 1.3, size=(8,)).astype(np.float32),
        "bn/beta": rng.uniform(-0.2, 0.2, size=(8,)).astype(np.float32),
        "bn/moving_mean": rng.uniform(-0.3, 0.3, size=(8,)).astype(np.float32),
        "bn/moving_variance": rng.uniform(0.5, 1.5, size=(8,)).astype(np.float32),
        "out/kernel": rng.normal(0.0, 0.5, size=(8, 1)).astype(np.float32),
        "out/bias": rng.uniform(-0.1, 0.1, size=(1,)).astype(np.float32),
    }


def cnn_weights():
    rng = np.random.RandomState(2222)
    rng.normal(size=(4, 4, 4, 2))  # the images
    return [rng.normal(0.0, 0.4, size=(3, 3, 2, 4)).astype(np.float32),
            rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
            rng.normal(0.0, 0.4, size=(16, 3)).astype(np.float32),
            rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)]


def main(out):
    os.makedirs(out, exist_ok=True)
    weights = mlp_bn_weights()
    graph = tf.Graph()
    with graph.as_default():
        variables = [tf.compat.v1.get_variable(name, initializer=value)
                     for name, value in weights.items()]
        saver = tf.compat.v1.train.Saver(variables)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(out, "mlp_bn.ckpt"), write_meta_graph=False)
    mlp = tf.keras.Sequential([
        tf.keras.Input(shape=(5,)),
        tf.keras.layers.Dense(8, use_bias=False, name="hidden"),
        tf.keras.layers.BatchNormalization(name="bn"),
        tf.keras.layers.ReLU(name="relu"),
        tf.keras.layers.Dense(1, name="out"),
    ])
    mlp.set_weights([weights[n] for n in ("hidden/kernel", "bn/gamma", "bn/beta",
                                          "bn/moving_mean", "bn/moving_variance",
                                          "out/kernel", "out/bias")])
    mlp.save_weights(os.path.join(out, "mlp_bn.weights.h5"))
    cnn = tf.keras.Sequential([
        tf.keras.Input(shape=(4, 4, 2)),
        tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="conv"),
        tf.keras.layers.MaxPooling2D(2, name="pool"),
        tf.keras.layers.Flatten(name="flatten"),
        tf.keras.layers.Dense(3, name="fc"),
    ])
    cnn.set_weights(cnn_weights())
    cnn.save_weights(os.path.join(out, "cnn.weights.h5"))


if __name__ == "__main__":
    main(sys.argv[1])
