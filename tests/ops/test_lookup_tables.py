"""``tf.lookup``: the expected values and errors are what TF 2.21 gives for the same calls."""

import numpy as np
import pytest

import tfcore as tf

pytestmark = pytest.mark.usefixtures("on_cpu")


def _elp(values=(0, 1, 2), dtype=None):
    return tf.lookup.KeyValueTensorInitializer(["emerson", "lake", "palmer"], tf.constant(list(values), dtype))


def test_static_hash_table_looks_up_any_shape_and_keeps_the_value_dtype():
    table = tf.lookup.StaticHashTable(_elp(), default_value=-1)
    assert (table.key_dtype, table.value_dtype) == (tf.string, tf.int32)
    got = table.lookup(tf.constant(["emerson", "lake", "x"]))
    assert got.dtype == tf.int32 and got.numpy().tolist() == [0, 1, -1]
    assert table.lookup(tf.constant([["emerson"], ["y"]])).numpy().tolist() == [[0], [-1]]
    assert table[tf.constant(["palmer"])].numpy().tolist() == [2]
    scalar = table.lookup(tf.constant("lake"))
    assert scalar.shape == () and int(scalar) == 1
    assert table.size().dtype == tf.int64 and int(table.size()) == 3
    keys, values = table.export()
    assert dict(zip(keys.numpy().tolist(), values.numpy().tolist())) == {b"emerson": 0, b"lake": 1, b"palmer": 2}
    assert int(table.default_value) == -1


def test_static_hash_table_with_integer_keys_and_float_or_string_values():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2], ["a", "b"]), "?")
    assert table.key_dtype == tf.int32
    assert table.lookup(tf.constant([2, 3])).numpy().tolist() == [b"b", b"?"]
    floats = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1.5]), -1.0)
    np.testing.assert_array_equal(floats.lookup(tf.constant(["a", "b"])).numpy(), np.float32([1.5, -1.0]))


def test_static_table_errors_are_tfs():
    table = tf.lookup.StaticHashTable(_elp(), default_value=-1)
    with pytest.raises(TypeError,
                       match=r"Dtype of argument `keys` must be <dtype: 'string'>, received: <dtype: 'int32'>"):
        table.lookup(tf.constant([1, 2]))
    ints = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2], ["a", "b"]), "?")
    with pytest.raises(TypeError, match="must be <dtype: 'int32'>, received: <dtype: 'int64'>"):
        ints.lookup(tf.constant([2, 3], tf.int64))
    with pytest.raises(tf.errors.FailedPreconditionError, match="Key a has 1 and trying to add value 2"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[2\] for value, got \[1\]"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1]), -1)
    with pytest.raises((TypeError, ValueError)):
        tf.lookup.StaticHashTable(_elp(), default_value="x")


def test_vocabulary_table_hashes_unknown_keys_into_buckets_as_tf():
    table = tf.lookup.StaticVocabularyTable(_elp(dtype=tf.int64), num_oov_buckets=3)
    got = table.lookup(tf.constant(["emerson", "lake", "x", "yy", "zzz"]))
    assert got.dtype == tf.int64 and got.numpy().tolist() == [0, 1, 5, 4, 3]  # TF 2.21's buckets
    assert int(table.size()) == 6
    ints = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)), 4)
    assert ints.lookup(tf.constant([10, 7, 99, 12345], tf.int64)).numpy().tolist() == [0, 2, 4, 2]


def test_vocabulary_table_errors_are_tfs():
    with pytest.raises(TypeError, match=r"Invalid `value_dtype`, expected <dtype: 'int64'> but got <dtype: 'int32'>"):
        tf.lookup.StaticVocabularyTable(_elp(), 3)
    with pytest.raises(TypeError, match=r"expected one of \(tf.int64, tf.string\), but got <dtype: 'int32'>"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer([10, 20], [0, 1]), 1)
    for buckets in (0, -1):
        with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0; use StaticHashTable."):
            tf.lookup.StaticVocabularyTable(_elp(dtype=tf.int64), buckets)


def test_text_file_initializer_reads_lines_and_columns(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("emerson\nlake\npalmer\n")
    whole = tf.lookup.TextFileInitializer(str(vocab), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                          tf.lookup.TextFileIndex.LINE_NUMBER)
    assert (tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER) == (-2, -1)
    assert tf.lookup.StaticHashTable(whole, -1).lookup(tf.constant(["lake", "nope"])).numpy().tolist() == [1, -1]
    ids = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(str(vocab), tf.string, -2, tf.int64, -1), 2)
    assert ids.lookup(tf.constant(["palmer", "q"])).numpy().tolist() == [2, 4]
    kv = tmp_path / "kv.tsv"
    kv.write_text("a\t10\nb\t20\n")
    table = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(str(kv), tf.string, 0, tf.int64, 1), -1)
    assert table.lookup(tf.constant(["b"])).numpy().tolist() == [20]
    with pytest.raises(tf.errors.InvalidArgumentError, match="vocab_size"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(str(vocab), tf.string, -2, tf.int64, -1,
                                                                vocab_size=5), -1)
    with pytest.raises(tf.errors.NotFoundError):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(str(tmp_path / "no"), tf.string, -2, tf.int64, -1), -1)
    with pytest.raises(ValueError, match="Signature mismatch"):
        tf.lookup.TextFileInitializer(str(vocab), tf.int64, -2, tf.int64, -1)


