"""tf.variable_creator_scope: TF's creator chaining, and the scope is per thread."""

import threading

import numpy as np

import tfcore as tf


def test_creators_chain_innermost_first_and_see_keyword_arguments():
    seen = []

    def outer(next_creator, **kwargs):
        seen.append(("outer", kwargs.get("name")))
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        seen.append(("inner", kwargs["name"]))
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with tf.variable_creator_scope(outer), tf.variable_creator_scope(inner):
        v = tf.Variable([1.0, 2.0], True, name="w")  # positional `trainable` arrives as a keyword
    assert seen == [("inner", "w"), ("outer", "w")]
    assert isinstance(v, tf.Variable) and type(v).__name__ == "ResourceVariable"  # as TF 2.21
    assert not v.trainable and v.name.startswith("w")
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert tf.Variable(3.0).trainable  # the scope ended


def test_creator_scope_is_thread_local():
    calls = []

    def creator(next_creator, **kwargs):
        calls.append(threading.current_thread().name)
        return next_creator(**kwargs)

    entered, release = threading.Event(), threading.Event()

    def hold_scope():
        with tf.variable_creator_scope(creator):
            entered.set()
            release.wait(10)

    t = threading.Thread(target=hold_scope, name="holder")
    t.start()
    entered.wait(10)
    tf.Variable(1.0)  # the other thread's scope does not apply here
    release.set()
    t.join()
    assert calls == []
