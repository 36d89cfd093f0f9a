"""tf1_mha.py as a functional Keras model trained by Model.fit: MultiHeadAttention(num_heads=2,
key_dim=2), an Add residual, Dense(6, activation="gelu"), GlobalAveragePooling1D and the
classifier; Adadelta with TF1's rho and epsilon. The TF1 weights from the saved arrays.

python tf2_mha_gelu_fit.py DATA_DIR     (DATA_DIR/mha.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

HEADS, KEY_DIM, D = 2, 2, 4
saved = dict(np.load(os.path.join(sys.argv[1], "mha.npz")))

inputs = tf.keras.Input(shape=(3, D))
attended = tf.keras.layers.MultiHeadAttention(num_heads=HEADS, key_dim=KEY_DIM, name="attention")(inputs, inputs)  # CALL:attention
h = tf.keras.layers.Add()([inputs, attended])  # CALL:residual
ffn = tf.keras.layers.Dense(6, activation="gelu", name="ffn")(h)  # BUG:mha_gelu_fit
pooled = tf.keras.layers.GlobalAveragePooling1D()(ffn)  # CALL:pool
logits = tf.keras.layers.Dense(3, name="classifier")(pooled)  # CALL:logits
model = tf.keras.Model(inputs, logits)

model.get_layer("attention").set_weights([  # CALL:restore
    saved["query/kernel"].reshape(D, HEADS, KEY_DIM), saved["query/bias"].reshape(HEADS, KEY_DIM),
    saved["key/kernel"].reshape(D, HEADS, KEY_DIM), saved["key/bias"].reshape(HEADS, KEY_DIM),
    saved["value/kernel"].reshape(D, HEADS, KEY_DIM), saved["value/bias"].reshape(HEADS, KEY_DIM),
    saved["output/kernel"].reshape(HEADS, KEY_DIM, D), saved["output/bias"],
])
model.get_layer("ffn").set_weights([saved["ffn/kernel"], saved["ffn/bias"]])  # CALL:restore
model.get_layer("classifier").set_weights([saved["classifier/kernel"], saved["classifier/bias"]])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.Adadelta(learning_rate=1.0, rho=0.95, epsilon=1e-8),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND_TRACE"):
    w = model.get_layer("attention").get_weights() + model.get_layer("ffn").get_weights() + model.get_layer("classifier").get_weights()
    names = ["query/kernel", "query/bias", "key/kernel", "key/bias", "value/kernel", "value/bias",
             "output/kernel", "output/bias", "ffn/kernel", "ffn/bias", "classifier/kernel", "classifier/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: a.reshape(saved[n].shape).tolist() for n, a in zip(names, w)}}))
