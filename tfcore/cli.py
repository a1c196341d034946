"""The ``tfcore`` command: ``info`` (devices and versions), plus subcommands other modules add.

Subcommands are registered in ``COMMANDS``: name -> (help, add_arguments(parser), run(args)).
"""

import argparse
import importlib
import platform
import sys

COMMANDS = {}


def command(name, help_text, add_arguments=None):
    """Decorator registering ``run(args)`` as subcommand ``name``."""

    def deco(run):
        COMMANDS[name] = (help_text, add_arguments or (lambda p: None), run)
        return run

    return deco


@command("info", "print versions, physical and logical devices, CuPy/GPU/NCCL availability")
def _info(args):
    import numpy

    import tfcore as tf
    from tfcore.framework.context import context

    print(f"tfcore {tf.__version__}  (Python {platform.python_version()}, NumPy {numpy.__version__})")
    from .backend import cuda

    version = cuda.cupy_version()
    print(f"CuPy: {version or 'not available'}")
    nccl = cuda.nccl_module()
    if nccl is not None:
        nccl = f"available (version {nccl.get_version()})"
    elif version is not None:
        nccl = "not available (pip install nvidia-nccl-cu12)"
    else:
        nccl = "not available"
    print(f"NCCL: {nccl}")
    print("Physical devices:")
    for d in tf.config.list_physical_devices() if hasattr(tf, "config") else context.physical_devices():
        info = context.gpu_info(d)
        extra = ""
        if info is not None:
            kind = "emulated" if info.emulated else "CUDA"
            extra = (f"  [{kind}: {info.device_name}, compute capability "
                     f"{'.'.join(map(str, info.compute_capability))}, {info.total_memory / 2**30:.1f} GiB]")
        print(f"  {d.name} ({d.device_type}){extra}")
    gpus = [d for d in context.physical_devices() if d.device_type == "GPU"]
    print(f"GPU found: {'yes' if gpus else 'no'}")
    print("Logical devices:")
    for d in context.ensure_initialized():
        alloc = getattr(d, "allocator", None)
        if alloc is not None:
            st = alloc.stats()
            cap = "unlimited" if st["bytes_limit"] is None else f"{st['bytes_limit'] / 2**20:.0f} MB"
            limit = (f"  on {d.physical.name}, memory_limit={cap}, "
                     f"memory_growth={'on' if st['allow_growth'] else 'off'}")
        else:
            limit = f"  on {d.physical.name}" + (f", memory_limit={d.memory_limit} MB" if d.memory_limit else "")
        print(f"  {d.name}{limit}")
    return 0


def main(argv=None):
    for mod in ("tfcore.keras.train_command", "tfcore.bench_command", "tfcore.saving.saved_model_cli"):
        try:
            importlib.import_module(mod)  # registers its subcommand
        except ImportError:
            pass
    parser = argparse.ArgumentParser(prog="tfcore", description="tfcore command-line tools")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_arguments, _) in COMMANDS.items():
        add_arguments(sub.add_parser(name, help=help_text))
    args = parser.parse_args(argv)
    return COMMANDS[args.command][2](args) or 0


if __name__ == "__main__":  # run as tfcore.cli so subcommands register into the same COMMANDS
    from tfcore.cli import main as _main

    sys.exit(_main())
