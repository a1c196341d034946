# Get started with TensorBoard: tensorflow/tensorboard docs/get_started.ipynb
# (code cells in order; changes marked EDIT(tfcore)).

# Load the TensorBoard notebook extension
pass  # EDIT(tfcore): notebook magic dropped (no TensorBoard server in a test): %load_ext tensorboard

import tensorflow as tf
import datetime

# Clear any logs from previous runs
import shutil  # EDIT(tfcore): the shell line `!rm -rf ./logs/` in Python
shutil.rmtree('./logs/', ignore_errors=True)  # EDIT(tfcore): (as above)

mnist = tf.keras.datasets.mnist

# EDIT(tfcore): generated digits of MNIST's shapes instead of the download
from generated_data import mnist as _generated_mnist
mnist.load_data = _generated_mnist
(x_train, y_train),(x_test, y_test) = mnist.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

def create_model():
  return tf.keras.models.Sequential([
    tf.keras.layers.Input(shape=(28, 28), name='layers_input'),
    tf.keras.layers.Flatten(name='layers_flatten'),
    tf.keras.layers.Dense(512, activation='relu', name='layers_dense'),
    tf.keras.layers.Dropout(0.2, name='layers_dropout'),
    tf.keras.layers.Dense(10, activation='softmax', name='layers_dense_2')
  ])

model = create_model()
model.compile(optimizer='adam',
              loss='sparse_categorical_crossentropy',
              metrics=['accuracy'])

log_dir = "logs/fit/" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
tensorboard_callback = tf.keras.callbacks.TensorBoard(log_dir=log_dir, histogram_freq=1)

model.fit(x=x_train, 
          y=y_train, 
          epochs=2,  # EDIT(tfcore): epochs=5 cut to 2
          validation_data=(x_test, y_test), 
          callbacks=[tensorboard_callback])

pass  # EDIT(tfcore): notebook magic dropped (no TensorBoard server in a test): %tensorboard --logdir logs/fit

train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))
test_dataset = tf.data.Dataset.from_tensor_slices((x_test, y_test))

train_dataset = train_dataset.shuffle(60000).batch(64)
test_dataset = test_dataset.batch(64)

loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
optimizer = tf.keras.optimizers.Adam()

# Define our metrics
train_loss = tf.keras.metrics.Mean('train_loss', dtype=tf.float32)
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy('train_accuracy')
test_loss = tf.keras.metrics.Mean('test_loss', dtype=tf.float32)
test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy('test_accuracy')

def train_step(model, optimizer, x_train, y_train):
  with tf.GradientTape() as tape:
    predictions = model(x_train, training=True)
    loss = loss_object(y_train, predictions)
  grads = tape.gradient(loss, model.trainable_variables)
  optimizer.apply_gradients(zip(grads, model.trainable_variables))

  train_loss(loss)
  train_accuracy(y_train, predictions)

def test_step(model, x_test, y_test):
  predictions = model(x_test)
  loss = loss_object(y_test, predictions)

  test_loss(loss)
  test_accuracy(y_test, predictions)

current_time = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
train_log_dir = 'logs/gradient_tape/' + current_time + '/train'
test_log_dir = 'logs/gradient_tape/' + current_time + '/test'
train_summary_writer = tf.summary.create_file_writer(train_log_dir)
test_summary_writer = tf.summary.create_file_writer(test_log_dir)

model = create_model() # reset our model

EPOCHS = 2  # EDIT(tfcore): 5 epochs cut to 2

for epoch in range(EPOCHS):
  for (x_train, y_train) in train_dataset:
    train_step(model, optimizer, x_train, y_train)
  with train_summary_writer.as_default():
    tf.summary.scalar('loss', train_loss.result(), step=epoch)
    tf.summary.scalar('accuracy', train_accuracy.result(), step=epoch)

  for (x_test, y_test) in test_dataset:
    test_step(model, x_test, y_test)
  with test_summary_writer.as_default():
    tf.summary.scalar('loss', test_loss.result(), step=epoch)
    tf.summary.scalar('accuracy', test_accuracy.result(), step=epoch)
  
  template = 'Epoch {}, Loss: {}, Accuracy: {}, Test Loss: {}, Test Accuracy: {}'
  print (template.format(epoch+1,
                         train_loss.result(), 
                         train_accuracy.result()*100,
                         test_loss.result(), 
                         test_accuracy.result()*100))

  # Reset metrics every epoch
  train_loss.reset_state()
  test_loss.reset_state()
  train_accuracy.reset_state()
  test_accuracy.reset_state()

pass  # EDIT(tfcore): notebook magic dropped (no TensorBoard server in a test): %tensorboard --logdir logs/gradient_tape

# EDIT(tfcore): checks that both parts wrote their event files and that they hold the scalars (and the
# callback's weight histograms), read back as a user reads them, with tf.compat.v1.train.summary_iterator
import glob
import os


def _read_events(run_dir):
  """{tag: [(step, float value, or None for a histogram or text), ...]} of every event file in run_dir."""
  values = {}
  files = sorted(glob.glob(os.path.join(run_dir, 'events.out.tfevents.*')))
  assert files, f'no event file in {run_dir}: {os.listdir(run_dir) if os.path.isdir(run_dir) else "missing"}'
  for path in files:
    for event in tf.compat.v1.train.summary_iterator(path):
      for value in event.summary.value:
        array = tf.make_ndarray(value.tensor)
        values.setdefault(value.tag, []).append((event.step, float(array) if array.ndim == 0 and array.dtype.kind == 'f' else None))
  return values


fit_train = _read_events(os.path.join(log_dir, 'train'))
fit_validation = _read_events(os.path.join(log_dir, 'validation'))
print(sorted(fit_train), sorted(fit_validation))
assert [step for step, _ in fit_train['epoch_loss']] == [0, 1], fit_train['epoch_loss']
assert [step for step, _ in fit_validation['epoch_accuracy']] == [0, 1], fit_validation['epoch_accuracy']
assert fit_validation['epoch_accuracy'][-1][1] > 0.5, fit_validation['epoch_accuracy']
assert any(tag.endswith('histogram') for tag in fit_train), sorted(fit_train)

tape_train = _read_events(train_log_dir)
tape_test = _read_events(test_log_dir)
assert sorted(tape_train) == sorted(tape_test) == ['accuracy', 'loss'], (sorted(tape_train), sorted(tape_test))
assert [step for step, _ in tape_test['accuracy']] == list(range(EPOCHS)), tape_test['accuracy']
assert tape_test['accuracy'][-1][1] > 0.5, tape_test['accuracy']
assert tape_train['loss'][-1][1] < tape_train['loss'][0][1], tape_train['loss']
