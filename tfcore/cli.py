"""The ``tfcore`` command: ``info`` (devices and versions), plus subcommands other modules add.

Subcommands are registered in :mod:`tfcore.framework.commands`: name -> (help, add_arguments(parser), run(args)).
"""

import argparse
import importlib
import platform
import sys

from .framework.commands import COMMANDS, command
from .framework.errors import OpError


def _info_arguments(p):
    p.add_argument("--ops", nargs="*", metavar="OP", default=None,
                   help="also list each op's kernel candidates per logical device (all ops, or the named ones)")


@command("info", "print versions, physical and logical devices, CuPy/GPU/NCCL availability", _info_arguments)
def _info(args):
    import numpy

    import tfcore as tf
    from tfcore.framework.context import context

    print(f"tfcore {tf.version.TFCORE_VERSION}  (Python {platform.python_version()}, NumPy {numpy.__version__}, "
          f"TF API {tf.version.TF_API_VERSION})")
    from .backend import cuda, cuda_stack, native_cpu

    print(f"CuPy: {cuda.cupy_version() or 'not available'}")
    for line in cuda_stack.report_lines():  # CUDA runtime, NVRTC, NCCL
        print(line)
    print(native_cpu.report_line())
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
    if getattr(args, "ops", None) is not None:
        _print_op_kernels(args.ops, context.ensure_initialized())
    return 0


def _print_op_kernels(names, devices):
    """Per op and logical device: the kernel candidates in the order ``execute`` tries them."""
    from .ops.registry import REGISTRY, get_op

    for n in names or ():
        if n not in REGISTRY:  # TF's op names (as tf.raw_ops spells them): suggest the ones that contain it
            key = n.lower().replace("_", "")
            near = sorted(r for r in REGISTRY if key and key in r.lower().replace("_", ""))[:5]
            raise KeyError(f"No op named {n!r} is registered" + (f"; did you mean {', '.join(near)}?" if near else
                                                                  " (ops have TF's names, as tf.raw_ops spells them)"))
    ops = [get_op(n) for n in names] if names else [REGISTRY[n] for n in sorted(REGISTRY)]
    print("Op kernels (per device, in the order execute tries them; the first eligible one runs):")
    for op in ops:
        print(f"  {op.name}")
        for d in devices:
            kind = d.backend.kind
            cands = op.candidates.get(kind)
            text = " > ".join(c.describe() for c in cands) if cands else "none: runs on CPU:0 (soft placement)"
            print(f"    {d.name.rpartition('device:')[2]} ({kind}): {text}")


def main(argv=None):
    for mod in ("tfcore.keras.train_command", "tfcore.benchmarks.kernel_bench", "tfcore.saving.saved_model_cli",
                "tfcore.export.export_command", "tfcore.selftest.command", "tfcore.compat.run_command"):
        try:
            importlib.import_module(mod)  # registers its subcommand
        except ImportError:
            pass
    parser = argparse.ArgumentParser(prog="tfcore", description="tfcore command-line tools")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_arguments, _) in COMMANDS.items():
        add_arguments(sub.add_parser(name, help=help_text))
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command][2](args) or 0
    except (OpError, OSError, KeyError, ValueError) as e:  # a user's mistake (a missing path, an unknown op): one line
        message = e.args[0] if isinstance(e, KeyError) and e.args else getattr(e, "message", None) or str(e)
        print(f"tfcore {args.command}: error: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
