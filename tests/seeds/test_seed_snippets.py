"""The code snippets of the TF2 guides in /work/shared/seeds, run with ``import tfcore as tf``.

One test per snippet, named after the guide (``effective_tf2`` = 000, ``tf2_overview`` = 001,
``tf2_intro`` = 002, ``autograph_module`` = 002's second half, ``tf2_notes`` = 003/004) and its
section. The code is kept as close to the guide as possible; the changes are:

- downloads (MNIST, cats_vs_dogs files) are replaced by small in-test NumPy arrays or the
  bundled ``tf.keras.datasets.digits``; epochs and sizes are shrunk;
- ``@tf.function`` decorators are kept and run as tf.function (traced, then replayed);
- placeholders of the guides (``[...]``, ``Conv2D()`` without arguments, undefined names)
  are filled in with the smallest thing that fits, and plain typos that would make the
  snippet fail under TensorFlow too are corrected and marked ``# guide typo``.

Out of scope and not covered: checkpoints, SavedModel,
tf.summary/TensorBoard, TFRecord/tf.io, Keras-Tuner, TF-Lite and TF.js converters.
"""

import numpy as np
import pytest

import tfcore as tf

# --------------------------------------------------------------------------------------------
# Shared small data (stand-ins for the guides' downloads).
# --------------------------------------------------------------------------------------------


def _digits(n_train=512, n_test=128, flat=False):
    """Bundled 8x8 digits scaled to [0, 1]: the stand-in for MNIST in every snippet."""
    (x, y), (xt, yt) = tf.keras.datasets.digits.load_data()
    x = x[:n_train].astype(np.float32) / 16.0
    xt = xt[:n_test].astype(np.float32) / 16.0
    if flat:
        x, xt = x.reshape(len(x), -1), xt.reshape(len(xt), -1)
    return (x, y[:n_train]), (xt, yt[:n_test])


def _accuracy(model, x, y):
    return float(np.mean(np.argmax(np.asarray(model(x)), axis=-1) == y))


@pytest.fixture(autouse=True)
def _seeded():
    tf.keras.backend.clear_session()
    tf.random.set_seed(1234)
    np.random.seed(1234)
    yield


# ============================================================================================
# 000  Effective TensorFlow 2.0 (高效的TensorFlow 2.0)
# ============================================================================================


def test_effective_tf2_functions_not_sessions():
    """§1.4: ``outputs = f(input)`` replaces ``session.run(f(placeholder), feed_dict=...)``."""

    def f(x):
        return tf.square(x) + 1.0

    input = tf.constant([1.0, 2.0, 3.0])  # noqa: A001 (the guide's name)
    outputs = f(input)
    np.testing.assert_allclose(outputs.numpy(), [2.0, 5.0, 10.0])


def test_effective_tf2_dense_functions_manage_own_variables():
    """§2.2 first half: ``dense(x, W, b)`` helpers; the MLP is a ``@tf.function``."""

    def dense(x, W, b):
        return tf.nn.sigmoid(tf.matmul(x, W) + b)

    @tf.function
    def multilayer_perceptron(x, w0, b0, w1, b1, w2, b2):
        x = dense(x, w0, b0)
        x = dense(x, w1, b1)
        x = dense(x, w2, b2)
        return x

    rng = np.random.default_rng(0)
    shapes = [(5, 8), (8, 4), (4, 2)]
    params = []
    for s in shapes:
        params += [tf.Variable(rng.standard_normal(s).astype(np.float32)), tf.Variable(np.zeros(s[1], np.float32))]
    x = rng.standard_normal((3, 5)).astype(np.float32)
    out = multilayer_perceptron(tf.constant(x), *params)

    ref = x
    for k in range(3):
        w, b = params[2 * k].numpy(), params[2 * k + 1].numpy()
        ref = 1.0 / (1.0 + np.exp(-(ref @ w + b)))
    assert out.shape == (3, 2)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)


def test_effective_tf2_keras_layers_manage_variables():
    """§2.2: ``layers[3].trainable_variables`` -> [w3, b3]; the Sequential collects them all."""
    hidden_size, n = 16, 4
    # 每个图层都可以调用，其签名等价于linear(x)
    layers = [tf.keras.layers.Dense(hidden_size, activation=tf.nn.sigmoid) for _ in range(n)]
    perceptron = tf.keras.Sequential(layers)

    y = perceptron(tf.ones((2, 3)))
    assert y.shape == (2, hidden_size)
    w3, b3 = layers[3].trainable_variables
    assert w3.shape == (hidden_size, hidden_size) and b3.shape == (hidden_size,)
    assert len(perceptron.trainable_variables) == 2 * n
    assert perceptron.trainable_variables[6] is w3 and perceptron.trainable_variables[7] is b3
    assert perceptron.trainable_variables[0].shape == (3, hidden_size)


def test_effective_tf2_transfer_learning_shared_trunk():
    """§2.2: a shared trunk with two heads; fine-tuning head2 leaves the trunk untouched."""
    (x_train, y_train), _ = _digits(256, flat=True)
    main_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(64)
    small_dataset = tf.data.Dataset.from_tensor_slices((x_train[:64], y_train[:64] % 2)).batch(32)
    loss_fn_head1 = lambda prediction, y: tf.reduce_mean(  # noqa: E731
        tf.keras.losses.sparse_categorical_crossentropy(y, prediction, from_logits=True))
    loss_fn_head2 = loss_fn_head1
    optimizer = tf.keras.optimizers.Adam(0.01)

    trunk = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu")])
    head1 = tf.keras.Sequential([tf.keras.layers.Dense(10)])
    head2 = tf.keras.Sequential([tf.keras.layers.Dense(2)])

    path1 = tf.keras.Sequential([trunk, head1])
    path2 = tf.keras.Sequential([trunk, head2])

    # 训练主要数据集
    losses = []
    for _ in range(3):
        for x, y in main_dataset:
            with tf.GradientTape() as tape:
                prediction = path1(x)
                loss = loss_fn_head1(prediction, y)
            # 同时优化trunk和head1的权重
            gradients = tape.gradient(loss, path1.trainable_variables)
            optimizer.apply_gradients(zip(gradients, path1.trainable_variables))
            losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert len(path1.trainable_variables) == 4

    trunk_before = [v.numpy().copy() for v in trunk.trainable_variables]
    # 微调第二个头部，重用trunk
    for x, y in small_dataset:
        with tf.GradientTape() as tape:
            prediction = path2(x)
            loss = loss_fn_head2(prediction, y)
        # 只优化head2的权重，不是trunk的权重
        gradients = tape.gradient(loss, head2.trainable_variables)
        optimizer.apply_gradients(zip(gradients, head2.trainable_variables))
    for before, v in zip(trunk_before, trunk.trainable_variables):
        np.testing.assert_array_equal(before, v.numpy())
    assert len(path2.trainable_variables) == 4
    # tf.saved_model.save(trunk, output_path) -- SavedModel is out of scope


