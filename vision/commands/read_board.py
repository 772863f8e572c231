"""``catan-companion read-board IMAGE [--kind K | --scenario S [--players N]] [--json]
[--debug DIR]``: read a board photo.

Prints the board (hexes with terrain, number and confidence; warnings), then the setup check
of :mod:`companion.setup_check` when that module exists. ``--json`` prints one JSON document:
the board JSON of DESIGN.md with an extra ``"setup_check"`` member (``null`` when no check
ran). A photo without a board, a missing file or a bad option exits with code 2 and one line.
``--scenario`` names the scenario set up on the table: its map's frame, sea and terrain counts
are then known and used (``vision.read_board.read_board(known=...)``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from typing import Any

from companion.board import Board, rows_of
from companion.scenario import scenario_map
from vision.read_board import for_setup_check, is_certain, read_board
from vision.register import FRAMES

log = logging.getLogger("vision.read_board")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("image", metavar="IMAGE", help="photo of the board (JPEG, PNG...)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--kind", choices=tuple(FRAMES), help="board kind (detected if omitted)")
    which.add_argument(
        "--scenario",
        metavar="ID|FILE",
        help="the scenario set up on the table (an id such as new-shores, or a file): its map's "
        "frame, sea and terrain counts are used",
    )
    parser.add_argument(
        "--players", type=int, default=4, help="players of the scenario's layout (default 4)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--debug", metavar="DIR", help="write stage images into DIR")
    parser.add_argument(
        "--no-pieces", action="store_true", help="read the board alone, not the pieces (faster)"
    )


def setup_check(
    board: Board, scenario: str | None = None, players: int | None = None
) -> dict[str, Any] | None:
    """Run ``companion.setup_check.check_board`` if it exists, against the set-up rules of
    ``scenario`` for ``players`` when the table's scenario is named (a Seafarers or country
    map has no rules of its own kind); None when it does not apply."""
    try:
        module = importlib.import_module("companion.setup_check")
    except ImportError:
        return None
    check = getattr(module, "check_board", None)
    if check is None:
        return None
    try:
        if scenario is not None:
            report = check(for_setup_check(board), module.spec_for(scenario, players), players)
        else:
            report = check(for_setup_check(board))
    except ValueError as exc:  # a board the checker cannot judge (e.g. a Seafarers map)
        log.warning("setup check skipped: %s", exc)
        return None
    return {
        "ok": bool(report.ok),
        "violations": [
            {"rule": v.rule, "hexes": [list(h) for h in v.hexes], "message": v.message}
            for v in report.violations
        ],
    }


def format_board(board: Board) -> str:
    """The board as text: one line per row of hexes, west to east, the harbours, figures and
    pieces, then the warnings."""
    lines = [f"{board.kind} board ({'certain' if is_certain(board) else 'UNCERTAIN'})"]
    for row in rows_of(board.tiles):
        cells = []
        for h in row:
            t = board.tiles[h]
            num = "-" if t.number is None else str(t.number)
            cells.append(f"{t.terrain.value}:{num}({(t.confidence or 0.0):.2f})")
        indent = "  " * (max(len(r) for r in rows_of(board.tiles)) - len(row))
        lines.append(indent + "  ".join(cells))
    for hb in board.harbors:
        conf = "" if hb.confidence is None else f" ({hb.confidence:.2f})"
        lines.append(f"harbour: {hb.kind} on side {hb.side} of hex {(hb.q, hb.r)}{conf}")
    lines.append(f"robber: {_where(board.robber)}")
    if board.kind == "seafarers":
        lines.append(f"pirate: {_where(board.pirate)}")
    for piece in board.pieces:
        spot = piece.vertex if piece.vertex is not None else piece.edge
        lines.append(f"piece: {piece.color} {piece.kind} at {spot}")
    lines += [f"warning: {w}" for w in board.warnings]
    return "\n".join(lines)


def _where(hx: tuple[int, int] | None) -> str:
    return "not seen" if hx is None else f"hex {hx}"


def run(args: argparse.Namespace) -> int:
    """Read the photo and print the board and its setup check."""
    known = scenario_map(args.scenario, args.players) if args.scenario else None
    board = read_board(
        args.image, kind=args.kind, debug_dir=args.debug, pieces=not args.no_pieces, known=known
    )
    check = setup_check(board, args.scenario, args.players if args.scenario else None)
    if args.json:
        doc = board.to_json()
        doc["setup_check"] = check
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(format_board(board))
    if check is not None:
        if check["ok"]:
            print("setup check: no rule broken")
        for v in check["violations"]:
            print(f"setup check: {v['rule']}: {v['message']}")
    return 0
