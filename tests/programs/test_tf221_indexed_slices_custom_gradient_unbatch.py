"""Three behaviours found silently wrong by comparing with TF 2.21 (issue 29): a SavedModel's
``tf.custom_gradient``, sparse (``IndexedSlices``) gradients of ``tf.gather``/Embedding through the
optimizers, and ``Dataset.cache()`` after ``batch().unbatch()``. Each test fails on the code before its
fix and states what TF 2.21 / Keras 3 do."""

import numpy as np
import pytest

import tfcore as tf


# -- Dataset.cache() after batch().unbatch() -----------------------------------------------------------------
def test_map_over_cache_after_unbatch_runs_no_upstream_function():
    """TF 2.21: once ``ds.batch(2).unbatch().cache()`` is filled, building ``.map(f)`` on top and iterating
    it twice runs the upstream ``tf.py_function`` zero more times. tfcore used to pull an element through
    the whole pipeline (batch of 2: two upstream calls) to trace each new map over the unbatch."""
    calls = []

    def count(x):
        calls.append(int(x))
        return x

    cached = (tf.data.Dataset.range(5).map(lambda x: tf.py_function(count, [x], tf.int64))
              .batch(2).unbatch().cache())
    assert [int(v) for v in cached] == [0, 1, 2, 3, 4]
    filled = len(calls)
    doubled = cached.map(lambda x: x * 2)
    assert [int(v) for v in doubled] == [0, 2, 4, 6, 8]
    assert [int(v) for v in doubled] == [0, 2, 4, 6, 8]
    assert [v.numpy().tolist() for v in cached.map(lambda x: x * 3).batch(2)] == [[0, 3], [6, 9], [12]]
    assert len(calls) == filled


def test_unbatch_trace_element_is_row_zero_of_its_input():
    """A map over ``unbatch()`` is traced with one row of the batch (its element_spec as TF's), for tuples
    too, and an empty batch gives zeros of the element's shape."""
    ds = tf.data.Dataset.from_tensor_slices(([[1, 2], [3, 4], [5, 6]], [7, 8, 9])).batch(2).unbatch()
    mapped = ds.map(lambda a, b: (tf.reduce_sum(a), b))
    assert [(int(a), int(b)) for a, b in mapped] == [(3, 7), (7, 8), (11, 9)]
    assert mapped.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))
    empty = tf.data.Dataset.from_tensor_slices(tf.zeros([0, 3])).batch(2).unbatch().map(lambda x: x + 1)
    assert empty.element_spec == tf.TensorSpec([3], tf.float32)
    assert list(empty) == []


# -- sparse (IndexedSlices) gradients of tf.gather / Embedding -------------------------------------------------
def test_gather_gradients_are_indexed_slices_where_tf_gives_them():
    """TF 2.21's tape: IndexedSlices for tf.gather (axis 0), tf.nn.embedding_lookup, a gather of a watched
    constant and a gather of a cast variable; dense for axis 1, after another op, or added to a dense one."""
    v = tf.Variable(tf.ones([5, 3]))
    c = tf.ones([5, 3])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(c)
        cases = {
            "gather": (tf.gather(v, [0, 0, 2]), v, [0, 0, 2]),
            "embedding_lookup": (tf.nn.embedding_lookup(v, [[0, 1], [1, 1]]), v, [0, 1, 1, 1]),
            "constant": (tf.gather(c, [0, 0]), c, [0, 0]),
            "cast": (tf.gather(tf.cast(v, tf.float16), [4]), v, [4]),
            "two gathers": (tf.reduce_sum(tf.gather(v, [0, 1])) + tf.reduce_sum(tf.gather(v, [1, 1])), v, [0, 1, 1, 1]),
        }
        dense = {"axis 1": tf.gather(v, [1, 2], axis=1), "after mul": tf.gather(v * 2.0, [3]),
                 "plus dense": tf.gather(v, [0]) + tf.reduce_sum(v), "repeat": tf.repeat(v, [1, 2, 0, 1, 1], axis=0),
                 "roll": tf.roll(v, 1, 0), "boolean_mask": tf.boolean_mask(v, [True, False, True, True, False]),
                 "getitem": v[1]}
    for name, (y, source, indices) in cases.items():
        g = tape.gradient(y, source)
        assert isinstance(g, tf.IndexedSlices), name
        assert g.indices.numpy().tolist() == indices, name
        assert g.dense_shape.numpy().tolist() == [5, 3], name
        assert g.dtype == tf.float32, name
    for name, y in dense.items():
        assert isinstance(tape.gradient(y, v), tf.Tensor), name
    g = tape.gradient(cases["two gathers"][0], v)
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy()[:2], [[1, 1, 1], [3, 3, 3]])
    with pytest.raises(TypeError):
        g * 2  # TF's IndexedSlices has no arithmetic operators either

    @tf.function
    def row_gradient(x, i):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x[i]
        return tape.gradient(y, x)

    assert isinstance(row_gradient(tf.ones([3, 2]), tf.constant(1)), tf.Tensor)  # a strided slice in TF


