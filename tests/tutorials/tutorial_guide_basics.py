# TensorFlow basics: tensorflow/docs site/en/guide/basics.ipynb
# (code cells in order; changes marked EDIT(tfcore)).

import tensorflow as tf

x = tf.constant([[1., 2., 3.],
                 [4., 5., 6.]])

print(x)
print(x.shape)
print(x.dtype)

x + x

5 * x

x @ tf.transpose(x)

tf.concat([x, x, x], axis=0)

tf.nn.softmax(x, axis=-1)

tf.reduce_sum(x)

tf.convert_to_tensor([1,2,3])

tf.reduce_sum([1,2,3])

if tf.config.list_physical_devices('GPU'):
  print("TensorFlow **IS** using the GPU")
else:
  print("TensorFlow **IS NOT** using the GPU")

var = tf.Variable([0.0, 0.0, 0.0])

var.assign([1, 2, 3])

var.assign_add([1, 1, 1])

x = tf.Variable(1.0)

def f(x):
  y = x**2 + 2*x - 5
  return y

f(x)

with tf.GradientTape() as tape:
  y = f(x)

g_x = tape.gradient(y, x)  # g(x) = dy/dx

g_x

@tf.function
def my_func(x):
  print('Tracing.\n')
  return tf.reduce_sum(x)

x = tf.constant([1, 2, 3])
my_func(x)

x = tf.constant([10, 9, 8])
my_func(x)

x = tf.constant([10.0, 9.1, 8.2], dtype=tf.float32)
my_func(x)

class MyModule(tf.Module):
  def __init__(self, value):
    self.weight = tf.Variable(value)

  @tf.function
  def multiply(self, x):
    return x * self.weight

mod = MyModule(3)
mod.multiply(tf.constant([1, 2, 3]))

save_path = './saved'
tf.saved_model.save(mod, save_path)

reloaded = tf.saved_model.load(save_path)
reloaded.multiply(tf.constant([1, 2, 3]))

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: import matplotlib
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: from matplotlib import pyplot as plt

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: matplotlib.rcParams['figure.figsize'] = [9, 6]

x = tf.linspace(-2, 2, 201)
x = tf.cast(x, tf.float32)

def f(x):
  y = x**2 + 2*x - 5
  return y

y = f(x) + tf.random.normal(shape=[201])

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(x.numpy(), y.numpy(), '.', label='Data')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(x, f(x), label='Ground truth')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.legend();

class Model(tf.Module):

  def __init__(self):
    # Randomly generate weight and bias terms
    rand_init = tf.random.uniform(shape=[3], minval=0., maxval=5., seed=22)
    # Initialize model parameters
    self.w_q = tf.Variable(rand_init[0])
    self.w_l = tf.Variable(rand_init[1])
    self.b = tf.Variable(rand_init[2])
  
  @tf.function
  def __call__(self, x):
    # Quadratic Model : quadratic_weight * x^2 + linear_weight * x + bias
    return self.w_q * (x**2) + self.w_l * x + self.b

quad_model = Model()

def plot_preds(x, y, f, model, title):
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure()
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(x, y, '.', label='Data')
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(x, f(x), label='Ground truth')
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(x, model(x), label='Predictions')
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title(title)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.legend()

plot_preds(x, y, f, quad_model, 'Before training')

def mse_loss(y_pred, y):
  return tf.reduce_mean(tf.square(y_pred - y))

batch_size = 32
dataset = tf.data.Dataset.from_tensor_slices((x, y))
dataset = dataset.shuffle(buffer_size=x.shape[0]).batch(batch_size)

# Set training parameters
epochs = 100
learning_rate = 0.01
losses = []

# Format training loop
for epoch in range(epochs):
  for x_batch, y_batch in dataset:
    with tf.GradientTape() as tape:
      batch_loss = mse_loss(quad_model(x_batch), y_batch)
    # Update parameters with respect to the gradient calculations
    grads = tape.gradient(batch_loss, quad_model.variables)
    for g,v in zip(grads, quad_model.variables):
        v.assign_sub(learning_rate*g)
  # Keep track of model loss per epoch
  loss = mse_loss(quad_model(x), y)
  losses.append(loss)
  if epoch % 10 == 0:
    print(f'Mean squared error for step {epoch}: {loss.numpy():0.3f}')

# Plot model results
print("\n")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(range(epochs), losses)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel("Epoch")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylabel("Mean Squared Error (MSE)")
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title('MSE loss vs training iterations');

plot_preds(x, y, f, quad_model, 'After training')

new_model = tf.keras.Sequential([
    tf.keras.layers.Lambda(lambda x: tf.stack([x, x**2], axis=1)),
    tf.keras.layers.Dense(units=1, kernel_initializer=tf.random.normal)])

new_model.compile(
    loss=tf.keras.losses.MSE,
    optimizer=tf.keras.optimizers.SGD(learning_rate=0.01))

history = new_model.fit(x, y,
                        epochs=100,
                        batch_size=32,
                        verbose=0)

new_model.save('./my_new_model.keras')

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(history.history['loss'])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel('Epoch')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0, max(plt.ylim())])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylabel('Loss [Mean Squared Error]')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.title('Keras training progress');

plot_preds(x, y, f, new_model, 'After Training: Keras')