@tf.function
def _train_eager(model, dataset, optimizer, loss_fn):
    """§2.3's ``@tf.function`` ``train``: AutoGraph turns the loop over the dataset into Python iteration
    while tracing (one trace per model)."""
    for x, y in dataset:
        with tf.GradientTape() as tape:
            prediction = model(x)
            loss = loss_fn(prediction, y)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


def test_effective_tf2_datasets_custom_train_loop():
    """§2.3: iterate a tf.data.Dataset in a GradientTape loop inside ``@tf.function``."""
    (x_train, y_train), (x_test, y_test) = _digits(flat=True)
    dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(512).batch(64)
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(10)])
    loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    loss_fn = lambda prediction, y: loss_obj(y, prediction)  # noqa: E731
    optimizer = tf.keras.optimizers.Adam(0.01)
    first = float(loss_fn(model(x_train), y_train))
    for _ in range(5):
        _train_eager(model, dataset, optimizer, loss_fn)
    assert float(loss_fn(model(x_train), y_train)) < 0.5 * first
    assert _accuracy(model, x_test, y_test) > 0.85


def test_effective_tf2_keras_fit_dataset():
    """§2.3: ``model.compile(optimizer=optimizer, loss=loss_fn); model.fit(dataset)``."""
    (x_train, y_train), (x_test, y_test) = _digits(flat=True)
    dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(512).batch(32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(10)])
    optimizer = tf.keras.optimizers.Adam(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    model.compile(optimizer=optimizer, loss=loss_fn)
    history = model.fit(dataset, epochs=4, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert _accuracy(model, x_test, y_test) > 0.85


def test_effective_tf2_metrics_aggregate_before_logging():
    """§2.5: ``tf.keras.metrics.Mean`` accumulates; log every ``log_freq`` steps; ``reset_states``.

    ``tf.summary.scalar`` (out of scope) is replaced by appending to a list.
    """
    (x_train, y_train), (test_x, test_y) = _digits(flat=True)
    dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(16)
    model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
    optimizer = tf.keras.optimizers.SGD(0.5)
    loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    loss_fn = lambda prediction, y: loss_obj(y, prediction)  # noqa: E731
    logged = []

    def train_step(model, optimizer, images, labels):
        with tf.GradientTape() as tape:
            loss = loss_fn(model(images), labels)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    def train(model, optimizer, dataset, log_freq=10):
        avg_loss = tf.keras.metrics.Mean(name='loss', dtype=tf.float32)
        step_losses = []
        for images, labels in dataset:
            loss = train_step(model, optimizer, images, labels)
            step_losses.append(float(loss))
            avg_loss.update_state(loss)
            if tf.equal(optimizer.iterations % log_freq, 0):
                logged.append((int(optimizer.iterations), float(avg_loss.result()), np.mean(step_losses)))
                step_losses = []
                avg_loss.reset_states()

    def test(model, test_x, test_y, step_num):
        loss = loss_fn(model(test_x), test_y)
        logged.append((int(step_num), float(loss), None))

    train(model, optimizer, dataset)
    test(model, test_x, test_y, optimizer.iterations)

    assert [step for step, _, _ in logged[:-1]] == [10, 20, 30]  # 512 / 16 = 32 steps
    for _, mean, ref in logged[:-1]:
        np.testing.assert_allclose(mean, ref, rtol=1e-5)  # reset_states restarted the mean
    assert logged[2][1] < logged[0][1]
    assert logged[-1][0] == 32 and logged[-1][1] < 1.0


# ============================================================================================
# 001  Everything about TensorFlow 2.0 (关于 TensorFlow 2.0 你需要了解的一切)
# ============================================================================================

IMAGE_HEIGHT, IMAGE_WIDTH, IMAGE_DEPTH, N_CLASSES = 8, 8, 1, 10


def test_tf2_overview_sequential_api():
    """Sequential API: Flatten/Dense/Dropout, compile('adam', sparse CE, accuracy), summary, fit."""
    from tfcore.keras.layers import Dense, Dropout, Flatten

    model = tf.keras.models.Sequential()
    model.add(Flatten(input_shape=(IMAGE_HEIGHT, IMAGE_WIDTH)))
    model.add(Dense(units=32, activation='relu'))
    model.add(Dropout(0.3))
    model.add(Dense(units=32, activation='relu'))
    model.add(Dense(units=10, activation='softmax'))

    # Configures the model for training.
    # Define the model optimizer, the loss function and the accuracy metrics
    model.compile(optimizer='adam',
                  loss='sparse_categorical_crossentropy',
                  metrics=['accuracy'])
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "Total params: 3,466" in text  # 64*32+32 + 32*32+32 + 32*10+10

    (x_train, y_train), (x_test, y_test) = _digits()
    history = model.fit(x_train, y_train, epochs=15, batch_size=32, verbose=0)
    assert history.history["accuracy"][-1] > history.history["accuracy"][0]
    loss, acc = model.evaluate(x_test, y_test, verbose=0)
    assert acc > 0.8


class _SubclassedCNN(tf.keras.Model):
    """The guide's subclassed model (``from tf.keras.layers import Conv2D, MaxPool2D, ...``)."""

    def __init__(self):
        from tfcore.keras.layers import Conv2D, Dense, Flatten, MaxPool2D
        # Define the layers here
        super(_SubclassedCNN, self).__init__()
        self.num_classes = N_CLASSES  # guide omission: compute_output_shape reads self.num_classes
        self.conv1 = Conv2D(filters=8, kernel_size=4, padding="same", strides=1,
                            input_shape=(IMAGE_HEIGHT, IMAGE_WIDTH, IMAGE_DEPTH))
        self.conv2 = Conv2D(filters=16, kernel_size=4, padding="same", strides=1)
        self.pool = MaxPool2D(pool_size=2, strides=2, padding="same")
        self.flat = Flatten()
        self.probs = Dense(units=N_CLASSES, activation='softmax', name="output")

    def call(self, x):
        # Define the forward pass
        net = self.conv1(x)
        net = self.pool(net)
        net = self.conv2(net)
        net = self.pool(net)
        net = self.flat(net)
        net = self.probs(net)
        return net

    def compute_output_shape(self, input_shape):
        # You need to override this function if you want to use the subclassed model
        # as part of a functional-style model.
        # Otherwise, this method is optional.
        shape = tf.TensorShape(input_shape).as_list()
        shape[-1] = self.num_classes
        return tf.TensorShape(shape)


def test_tf2_overview_model_subclassing_fit():
    """Subclassed model: forward pass shapes, compute_output_shape, and fit() on NumPy arrays."""
    (x_train, y_train), (x_test, y_test) = _digits(384)
    x_train, x_test = x_train[..., None], x_test[..., None]
    model = _SubclassedCNN()
    out = model(x_train[:5])
    assert out.shape == (5, N_CLASSES)
    np.testing.assert_allclose(out.numpy().sum(axis=1), 1.0, rtol=1e-5)
    assert model.compute_output_shape((None, 8, 8, 1)).as_list() == [None, 8, 8, N_CLASSES]
    # conv1 8*(16+1) + conv2 16*(8*16+1) + dense (2*2*16)*10+10
    assert model.count_params() == 8 * 17 + 16 * 129 + 64 * 10 + 10

    model.compile(optimizer='adam', loss='sparse_categorical_crossentropy', metrics=['accuracy'])
    history = model.fit(x=x_train, y=y_train, epochs=10, batch_size=16, validation_data=(x_test, y_test),
                        verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["val_accuracy"][-1] > 0.8


def test_tf2_overview_gradient_tape_train_step():
    """The GradientTape train_step with one_hot + CE, train_loss/train_accuracy metrics.

    The guide decorates ``train_step`` with ``@tf.function``; the metrics update inside the graph.
    """
    (x_train, y_train), _ = _digits(384)
    model = _SubclassedCNN()
    cross_entropy = tf.keras.losses.CategoricalCrossentropy()
    optimizer = tf.keras.optimizers.Adam(0.01)
    train_loss = tf.keras.metrics.Mean(name='train_loss')
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name='train_accuracy')

    @tf.function
    def train_step(images, labels):

        with tf.GradientTape() as tape:
            # forward pass
            predictions = model(images)

            # compute the loss
            loss = cross_entropy(tf.one_hot(labels, N_CLASSES), predictions)

        # get the gradients w.r.t the model's weights
        gradients = tape.gradient(loss, model.trainable_variables)

        # perform a gradient descent step
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))

        # accumulates the training loss and accuracy
        train_loss(loss)
        train_accuracy(labels, predictions)

    epoch_losses, epoch_accs = [], []
    for _ in range(4):
        train_loss.reset_states()
        train_accuracy.reset_states()
        for images, labels in tf.data.Dataset.from_tensor_slices((x_train[..., None], y_train)).batch(32):
            train_step(images, labels)
        epoch_losses.append(float(train_loss.result()))
        epoch_accs.append(float(train_accuracy.result()))
    assert epoch_losses[-1] < epoch_losses[0]
    assert epoch_accs[-1] > 0.7


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the deliberate NaN run
def test_tf2_overview_callbacks():
    """EarlyStopping, ReduceLROnPlateau, TerminateOnNaN and LambdaCallback passed to fit()."""
    (x_train, y_train), (x_test, y_test) = _digits(256, flat=True)
    model = tf.keras.Sequential([tf.keras.layers.Dense(10, activation="softmax")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss='sparse_categorical_crossentropy')
    seen = []
    callbacks = [
        tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=0, min_delta=10.0),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=0, min_delta=10.0),
        tf.keras.callbacks.TerminateOnNaN(),
        tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append((epoch, sorted(logs)))),
    ]
    history = model.fit(x=x_train, y=y_train, epochs=10, validation_data=(x_test, y_test), callbacks=callbacks,
                        verbose=0)
    # min_delta=10 means no epoch counts as an improvement: epoch 0 sets the baseline, epoch 1 stops.
    assert len(history.history["loss"]) == 2
    assert [e for e, _ in seen] == [0, 1]
    assert {"loss", "val_loss"} <= set(seen[0][1])
    np.testing.assert_allclose(float(model.optimizer.learning_rate), 0.05, rtol=1e-6)

    nan_model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    nan_model.compile(optimizer=tf.keras.optimizers.SGD(1e30), loss="mse")
    nan_history = nan_model.fit(x_train, np.full((256, 1), 1e30, np.float32), epochs=5, batch_size=32,
                                callbacks=[tf.keras.callbacks.TerminateOnNaN()], verbose=0)
    assert len(nan_history.history["loss"]) == 1  # stopped inside the first epoch


