"""The tutorial comparison with real TensorFlow (``compare_with_tf.py``): its normaliser, its failure
parsing, and one real comparison when a TensorFlow Python is given in ``TFCORE_TF_PYTHON``."""

import os
import pathlib

import compare_with_tf as cmp
import pytest

HERE = pathlib.Path(__file__).resolve().parent


def test_progress_bars_epoch_lines_timings_and_logs_are_dropped():
    out = "\n".join([
        "Epoch 1/5",
        "\x1b[1m1875/1875\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m3s\x1b[0m 1ms/step - loss: 0.5",
        "313/313 - 0s - 1ms/step - accuracy: 0.9 - loss: 0.3",
        "Took 1.25 seconds",
        "WARNING:tensorflow:something",
        "I0000 00:00:17.1 123 cudart_stub.cc:31] no cuda",
        "",
        "kept 1",
    ])
    assert cmp.normalise(out) == [("kept #", [1.0])]


def test_numbers_become_placeholders_and_addresses_and_tmp_paths_are_masked():
    line = "<obj at 0x7f3a2b1c9d00> /tmp/abc123/model.keras  tf.Tensor([ 1.5 -2e-3], shape=(2,))"
    [(skel, nums)] = cmp.normalise(line)
    assert skel == "<obj at #x<addr>> <tmp> tf.Tensor([# #], shape=(#,))"
    assert nums == [0.0, 1.5, -2e-3, 2.0]
    assert cmp.normalise("2.21.0+tfcore.0.1.0") == cmp.normalise("2.21.0")
    err = ("InvalidArgumentError: {{function_node __wrapped__Reshape_device_/job:localhost/replica:0/task:0/"
           "device:CPU:0}} Input to reshape is a tensor with 6 values, but the requested shape has 8 [Op:Reshape]")
    ours = "InvalidArgumentError: Input to reshape is a tensor with 6 values, but the requested shape has 8 " \
           "[Op:Reshape] (tfcore: input shape [6], dtype int32, requested shape [4, 2])"
    assert cmp.normalise(err) == cmp.normalise(ours)
    assert cmp.normalise(err)[0][0] == ("InvalidArgumentError: Input to reshape is a tensor with # values, but the "
                                        "requested shape has # [Op:Reshape]")


def test_structure_and_values_are_compared_separately():
    same = cmp.compare_stdout("loss 0.5000\nshape (2, 3)", "loss 0.50001\nshape (2, 3)")
    assert same["structure"] and same["values"]
    values = cmp.compare_stdout("loss 0.7\n", "loss 0.5\n")
    assert values["structure"] and not values["values"] and "0.7" in values["value_diffs"][0]
    text = cmp.compare_stdout("numpy=array([1, 2])", "numpy=\narray([1, 2])")
    assert not text["structure"] and not text["values"] and text["diff"]
    assert cmp.compare_stdout("nan", "nan")["values"] and not cmp.compare_stdout("nan", "1.0")["values"]


def test_failure_point_names_the_exception_and_the_tutorial_line():
    err = ('Traceback (most recent call last):\n'
           '  File "/x/tutorial_a.py", line 12, in <module>\n    f()\n'
           '  File "/x/tutorial_a.py", line 7, in f\n    g()\n'
           '  File "/site/tensorflow/ops.py", line 99, in g\n    raise E\n'
           'tensorflow.python.framework.errors_impl.InvalidArgumentError: bad shape\n')
    assert cmp.failure_point(err, "tutorial_a.py") == ("InvalidArgumentError", 7)
    assert cmp.failure_point("", "tutorial_a.py") == (None, None)
    assert cmp.failure_point(err + "WARNING:tensorflow:Value in checkpoint could not be found\n",
                             "tutorial_a.py") == ("InvalidArgumentError", 7)


def test_numpy_width_padding_does_not_count():
    assert cmp.normalise("tf.Tensor([ 1  4], shape=(2,))")[0][0] == cmp.normalise("tf.Tensor([9 16], shape=(2,))")[0][0]


