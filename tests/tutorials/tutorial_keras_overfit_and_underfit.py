# Overfit and underfit: tensorflow/docs site/en/tutorials/keras/overfit_and_underfit.ipynb
# (code cells in order; changes marked EDIT(tfcore)).

#@title Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# https://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

#@title MIT License
#
# Copyright (c) 2017 François Chollet
#
# Permission is hereby granted, free of charge, to any person obtaining a
# copy of this software and associated documentation files (the "Software"),
# to deal in the Software without restriction, including without limitation
# the rights to use, copy, modify, merge, publish, distribute, sublicense,
# and/or sell copies of the Software, and to permit persons to whom the
# Software is furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
# THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
# FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
# DEALINGS IN THE SOFTWARE.

import tensorflow as tf

from tensorflow.keras import layers
from tensorflow.keras import regularizers

print(tf.__version__)

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: !pip install git+https://github.com/tensorflow/docs

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: import tensorflow_docs as tfdocs
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: import tensorflow_docs.modeling
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: import tensorflow_docs.plots

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: from  IPython import display
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: from matplotlib import pyplot as plt

import numpy as np

import pathlib
import shutil
import tempfile


logdir = pathlib.Path(tempfile.mkdtemp())/"tensorboard_logs"
shutil.rmtree(logdir, ignore_errors=True)

# EDIT(tfcore): a generated gzipped CSV of HIGGS's format (2,500 rows) instead of the download
# gz = tf.keras.utils.get_file('HIGGS.csv.gz', 'http://mlphysics.ics.uci.edu/data/higgs/HIGGS.csv.gz')
from generated_data import higgs_csv_gz as _generated
gz = _generated('HIGGS.csv.gz', n=2500)

FEATURES = 28

ds = tf.data.experimental.CsvDataset(gz,[float(),]*(FEATURES+1), compression_type="GZIP")

def pack_row(*row):
  label = row[0]
  features = tf.stack(row[1:],1)
  return features, label

packed_ds = ds.batch(10000).map(pack_row).unbatch()

for features,label in packed_ds.batch(1000).take(1):
  print(features[0])
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.hist(features.numpy().flatten(), bins = 101)

N_VALIDATION = int(5e2)  # EDIT(tfcore): int(1e3) cut to int(5e2)
N_TRAIN = int(2e3)  # EDIT(tfcore): int(1e4) cut to int(2e3)
BUFFER_SIZE = int(1e4)
BATCH_SIZE = 500
STEPS_PER_EPOCH = N_TRAIN//BATCH_SIZE

validate_ds = packed_ds.take(N_VALIDATION).cache()
train_ds = packed_ds.skip(N_VALIDATION).take(N_TRAIN).cache()

train_ds

validate_ds = validate_ds.batch(BATCH_SIZE)
train_ds = train_ds.shuffle(BUFFER_SIZE).repeat().batch(BATCH_SIZE)

lr_schedule = tf.keras.optimizers.schedules.InverseTimeDecay(
  0.001,
  decay_steps=STEPS_PER_EPOCH*1000,
  decay_rate=1,
  staircase=False)

def get_optimizer():
  return tf.keras.optimizers.Adam(lr_schedule)

step = np.linspace(0,100000)
lr = lr_schedule(step)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize = (8,6))
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(step/STEPS_PER_EPOCH, lr)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0,max(plt.ylim())])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel('Epoch')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: _ = plt.ylabel('Learning Rate')


def get_callbacks(name):
  return [
    # EDIT(tfcore): tensorflow_docs's progress printer dropped: tfdocs.modeling.EpochDots(),
    tf.keras.callbacks.EarlyStopping(monitor='val_binary_crossentropy', patience=200),
    tf.keras.callbacks.TensorBoard(logdir/name),
  ]

def compile_and_fit(model, name, optimizer=None, max_epochs=2):  # EDIT(tfcore): max_epochs=10000 cut to 2
  if optimizer is None:
    optimizer = get_optimizer()
  model.compile(optimizer=optimizer,
                loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                metrics=[
                  tf.keras.metrics.BinaryCrossentropy(
                      from_logits=True, name='binary_crossentropy'),
                  'accuracy'])

  model.summary()

  history = model.fit(
    train_ds.map(lambda x, y: (x, tf.expand_dims(y, axis=-1))),
    steps_per_epoch = STEPS_PER_EPOCH,
    epochs=max_epochs,
    validation_data=validate_ds.map(lambda x, y: (x, tf.expand_dims(y, axis=-1))),
    callbacks=get_callbacks(name),
    verbose=0)
  return history

