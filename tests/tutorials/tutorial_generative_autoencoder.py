# Intro to Autoencoders: tensorflow/docs site/en/tutorials/generative/autoencoder.ipynb
# (code cells in order; changes marked EDIT(tfcore)).

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import tensorflow as tf

# EDIT(tfcore): scikit-learn's four helpers from generated_data (scikit-learn is in neither test environment)
# from sklearn.metrics import accuracy_score, precision_score, recall_score
# from sklearn.model_selection import train_test_split
from generated_data import accuracy_score, precision_score, recall_score
from generated_data import train_test_split
from tensorflow.keras import layers, losses
from tensorflow.keras.datasets import fashion_mnist
# EDIT(tfcore): generated images of Fashion-MNIST's shapes instead of the download
from generated_data import fashion_mnist as _generated_fashion_mnist
fashion_mnist.load_data = _generated_fashion_mnist
from tensorflow.keras.models import Model

(x_train, _), (x_test, _) = fashion_mnist.load_data()

x_train = x_train.astype('float32') / 255.
x_test = x_test.astype('float32') / 255.

print (x_train.shape)
print (x_test.shape)

class Autoencoder(Model):
  def __init__(self, latent_dim, shape):
    super(Autoencoder, self).__init__()
    self.latent_dim = latent_dim
    self.shape = shape
    self.encoder = tf.keras.Sequential([
      layers.Flatten(),
      layers.Dense(latent_dim, activation='relu'),
    ])
    self.decoder = tf.keras.Sequential([
      # EDIT(tfcore): int(...) added: Keras 3.15 refuses a NumPy integer as `units` (TF 2.21 stops here as written)
      layers.Dense(int(tf.math.reduce_prod(shape).numpy()), activation='sigmoid'),
      layers.Reshape(shape)
    ])

  def call(self, x):
    encoded = self.encoder(x)
    decoded = self.decoder(encoded)
    return decoded


shape = x_test.shape[1:]
latent_dim = 64
autoencoder = Autoencoder(latent_dim, shape)


autoencoder.compile(optimizer='adam', loss=losses.MeanSquaredError())

autoencoder.fit(x_train, x_train,
                epochs=2,  # EDIT(tfcore): epochs=10 cut to 2
                shuffle=True,
                validation_data=(x_test, x_test))

encoded_imgs = autoencoder.encoder(x_test).numpy()
decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()

n = 10
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(20, 4))
for i in range(n):
  # display original
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax = plt.subplot(2, n, i + 1)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(x_test[i])
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title("original")
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.gray()
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax.get_xaxis().set_visible(False)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax.get_yaxis().set_visible(False)

  # display reconstruction
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax = plt.subplot(2, n, i + 1 + n)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(decoded_imgs[i])
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title("reconstructed")
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.gray()
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax.get_xaxis().set_visible(False)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax.get_yaxis().set_visible(False)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

(x_train, _), (x_test, _) = fashion_mnist.load_data()

x_train = x_train.astype('float32') / 255.
x_test = x_test.astype('float32') / 255.

x_train = x_train[..., tf.newaxis]
x_test = x_test[..., tf.newaxis]

print(x_train.shape)

noise_factor = 0.2
x_train_noisy = x_train + noise_factor * tf.random.normal(shape=x_train.shape)
x_test_noisy = x_test + noise_factor * tf.random.normal(shape=x_test.shape)

x_train_noisy = tf.clip_by_value(x_train_noisy, clip_value_min=0., clip_value_max=1.)
x_test_noisy = tf.clip_by_value(x_test_noisy, clip_value_min=0., clip_value_max=1.)

n = 10
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(20, 2))
for i in range(n):
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax = plt.subplot(1, n, i + 1)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title("original + noise")
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(tf.squeeze(x_test_noisy[i]))
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.gray()
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

class Denoise(Model):
  def __init__(self):
    super(Denoise, self).__init__()
    self.encoder = tf.keras.Sequential([
      layers.Input(shape=(28, 28, 1)),
      layers.Conv2D(16, (3, 3), activation='relu', padding='same', strides=2),
      layers.Conv2D(8, (3, 3), activation='relu', padding='same', strides=2)])

    self.decoder = tf.keras.Sequential([
      layers.Conv2DTranspose(8, kernel_size=3, strides=2, activation='relu', padding='same'),
      layers.Conv2DTranspose(16, kernel_size=3, strides=2, activation='relu', padding='same'),
      layers.Conv2D(1, kernel_size=(3, 3), activation='sigmoid', padding='same')])

  def call(self, x):
    encoded = self.encoder(x)
    decoded = self.decoder(encoded)
    return decoded

autoencoder = Denoise()

autoencoder.compile(optimizer='adam', loss=losses.MeanSquaredError())

autoencoder.fit(x_train_noisy, x_train,
                epochs=2,  # EDIT(tfcore): epochs=10 cut to 2
                shuffle=True,
                validation_data=(x_test_noisy, x_test))

autoencoder.encoder.summary()

autoencoder.decoder.summary()

encoded_imgs = autoencoder.encoder(x_test_noisy).numpy()
decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()

