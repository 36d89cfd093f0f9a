"""tf1_embed_rmsprop.py in Keras (Embedding, GlobalAveragePooling1D, Dense with an L2
regularizer) trained by Model.fit. TF1's RMSProp starts its mean square at 1.0 and Keras' at
0.0, so the restored optimizer state sets Keras' velocities to 1.0.

python tf2_embed_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

state = np.random.RandomState(31)
# 30 distinct token ids: no id twice in the batch
tokens = np.array([[15, 5, 22, 26, 18], [14, 13, 2, 16, 1], [17, 27, 7, 12, 4],
                   [23, 6, 20, 9, 11], [29, 19, 21, 0, 8], [28, 3, 25, 24, 10]], dtype=np.int32)
targets = np.array([0, 2, 1, 1, 0, 2], dtype=np.int32)
embedding_init = state.normal(0.0, 0.8, size=(30, 4)).astype(np.float32)
kernel_init = state.normal(0.0, 0.9, size=(4, 3)).astype(np.float32)
bias_init = state.uniform(-0.2, 0.2, size=(3,)).astype(np.float32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,), dtype="int32"),
    tf.keras.layers.Embedding(30, 4, name="embedding"),  # CALL:embed
    tf.keras.layers.GlobalAveragePooling1D(name="pool"),  # CALL:pool
    # 0.01 * tf.nn.l2_loss(w) == 0.005 * sum(w ** 2)
    tf.keras.layers.Dense(3, kernel_regularizer=tf.keras.regularizers.l2(0.005), name="head"),  # CALL:reg
])
model.get_layer("embedding").set_weights([embedding_init])  # CALL:restore
model.get_layer("head").set_weights([kernel_init, bias_init])  # CALL:restore

optimizer = tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.9, epsilon=1e-7)
optimizer.build(model.trainable_variables)
for slot in optimizer.variables:
    if "velocity" in slot.path:
        slot.assign(tf.ones(slot.shape))

model.compile(optimizer=optimizer,
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(tokens, targets, batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, total in enumerate(history.history["loss"]):
    print("step", step, "loss", total)

if os.environ.get("HELDOUT_TRACE"):
    names = ["embedding", "head/kernel", "head/bias"]
    print("trace", json.dumps({"loss": history.history["loss"],
                               "weights": {n: v.tolist() for n, v in zip(names, model.get_weights())}}))
