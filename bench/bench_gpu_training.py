"""GPU training-step benchmark, tfcore next to PyTorch (MLP, CNN, Keras ResNet50); see
tfcore/benchmarks/training_bench.py. Also ``tfcore bench train``. Run::

    python bench/bench_gpu_training.py [--quick] [--tf32] [--function]
"""

import sys

from tfcore.benchmarks.training_bench import main

if __name__ == "__main__":
    sys.exit(main())