# ============================================================================================
# 002  TF 2.0 introduction (first half): eager autograd, Keras, tf.data.from_generator
# ============================================================================================


def test_tf2_intro_eager_execution_autodiff():
    """§2.3.1: ``z = x * y + tf.sin(x)`` and dz/dx.

    The guide calls ``tf.gradients``, which TF2 refuses in eager mode ("Use tf.GradientTape
    instead"); the tape version is what runs. (The printed numbers in the guide are wrong:
    z = 6 + sin 3 = 6.1411, dz/dx = y + cos 3 = 1.0100.)
    """
    x = tf.constant(3.0)  # 定义一个常量张量
    y = tf.constant(2.0)  # 定义另一个常量张量
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = x * y + tf.sin(x)  # 将两个张量相乘和 sin 运算后得到一个新的张量 z
    assert "tf.Tensor(6.14112, shape=(), dtype=float32)" == str(z)
    dz_dx = tape.gradient(z, [x])[0]
    np.testing.assert_allclose(dz_dx.numpy(), 2.0 + np.cos(3.0), rtol=1e-6)
    with pytest.raises(RuntimeError, match="GradientTape"):
        tf.gradients(z, [x])


def test_tf2_intro_keras_binary_classifier():
    """§2.3.2: Dense(64) x2 + sigmoid, rmsprop + binary_crossentropy, fit with validation_split."""
    from tfcore.keras import layers, models

    rng = np.random.default_rng(0)
    n_features = 100  # the guide's 10000-word bag of words, shrunk
    train_data = (rng.random((600, n_features)) < 0.1).astype(np.float32)
    w_true = rng.standard_normal(n_features)
    train_labels = (train_data @ w_true > 0).astype(np.float32)

    model = models.Sequential()  # 创建一个序贯模型
    model.add(layers.Dense(64, activation='relu', input_shape=(n_features,)))  # 添加一个全连接层
    model.add(layers.Dense(64, activation='relu'))  # 添加另一个全连接层
    model.add(layers.Dense(1, activation='sigmoid'))  # 添加一个输出层（二分类任务）

    model.compile(optimizer='rmsprop',
                  loss='binary_crossentropy',
                  metrics=['accuracy'])

    history = model.fit(train_data, train_labels,
                        epochs=10, batch_size=64,
                        validation_split=0.2, verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.9
    assert history.history["val_accuracy"][-1] > 0.7


def test_tf2_intro_savedmodel_cnn_evaluate():
    """§2.3.5's CNN (Conv2D/MaxPooling2D/Flatten/Dense) compiled and evaluated; save/load is out of scope."""
    (train_images, train_labels), (test_images, test_labels) = _digits(256)
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, (3, 3), activation='relu', input_shape=(8, 8, 1)),
        tf.keras.layers.MaxPooling2D((2, 2)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation='relu'),
        tf.keras.layers.Dense(10, activation='softmax')
    ])
    model.compile(optimizer='adam',
                  loss='sparse_categorical_crossentropy',
                  metrics=['accuracy'])
    model.fit(train_images[..., None], train_labels, epochs=8, batch_size=16, verbose=0)
    # model.save('my_model'); new_model = tf.keras.models.load_model('my_model')  -- out of scope
    test_loss, test_acc = model.evaluate(test_images[..., None], test_labels, verbose=0)
    assert model.count_params() == (9 * 32 + 32) + (3 * 3 * 32 * 64 + 64) + (64 * 10 + 10)
    assert test_acc > 0.7 and test_loss < 1.5


