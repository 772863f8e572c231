"""The ``catan-companion`` command line.

Each command lives in its own module, which exposes ``add_arguments(parser)`` and
``run(args) -> int``; this file only routes. A module is imported when its command runs, so a
command that needs OpenCV does not slow down one that does not.

Exit codes: 0 success, 2 bad input (one line on standard error, never a traceback), 1 failure.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import sys
from collections.abc import Sequence

from companion import __version__

#: command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("companion.commands.demo", "run a whole table with a synthetic camera and tower"),
    "run": ("companion.commands.run", "run a real game: camera, dice tower, web page"),
    "dice-game": ("companion.commands.dice_game", "play the Catan Dice Game (or Plus) at a table"),
    "read-board": ("vision.commands.read_board", "read a photo of the board"),
    "read-chip": ("vision.commands.read_chip", "read cropped number chips"),
    "check-setup": ("companion.commands.check_setup", "check a board against the setup rules"),
    "generate-board": ("companion.commands.generate_board", "generate a legal, balanced board"),
    "calibrate": ("calibration.commands", "calibrate camera, colours or board lock"),
    "replay": ("companion.commands.replay", "print a journaled game turn by turn"),
}

#: bench target -> (module, one-line help)
BENCHES: dict[str, tuple[str, str]] = {
    "engine": ("companion.benches.engine", "random full games per second"),
    "route": ("companion.benches.route", "longest route on the worst network"),
    "setup": ("companion.benches.setup", "boards generated per second"),
    "vision": ("vision.bench", "board and chip reading accuracy and speed"),
    "tracking": ("vision.bench_tracking", "live tracking on a synthetic video"),
    "serial": ("firmware_bridge.bench", "dice tower protocol round trips and faults"),
    "table": ("companion.benches.table", "button press to LEDs and page"),
    "demo": ("companion.benches.demo", "the demo's CPU use and its camera's moves"),
}


class UsageError(ValueError):
    """A mistake of the user's: reported in one line, exit code 2."""


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="catan-companion",
        description="A table companion for the physical game of Catan.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if not _available(module):
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(p)
        p.set_defaults(_module=module)
    bench = sub.add_parser("bench", help="measure speed and accuracy", description="benchmarks")
    bench_sub = bench.add_subparsers(dest="target", metavar="TARGET")
    for name, (module, help_text) in BENCHES.items():
        if not _available(module):
            continue
        p = bench_sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    module = getattr(args, "_module", None)
    if module is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(importlib.import_module(module).run(args) or 0)
    except (UsageError, ValueError, OSError) as exc:
        # ValueError and OSError subclasses raised for bad input carry a message meant for
        # the user (BoardError, IllegalAction, JournalError, a missing file...).
        print(f"catan-companion: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
