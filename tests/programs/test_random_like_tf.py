"""Random streams and Keras 3 details that ``guide_random_numbers`` and ``keras_text_classification`` print.

Expected values were printed by TensorFlow 2.21.0 / Keras 3.15.1 (tensorflow-cpu) for the same code; float32
values are compared exactly (NumPy's shortest repr round-trips).
"""

import numpy as np

import tfcore as tf


def _f32(*values):
    return [np.float32(v) for v in values]


def _replicas(strat, result):
    return [np.float32(v.numpy()) for v in strat.experimental_local_results(result)]


def test_a_generator_made_in_a_strategy_gives_each_replica_tfs_numbers(two_cpus):
    strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strat.scope():
        g = tf.random.Generator.from_seed(1)
        assert _replicas(strat, strat.run(lambda: g.normal([]))) == _f32("-0.87930447", "0.020661574")
        assert _replicas(strat, strat.run(lambda: g.normal([]))) == _f32("-1.5822568", "0.77539235")
    assert g.state.numpy().tolist() == [513, 0, 0]  # each replica advanced its copy once per call


def test_a_generator_made_in_a_replica_function(two_cpus):
    strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])

    def f():
        g = tf.random.Generator.from_seed(1)
        return tf.stack([g.normal([]), g.normal([])])

    out = strat.experimental_local_results(strat.run(f))
    assert [o.numpy().tolist() for o in out] == [_f32("-0.87930447", "-1.5822568"),
                                                 _f32("0.020661574", "0.77539235")]


def test_a_traced_generator_in_a_strategy_saves_and_loads(tmp_path, two_cpus):
    class MyModule(tf.Module):
        def __init__(self):
            super().__init__()
            self.g = tf.random.Generator.from_seed(0)

        @tf.function
        def __call__(self):
            return self.g.normal([])

        @tf.function
        def state(self):
            return self.g.state

    strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strat.scope():
        m = MyModule()
        assert _replicas(strat, strat.run(m))[0] == np.float32("-1.4154755")
        assert m.state().numpy().tolist() == [256, 0, 0]
        tf.saved_model.save(m, str(tmp_path / "sm"))  # the function's variable is a replica's copy
    imported = tf.saved_model.load(str(tmp_path / "sm"))
    assert imported.state().numpy().tolist() == [256, 0, 0]
    assert np.float32(imported().numpy()) == np.float32("-1.0359411")  # unreplicated, as TF saves it


def test_weightless_layers_are_built_when_made_as_in_keras_3(capsys):
    model = tf.keras.Sequential([tf.keras.layers.Embedding(10, 4), tf.keras.layers.Dropout(0.2),
                                 tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(1)])
    assert model.layers[1].built and model.layers[2].built and not model.layers[3].built
    model.summary()
    out = capsys.readouterr().out
    dropout = next(line for line in out.splitlines() if "(Dropout)" in line)
    dense = next(line for line in out.splitlines() if "(Dense)" in line)
    assert "unbuilt" not in dropout and dropout.rstrip("│ ").endswith("0")  # Keras 3: "0"
    assert "0 (unbuilt)" in dense


def test_evaluate_return_dict_is_in_sorted_order():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    x, y = np.ones((8, 3), np.float32), np.ones((8, 1), np.float32)
    assert list(model.evaluate(x, y, verbose=0, return_dict=True)) == ["accuracy", "loss"]  # TF 2.21's order
