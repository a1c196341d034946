"""Per-op profile of an eager training step (calls, host dispatch time and synced time per op name); see
tfcore/benchmarks/op_profile.py. Run::

    python bench/profile_ops.py --model resnet50 --batch 32      # on a GPU
    python bench/profile_ops.py --model cnn --batch 16 --steps 2  # anywhere
"""

import sys

from tfcore.benchmarks.op_profile import main

if __name__ == "__main__":
    sys.exit(main())
