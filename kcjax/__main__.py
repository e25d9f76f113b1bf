"""``python -m kcjax`` and the ``kcjax`` command: the CLI, stopping cleanly from the start.

Importing jax takes a while; SIGINT or SIGTERM during it, or at any later
stage, ends the process with one line and exit status 130 / 143
(:mod:`kcjax._interrupts`), so this module installs that before it imports
the command line. Once the command has returned, both signals are ignored
while the interpreter shuts down: the exit status is the command's own.
"""

import sys

from kcjax._interrupts import stop_cleanly


def run() -> int:
    """Runs the ``kcjax`` command on ``sys.argv``; returns its exit status."""
    with stop_cleanly("kcjax", ignore_after=True):
        from kcjax.cli import main

        return main()


if __name__ == "__main__":
    sys.exit(run())
