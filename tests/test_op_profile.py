"""``observe_ops`` (the registry's profiling hook) and ``bench/profile_ops.py``'s per-op profile of a step."""

import json

import numpy as np
import pytest

import tfcore as tf
from tfcore.benchmarks import op_profile
from tfcore.ops import registry


class _Names(registry.OpObserver):
    def __init__(self):
        self.names = []

    def after(self, op, seconds, outputs):
        assert seconds >= 0
        self.names.append(op.name)


def test_observer_sees_each_op_once_and_is_removed_afterwards():
    a = tf.constant(np.ones((2, 2), np.float32))
    with registry.observe_ops(_Names()) as seen:
        b = tf.matmul(a, a) + a
        tf.nn.softmax(b)
    assert seen.names == ["BatchMatMulV2", "AddV2", "Softmax"]
    assert registry._OBSERVER[0] is None
    tf.add(a, a)  # no observer: nothing recorded
    assert len(seen.names) == 3


def test_the_observer_is_removed_when_the_block_raises_and_one_at_a_time():
    with pytest.raises(KeyError), registry.observe_ops(_Names()):
        raise KeyError("the profiled code failed")
    assert registry._OBSERVER[0] is None
    first = _Names()
    with registry.observe_ops(first), pytest.raises(RuntimeError, match="already watching"), \
            registry.observe_ops(_Names()):
        pass
    assert registry._OBSERVER[0] is None


def test_an_op_that_fails_is_not_counted_and_leaves_the_observer_usable():
    seen = _Names()
    with registry.observe_ops(seen):
        with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
            tf.matmul(tf.ones((2, 3)), tf.ones((2, 3)))
        tf.add(1.0, 2.0)
    assert seen.names == ["AddV2"] and not seen.inside


def test_profile_of_an_mlp_step_counts_its_ops():
    result = op_profile.profile("mlp", batch=4, steps=2, warmup=1, device="/CPU:0")
    ops = result["ops"]
    assert ops["_FusedMatMul"]["calls_per_step"] == 3  # three Dense layers, forward
    assert "_MultiTensorApply" in ops and "SparseSoftmaxCrossEntropyWithLogits" in ops
    assert result["ops_per_step"] == sum(o["calls_per_step"] for o in ops.values())
    assert result["step_ms"] > 0 and result["host_ms_per_step"] > 0
    text = op_profile.format_profile(result, top=3)
    assert "ops per step" in text and "other ops)" in text


def test_main_writes_json_and_rejects_bad_sizes(tmp_path, capsys):
    path = tmp_path / "p.json"
    assert op_profile.main(["--model", "mlp", "--batch", "2", "--steps", "1", "--warmup", "1",
                            "--device", "/CPU:0", "--json", str(path)]) == 0
    assert json.loads(path.read_text())["model"] == "mlp"
    assert "op profile: mlp batch 2" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        op_profile.main(["--batch", "0"])
    assert "--batch must be >= 1" in capsys.readouterr().err


def test_count_ops_counts_each_executed_op():
    a = tf.constant([1.0, 2.0])
    counts = op_profile.count_ops(lambda: tf.nn.relu(a + a) * a)
    assert counts == {"AddV2": 1, "Relu": 1, "Mul": 1}


def test_host_bound_ops_are_those_waiting_inside_their_dispatch():
    """11-27 H200 ResNet50 figures: Mul 329 µs host against 47 µs synced (a wait inside its dispatch); BN's
    600/1590 and a fast op's 29/47 are not."""
    result = {"ops": {"Mul": {"host_us": 329.2, "synced_us": 46.7},
                      "FusedBatchNormGradV3": {"host_us": 600.2, "synced_us": 1590.2},
                      "Sub": {"host_us": 29.2, "synced_us": 46.8},
                      "Tiny": {"host_us": 30.0, "synced_us": 5.0}}}  # 6x, but 25 µs: noise, not a wait
    assert op_profile.host_bound_ops(result) == ["Mul"]


def test_explain_host_profiles_the_python_inside_the_named_ops_only(capsys):
    a = tf.constant(np.ones((4, 4), np.float32))
    text = op_profile.explain_host_time(lambda: tf.nn.relu(tf.matmul(a, a) + a), ["AddV2"])
    assert "function calls" in text and "execute" in text
    assert "matmul" not in text.lower()  # BatchMatMulV2 ran outside the profiler
    assert op_profile.main(["--model", "mlp", "--batch", "2", "--steps", "1", "--warmup", "1", "--device",
                            "/CPU:0", "--explain-host"]) == 0
    out = capsys.readouterr().out
    assert "no op's host time is far above its synced time" in out or "Python's profile of one step" in out