n = 10
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(20, 4))
for i in range(n):

    # display original + noise
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax = plt.subplot(2, n, i + 1)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title("original + noise")
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(tf.squeeze(x_test_noisy[i]))
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.gray()
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax.get_xaxis().set_visible(False)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: ax.get_yaxis().set_visible(False)

    # display reconstruction
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: bx = plt.subplot(2, n, i + n + 1)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title("reconstructed")
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(tf.squeeze(decoded_imgs[i]))
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.gray()
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: bx.get_xaxis().set_visible(False)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: bx.get_yaxis().set_visible(False)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

# Download the dataset
# EDIT(tfcore): a generated DataFrame of the ECG CSV's layout (140 values and a label per row) instead of the download
# dataframe = pd.read_csv('http://storage.googleapis.com/download.tensorflow.org/data/ecg.csv', header=None)
from generated_data import ecg_dataframe as _generated_ecg
dataframe = _generated_ecg()
raw_data = dataframe.values
dataframe.head()

# The last element contains the labels
labels = raw_data[:, -1]

# The other data points are the electrocadriogram data
data = raw_data[:, 0:-1]

train_data, test_data, train_labels, test_labels = train_test_split(
    data, labels, test_size=0.2, random_state=21
)

min_val = tf.reduce_min(train_data)
max_val = tf.reduce_max(train_data)

train_data = (train_data - min_val) / (max_val - min_val)
test_data = (test_data - min_val) / (max_val - min_val)

train_data = tf.cast(train_data, tf.float32)
test_data = tf.cast(test_data, tf.float32)

train_labels = train_labels.astype(bool)
test_labels = test_labels.astype(bool)

normal_train_data = train_data[train_labels]
normal_test_data = test_data[test_labels]

anomalous_train_data = train_data[~train_labels]
anomalous_test_data = test_data[~test_labels]

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.grid()
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(np.arange(140), normal_train_data[0])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title("A Normal ECG")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.grid()
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(np.arange(140), anomalous_train_data[0])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title("An Anomalous ECG")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

class AnomalyDetector(Model):
  def __init__(self):
    super(AnomalyDetector, self).__init__()
    self.encoder = tf.keras.Sequential([
      layers.Dense(32, activation="relu"),
      layers.Dense(16, activation="relu"),
      layers.Dense(8, activation="relu")])

    self.decoder = tf.keras.Sequential([
      layers.Dense(16, activation="relu"),
      layers.Dense(32, activation="relu"),
      layers.Dense(140, activation="sigmoid")])

  def call(self, x):
    encoded = self.encoder(x)
    decoded = self.decoder(encoded)
    return decoded

autoencoder = AnomalyDetector()

autoencoder.compile(optimizer='adam', loss='mae')

history = autoencoder.fit(normal_train_data, normal_train_data,
          epochs=20,
          batch_size=512,
          validation_data=(test_data, test_data),
          shuffle=True)

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(history.history["loss"], label="Training Loss")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(history.history["val_loss"], label="Validation Loss")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.legend()

encoded_data = autoencoder.encoder(normal_test_data).numpy()
decoded_data = autoencoder.decoder(encoded_data).numpy()

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(normal_test_data[0], 'b')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(decoded_data[0], 'r')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.fill_between(np.arange(140), decoded_data[0], normal_test_data[0], color='lightcoral')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.legend(labels=["Input", "Reconstruction", "Error"])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

encoded_data = autoencoder.encoder(anomalous_test_data).numpy()
decoded_data = autoencoder.decoder(encoded_data).numpy()

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(anomalous_test_data[0], 'b')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(decoded_data[0], 'r')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.fill_between(np.arange(140), decoded_data[0], anomalous_test_data[0], color='lightcoral')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.legend(labels=["Input", "Reconstruction", "Error"])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

reconstructions = autoencoder.predict(normal_train_data)
train_loss = tf.keras.losses.mae(reconstructions, normal_train_data)

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.hist(train_loss[None,:], bins=50)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel("Train loss")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylabel("No of examples")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

threshold = np.mean(train_loss) + np.std(train_loss)
print("Threshold: ", threshold)

reconstructions = autoencoder.predict(anomalous_test_data)
test_loss = tf.keras.losses.mae(reconstructions, anomalous_test_data)

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.hist(test_loss[None, :], bins=50)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel("Test loss")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylabel("No of examples")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

def predict(model, data, threshold):
  reconstructions = model(data)
  loss = tf.keras.losses.mae(reconstructions, data)
  return tf.math.less(loss, threshold)

def print_stats(predictions, labels):
  print("Accuracy = {}".format(accuracy_score(labels, predictions)))
  print("Precision = {}".format(precision_score(labels, predictions)))
  print("Recall = {}".format(recall_score(labels, predictions)))

preds = predict(autoencoder, test_data, threshold)
print_stats(preds, test_labels)

# EDIT(tfcore): checks that the tutorial's training worked
_preds = preds.numpy()
assert _preds.dtype == bool and _preds.shape == test_labels.shape, (_preds.dtype, _preds.shape)
assert accuracy_score(test_labels, _preds) > 0.8, accuracy_score(test_labels, _preds)
assert float(tf.reduce_mean(test_loss)) > threshold, (float(tf.reduce_mean(test_loss)), threshold)