def test_tf2_intro_dataset_from_generator_lazy_loading():
    """§2.3.6: from_generator(...).batch(32).prefetch(AUTOTUNE) into fit/evaluate of a subclassed CNN.

    The guide's generator yields a (32, 28, 28) block per element, which cannot feed the
    model it builds for (None, 28, 28, 1); it is changed to yield one (28, 28, 1) image.
    """
    import timeit

    # 生成随机数据集
    def generate_dataset():
        for i in range(64):
            yield np.random.randn(28, 28, 1).astype(np.float32), np.random.randint(10)

    # 定义模型
    class MyModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv1 = tf.keras.layers.Conv2D(4, kernel_size=3)
            self.flatten = tf.keras.layers.Flatten()
            self.dense1 = tf.keras.layers.Dense(16, activation='relu')
            self.dense2 = tf.keras.layers.Dense(10, activation='softmax')

        def call(self, inputs):
            x = self.conv1(inputs)
            x = self.flatten(x)
            x = self.dense1(x)
            return self.dense2(x)

    # 创建 Dataset
    dataset = tf.data.Dataset.from_generator(generate_dataset, output_types=(tf.float32, tf.int32))\
                             .batch(32)\
                             .prefetch(buffer_size=tf.data.experimental.AUTOTUNE)

    # 定义输入形状
    input_shape = (None, 28, 28)

    # 构建模型并编译
    model = MyModel()
    model.build(input_shape=[*input_shape, 1])  # 指定输入形状
    assert model.count_params() == (9 * 4 + 4) + (26 * 26 * 4 * 16 + 16) + (16 * 10 + 10)
    model.compile(optimizer='adam', loss='sparse_categorical_crossentropy', metrics=['accuracy'])

    # 训练模型
    start = timeit.default_timer()
    history = model.fit(dataset, epochs=2, verbose=False)
    stop = timeit.default_timer()
    assert stop > start and len(history.history["loss"]) == 2

    # 测试模型
    test_images = np.random.randn(100, 28, 28, 1).astype(np.float32)
    test_labels = np.random.randint(10, size=100)
    test_ds = tf.data.Dataset.from_tensor_slices((test_images, test_labels)).batch(32)
    test_loss, test_acc = model.evaluate(test_ds, verbose=False)
    assert 0.0 <= test_acc <= 1.0 and np.isfinite(test_loss)
    probs = model.predict(test_ds, verbose=0)
    assert probs.shape == (100, 10)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)


# ============================================================================================
# 002  second half: Autograph rules and tf.Module (AutoGraph相关研究 / tf.Module概述)
# ============================================================================================


def test_autograph_module_rules_under_tf_function(capsys):
    """The three rule examples with their ``@tf.function`` decorators, and what each rule warns about.

    ``np_random`` bakes the NumPy matrix drawn while tracing into the graph (every call prints the
    same matrix) while ``tf_random`` draws anew per call; ``outer_var`` updates a variable created
    outside; ``append_tensor`` appends to the outer Python list only while tracing.
    """

    @tf.function
    def np_random():
        a = np.random.randn(3, 3)
        tf.print(a)

    @tf.function
    def tf_random():
        a = tf.random.normal((3, 3))
        tf.print(a)
        return a

    np_random()
    np_random()
    out = capsys.readouterr()
    lines = (out.out + out.err).splitlines()
    assert len(lines) == 6 and lines[:3] == lines[3:]  # the same (trace-time) matrix twice
    a1, a2 = tf_random(), tf_random()
    assert a1.shape == (3, 3) and a1.dtype == tf.float32 and not np.allclose(a1.numpy(), a2.numpy())
    out = capsys.readouterr()
    assert (out.out + out.err).count("[[") == 2

    x = tf.Variable(1.0, dtype=tf.float32)

    @tf.function
    def outer_var():
        x.assign_add(1.0)
        tf.print(x)

    outer_var()
    outer_var()
    assert float(x) == 3.0
    out = capsys.readouterr()
    assert (out.out + out.err).split() == ["2", "3"]

    tensor_list = []

    @tf.function
    def append_tensor(x):
        tensor_list.append(x)
        return tensor_list

    append_tensor(tf.constant(5.0))
    append_tensor(tf.constant(6.0))      # same signature: no trace, the list is not touched
    append_tensor(tf.constant(5.0, dtype=tf.float64))
    assert [t.dtype for t in tensor_list] == [tf.float32, tf.float64]
    assert append_tensor.experimental_get_tracing_count() == 2


class DemoModule(tf.Module):
    """The guide's DemoModule with ``addprint``'s ``@tf.function(input_signature=...)``."""

    def __init__(self, init_value=tf.constant(0.0), name=None):
        super(DemoModule, self).__init__(name=name)
        with self.name_scope:
            self.x = tf.Variable(init_value, dtype=tf.float32, trainable=True)

    @tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.float32)])
    def addprint(self, a):
        with self.name_scope:
            self.x.assign_add(a)
            tf.print(self.x)
            return (self.x)


def test_autograph_module_demo_module(capsys):
    """tf.Module subclass: variables, trainable_variables, submodules, name_scope-prefixed names."""
    demo = DemoModule(init_value=tf.constant(1.0))
    result = demo.addprint(tf.constant(5.0))
    assert float(result) == 6.0
    out = capsys.readouterr()
    assert (out.out + out.err).strip() == "6"
    assert demo.name == "demo_module"
    assert demo.variables == (demo.x,)
    assert demo.trainable_variables == (demo.x,)
    assert demo.x.name == "demo_module/Variable:0"
    assert tuple(demo.submodules) == ()

    class Outer(tf.Module):
        def __init__(self):
            super().__init__()
            self.inner = DemoModule(name="inner")
            self.frozen = tf.Variable(0.0, trainable=False)

    outer = Outer()
    assert list(outer.submodules) == [outer.inner]
    assert len(outer.variables) == 2 and outer.trainable_variables == (outer.inner.x,)
    # tf.saved_model.save / tf.summary.trace_on / trace_export -- out of scope


