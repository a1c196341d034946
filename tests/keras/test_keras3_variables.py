"""Keras 3 variables: what ``tf.keras`` weights look like on TF 2.21.

Every expected value here was read from TensorFlow 2.21 / Keras 3.15 (``keras.Variable`` on the
TF backend): a layer weight's ``name`` is the short name (``kernel``), its ``path`` the layers that
built it (``sequential/dense/kernel``), its ``dtype`` a str, its repr ``<Variable path=...>``;
optimizer variables live under the optimizer's snake-case name (``adam/iteration``) and slots are
named after the model variable's path (``adam/seq_d_kernel_momentum``). A plain ``tf.Variable``
keeps TF's ``name:0`` and has no ``path``.
"""

import numpy as np
import pytest

import tfcore as tf


def _dense(name="d", units=3, in_dim=2):
    layer = tf.keras.layers.Dense(units, name=name)
    layer.build((None, in_dim))
    return layer


def test_layer_weight_name_path_dtype_and_repr():
    d = _dense("my_dense")
    k = d.kernel
    assert k.name == "kernel" and k.path == "my_dense/kernel"
    assert [w.name for w in d.weights] == ["kernel", "bias"]
    assert isinstance(k.dtype, str) and k.dtype == "float32" and str(k.dtype) == "float32"
    assert k.dtype == tf.float32 and {tf.float32: 1}[k.dtype] == 1  # equal and hashing as the DType
    r = repr(k)
    assert r.startswith("<Variable path=my_dense/kernel, shape=(2, 3), dtype=float32, value=[[")
    assert repr(d.bias) == "<Variable path=my_dense/bias, shape=(3,), dtype=float32, value=[0. 0. 0.]>"
    assert str(k) == r
    assert k.trainable and k.aggregation == tf.VariableAggregation.NONE


def test_keras_weight_still_works_as_a_variable():
    d = _dense("d2")
    x = tf.ones((1, 2))
    np.testing.assert_allclose(tf.matmul(x, d.kernel).numpy(), x.numpy() @ d.kernel.numpy(), rtol=1e-6)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(d(x))
    grads = tape.gradient(y, d.trainable_variables)
    assert all(g is not None for g in grads)
    np.testing.assert_allclose(grads[0].numpy(), np.ones((2, 3)))
    d.kernel.assign(np.zeros((2, 3), np.float32))
    d.kernel.assign_add(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(d.kernel.numpy(), np.ones((2, 3)))
    assert [v.name for v in tf.Module.trainable_variables.fget(d)] == ["kernel", "bias"]


def test_plain_tf_variable_keeps_tf_names():
    v = tf.Variable(1.0, name="x")
    assert v.name == "x:0" and not hasattr(v, "path")
    assert repr(v) == "<tf.Variable 'x:0' shape=() dtype=float32, numpy=1.0>"
    assert v.dtype is tf.float32


def test_paths_follow_the_layers_that_build_them():
    seq = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, name="d"),
                               tf.keras.layers.BatchNormalization(name="bn")], name="seq")
    assert [w.path for w in seq.weights if w.trainable] == ["seq/d/kernel", "seq/d/bias", "seq/bn/gamma",
                                                             "seq/bn/beta"]
    assert sorted(w.path for w in seq.weights if not w.trainable) == ["seq/bn/moving_mean",
                                                                      "seq/bn/moving_variance"]
    inp = tf.keras.Input((3,))
    model = tf.keras.Model(inp, tf.keras.layers.Dense(2, name="fd")(inp), name="func")
    assert [w.path for w in model.weights] == ["fd/kernel", "fd/bias"]  # functional: built outside the model

    class Outer(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__(name="outer")
            self.inner = tf.keras.layers.Dense(2, name="inner")

        def build(self, shape):
            self.w = self.add_weight(shape=(1,), name="w")
            self.inner.build(shape)

        def call(self, x):
            return self.inner(x) * self.w

    outer = Outer()
    outer(tf.ones((1, 3)))
    assert [(w.name, w.path) for w in outer.weights] == [("w", "outer/w"), ("kernel", "outer/inner/kernel"),
                                                         ("bias", "outer/inner/bias")]

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.d = tf.keras.layers.Dense(2, name="sd")

        def call(self, x):
            return self.d(x)

    sub = Sub()
    sub(tf.ones((1, 3)))
    assert [w.path for w in sub.weights] == ["sub/sd/kernel", "sub/sd/bias"]
    emb = tf.keras.layers.Embedding(10, 4, name="emb")
    emb.build((None,))
    assert (emb.embeddings.name, emb.embeddings.path) == ("embeddings", "emb/embeddings")
    unnamed = tf.keras.layers.Layer(name="lay").add_weight(shape=())
    assert (unnamed.name, unnamed.path) == ("variable", "lay/variable")


def test_optimizer_variables_have_keras3_names_and_paths():
    seq = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, name="d")], name="seq")
    opt = tf.keras.optimizers.Adam()
    seq.compile(opt, "mse")
    seq.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0)
    assert (opt.iterations.name, opt.iterations.path, opt.iterations.dtype) == ("iteration", "adam/iteration",
                                                                                "int64")
    assert (opt.learning_rate.name, opt.learning_rate.path) == ("learning_rate", "adam/learning_rate")
    assert repr(opt.learning_rate) == ("<Variable path=adam/learning_rate, shape=(), dtype=float32, "
                                       "value=0.0010000000474974513>")
    slots = [(v.name, v.path) for v in opt.variables[2:]]  # Keras 3: [iteration, learning_rate, *slots]
    assert slots == [("seq_d_kernel_momentum", "adam/seq_d_kernel_momentum"),
                     ("seq_d_kernel_velocity", "adam/seq_d_kernel_velocity"),
                     ("seq_d_bias_momentum", "adam/seq_d_bias_momentum"),
                     ("seq_d_bias_velocity", "adam/seq_d_bias_velocity")]
    rms = tf.keras.optimizers.RMSprop()
    rms.build(seq.trainable_variables)
    assert [v.path for v in rms.variables][2:] == ["rm_sprop/seq_d_kernel_velocity", "rm_sprop/seq_d_bias_velocity"]
    sgd = tf.keras.optimizers.SGD(momentum=0.9)
    sgd.build(seq.trainable_variables)
    assert [v.name for v in sgd.variables][2:] == ["seq_d_kernel_momentum", "seq_d_bias_momentum"]


