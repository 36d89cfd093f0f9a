"""tf1_embed_rmsprop.py in Keras, an eager GradientTape loop adding the layers' penalties by
hand. Keras' RMSprop velocities set to TF1's initial 1.0.

python tf2_embed_l2_eager.py [DATA_DIR]     (DATA_DIR unused)
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

inputs = tf.keras.Input(shape=(5,), dtype="int32")
vectors = tf.keras.layers.Embedding(30, 4)(inputs)  # CALL:embed
pooled = tf.keras.layers.GlobalAveragePooling1D()(vectors)  # CALL:pool
logits = tf.keras.layers.Dense(3, kernel_regularizer=tf.keras.regularizers.l2(0.01))(pooled)  # BUG:embed_l2_eager
model = tf.keras.Model(inputs, logits)
model.set_weights([embedding_init, kernel_init, bias_init])  # CALL:restore

optimizer = tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.9, epsilon=1e-7)
optimizer.build(model.trainable_variables)
for slot in optimizer.variables:
    if "velocity" in slot.path:
        slot.assign(tf.ones(slot.shape))
cross_entropy = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

recorded = []
for step in range(3):
    with tf.GradientTape() as tape:
        data_loss = cross_entropy(targets, model(tokens))  # CALL:loss
        loss = data_loss + tf.add_n(model.losses)  # CALL:reg
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", loss.numpy())
    recorded.append(float(loss))

if os.environ.get("HELDOUT_TRACE"):
    names = ["embedding", "head/kernel", "head/bias"]
    print("trace", json.dumps({"loss": recorded,
                               "weights": {n: v.tolist() for n, v in zip(names, model.get_weights())}}))
