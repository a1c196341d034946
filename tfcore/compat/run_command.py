"""``tfcore run script.py [args...]``: run an unchanged ``import tensorflow as tf`` program on tfcore.

The command installs the alias (:func:`~.tensorflow_alias.install_as_tensorflow`), then runs the script
as ``python script.py args...`` would: ``__name__ == "__main__"``, ``sys.argv`` the script and its
arguments, the script's folder first on ``sys.path``. An exception in the script prints its traceback
and exits with status 1; ``sys.exit(n)`` in the script exits with ``n``.
"""

import os
import runpy
import sys
import traceback

from ..framework.commands import command
from .tensorflow_alias import install_as_tensorflow


def _arguments(p):
    p.add_argument("script", help="the Python program to run (it imports tensorflow / keras)")
    p.add_argument("args", nargs="...", help="arguments passed to the program as sys.argv[1:]")


@command("run", "run an unchanged `import tensorflow as tf` script on tfcore (python -m tfcore run x.py)",
         _arguments)
def _run(args):
    script = args.script
    if not os.path.isfile(script):
        raise FileNotFoundError(f"no such script: {script!r}")
    install_as_tensorflow()
    sys.argv = [script, *args.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 - the script's own error: its traceback, as python prints it
        traceback.print_exc()
        return 1
    return 0