def test_optimizer_names_are_keras3_auto_names():
    """Read from TF 2.21: unnamed optimizers get unique snake-case names (adam, adam_1; AdamW adam_w, RMSprop
    rm_sprop); an explicit name is kept as given and prefixes the paths; a plain tf.Variable's slot is named after
    its full name (``w:0`` -> ``w_0_momentum``)."""
    opts = tf.keras.optimizers
    assert [opts.Adam().name, opts.Adam().name, opts.AdamW().name, opts.RMSprop().name, opts.Lamb().name,
            opts.LossScaleOptimizer(opts.SGD()).name] == ["adam", "adam_1", "adam_w", "rm_sprop", "lamb",
                                                          "loss_scale_optimizer"]
    assert opts.get("adam").name == "adam_2"
    named = opts.Adam(name="MyAdam")
    named.build([tf.Variable([1.0], name="dense/kernel")])
    assert [v.path for v in named.variables] == ["MyAdam/iteration", "MyAdam/learning_rate",
                                                 "MyAdam/dense_kernel_0_momentum", "MyAdam/dense_kernel_0_velocity"]
    sgd = opts.SGD(momentum=0.5)
    sgd.build([tf.Variable(1.0, name="w"), tf.Variable(2.0)])
    assert [v.name for v in sgd.variables][2:] == ["w_0_momentum", "Variable_0_momentum"]
    assert sgd.name == "sgd_1" and opts.SGD.from_config(sgd.get_config()).name == "sgd_1"
    tf.keras.backend.clear_session()
    assert opts.Adam().name == "adam"


def test_loss_scale_optimizer_is_in_keras_optimizers():
    opts = tf.keras.optimizers
    assert opts.LossScaleOptimizer is tf.keras.mixed_precision.LossScaleOptimizer
    lso = opts.LossScaleOptimizer(opts.Adam(0.5), initial_scale=8.0)
    back = opts.deserialize(opts.serialize(lso))
    assert type(back) is opts.LossScaleOptimizer and type(back.inner_optimizer) is opts.Adam
    assert (back.name, back.initial_scale, float(back.inner_optimizer.learning_rate.numpy())) == (lso.name, 8.0, 0.5)


def test_mixed_precision_weight_is_a_float32_keras_variable():
    layer = tf.keras.layers.Dense(2, dtype=tf.keras.mixed_precision.Policy("mixed_float16"), name="mp")
    layer.build((None, 3))
    k = layer.kernel
    assert (k.name, k.path, k.dtype) == ("kernel", "mp/kernel", "float32")
    assert repr(k).startswith("<Variable path=mp/kernel, shape=(3, 2), dtype=float32, value=")
    assert layer(tf.ones((1, 3))).dtype == tf.float16  # still read as the compute dtype inside call


def test_mirrored_weight_is_a_keras_variable(two_cpus):
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        layer = _dense("md")
    k = layer.kernel
    assert (k.name, k.path) == ("kernel", "md/kernel")
    assert repr(k).startswith("<Variable path=md/kernel, shape=(2, 3), dtype=float32, value=")
    assert len(k.values) == 2


