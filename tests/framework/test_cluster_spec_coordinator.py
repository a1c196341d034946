"""tf.train.ClusterSpec and tf.train.Coordinator (behaviour and messages checked against TensorFlow 2.21)."""

import threading

import pytest

import tfcore as tf


def _cluster():
    return tf.train.ClusterSpec({"worker": ["w0:2222", "w1:2222"], "ps": {1: "ps1:2222"}})


def test_cluster_spec_queries():
    c = _cluster()
    assert c.jobs == ["worker", "ps"]
    assert c.as_dict() == {"worker": ["w0:2222", "w1:2222"], "ps": {1: "ps1:2222"}}
    assert c.num_tasks("worker") == 2 and c.task_indices("ps") == [1]
    assert c.task_address("ps", 1) == "ps1:2222"
    assert c.job_tasks("ps") == [None, "ps1:2222"] and c.job_tasks("worker") == ["w0:2222", "w1:2222"]
    assert repr(c) == "ClusterSpec({'ps': {1: 'ps1:2222'}, 'worker': ['w0:2222', 'w1:2222']})"
    assert bool(c) and not bool(tf.train.ClusterSpec({}))
    assert c == tf.train.ClusterSpec(c) and c != tf.train.ClusterSpec({"worker": ["w0:2222", "w1:2222"]})
    assert tf.train.ClusterSpec({"worker": ["a"]}) != {"worker": ["a"]}
    assert tf.train.ClusterSpec({"w": {"0": b"a:1"}}).as_dict() == {"w": ["a:1"]}


def test_cluster_spec_errors():
    c = _cluster()
    with pytest.raises(ValueError, match="No such job in cluster: 'x'"):
        c.num_tasks("x")
    with pytest.raises(ValueError, match="No task with index 5 in job 'worker'"):
        c.task_address("worker", 5)
    with pytest.raises(ValueError, match="No such job"):
        c.job_tasks("nope")
    with pytest.raises(TypeError, match="must be a dictionary"):
        tf.train.ClusterSpec(5)
    with pytest.raises(TypeError, match="must be a list or a dictionary"):
        tf.train.ClusterSpec({"w": 5})
    with pytest.raises(TypeError, match="Task address 3 must be bytes or unicode"):
        tf.train.ClusterSpec({"w": ["a", 3]})
    with pytest.raises(ValueError):
        tf.train.ClusterSpec({"w": {"a": "x"}})


def test_coordinator_stop_on_exception_and_join_reraises():
    co = tf.train.Coordinator()
    assert not co.should_stop()
    with co.stop_on_exception():
        raise ValueError("boom")
    assert co.should_stop()
    with pytest.raises(ValueError, match="boom"):
        co.join()
    assert co.joined
    co.clear_stop()
    assert not co.should_stop() and not co.joined


def test_coordinator_clean_stop_and_wait():
    co = tf.train.Coordinator()
    with co.stop_on_exception():
        raise tf.errors.OutOfRangeError(None, None, "end")
    assert co.should_stop()
    co.join()  # OutOfRangeError is a clean stop: nothing raised
    assert co.wait_for_stop(0.01)
    other = tf.train.Coordinator(clean_stop_exception_types=(KeyError,))
    other.request_stop(KeyError("k"))
    other.join()
    assert not tf.train.Coordinator().wait_for_stop(0.01)


def test_coordinator_threads_first_exception_wins():
    co = tf.train.Coordinator()
    counts = [0, 0]

    def worker(i):
        with co.stop_on_exception():
            while not co.should_stop():
                counts[i] += 1
                if i == 1 and counts[i] == 3:
                    raise RuntimeError("worker 1 failed")
                co.wait_for_stop(0.001)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        co.register_thread(t)
        t.start()
    with pytest.raises(RuntimeError, match="worker 1 failed"):
        co.join(stop_grace_period_secs=5)
    assert all(not t.is_alive() for t in threads) and counts[1] == 3
    co.clear_stop()
    co.request_stop(ValueError("first"))
    co.request_stop(TypeError("second"))
    with pytest.raises(ValueError, match="first"):
        co.raise_requested_exception()


def test_coordinator_stragglers():
    co = tf.train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, name="straggler")
    t.start()
    co.request_stop()
    try:
        with pytest.raises(RuntimeError, match="straggler"):
            co.join([t], stop_grace_period_secs=0.05)
        co.clear_stop()
        co.request_stop()
        co.join([t], stop_grace_period_secs=0.01, ignore_live_threads=True)
    finally:
        release.set()
        t.join()
