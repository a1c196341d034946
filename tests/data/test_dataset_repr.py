"""``repr(dataset)`` names TF 2.21's dataset classes, which are private (``<_MapDataset element_spec=...>``).

guide/function prints ``train(<_FlatMapDataset element_spec=...>)`` for a ``from_generator`` dataset. Each
expected text is what TF 2.21 printed; on the code before this change tfcore printed its own class names
(``<MapDataset ...>``, ``<GeneratorDataset ...>``).
"""

import tfcore as tf


def test_dataset_reprs_name_tf_classes():
    r = tf.data.Dataset.range(3)
    spec = "TensorSpec(shape=(), dtype=tf.int64, name=None)"
    assert repr(r) == f"<_RangeDataset element_spec={spec}>"
    assert repr(r.map(lambda x: x)) == f"<_MapDataset element_spec={spec}>"
    assert repr(r.shuffle(2)) == f"<_ShuffleDataset element_spec={spec}>"
    assert repr(r.cache()) == f"<CacheDataset element_spec={spec}>"
    assert repr(r.apply(tf.data.experimental.ignore_errors())) == f"<_IgnoreErrorsDataset element_spec={spec}>"
    assert repr(r.enumerate()) == f"<_ZipDataset element_spec=({spec}, {spec})>"
    assert repr(tf.data.Dataset.sample_from_datasets([r, r])) == f"<_DirectedInterleaveDataset element_spec={spec}>"
    assert repr(tf.data.TextLineDataset([])) == (
        "<TextLineDatasetV2 element_spec=TensorSpec(shape=(), dtype=tf.string, name=None)>")
    assert repr(tf.data.Dataset.from_generator(lambda: [1], tf.int32)) == (
        "<_FlatMapDataset element_spec=TensorSpec(shape=<unknown>, dtype=tf.int32, name=None)>")


def test_a_program_subclass_keeps_its_own_name():
    base = type(tf.data.Dataset.range(1))

    class Counting(base):
        pass

    assert repr(Counting(0, 2, 1)).startswith("<Counting element_spec=")
