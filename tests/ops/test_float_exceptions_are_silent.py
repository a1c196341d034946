"""TF's kernels are silent on floating-point exceptions: 0/0 is NaN and 1/0 inf, with no message. NumPy's
RuntimeWarnings from tfcore's kernels are not printed; the user's own NumPy code still warns."""

import subprocess
import sys

PROGRAM = """
import numpy as np
import tfcore as tf
print(tf.constant([0.0, 1.0]) / tf.constant([0.0, 0.0]))
print(tf.math.log(tf.constant([0.0, -1.0])))
print(tf.exp(tf.constant([1000.0])))
print("user:", np.array([0.0]) / np.array([0.0]))
"""


def test_tfcore_kernels_print_no_numpy_runtime_warning_and_user_numpy_still_does():
    r = subprocess.run([sys.executable, "-W", "default", "-c", PROGRAM], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:3] == ["tf.Tensor([nan inf], shape=(2,), dtype=float32)",
                                         "tf.Tensor([-inf  nan], shape=(2,), dtype=float32)",
                                         "tf.Tensor([inf], shape=(1,), dtype=float32)"]
    warnings = [line for line in r.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warnings) == 1 and warnings[0].startswith("<string>:"), r.stderr  # the user's division only