def test_autograph_module_attach_attributes(capsys):
    """Encapsulation by setting attributes on a bare ``tf.Module()`` (a tf.function with input_signature)."""
    mymodule = tf.Module()
    mymodule.x = tf.Variable(0.0)

    @tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.float32)])
    def addprint(a):
        mymodule.x.assign_add(a)
        tf.print(mymodule.x)
        return (mymodule.x)

    mymodule.addprint = addprint
    mymodule.addprint(tf.constant(1.0)).numpy()
    mymodule.addprint(tf.constant(2.5))
    assert float(mymodule.x) == 3.5
    assert mymodule.variables == (mymodule.x,)
    out = capsys.readouterr()
    assert (out.out + out.err).split() == ["1", "3.5"]


def test_autograph_module_keras_models_are_modules():
    """Keras models/layers are tf.Modules: summary (57 params), variables, freezing a layer, submodules."""
    from tfcore.keras import layers, models

    tf.keras.backend.clear_session()

    model = models.Sequential()
    model.add(layers.Dense(4, input_shape=(10,)))
    model.add(layers.Dense(2))
    model.add(layers.Dense(1))
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert 'Model: "sequential"' in text
    assert "dense (Dense)" in text and "dense_1 (Dense)" in text and "dense_2 (Dense)" in text
    assert "(None, 4)" in text and "44" in text
    assert "Total params: 57" in text and "Trainable params: 57" in text and "Non-trainable params: 0" in text

    assert isinstance(model, tf.Module) and isinstance(model.layers[0], tf.Module)
    assert len(model.variables) == 6
    assert len(model.trainable_variables) == 6
    model.layers[0].trainable = False
    assert len(model.trainable_variables) == 4
    assert len(model.non_trainable_variables) == 2
    assert [v.shape for v in model.trainable_variables] == [(4, 2), (2,), (2, 1), (1,)]
    subs = list(model.submodules)
    assert all(layer in subs for layer in model.layers)
    assert [layer.name for layer in model.layers] == ["dense", "dense_1", "dense_2"]
    lines = []
    model.summary(print_fn=lines.append)
    assert "Trainable params: 13" in "\n".join(lines) and "Non-trainable params: 44" in "\n".join(lines)


# ============================================================================================
# 003/004  TensorFlow 2 notes (TensorFlow 2-Notes): basics, models, custom layers/losses/metrics
# ============================================================================================