def _embedding_steps(opt, steps=2):
    emb = tf.keras.layers.Embedding(5, 2, embeddings_initializer="ones")
    idx = tf.constant([[0, 0, 1, 0]])
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(emb(idx) * tf.constant([1.0, 2.0]))
        grads = tape.gradient(loss, emb.trainable_variables)
        assert isinstance(grads[0], tf.IndexedSlices)
        opt.apply_gradients(zip(grads, emb.trainable_variables))
    return emb.embeddings.numpy()[:3].ravel()


def test_adam_applies_an_embedding_gradient_as_keras3():
    """The issue's repro: Embedding(5, 2, 'ones'), indices [[0, 0, 1, 0]], loss = sum, one Adam(0.001) step.
    Keras 3 squares each slice before adding them up (v = 3 g^2, not (3 g)^2): row 0 is 0.998268 in TF 2.21,
    0.999 with a dense gradient."""
    emb = tf.keras.layers.Embedding(5, 2, embeddings_initializer="ones")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(emb(tf.constant([[0, 0, 1, 0]])))
    grads = tape.gradient(loss, emb.trainable_variables)
    tf.keras.optimizers.Adam(0.001).apply_gradients(zip(grads, emb.trainable_variables))
    np.testing.assert_allclose(emb.embeddings.numpy()[:3], [[0.998268] * 2, [0.999] * 2, [1.0] * 2], rtol=1e-6)


# Two steps of each optimizer on the embedding above, loss sum(out * [1, 2]): rows 0-2 under TF 2.21 / Keras 3.15.
_TF_EMBEDDING_ROWS = [
    ("Adam", lambda: tf.keras.optimizers.Adam(0.001), [0.996536, 0.996536, 0.998, 0.998, 1.0, 1.0]),
    ("SGD", lambda: tf.keras.optimizers.SGD(0.1), [0.4, -0.2, 0.8, 0.6, 1.0, 1.0]),
    ("SGD momentum", lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9), [0.13, -0.74, 0.71, 0.42, 1.0, 1.0]),
    ("AdamW", lambda: tf.keras.optimizers.AdamW(0.001),
     [0.996528, 0.996528, 0.997992, 0.997992, 0.999992, 0.999992]),
    ("RMSprop", lambda: tf.keras.optimizers.RMSprop(0.01), [0.905492, 0.905492, 0.945436, 0.945436, 1.0, 1.0]),
    ("RMSprop centered momentum", lambda: tf.keras.optimizers.RMSprop(0.01, momentum=0.9, centered=True),
     [0.815019, 0.815019, 0.911176, 0.911176, 1.0, 1.0]),
    ("Adagrad", lambda: tf.keras.optimizers.Adagrad(0.1), [0.708145, 0.705292, 0.835647, 0.830954, 1.0, 1.0]),
    ("Adam clipnorm", lambda: tf.keras.optimizers.Adam(0.001, clipnorm=1.0),
     [0.996536, 0.996536, 0.998, 0.998, 1.0, 1.0]),
    ("Adam global_clipnorm", lambda: tf.keras.optimizers.Adam(0.001, global_clipnorm=1.0),
     [0.998, 0.998, 0.998, 0.998, 1.0, 1.0]),
    ("Adam amsgrad", lambda: tf.keras.optimizers.Adam(0.001, amsgrad=True),
     [0.996536, 0.996536, 0.998, 0.998, 1.0, 1.0]),
    ("Nadam", lambda: tf.keras.optimizers.Nadam(0.001), [0.996819, 0.996819, 0.998164, 0.998164, 1.0, 1.0]),
    ("Adamax", lambda: tf.keras.optimizers.Adamax(0.001), [0.998, 0.998, 0.998, 0.998, 1.0, 1.0]),
    ("Adadelta", lambda: tf.keras.optimizers.Adadelta(1.0), [0.99507, 0.99507, 0.997154, 0.997154, 1.0, 1.0]),
    ("Ftrl", lambda: tf.keras.optimizers.Ftrl(0.1), [0.52854, 0.614383, 0.534136, 0.67478, 0.0, 0.0]),
    ("Lion", lambda: tf.keras.optimizers.Lion(0.001), [0.998, 0.998, 0.998, 0.998, 1.0, 1.0]),
    ("Lamb", lambda: tf.keras.optimizers.Lamb(0.001), [0.996128, 0.996128, 0.997765, 0.997765, 1.0, 1.0]),
    ("Adafactor", lambda: tf.keras.optimizers.Adafactor(0.1), [0.662595, 0.662595, 0.805199, 0.805199, 1.0, 1.0]),
]


