"""The registry of ``tfcore`` subcommands.

A module that offers a subcommand registers it here with ``@command(...)``; :mod:`tfcore.cli` (the top
layer) imports those modules and builds the argument parser from ``COMMANDS``. The registry sits in the
framework layer so that the layers below the command line (``keras``, ``saving``, ...) can register
commands without importing upwards.
"""

COMMANDS = {}


def command(name, help_text, add_arguments=None):
    """Decorator registering ``run(args)`` as subcommand ``name``.

    ``add_arguments(parser)`` adds the subcommand's options; ``run`` returns the exit status (None means 0).
    """

    def deco(run):
        COMMANDS[name] = (help_text, add_arguments or (lambda p: None), run)
        return run

    return deco