def test_mutable_hash_table_inserts_removes_and_exports():
    table = tf.lookup.experimental.MutableHashTable(key_dtype=tf.string, value_dtype=tf.int64, default_value=-1)
    table.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
    assert table.lookup(tf.constant(["a", "c"])).numpy().tolist() == [1, -1]
    assert int(table.size()) == 2
    table.remove(tf.constant(["a"]))
    keys, values = table.export()
    assert keys.numpy().tolist() == [b"b"] and values.numpy().tolist() == [2]
    assert table.lookup(tf.constant(["q"]), dynamic_default_values=tf.constant([7], tf.int64)).numpy().tolist() == [7]
    with pytest.raises(ValueError, match="requested dtype int64 for Tensor with dtype int32"):
        table.insert(tf.constant(["z"]), tf.constant([1]))
    assert int(table.size()) == 1  # the refused insert changed nothing


def test_mutable_hash_table_with_vector_values():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, [0.0, 0.0])
    assert table.lookup(tf.constant(["q"])).numpy().tolist() == [[0.0, 0.0]]
    table.insert(tf.constant(["a"]), tf.constant([[1.0, 2.0]]))
    assert table.lookup(tf.constant(["a", "b"])).numpy().tolist() == [[1.0, 2.0], [0.0, 0.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[1, 2\] for value, got \[1, 3\]"):
        table.insert(tf.constant(["a"]), tf.constant([[1.0, 2.0, 3.0]]))


def test_dense_hash_table_refuses_its_marker_keys():
    table = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1)
    table.insert(tf.constant([5, 6], tf.int64), tf.constant([50, 60], tf.int64))
    assert table.lookup(tf.constant([5, 7], tf.int64)).numpy().tolist() == [50, -1]
    table.erase(tf.constant([5], tf.int64))
    assert int(table.size()) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="Using the empty_key as a table key is not allowed"):
        table.insert(tf.constant([0], tf.int64), tf.constant([1], tf.int64))


def test_traced_lookups_replay_with_each_calls_keys():
    """A tf.function traced once looks up the keys of every later call (nothing baked in at trace time),
    and a mutable table's insert inside a function runs on every call."""
    table = tf.lookup.StaticHashTable(_elp(), default_value=-1)
    traces = []

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def ids(keys):
        traces.append(1)
        return table.lookup(keys)

    assert ids(tf.constant(["palmer", "q"])).numpy().tolist() == [2, -1]
    assert ids(tf.constant(["lake", "emerson"])).numpy().tolist() == [1, 0]
    assert len(traces) == 1
    assert ids(tf.constant(["lake", "emerson", "z"])).numpy().tolist() == [1, 0, -1]
    counts = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)

    @tf.function
    def bump(key):
        counts.insert(key, counts.lookup(key) + 1)
        return counts.lookup(key)

    assert [int(bump(tf.constant(["a"]))[0]) for _ in range(3)] == [1, 2, 3]


def test_dataset_map_looks_up_each_element():
    table = tf.lookup.StaticHashTable(_elp(), default_value=-1)
    ds = tf.data.Dataset.from_tensor_slices(["lake", "x", "palmer"]).map(lambda s: table.lookup(s))
    assert [int(v) for v in ds.as_numpy_iterator()] == [1, -1, 2]
    batched = tf.data.Dataset.from_tensor_slices(["lake", "x", "palmer"]).batch(2).map(table.lookup)
    assert [v.tolist() for v in batched.as_numpy_iterator()] == [[1, -1], [2]]


def test_sparse_and_ragged_keys_keep_their_structure():
    table = tf.lookup.StaticHashTable(_elp(), default_value=-1)
    sparse = table.lookup(tf.sparse.SparseTensor([[0, 0]], ["lake"], [1, 2]))
    assert isinstance(sparse, tf.SparseTensor) and sparse.values.numpy().tolist() == [1]
    ragged = table.lookup(tf.ragged.constant([["lake"], ["a", "palmer"]]))
    assert isinstance(ragged, tf.RaggedTensor) and ragged.to_list() == [[1], [-1, 2]]