@pytest.mark.parametrize("make, want", [(m, w) for _, m, w in _TF_EMBEDDING_ROWS],
                         ids=[n for n, _, _ in _TF_EMBEDDING_ROWS])
def test_every_optimizer_applies_indexed_slices_as_keras3(make, want):
    np.testing.assert_allclose(_embedding_steps(make()), want, rtol=2e-6, atol=1e-6)


def test_clipnorm_keeps_slices_and_clips_by_their_norm():
    """Keras 3's TF optimizer clips an IndexedSlices with tf.clip_by_norm: the norm of its slices."""
    opt = tf.keras.optimizers.SGD(1.0, clipnorm=1.0)
    g = tf.IndexedSlices(tf.constant([[3.0, 0.0], [0.0, 4.0]]), tf.constant([0, 0]), tf.constant([2, 2]))
    (clipped,) = opt._clip_gradients([g])
    assert isinstance(clipped, tf.IndexedSlices)
    np.testing.assert_allclose(clipped.values.numpy(), [[0.6, 0.0], [0.0, 0.8]], rtol=1e-6)


def test_tf_clip_functions_keep_indexed_slices_as_tf():
    """TF 2.21: tf.clip_by_norm and tf.clip_by_global_norm return IndexedSlices for IndexedSlices, with the
    norm of the slices (a custom loop that clips its gradients keeps them sparse for the optimizer)."""
    g = tf.IndexedSlices(tf.constant([[3.0, 0.0], [0.0, 4.0]]), tf.constant([0, 0]), tf.constant([2, 2]))
    clipped = tf.clip_by_norm(g, 1.0)
    assert isinstance(clipped, tf.IndexedSlices)
    np.testing.assert_allclose(clipped.values.numpy(), [[0.6, 0.0], [0.0, 0.8]], rtol=1e-6)
    (sparse, dense), norm = tf.clip_by_global_norm([g, tf.constant([12.0])], 1.0)
    assert isinstance(sparse, tf.IndexedSlices) and isinstance(dense, tf.Tensor)
    assert float(norm) == 13.0 and float(tf.linalg.global_norm([g])) == 5.0
    np.testing.assert_allclose(sparse.values.numpy(), [[3 / 13, 0.0], [0.0, 4 / 13]], rtol=1e-6)


_TEXT_X = np.random.default_rng(0).integers(0, 20, size=(64, 10))
_TEXT_Y = (_TEXT_X.sum(1) % 2).astype("float32")


def _text_model():
    init = tf.keras.initializers.Constant(np.linspace(-1, 1, 80).reshape(20, 4))
    return tf.keras.Sequential([tf.keras.Input((10,), dtype="int32"),
                                tf.keras.layers.Embedding(20, 4, embeddings_initializer=init),
                                tf.keras.layers.GlobalAveragePooling1D(),
                                tf.keras.layers.Dense(1, kernel_initializer="ones")])


