"""The export tests build and run their reference models on CPU:0 (``cpu`` fixture)."""

import pytest

import tfcore as tf


@pytest.fixture
def cpu():
    with tf.device("/CPU:0"):
        yield
