"""tf1_cnn_bn.py as a Keras Sequential model trained with Model.fit; weights from the TF1
checkpoint, set layer by layer.

python tf2_bn_fit_epsilon.py DATA_DIR     (DATA_DIR/bn.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(99)
images = rng.normal(size=(6, 5, 5, 1)).astype(np.float32)
labels = np.array([0, 1, 2, 2, 1, 0], dtype=np.int32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5, 5, 1)),
    tf.keras.layers.Conv2D(3, 3, use_bias=False, name="conv"),  # CALL:conv
    tf.keras.layers.BatchNormalization(momentum=0.9, name="bn"),  # BUG:bn_fit_epsilon
    tf.keras.layers.ReLU(name="relu"),  # CALL:relu
    tf.keras.layers.Flatten(name="flatten"),  # CALL:flatten
    tf.keras.layers.Dense(3, name="dense"),  # CALL:logits
])
reader = tf.train.load_checkpoint(os.path.join(sys.argv[1], "bn.ckpt"))
for layer in model.layers:
    if layer.weights:
        layer.set_weights([reader.get_tensor(f"{layer.name}/{w.name}") for w in layer.weights])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(images, labels, batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step", step, "loss", value)

if os.environ.get("HELDOUT_TRACE"):
    bn = model.get_layer("bn")
    names = ["conv/kernel", "bn/gamma", "bn/beta", "dense/kernel", "dense/bias"]
    print("trace", json.dumps({
        "loss": history.history["loss"],
        "weights": {n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": bn.moving_mean.numpy().tolist(),
                  "bn/moving_variance": bn.moving_variance.numpy().tolist()}}))