def test_tf2_notes_numpy_method():
    """TF2 基础: ``Tensor.numpy()`` turns a tensor into an ndarray (and NumPy accepts tensors)."""
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    a = t.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    np.testing.assert_array_equal(a, [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(np.add(t, 1), a + 1)
    assert (tf.constant(3) * 2).numpy() == 6 and isinstance(tf.constant(3).numpy(), np.int32)


def test_tf2_notes_gradient_tape_optimizer_step():
    """TF2 基础: record with GradientTape, ``tape.gradient(loss, vars)``, ``SGD().apply_gradients``."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 3)).astype(np.float32)
    y = X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
    losses = []
    for _ in range(100):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(X) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    assert losses[-1] < 1e-4 < losses[0]
    np.testing.assert_allclose(model.layers[0].kernel.numpy().ravel(), [1.0, -2.0, 0.5], atol=1e-2)
    np.testing.assert_allclose(model.layers[0].bias.numpy(), [0.3], atol=1e-2)


def test_tf2_notes_subclassed_model_sparse_ce_loop():
    """TF2 模型建立与训练: subclassed MyModel + SparseCategoricalCrossentropy GradientTape loop.

    The guide's ``Conv2D()`` placeholder is filled in; ``model.tranable_variables`` is a guide typo.
    """

    class MyModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.layer1 = tf.keras.layers.Conv2D(10, 8)  # 8x8 digits -> (1, 1, 10) logits
            self.flatten = tf.keras.layers.Flatten()

        def call(self, input):  # noqa: A002 (the guide's name)
            x = self.flatten(self.layer1(input))
            return tf.nn.softmax(x)

    (x_train, y_train), (x_test, y_test) = _digits(256)
    model = MyModel()
    loss_obj = tf.keras.losses.SparseCategoricalCrossentropy()
    optimizer = tf.keras.optimizers.Adam(0.05)
    losses = []
    for images, labels in tf.data.Dataset.from_tensor_slices((x_train[..., None], y_train)).batch(32).repeat(3):
        with tf.GradientTape() as tape:
            predictions = model(images)
            loss = loss_obj(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))  # guide typo: tranable_variables
        losses.append(float(loss))
    assert np.mean(losses[-4:]) < 0.5 * np.mean(losses[:4])
    assert _accuracy(model, x_test[..., None], y_test) > 0.85

    # CategoricalCrossentropy is the one-hot twin of the sparse loss
    probs = model(x_test[:16, ..., None])
    sparse = tf.keras.losses.SparseCategoricalCrossentropy()(y_test[:16], probs)
    dense = tf.keras.losses.CategoricalCrossentropy()(tf.one_hot(y_test[:16], 10), probs)
    np.testing.assert_allclose(sparse.numpy(), dense.numpy(), rtol=1e-5)


def test_tf2_notes_custom_layer_add_weight():
    """自定义层: ``__init__``/``build``/``call`` with ``self.add_weight('v0')`` (``layers.layer`` is a guide typo)."""

    class MyLayer(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()

        def build(self, input_shape):
            # input_shape 是第一次运行call()时参数inputs的shape，无需显式定义
            self.variable0 = self.add_weight('v0')
            self.variable1 = self.add_weight('v1')
            self.input_dim = input_shape[-1]

        def call(self, inputs):
            outputs = inputs * self.variable0 + self.variable1
            return outputs

    layer = MyLayer()
    x = tf.constant([[1.0, 2.0, 3.0]])
    out = layer(x)
    assert layer.built and layer.input_dim == 3
    assert layer.variable0.shape == () and layer.variable0.dtype == tf.float32
    # Keras 3 (TF 2.21) names a weight by its own name and keeps the layer in its path (the notes' TF 2.x
    # printed my_layer/v0:0)
    assert layer.variable0.name == "v0" and layer.variable1.name == "v1"
    assert (layer.variable0.path, layer.variable1.path) == ("my_layer/v0", "my_layer/v1")
    assert len(layer.trainable_weights) == 2
    np.testing.assert_allclose(out.numpy(), x.numpy() * layer.variable0.numpy() + layer.variable1.numpy())
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    g0, g1 = tape.gradient(y, [layer.variable0, layer.variable1])
    assert float(g0) == 6.0 and float(g1) == 3.0


def test_tf2_notes_custom_loss_mse():
    """自定义损失函数: subclass ``tf.keras.losses.Loss`` and override ``call``; use it in compile/fit."""

    class MeanSquaredError(tf.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.square(y_pred - y_true))

    y_true = np.array([[0.0, 1.0], [2.0, 3.0]], np.float32)
    y_pred = np.array([[1.0, 1.0], [2.0, 5.0]], np.float32)
    assert float(MeanSquaredError()(y_true, y_pred)) == pytest.approx(5.0 / 4)
    np.testing.assert_allclose(float(MeanSquaredError()(y_true, y_pred)),
                               float(tf.keras.losses.MeanSquaredError()(y_true, y_pred)), rtol=1e-6)

    rng = np.random.default_rng(0)
    X = rng.standard_normal((128, 4)).astype(np.float32)
    Y = X @ rng.standard_normal((4, 1)).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss=MeanSquaredError())
    history = model.fit(X, Y, epochs=20, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < 1e-3 < history.history["loss"][0]


def test_tf2_notes_custom_metric_sparse_categorical_accuracy():
    """自定义评估指标: the guide's SparseCategoricalAccuracy re-implementation (``__init`` is a guide typo)."""

    class SparseCategoricalAccuracy(tf.keras.metrics.Metric):
        def __init__(self):  # guide typo: __init
            super().__init__()
            self.init = tf.zeros_initializer()
            self.total = self.add_weight(name='total', dtype=tf.int32,
                                         initializer=self.init)
            self.count = self.add_weight(name='count', dtype=tf.int32,
                                         initializer=self.init)

        def update_state(self, y_true, y_pred, sample_weight=None):
            pred = tf.argmax(y_pred, axis=-1, output_type=tf.int32)
            values = tf.cast(tf.equal(y_true, pred), tf.int32)
            self.total.assign_add(tf.shape(y_true)[0])
            self.count.assign_add(tf.reduce_sum(values))

        def result(self):
            return self.count / self.total

    metric = SparseCategoricalAccuracy()
    reference = tf.keras.metrics.SparseCategoricalAccuracy()
    rng = np.random.default_rng(0)
    for _ in range(3):
        y_true = rng.integers(0, 4, size=10).astype(np.int32)
        y_pred = rng.random((10, 4)).astype(np.float32)
        metric.update_state(y_true, y_pred)
        reference.update_state(y_true, y_pred)
    assert int(metric.total) == 30
    result = metric.result()
    assert result.dtype == tf.float64  # int32 / int32 is true division to float64, as in TF
    np.testing.assert_allclose(float(result), float(reference.result()), rtol=1e-6)
    metric.reset_states()
    assert int(metric.total) == 0 and int(metric.count) == 0

    # and it works as a compile() metric
    (x_train, y_train), _ = _digits(128, flat=True)
    model = tf.keras.Sequential([tf.keras.layers.Dense(10, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=[SparseCategoricalAccuracy(), "sparse_categorical_accuracy"])
    logs = model.evaluate(x_train, y_train.astype(np.int32), verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["sparse_categorical_accuracy"], _accuracy(model, x_train, y_train), atol=1e-6)
    custom = [k for k in logs if k not in ("loss", "sparse_categorical_accuracy")]
    assert len(custom) == 1 and logs[custom[0]] == pytest.approx(logs["sparse_categorical_accuracy"])


def test_tf2_notes_keras_applications_mobilenet_v2():
    """使用 keras 中预定义的卷积网络结构: ``tf.keras.applications.MobileNetV2`` with ``weights=None``.

    The default ``weights='imagenet'`` needs a download; the common arguments (input_shape,
    include_top, weights, classes) are exercised instead.
    """
    model = tf.keras.applications.MobileNetV2(input_shape=(32, 32, 3), weights=None, classes=10)
    out = model(np.zeros((2, 32, 32, 3), np.float32))
    assert out.shape == (2, 10)
    np.testing.assert_allclose(out.numpy().sum(axis=1), 1.0, rtol=1e-5)
    headless = tf.keras.applications.MobileNetV2(input_shape=(32, 32, 3), include_top=False, weights=None)
    assert headless.output_shape == (None, 1, 1, 1280)
    with pytest.raises(ValueError):
        tf.keras.applications.MobileNetV2(input_shape=(32, 32, 3), weights="imagenet", classes=10)


def test_tf2_notes_data_from_tensor_slices_map_batch_prefetch():
    """tf.data: from_tensor_slices((data, label)), map(rot90), batch(4), prefetch(AUTOTUNE), parallel map."""
    (train_data, train_label), _ = tf.keras.datasets.digits.load_data()
    train_data, train_label = train_data[:40], train_label[:40]
    # [N,8,8]->[N,8,8,1]
    train_data = np.expand_dims(train_data.astype(np.float32) / 16.0, axis=-1)
    mnist_dataset = tf.data.Dataset.from_tensor_slices((train_data, train_label))
    assert len(mnist_dataset) == 40

    def rot90(image, label):
        image = tf.image.rot90(image)
        return image, label

    mnist_dataset = mnist_dataset.map(rot90)
    mnist_dataset = mnist_dataset.batch(4)
    mnist_dataset = mnist_dataset.prefetch(buffer_size=tf.data.experimental.AUTOTUNE)
    seen = 0
    for images, labels in mnist_dataset:
        assert images.shape == (4, 8, 8, 1) and labels.shape == (4,)
        np.testing.assert_array_equal(images.numpy(), np.rot90(train_data[seen:seen + 4], axes=(1, 2)))
        np.testing.assert_array_equal(labels.numpy(), train_label[seen:seen + 4])
        seen += 4
    assert seen == 40

    parallel = tf.data.Dataset.from_tensor_slices((train_data, train_label)).map(map_func=rot90, num_parallel_calls=4)
    auto = tf.data.Dataset.from_tensor_slices((train_data, train_label)).map(
        map_func=rot90, num_parallel_calls=tf.data.experimental.AUTOTUNE)
    for (a, la), (b, lb), img in zip(parallel, auto, train_data):  # order is kept (deterministic by default)
        np.testing.assert_array_equal(a.numpy(), np.rot90(img))
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        assert int(la) == int(lb)


def test_tf2_notes_data_iter_next():
    """Dataset 元素的获取与使用: ``for a, b, c in dataset`` and ``it = iter(dataset); next(it)``."""
    A = np.arange(6, dtype=np.float32).reshape(3, 2)
    B = np.array([10, 20, 30], np.int64)
    C = np.array([b"x", b"y", b"z"])
    dataset = tf.data.Dataset.from_tensor_slices((A, B, C))
    it = iter(dataset)
    a0, b0, c0 = next(it)
    a1, b1, c1 = next(it)
    np.testing.assert_array_equal(a0.numpy(), [0.0, 1.0])
    assert int(b1) == 20 and c1.numpy() == b"y" and c0.dtype == tf.string
    rows = [(a.numpy().tolist(), int(b), c.numpy()) for a, b, c in dataset]
    assert rows == [([0.0, 1.0], 10, b"x"), ([2.0, 3.0], 20, b"y"), ([4.0, 5.0], 30, b"z")]
    with pytest.raises(StopIteration):
        next(it), next(it)


def test_tf2_notes_cats_vs_dogs_pipeline():
    """cats_vs_dogs: string filename tensors and int labels joined with tf.concat; map/shuffle/batch/prefetch; fit.

    tf.io.read_file/decode_jpeg are out of scope: ``_decode_and_resize`` takes decoded in-memory
    images (two synthetic classes: bright-left "cats" and bright-right "dogs") and resizes them to
    16x16 instead of 256x256. The guide's empty ``tf.keras.Sequential()`` gets a small classifier.
    """
    num_epochs = 3
    batch_size = 8
    learning_rate = 0.01
    rng = np.random.default_rng(0)
    cats = rng.integers(0, 100, size=(24, 20, 20, 3)).astype(np.uint8)
    cats[:, :, :10] += 150
    dogs = rng.integers(0, 100, size=(24, 20, 20, 3)).astype(np.uint8)
    dogs[:, :, 10:] += 150

    def _decode_and_resize(image, label):
        image_resized = tf.image.resize(image, [16, 16]) / 255.0
        return image_resized, label

    train_cat_filenames = tf.constant([f"/train/cats/cat.{i}.jpg" for i in range(len(cats))])
    train_dog_filenames = tf.constant([f"/train/dogs/dog.{i}.jpg" for i in range(len(dogs))])
    train_filenames = tf.concat([train_cat_filenames, train_dog_filenames], axis=-1)
    assert train_filenames.shape == (48,) and train_filenames[24].numpy() == b"/train/dogs/dog.0.jpg"
    # 将标签二值化
    train_labels = tf.concat([tf.zeros(train_cat_filenames.shape, dtype=tf.int32),
                              tf.ones(train_dog_filenames.shape, dtype=tf.int32)], axis=-1)
    np.testing.assert_array_equal(train_labels.numpy(), [0] * 24 + [1] * 24)
    train_images = np.concatenate([cats, dogs])
    train_dataset = tf.data.Dataset.from_tensor_slices((train_images, train_labels))
    # 并行地将构建Dataset
    train_dataset = train_dataset.map(map_func=_decode_and_resize,
                                      num_parallel_calls=tf.data.experimental.AUTOTUNE)
    train_dataset = train_dataset.shuffle(20000).batch(batch_size)
    train_dataset = train_dataset.prefetch(tf.data.experimental.AUTOTUNE)

    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation='relu', input_shape=(16, 16, 3)),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(2, activation='softmax'),
    ])

    model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate),
                  loss=tf.keras.losses.sparse_categorical_crossentropy,
                  metrics=[tf.keras.metrics.sparse_categorical_accuracy])

    history = model.fit(train_dataset, epochs=num_epochs, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["sparse_categorical_accuracy"][-1] > 0.9


def test_tf2_notes_tf_function_train_step_eager(tmp_path):
    """tf.function 基础使用方法: the MNIST CNN train_step, run eagerly (decorator-only ``@tf.function`` dropped).

    ``MNISTLoader``/``CNN`` come from the guide's earlier chapters; small stand-ins are defined
    here. ``predections`` is a guide typo for ``predictions``. ``tf.print`` inside the step stays.
    """

    class MNISTLoader:
        def __init__(self):
            (self.train_data, self.train_label), _ = _digits(512)
            self.train_data = self.train_data[..., None]

        def get_batch(self, batch_size):
            index = np.random.randint(0, self.train_data.shape[0], batch_size)
            return self.train_data[index, :], self.train_label[index]

    class CNN(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv1 = tf.keras.layers.Conv2D(filters=8, kernel_size=[3, 3], padding='same', activation=tf.nn.relu)
            self.pool1 = tf.keras.layers.MaxPool2D(pool_size=[2, 2], strides=2)
            self.flatten = tf.keras.layers.Reshape(target_shape=(4 * 4 * 8,))
            self.dense1 = tf.keras.layers.Dense(units=32, activation=tf.nn.relu)
            self.dense2 = tf.keras.layers.Dense(units=10)

        def call(self, inputs):
            x = self.pool1(self.conv1(inputs))
            x = self.dense1(self.flatten(x))
            return tf.nn.softmax(self.dense2(x))

    num_batches = 60
    batch_size = 32
    learning_rate = 0.01
    data_loader = MNISTLoader()
    model = CNN()
    optimizer = tf.keras.optimizers.Adam(learning_rate=learning_rate)
    log_path = tmp_path / "log.txt"  # tf.print's output goes to a file so the test can read it

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            predictions = model(images)  # guide typo: predections
            loss = tf.keras.losses.sparse_categorical_crossentropy(labels, predictions)
            loss = tf.reduce_mean(loss)
            # 注意：这里使用的是tf.print()，@tf.function下不支持Python内置的print方法
            tf.print('loss', loss, output_stream="file://" + str(log_path))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    losses = [float(train_step(*data_loader.get_batch(batch_size))) for _ in range(num_batches)]
    lines = log_path.read_text().splitlines()
    assert len(lines) == num_batches and lines[0].startswith("loss ")
    assert float(lines[0].split()[1]) == pytest.approx(losses[0], rel=1e-5)
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])
    assert int(optimizer.iterations) == num_batches


