"""The ``tfcore selftest`` subcommand (registered in ``tfcore.cli``)."""

import sys

from ..framework.commands import command


def _arguments(p):
    p.add_argument("--json", metavar="PATH", default=None, help="also write every row and the versions as JSON")
    p.add_argument("--no-timings", action="store_true", help="skip the side-by-side timings")
    p.add_argument("--no-probes", action="store_true",
                   help="skip the CUDA-graph and NCCL probes (each runs in a fresh process)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr, only the table")


@command("selftest", "check this machine's GPU stack: versions, every kernel family against float64 references, "
                     "CUDA graphs, NCCL on a split card, timings (exit status 1 when a check fails)", _arguments)
def _selftest(args):
    from . import run_selftest

    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    return run_selftest(json_path=args.json, timings=not args.no_timings, probes=not args.no_probes,
                        progress=progress)