# TF 2.21's fit history (2 epochs, batch 16, no shuffle) and embedding row 0 of the model above.
_TF_TEXT = {"adam": ([0.75471, 0.734043], [-1.056791, -1.031474, -1.006156, -0.980839]),
            "rmsprop": ([0.750612, 0.723521], [-1.078162, -1.05295, -1.027732, -1.002512]),
            "adam_lso": ([0.75471, 0.734043], [-1.056791, -1.031474, -1.006156, -0.980839])}


@pytest.mark.parametrize("name", sorted(_TF_TEXT))
def test_text_model_fit_matches_tf_with_sparse_embedding_updates(name):
    """A compiled (tf.function) train step passes the IndexedSlices through to the optimizer."""
    make = {"adam": lambda: tf.keras.optimizers.Adam(0.01), "rmsprop": lambda: tf.keras.optimizers.RMSprop(0.01),
            "adam_lso": lambda: tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(0.01))}[name]
    model = _text_model()
    model.compile(optimizer=make(), loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(_TEXT_X, _TEXT_Y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    losses, row0 = _TF_TEXT[name]
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-5)
    np.testing.assert_allclose(model.layers[0].embeddings.numpy()[0], row0, rtol=1e-5)


def test_loss_scale_optimizer_unscales_indexed_slices_in_a_custom_loop():
    emb = tf.keras.layers.Embedding(5, 2, embeddings_initializer="ones")
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(0.001))
    with tf.GradientTape() as tape:
        loss = opt.scale_loss(tf.reduce_sum(emb(tf.constant([[0, 0, 1, 0]]))))
    grads = tape.gradient(loss, emb.trainable_variables)
    assert isinstance(grads[0], tf.IndexedSlices)
    opt.apply_gradients(zip(grads, emb.trainable_variables))
    np.testing.assert_allclose(emb.embeddings.numpy()[0], [0.998268] * 2, rtol=1e-6)


def test_mirrored_strategy_gathers_slices_across_replicas(two_cpus):
    """TF 2.21's all-reduce of IndexedSlices concatenates the replicas' slices: row 0 (3 slices on replica
    0, 1 on replica 1) gets Adam's 4 g / sqrt(4 g^2) = 0.002, row 2 (3 slices on replica 1) 0.001732."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        emb = tf.keras.layers.Embedding(5, 2, embeddings_initializer="ones")
        emb.build((None, 4))
        opt = tf.keras.optimizers.Adam(0.001)
    ds = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices(np.array([[0, 0, 1, 0], [0, 2, 2, 2]])).batch(2))

    def step(idx):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(emb(idx))
        grads = tape.gradient(loss, emb.trainable_variables)
        reduced = tf.distribute.get_replica_context().all_reduce("sum", grads)
        assert isinstance(reduced[0], tf.IndexedSlices)
        opt.apply_gradients(zip(grads, emb.trainable_variables))

    for batch in ds:
        strategy.run(step, args=(batch,))
    np.testing.assert_allclose(emb.embeddings.numpy()[:4], [[0.998] * 2, [0.999] * 2, [0.998268] * 2, [1.0] * 2],
                               rtol=1e-6)


# -- tf.custom_gradient inside tf.function and through a SavedModel ---------------------------------------------
@tf.custom_gradient
def _clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)

    return y, backward


class _ClipModule(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return _clip_gradients(x)


def _clip_gradient_of(fn):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        output = fn(v * v)
    return float(tape.gradient(output, v))


def test_custom_gradient_inside_tf_function_is_used():
    """The advanced-autodiff guide: TF 2.21 gives 2.0 (the clipped gradient); tfcore differentiated the traced
    forward ops and gave 4.0 on every call after the one that traced."""
    module = _ClipModule()
    assert [_clip_gradient_of(module.call_custom_grad) for _ in range(3)] == [2.0, 2.0, 2.0]


_LOAD_IN_A_FRESH_PROCESS = """
import sys
import tfcore as tf
loaded = tf.saved_model.load(sys.argv[1])
v = tf.Variable(2.0)
with tf.GradientTape() as tape:
    output = loaded.call_custom_grad(v * v)
