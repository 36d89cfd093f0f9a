"""tf1_attention.py as a functional Keras model (MultiHeadAttention, Add, pooling, Dense)
trained by Model.fit, with SGD, an ExponentialDecay schedule and clipvalue.

python tf2_attention_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

D, K = 6, 4
rng = np.random.RandomState(404)
tokens = rng.normal(size=(3, 4, D)).astype(np.float32)
labels = np.array([1, 0, 1], dtype=np.int32)
weights = {
    "query/kernel": rng.normal(0, 0.5, (D, K)), "query/bias": rng.normal(0, 0.1, (K,)),
    "key/kernel": rng.normal(0, 0.5, (D, K)), "key/bias": rng.normal(0, 0.1, (K,)),
    "value/kernel": rng.normal(0, 0.5, (D, K)), "value/bias": rng.normal(0, 0.1, (K,)),
    "output/kernel": rng.normal(0, 0.5, (K, D)), "output/bias": rng.normal(0, 0.1, (D,)),
    "classifier/kernel": rng.normal(0, 0.5, (D, 2)), "classifier/bias": np.zeros(2),
}
weights = {k: v.astype(np.float32) for k, v in weights.items()}

inputs = tf.keras.Input(shape=(4, D))
attended = tf.keras.layers.MultiHeadAttention(num_heads=1, key_dim=K, name="attention")(inputs, inputs)  # CALL:attention
h = tf.keras.layers.Add()([inputs, attended])  # CALL:residual
pooled = tf.keras.layers.GlobalAveragePooling1D()(h)  # CALL:pool
logits = tf.keras.layers.Dense(2, name="classifier")(pooled)  # CALL:logits
model = tf.keras.Model(inputs, logits)
model.get_layer("attention").set_weights([  # CALL:restore
    weights["query/kernel"][:, None, :], weights["query/bias"][None, :],
    weights["key/kernel"][:, None, :], weights["key/bias"][None, :],
    weights["value/kernel"][:, None, :], weights["value/bias"][None, :],
    weights["output/kernel"][None, :, :], weights["output/bias"],
])
model.get_layer("classifier").set_weights([weights["classifier/kernel"], weights["classifier/bias"]])  # CALL:restore

lr_schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=1, decay_rate=0.5, staircase=True)  # BUG:attention_decay_fit
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=lr_schedule, clipvalue=0.1),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(tokens, labels, batch_size=3, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print(f"step {step} loss {value:.6f}")
if os.environ.get("HELDOUT_TRACE"):
    w = model.get_weights()
    final = dict(zip(weights, [w[0][:, 0, :], w[1][0], w[2][:, 0, :], w[3][0], w[4][:, 0, :],
                               w[5][0], w[6][0], w[7], w[8], w[9]]))
    print("trace", json.dumps({"loss": history.history["loss"],
                               "weights": {k: a.tolist() for k, a in final.items()}}))
