"""Dataset elements that are dicts keep their own key order (TF's ``nest`` visits values by sorted key but
rebuilds each dict in the order of the structure it was given)."""

import tfcore as tf


def test_dict_elements_keep_the_insertion_order_of_their_keys():
    ds = tf.data.Dataset.from_tensor_slices({"b": [1, 2], "a": [3, 4]})
    assert list(next(iter(ds))) == ["b", "a"] and list(ds.element_spec) == ["b", "a"]
    mapped = ds.map(lambda d: {"z": d["a"], "m": d["b"]})
    assert list(next(iter(mapped))) == ["z", "m"] and list(mapped.element_spec) == ["z", "m"]
    element = next(iter(mapped.batch(2)))
    assert list(element) == ["z", "m"] and element["z"].numpy().tolist() == [3, 4]
