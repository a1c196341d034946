"""Fixtures shared by the op tests."""

import pytest

from tfcore.framework.context import context


@pytest.fixture(scope="module")
def cpu():
    """The CPU device's backend: for calling a kernel or a candidate on host arrays directly."""
    return context.find("CPU", 0).backend