print(float(tape.gradient(output, v)))
"""


def test_saved_model_keeps_the_custom_gradient_in_tf_layout(tmp_path):
    """As TF's save.py: the forward graph's IdentityN has _gradient_op_type, the gradient is a library
    function listed in registered_gradients, and a fresh process (no Python gradient registered) loads it
    and gets TF's 2.0."""
    import subprocess
    import sys

    from tfcore.saving import saved_model

    path = str(tmp_path / "saved_model")
    tf.saved_model.save(_ClipModule(), path, options=tf.saved_model.SaveOptions(experimental_custom_gradients=True))
    library = saved_model.read_meta_graph(path).graph_def.library
    (registered,) = library.registered_gradients
    forward = [n for f in library.function for n in f.node_def if n.op == "IdentityN"]
    assert forward and all(n.attr["_gradient_op_type"].s.decode() == registered.registered_op_type for n in forward)
    assert registered.gradient_func in {f.signature.name for f in library.function}
    assert _clip_gradient_of(tf.saved_model.load(path).call_custom_grad) == 2.0
    out = subprocess.run([sys.executable, "-c", _LOAD_IN_A_FRESH_PROCESS, path], capture_output=True, text=True,
                         check=True)
    assert float(out.stdout.split()[-1]) == 2.0


class _Log1pexp(tf.Module):
    """A custom gradient whose grad_fn closes over a forward tensor (e = exp(x)), 10x the true gradient, and
    a variable read before it."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(3.0)

    @staticmethod
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e)) * 10.0

        return tf.math.log(1 + e), grad

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(self, x):
        return self.log1pexp(x * self.w)


def _log1pexp_grads(module, fn):
    out = []
    for xv in ([0.0, 1.0], [2.0, -1.0]):  # the second call's closure must hold its own exp(x)
        x = tf.constant(xv)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x))
        gx, gw = tape.gradient(y, [x, module.w])
        out.append(np.concatenate([gx.numpy(), [float(gw)]]))
    return np.array(out)


def test_custom_gradient_closures_hold_each_calls_values_traced_and_loaded(tmp_path):
    # TF 2.21's values, traced and after save/load
    want = [[15.0, 28.577221, 9.52574], [29.925819, 1.42278, 19.47629]]
    module = _Log1pexp()
    np.testing.assert_allclose(_log1pexp_grads(module, module.f), want, rtol=1e-5)
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_allclose(_log1pexp_grads(loaded, loaded.f), want, rtol=1e-5)


def test_custom_gradient_of_variables_survives_save_and_load(tmp_path):
    class Scaled(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(3.0)

            @tf.custom_gradient
            def scaled(x):
                def grad(dy, variables=None):
                    return dy * 100.0, [tf.reduce_sum(dy) * 7.0]

                return x * self.w, grad

            self.scaled = scaled

        @tf.function(input_signature=[tf.TensorSpec([None])])
        def f(self, x):
            return self.scaled(x)

    def grads(module, fn):
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x))
        gx, gw = tape.gradient(y, [x, module.w])
        return gx.numpy().tolist(), float(gw)

    module = Scaled()
    assert grads(module, module.f) == ([100.0, 100.0], 14.0)  # TF 2.21, traced and loaded
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert grads(loaded, loaded.f) == ([100.0, 100.0], 14.0)


def test_saved_without_custom_gradients_differentiating_raises_lookup_error(tmp_path):
    """SaveOptions(experimental_custom_gradients=False): TF 2.21 loads the model and raises LookupError when
    it is differentiated (no gradient for the IdentityN); tfcore does the same instead of using another
    function's gradient registered under the same name in this process."""
    path = str(tmp_path / "m")
    tf.saved_model.save(_ClipModule(), path, options=tf.saved_model.SaveOptions(experimental_custom_gradients=False))
    loaded = tf.saved_model.load(path)
    assert float(loaded.call_custom_grad(tf.constant(3.0))) == 3.0
    with pytest.raises(LookupError, match="CustomGradient"):
        _clip_gradient_of(loaded.call_custom_grad)
