"""tf1_mlp_bn.py as a Keras Sequential model trained by Model.fit: Dense(use_bias=False),
BatchNormalization(momentum=0.9 = TF1's decay, epsilon=1e-3), ReLU, Dense; weights and moving
statistics from the .weights.h5 of the earlier run (load_weights); SGD with clipvalue.

python tf2_mlp_bn_fit.py DATA_DIR     (DATA_DIR/mlp_bn.weights.h5: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(5555)
features = rng.normal(size=(6, 5)).astype(np.float32)
target = rng.normal(size=(6, 1)).astype(np.float32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(8, use_bias=False, name="hidden"),  # CALL:hidden
    tf.keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-3, name="bn"),  # CALL:bn
    tf.keras.layers.ReLU(name="relu"),  # CALL:relu
    tf.keras.layers.Dense(1, name="out"),  # CALL:head
])
model.load_weights(os.path.join(sys.argv[1], "mlp_bn.weights.h5"))  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.05, clipvalue=0.2),  # CALL:opt
              loss=tf.keras.losses.MeanSquaredError())  # CALL:loss
history = model.fit(features, target, batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("WILD_TRACE"):
    names = ["hidden/kernel", "bn/gamma", "bn/beta", "out/kernel", "out/bias"]
    bn = model.get_layer("bn")
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": bn.moving_mean.numpy().tolist(), "bn/moving_variance": bn.moving_variance.numpy().tolist()}}))
