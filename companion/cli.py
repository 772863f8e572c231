"""The ``catan-companion`` command line.

Each command lives in its own module, which exposes ``add_arguments(parser)`` and
``run(args) -> int``; this file only routes. A module is imported when its command runs, so a
command that needs OpenCV does not slow down one that does not.

Exit codes: 0 success, 2 bad input (one line on standard error, never a traceback), 1 failure.
A reader of standard output that goes away (``| head -1``) ends the command quietly, with 0.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import os
import select
import shlex
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
    "register": ("vision.bench_register", "board registration alone on synthetic renders"),
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


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of every command; only the command (or bench) named in ``argv`` gets its
    arguments, so a start imports that command's module alone, not every other's (OpenCV,
    SciPy, Flask...). Global options take no value, so the first words not starting with a
    dash are the command and, for ``bench``, its target.

    >>> build_parser(["bench", "route"]).parse_args(["bench", "route", "--json"]).json
    True
    """
    named = [a for a in argv if not a.startswith("-")][:2]
    parser = argparse.ArgumentParser(
        prog="catan-companion",
        description="A table companion for the physical game of Catan.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_modules(sub, COMMANDS, named[:1])
    bench = sub.add_parser("bench", help="measure speed and accuracy", description="benchmarks")
    bench_sub = bench.add_subparsers(dest="target", metavar="TARGET")
    _add_modules(bench_sub, BENCHES, named[1:] if named[:1] == ["bench"] else [])
    return parser


def _add_modules(
    sub: argparse._SubParsersAction, table: dict[str, tuple[str, str]], named: list[str]
) -> None:
    for name, (module, help_text) in table.items():
        if not _available(module):
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name in named:
            importlib.import_module(module).add_arguments(p)
        p.set_defaults(_module=module)


def one_blas_thread() -> None:
    """Have NumPy's BLAS (OpenBLAS) run on the calling thread, unless the environment says
    otherwise; it only takes effect before NumPy is first imported, so :func:`main` calls it
    before any command is.

    Every product the companion multiplies is small (the chip classifier's 30-odd views by
    324 features by 128), and OpenBLAS splits even those over a thread per core, which then
    wait on each other: on the 2-core machine at load 6, ``read_board`` of a 1600x1200 photo
    took 1.49 s wall and 1.03 s CPU that way, against 0.80 s and 0.60 s on one thread
    (docs/vision.md, Speed). The camera, the web page and the engine share those cores.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None) -> int:
    one_blas_thread()
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    # What a bench records as the command that produced its figures: the arguments as given,
    # whichever way the program was started (console script, python -m, a test's main()).
    args.command_line = shlex.join(["catan-companion", *argv])
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
        code = int(importlib.import_module(module).run(args) or 0)
        # Flush inside the try: a reader that went away is then noticed here, not at
        # interpreter exit, where Python reports it and exits 120.
        sys.stdout.flush()
        return code
    except BrokenPipeError as exc:
        if not _stdout_reader_gone():
            # A pipe or socket of the command's own broke (a tower, a page): a real failure.
            print(f"catan-companion: {exc}", file=sys.stderr)
            return 1
        # The reader of our output went away (`| head -1`): not an error of ours, so end
        # quietly. Standard output now points at devnull, so the flush at exit does not fail
        # again (the Python docs' advice for SIGPIPE, which Python ignores).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0
    except (UsageError, ValueError, OSError) as exc:
        # ValueError and OSError subclasses raised for bad input carry a message meant for
        # the user (BoardError, IllegalAction, JournalError, a missing file...).
        print(f"catan-companion: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _stdout_reader_gone() -> bool:
    """Whether standard output is a pipe or socket whose reading end is closed.

    A write end whose readers are all gone polls as an error (POLLERR), at once and for good.
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a non-file, or closed
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(0))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