def test_effective_tf2_dynamic_rnn_tensor_array():
    """§2.4 DynamicRNN: a Python loop over ``tf.range`` writing cell outputs into a ``tf.TensorArray``.

    Adapted from the TF1 cell API: ``zero_state(batch, dtype)`` is Keras's
    ``get_initial_state(batch_size=, dtype=)`` and a Keras cell returns ``(output, [state])``.
    ``super().__init__(self)`` passes ``self`` as a positional argument (a guide typo).
    """

    class DynamicRNN(tf.keras.Model):

        def __init__(self, rnn_cell):
            super(DynamicRNN, self).__init__()  # guide typo: __init__(self)
            self.cell = rnn_cell

        def call(self, input_data):
            # [batch, time, features] -> [time, batch, features]
            input_data = tf.transpose(input_data, [1, 0, 2])
            outputs = tf.TensorArray(tf.float32, input_data.shape[0])
            state = self.cell.get_initial_state(batch_size=input_data.shape[1], dtype=tf.float32)
            for i in tf.range(input_data.shape[0]):
                output, state = self.cell(input_data[i], state)
                outputs = outputs.write(i, output)
            return tf.transpose(outputs.stack(), [1, 0, 2]), state

    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 4)).astype(np.float32)
    model = DynamicRNN(tf.keras.layers.SimpleRNNCell(6))
    seq, state = model(x)
    assert seq.shape == (3, 5, 6)

    # the same weights in Keras's own RNN layer give the same sequence
    reference = tf.keras.layers.RNN(model.cell, return_sequences=True, return_state=True)
    ref_seq, ref_state = reference(x)
    np.testing.assert_allclose(seq.numpy(), ref_seq.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(state[0] if isinstance(state, list) else state), ref_state.numpy(),
                               rtol=1e-5, atol=1e-6)
    # gradients flow through TensorArray.write/stack
    with tf.GradientTape() as tape:
        seq, _ = model(x)
        loss = tf.reduce_sum(seq)
    grads = tape.gradient(loss, model.trainable_variables)
    assert len(grads) == 3 and all(g is not None and np.all(np.isfinite(g.numpy())) for g in grads)


