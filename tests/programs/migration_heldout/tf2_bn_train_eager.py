"""tf1_cnn_bn.py in Keras, eager GradientTape loop; the TF1 checkpoint's values assigned to the
Keras variables by name.

python tf2_bn_train_eager.py DATA_DIR     (DATA_DIR/bn.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(99)
images = rng.normal(size=(6, 5, 5, 1)).astype(np.float32)
labels = np.array([0, 1, 2, 2, 1, 0], dtype=np.int32)

conv = tf.keras.layers.Conv2D(3, 3, use_bias=False)
bn = tf.keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-5)
relu = tf.keras.layers.ReLU()
flatten = tf.keras.layers.Flatten()
dense = tf.keras.layers.Dense(3)
conv.build((None, 5, 5, 1))
bn.build((None, 3, 3, 3))
dense.build((None, 27))

reader = tf.train.load_checkpoint(os.path.join(sys.argv[1], "bn.ckpt"))
conv.kernel.assign(reader.get_tensor("conv/kernel"))  # CALL:restore
bn.gamma.assign(reader.get_tensor("bn/gamma"))  # CALL:restore
bn.beta.assign(reader.get_tensor("bn/beta"))  # CALL:restore
bn.moving_mean.assign(reader.get_tensor("bn/moving_mean"))  # CALL:restore
bn.moving_variance.assign(reader.get_tensor("bn/moving_variance"))  # CALL:restore
dense.kernel.assign(reader.get_tensor("dense/kernel"))  # CALL:restore
dense.bias.assign(reader.get_tensor("dense/bias"))  # CALL:restore

trainable = conv.trainable_weights + bn.trainable_weights + dense.trainable_weights
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

history = []
for step in range(3):
    with tf.GradientTape() as tape:
        h = conv(images)  # CALL:conv
        h = bn(h, training=True)  # CALL:bn
        h = relu(h)  # CALL:relu
        logits = dense(flatten(h))  # CALL:logits
        loss = loss_fn(labels, logits)  # CALL:loss
    grads = tape.gradient(loss, trainable)
    optimizer.apply_gradients(zip(grads, trainable))  # CALL:update
    print("step", step, "loss", loss.numpy())
    history.append(float(loss))

if os.environ.get("HELDOUT_TRACE"):
    names = ["conv/kernel", "bn/gamma", "bn/beta", "dense/kernel", "dense/bias"]
    print("trace", json.dumps({
        "loss": history,
        "weights": {n: v.numpy().tolist() for n, v in zip(names, trainable)},
        "state": {"bn/moving_mean": bn.moving_mean.numpy().tolist(),
                  "bn/moving_variance": bn.moving_variance.numpy().tolist()}}))