tiny_model = tf.keras.Sequential([
    layers.Dense(16, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(1)
])

size_histories = {}

size_histories['Tiny'] = compile_and_fit(tiny_model, 'sizes/Tiny')

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plotter = tfdocs.plots.HistoryPlotter(metric = 'binary_crossentropy', smoothing_std=10)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plotter.plot(size_histories)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0.5, 0.7])

small_model = tf.keras.Sequential([
    # `input_shape` is only required here so that `.summary` works.
    layers.Dense(16, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(16, activation='elu'),
    layers.Dense(1)
])

size_histories['Small'] = compile_and_fit(small_model, 'sizes/Small')

medium_model = tf.keras.Sequential([
    layers.Dense(64, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(64, activation='elu'),
    layers.Dense(64, activation='elu'),
    layers.Dense(1)
])

size_histories['Medium']  = compile_and_fit(medium_model, "sizes/Medium")

large_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(512, activation='elu'),
    layers.Dense(512, activation='elu'),
    layers.Dense(512, activation='elu'),
    layers.Dense(1)
])

size_histories['large'] = compile_and_fit(large_model, "sizes/large")

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plotter.plot(size_histories)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: a = plt.xscale('log')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlim([5, max(plt.xlim())])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0.5, 0.7])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel("Epochs [Log Scale]")

# Load the TensorBoard notebook extension
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: %load_ext tensorboard

# Open an embedded TensorBoard viewer
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: %tensorboard --logdir {logdir}/sizes

shutil.rmtree(logdir/'regularizers/Tiny', ignore_errors=True)
shutil.copytree(logdir/'sizes/Tiny', logdir/'regularizers/Tiny')

regularizer_histories = {}
regularizer_histories['Tiny'] = size_histories['Tiny']

l2_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001),
                 input_shape=(FEATURES,)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(1)
])

regularizer_histories['l2'] = compile_and_fit(l2_model, "regularizers/l2")

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plotter.plot(regularizer_histories)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0.5, 0.7])

result = l2_model(features)
regularization_loss=tf.add_n(l2_model.losses)

dropout_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu', input_shape=(FEATURES,)),
    layers.Dropout(0.5),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(1)
])

regularizer_histories['dropout'] = compile_and_fit(dropout_model, "regularizers/dropout")

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plotter.plot(regularizer_histories)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0.5, 0.7])

combined_model = tf.keras.Sequential([
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu', input_shape=(FEATURES,)),
    layers.Dropout(0.5),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(1)
])

regularizer_histories['combined'] = compile_and_fit(combined_model, "regularizers/combined")

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plotter.plot(regularizer_histories)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0.5, 0.7])

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: %tensorboard --logdir {logdir}/regularizers

# EDIT(tfcore): checks that the tutorial's training worked
for _histories in (size_histories, regularizer_histories):
  for _name, _history in _histories.items():
    assert len(_history.history['val_binary_crossentropy']) == 2, (_name, _history.history)
    assert all(np.isfinite(_history.history['loss'])), (_name, _history.history)
# the L2 models' loss is the cross-entropy plus their weight penalty; the others' loss is the cross-entropy
for _name in ('l2', 'combined'):
  _h = regularizer_histories[_name].history
  assert all(l > b for l, b in zip(_h['loss'], _h['binary_crossentropy'])), (_name, _h)
for _name in ('Tiny', 'Small', 'Medium', 'large'):
  _h = size_histories[_name].history
  assert np.allclose(_h['loss'], _h['binary_crossentropy'], rtol=1e-3), (_name, _h)
assert result.shape == (1000, 1), result.shape  # the first batch of 1000 rows
assert float(regularization_loss) > 0.0, regularization_loss
assert sorted(p.name for p in (logdir/'regularizers').iterdir()) == ['Tiny', 'combined', 'dropout', 'l2']
print("tutorial ok")