def test_a_metric_line_is_dropped_however_its_value_is_padded():
    # "{:5.2f}%" prints " 8.00%" or "10.00%": both lines are metric lines (keras_save_and_load)
    assert cmp.normalise("Untrained model, accuracy:  8.00%\nUntrained model, accuracy: 10.00%\n") == []


def test_numpy_padding_before_a_comma_does_not_count():
    # NumPy pads each number to the widest one: 0. becomes "0. ," beside -1.5 (guide_intro_to_modules)
    assert cmp.normalise("array([[0. , 1.5],")[0][0] == cmp.normalise("array([[2., 1.],")[0][0]


def test_an_array_wrapped_at_another_place_is_the_same_line():
    # NumPy wraps at 75 characters, so where depends on the strings printed (load_csv's font column)
    one = cmp.normalise("font : [b'BAITI' b'AGENCY'\n b'ARIAL']\nnext [1]\n")
    other = cmp.normalise("font : [b'BAITI'\n b'AGENCY' b'ARIAL']\nnext [1]\n")
    assert [s for s, _ in one] == [s for s, _ in other] == ["font : [b'BAITI' b'AGENCY' b'ARIAL']", "next [#]"]


def test_lines_tf_varies_between_runs_are_compared_without_their_strings():
    tf_1 = "head\nsex : [b'male' b'female']\nclass : [b'First' b'Third' b'Second']\ntail 3\n"
    tf_2 = "head\nsex : [b'female' b'female']\nclass : [b'Third' b'Second']\ntail 3\n"
    varying = cmp.tf_varying_lines(tf_1, tf_2)
    assert varying == {1: True, 2: False}  # line 2: more than the strings vary (the row count)
    ours = "head\nsex : [b'female' b'male']\nclass : [b'Second']\ntail 3\n"
    assert cmp.compare_stdout(ours, tf_1)["structure"] is False
    assert cmp.compare_stdout(ours, tf_1, varying)["structure"] is True
    # what TF prints the same each time is still compared, and so is the form of a varying line
    assert cmp.compare_stdout(ours.replace("tail", "TAIL"), tf_1, varying)["structure"] is False
    assert cmp.compare_stdout(ours.replace("sex : [", "sex: ["), tf_1, varying)["structure"] is False
    assert cmp.tf_varying_lines(tf_1, tf_2 + "extra\n") == {}


def test_markdown_table_has_a_row_per_tutorial_and_the_totals():
    r = {"tutorial": "guide_x", "file": "tests/tutorials/tutorial_guide_x.py", "runs": True, "tf_runs": True,
         "same_exit": True, "matches": True, "values_match": False, "lines": 3, "diff": [],
         "value_diffs": ["line 1: 'loss #' tfcore [0.7] tf [0.5]"],
         "tfcore": {"rc": 0, "seconds": 1.0}, "tf": {"rc": 0, "seconds": 5.0}}
    md = cmp.markdown([r], {"date": "2026-01-01 00:00 UTC", "tf_version": "TensorFlow 2.21.0, Keras 3.15.1",
                             "commit": "abc", "tf_seconds": 5.0, "tfcore_seconds": 1.0})
    assert "**1/1 run on tfcore, 1/1 match TF (0/1 with equal values).**" in md
    assert "| guide_x | yes | yes | yes | no | 3 |" in md and "TensorFlow 2.21.0" in md and "`abc`" in md


@pytest.mark.skipif(not os.environ.get("TFCORE_TF_PYTHON"),
                    reason="set TFCORE_TF_PYTHON to a Python with tensorflow installed to compare with real TF")
@pytest.mark.skipif(os.environ.get("TFCORE_EMULATED_GPUS") not in (None, "", "0"),
                    reason="the comparison runs once, in the CPU pass")
def test_guide_tensor_slicing_matches_real_tf():
    r = cmp.compare_tutorial(HERE / "tutorial_guide_tensor_slicing.py", os.environ["TFCORE_TF_PYTHON"])
    assert r["runs"] and r["tf_runs"], (r["tfcore"]["stderr_tail"], r["tf"]["stderr_tail"])
    assert r["matches"], r["diff"]
    assert r["values_match"], r["value_diffs"]