def test_tf2_notes_tensor_array():
    """tf.TensorArray: ``TensorArray(dtype, size, dynamic_size)``, ``write``/``read``, ``stack``/``unstack``."""
    arr = tf.TensorArray(tf.float32, size=3, dynamic_size=False)
    for i in range(3):
        arr = arr.write(i, tf.fill([2], float(i)))
    np.testing.assert_array_equal(arr.stack().numpy(), [[0, 0], [1, 1], [2, 2]])
    np.testing.assert_array_equal(arr.read(1).numpy(), [1.0, 1.0])
    with pytest.raises(tf.errors.OutOfRangeError):
        arr.write(3, tf.zeros([2]))  # not resizeable
    with pytest.raises(tf.errors.InvalidArgumentError):
        arr.read(1)  # clear_after_read defaults to True

    grow = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    grow = grow.unstack(tf.constant([[1, 2], [3, 4]]))
    grow = grow.write(3, [7, 8])  # index 2 stays unwritten -> zeros
    assert int(grow.size()) == 4
    np.testing.assert_array_equal(grow.stack().numpy(), [[1, 2], [3, 4], [0, 0], [7, 8]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype is int32"):
        grow.write(0, tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="Incompatible shape"):
        grow.write(0, [1, 2, 3])


# ============================================================================================
# 004  tf.config: GPU 的使用与分配 (on fake host-memory GPUs) and MirroredStrategy (logical CPUs)
# ============================================================================================


def test_tf2_notes_config_list_and_visible_devices(fake_gpus):
    """指定当前程序使用的 GPU: list_physical_devices on a 4-GPU box; set_visible_devices(gpus[0:2])."""
    fake_gpus(4)
    gpus = tf.config.list_physical_devices(device_type='GPU')
    cpus = tf.config.list_physical_devices(device_type='CPU')
    assert [repr(g) for g in gpus] == [
        f"PhysicalDevice(name='/physical_device:GPU:{i}', device_type='GPU')" for i in range(4)]
    assert cpus == [tf.config.PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]

    tf.config.set_visible_devices(devices=gpus[0:2], device_type='GPU')
    assert tf.config.get_visible_devices('GPU') == gpus[0:2]
    assert [d.name for d in tf.config.list_logical_devices('GPU')] == ["/device:GPU:0", "/device:GPU:1"]
    with pytest.raises(RuntimeError):  # after initialisation, as TF
        tf.config.set_visible_devices(devices=gpus, device_type='GPU')


def test_tf2_notes_config_memory_growth(fake_gpus):
    """设置显存使用策略: ``set_memory_growth(device=g, enable=True)`` for every GPU."""
    fake_gpus(2)
    gpus = tf.config.list_physical_devices(device_type='GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(device=g, enable=True)
    assert all(tf.config.experimental.get_memory_growth(g) for g in gpus)
    with tf.device('/GPU:1'):
        t = tf.ones((256, 256))
    assert t.device.endswith("GPU:1")
    info = tf.config.experimental.get_memory_info('GPU:1')
    assert info["current"] >= 256 * 256 * 4 and info["peak"] >= info["current"]


def test_tf2_notes_config_memory_limit_and_virtual_gpus(fake_gpus):
    """限制显存 / 单 GPU 模拟多 GPU: one 1 GB logical GPU, then two 2 GB logical GPUs on GPU:0."""
    fake_gpus(1)
    gpus = tf.config.list_physical_devices(device_type='GPU')
    tf.config.set_logical_device_configuration(gpus[0],
                                               [tf.config.LogicalDeviceConfiguration(memory_limit=1024)])
    assert len(tf.config.list_logical_devices('GPU')) == 1
    with pytest.raises(tf.errors.ResourceExhaustedError), tf.device('/GPU:0'):
        tf.zeros((300, 1024, 1024), dtype=tf.float32)  # 1.2 GB > the 1 GB limit

    fake_gpus(1)
    gpus = tf.config.list_physical_devices(device_type='GPU')
    tf.config.set_logical_device_configuration(gpus[0],
                                               [tf.config.LogicalDeviceConfiguration(memory_limit=2048),
                                                tf.config.LogicalDeviceConfiguration(memory_limit=2048)])
    logical = tf.config.list_logical_devices('GPU')
    assert [d.name for d in logical] == ["/device:GPU:0", "/device:GPU:1"]
    with tf.device(logical[1].name):
        assert tf.ones((2,)).device.endswith("GPU:1")


def test_tf2_notes_mirrored_strategy_fit(logical_cpus):
    """单机多卡训练: build/compile under ``strategy.scope()``, then ``fit``; equals one-device training.

    ``MirroredStrategy(devices=['/gpu:0', '/gpu:1'])`` becomes two logical CPUs here; the default
    ``MirroredStrategy()`` (all GPUs, else the CPU) is checked too.
    """
    logical_cpus(2)
    assert tf.distribute.MirroredStrategy().num_replicas_in_sync == 1  # no GPU: the CPU alone
    (x_train, y_train), _ = _digits(256, flat=True)

    def model_creation():
        tf.keras.utils.set_random_seed(7)
        return tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(64,)),
                                    tf.keras.layers.Dense(10)])

    def compile_args():
        return dict(optimizer=tf.keras.optimizers.SGD(0.1),
                    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])

    strategy = tf.distribute.MirroredStrategy(devices=['/cpu:0', '/cpu:1'])
    assert strategy.num_replicas_in_sync == 2
    with strategy.scope():
        model = model_creation()
        model.compile(**compile_args())
    history = model.fit(x_train, y_train, epochs=3, batch_size=64, shuffle=False, verbose=0)

    single = model_creation()
    single.compile(**compile_args())
    single_history = single.fit(x_train, y_train, epochs=3, batch_size=64, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], single_history.history["loss"], rtol=1e-4)
    for a, b in zip(model.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert history.history["loss"][-1] < history.history["loss"][0]
