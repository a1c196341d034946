"""CPU convolution benchmark matrix next to TensorFlow and PyTorch (issue 28): see tfcore/benchmarks/conv_bench.py.

    python bench/bench_conv_cpu.py --tf-python /path/to/python-with-tensorflow [--threads 2] [--quick]

Same as ``tfcore bench --cpu``; prints a markdown table (tfcore ms, GFLOP/s, TF ms, PyTorch ms, ratios).
"""

import argparse
import sys

from tfcore.benchmarks import conv_bench

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per row and round (default 5)")
    conv_bench.add_arguments(parser)
    sys.exit(conv_bench.run_from_args(parser.parse_args()))
