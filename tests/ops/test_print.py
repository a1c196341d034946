"""tf.print formatting (TF's print_v2 summaries) and streams; tf.debugging checks."""

import sys

import numpy as np
import pytest

import tfcore as tf


def printed(capsys, *args, **kwargs):
    tf.print(*args, output_stream=sys.stdout, **kwargs)
    return capsys.readouterr().out


def test_vector_and_scalars(capsys):
    assert printed(capsys, tf.constant([1, 2, 3])) == "[1 2 3]\n"
    assert printed(capsys, tf.constant(7)) == "7\n"
    assert printed(capsys, "loss:", tf.constant(1.5), 2) == "loss: 1.5 2\n"


def test_float_formatting_round_trips():
    from tfcore.ops.logging_ops import format_array

    assert format_array(np.array([1.5, 2.0, 0.1], np.float32)) == "[1.5 2 0.1]"
    assert format_array(np.array(1 / 3, np.float32)) == "0.333333343"
    assert format_array(np.array(1 / 3)) == "0.33333333333333331"
    assert format_array(np.array([np.inf, -np.inf, np.nan], np.float32)) == "[inf -inf nan]"
    assert format_array(np.array([True, False])) == "[1 0]"
    assert format_array(np.zeros((0,))) == "[]"


def test_summarize_long_tensors(capsys):
    assert printed(capsys, tf.range(10)) == "[0 1 2 ... 7 8 9]\n"
    assert printed(capsys, tf.range(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]\n"
    assert printed(capsys, tf.range(6)) == "[0 1 2 3 4 5]\n"
    out = printed(capsys, tf.reshape(tf.range(80), [8, 10]), summarize=2)
    assert out == "[[0 1 ... 8 9]\n [10 11 ... 18 19]\n ...\n [60 61 ... 68 69]\n [70 71 ... 78 79]]\n"


def test_matrix_and_rank3_layout(capsys):
    assert printed(capsys, tf.constant([[1, 2], [3, 4]])) == "[[1 2]\n [3 4]]\n"
    assert printed(capsys, tf.reshape(tf.range(8), [2, 2, 2])) == "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]\n"


def test_sep_end_strings_and_structures(capsys):
    assert printed(capsys, "a", "b", sep=",", end="!") == "a,b!"
    assert printed(capsys, tf.constant("hi"), tf.constant(["x", "y"])) == 'hi ["x" "y"]\n'
    assert printed(capsys, [1, tf.constant(2)], {"k": tf.constant([1.0])}) == "[1, 2] {'k': [1]}\n"


def test_default_stream_is_stderr_and_file_stream(capsys, tmp_path):
    tf.print(tf.constant([1, 2]))
    assert capsys.readouterr().err == "[1 2]\n"
    path = tmp_path / "log.txt"
    tf.print("first", output_stream=f"file://{path}")
    tf.print(tf.constant([3]), output_stream=f"file://{path}")
    assert path.read_text() == "first\n[3]\n"
    lines = []
    tf.print("via callable", output_stream=lines.append)
    assert lines == ["via callable"]


def test_debugging_asserts():
    tf.debugging.assert_equal(tf.constant([1, 2]), [1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="x == y"):
        tf.debugging.assert_equal(tf.constant([1, 2]), [1, 3], message="mismatch")
    tf.debugging.assert_near(tf.constant([1.0]), [1.0 + 1e-7])
    with pytest.raises(tf.errors.InvalidArgumentError, match="tolerance"):
        tf.debugging.assert_near(tf.constant([1.0]), [1.1])
    x = tf.constant([1.0, 2.0])
    assert tf.debugging.assert_all_finite(x, "ok") is x
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad values : Tensor had NaN"):
        tf.debugging.assert_all_finite(tf.constant([np.nan]), "bad values")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.debugging.check_numerics(tf.constant([np.inf]), "inf")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.debugging.assert_greater(tf.constant([1]), 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
        tf.debugging.Assert(tf.constant(False), ["value:", tf.constant([1, 2])])


def test_log_device_placement(capsys):
    assert tf.debugging.get_log_device_placement() is False
    tf.debugging.set_log_device_placement(True)
    try:
        with tf.device("/CPU:0"):
            tf.constant([1.0]) + 1.0
    finally:
        tf.debugging.set_log_device_placement(False)
    assert "Executing op AddV2 in device /job:localhost/replica:0/task:0/device:CPU:0" in capsys.readouterr().out