@pytest.mark.parametrize("fmt", ["tf_checkpoint", "weights_h5"])
def test_weights_round_trip_with_keras3_names(tmp_path, fmt):
    def make():
        m = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, name="d")], name="seq")
        m.compile(tf.keras.optimizers.Adam(), "mse")
        return m

    a = make()
    a.fit(np.ones((4, 2), np.float32), np.ones((4, 3), np.float32), verbose=0)
    b = make()
    if fmt == "tf_checkpoint":  # keys come from the object graph, not from variable names
        prefix = tf.train.Checkpoint(model=a).write(str(tmp_path / "ckpt"))
        keys = {name for name, _ in tf.train.list_variables(prefix)}
        assert "model/optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE" in keys, sorted(keys)
        status = tf.train.Checkpoint(model=b).read(prefix)
        status.assert_existing_objects_matched()
        status.expect_partial()  # b's optimizer has no slots yet
    else:
        a.save_weights(str(tmp_path / "m.weights.h5"))
        b.load_weights(str(tmp_path / "m.weights.h5"))
    for wa, wb in zip(a.weights, b.weights):
        assert wa.path == wb.path
        np.testing.assert_array_equal(wa.numpy(), wb.numpy())


def test_tensorboard_histograms_are_tagged_by_weight_path(tmp_path):
    import glob
    import os

    seq = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, name="d")], name="seq")
    seq.compile("sgd", "mse")
    seq.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0,
            callbacks=[tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1)])
    tags = set()
    for path in glob.glob(os.path.join(str(tmp_path), "train", "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags.update(v.tag for v in event.summary.value)
    assert {"seq/d/kernel/histogram", "seq/d/bias/histogram"} <= tags, sorted(tags)  # TF 2.21's tags


def test_model_weights_come_layer_by_layer():
    seq = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, name="d"),
                               tf.keras.layers.BatchNormalization(name="bn"),
                               tf.keras.layers.Dense(2, name="out")], name="seq")
    # TF 2.21's order: each layer's own weights in turn, BN's moving statistics before the next layer's
    assert [w.path for w in seq.weights] == [
        "seq/d/kernel", "seq/d/bias", "seq/bn/gamma", "seq/bn/beta", "seq/bn/moving_mean",
        "seq/bn/moving_variance", "seq/out/kernel", "seq/out/bias"]
    assert [a.shape for a in seq.get_weights()] == [(4, 3), (3,), (3,), (3,), (3,), (3,), (3, 2), (2,)]
    assert [w.name for w in seq.trainable_weights] == ["kernel", "bias", "gamma", "beta", "kernel", "bias"]
    values = [np.full(a.shape, i, np.float32) for i, a in enumerate(seq.get_weights())]
    seq.set_weights(values)
    np.testing.assert_array_equal(seq.layers[1].moving_mean.numpy(), np.full((3,), 4.0))


class _WithPlainVariables(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d = tf.keras.layers.Dense(2, name="dense")  # named: other tests' Dense layers take "dense"
        self.v = tf.Variable(1.0)
        self.frozen = tf.Variable(2.0, trainable=False)

    def call(self, x):
        return self.d(x) * self.v


def test_plain_tf_variable_attributes_are_not_keras_weights(tmp_path):
    """TF 2.21 / Keras 3.15 (read there): only Keras variables are weights; a tf.Variable attribute is not in
    weights/trainable_variables/.weights.h5 or the summary's count, but a GradientTape sees it and
    tf.train.Checkpoint saves it as the model's child."""
    m = _WithPlainVariables()
    m(tf.ones((1, 3)))
    assert [w.path for w in m.trainable_variables] == ["__with_plain_variables/dense/kernel",
                                                       "__with_plain_variables/dense/bias"]  # Keras 3's snake case
    assert len(m.weights) == len(m.variables) == 2 and m.non_trainable_variables == []
    assert m.count_params() == 8
    with tf.GradientTape() as tape:
        tf.reduce_sum(m(tf.ones((1, 3))))
    assert len(tape.watched_variables()) == 3
    path = tf.train.Checkpoint(model=m).save(str(tmp_path / "ck"))
    names = [n for n, _ in tf.train.list_variables(path)]
    assert "model/v/.ATTRIBUTES/VARIABLE_VALUE" in names and "model/d/bias/.ATTRIBUTES/VARIABLE_VALUE" in names

    class Scaled(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)

        def call(self, x):
            return x * self.v

    layer = Scaled()
    layer(tf.ones(1))
    assert layer.variables == [] and layer.trainable_weights == []


def test_a_keras_weight_assigned_to_another_layer_is_tracked_there():
    donor = _dense("donor")
    holder = tf.keras.layers.Layer()
    holder.shared = donor.kernel
    assert [w.name for w in holder.weights] == ["kernel"]


def test_fit_of_a_model_without_keras_weights_warns_and_trains_nothing():
    """Keras 3 warns "The model does not have any trainable weights." and steps on (TF 2.21's
    guide_basic_training_loops hits this with its tf.Variable model)."""

    class Linear(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(5.0)

        def call(self, x):
            return self.w * x

    m = Linear()
    m.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    with pytest.warns(UserWarning, match="does not have any trainable weights"):
        m.fit(np.ones(8, np.float32), np.full(8, 3.0, np.float32), epochs=1, batch_size=8, verbose=0)
    assert m.w.numpy() == 5.0


def test_tf_module_still_tracks_plain_variables():
    class Mod(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)

    assert len(Mod().trainable_variables) == 1
