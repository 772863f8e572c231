"""``catan-companion check-setup BOARD.json|IMAGE``: rule violations and the fewest swaps.

Exit code 0 when the board passes every rule, 1 when it breaks one (the report says which and
how to fix it), 2 for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

from companion.board import SCENARIO_BOARD_KINDS, Board
from companion.fixes import FixResult, describe_swaps, suggest_fixes
from companion.scenario import list_scenarios, scenario_map
from companion.setup_check import Report, SetupSpec, check_board, draw_board, spec_for

log = logging.getLogger(__name__)

MAX_SWAPS_LIMIT = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("board", metavar="BOARD.json|IMAGE", help="a board JSON file or a photo")
    parser.add_argument(
        "--scenario", help="set-up to check against (default: by the board's kind: base or 5-6)"
    )
    parser.add_argument("--players", type=int, help="number of players (3-6)")
    parser.add_argument(
        "--spiral",
        action="store_true",
        help="the table laid the chips by letter: also check the lettered spiral",
    )
    parser.add_argument(
        "--beginner",
        action="store_true",
        help="the beginner set-up: also check its rules (with 3 players, no red pieces)",
    )
    parser.add_argument(
        "--max-swaps",
        type=int,
        default=4,
        help=f"longest chip-swap fix to search for (1-{MAX_SWAPS_LIMIT}, default 4)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def load_board(path: str, known: Board | None = None) -> Board:
    """A board from a JSON file, or read from a photo by the vision module when it exists
    (with ``known``, the scenario's map: the photo is read in that map's own hexes)."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        return Board.load(p)
    if not p.exists():
        raise ValueError(f"{p}: no such file")
    try:
        module = importlib.import_module("vision.read_board")
    except ModuleNotFoundError as exc:
        if exc.name not in ("vision", "vision.read_board"):
            raise
        raise ValueError(
            f"{p}: reading a photo needs the vision module (vision.read_board), which is not "
            "installed; pass a board JSON file instead"
        ) from None
    board = module.read_board(p) if known is None else module.read_board(p, known=known)
    if not isinstance(board, Board):
        raise TypeError("vision.read_board.read_board did not return a companion.board.Board")
    # Harbours left unread would be judged missing: the reader says how to check its board.
    prepare = getattr(module, "for_setup_check", None)
    return prepare(board) if prepare is not None else board


def known_map(scenario: str | None, players: int | None) -> Board | None:
    """The map of the scenario named by ``--scenario`` (None for the base game and 5-6, whose
    boards are read blind), for reading a photo of it."""
    if scenario is None or (scenario not in list_scenarios() and not Path(scenario).suffix):
        return None
    return scenario_map(scenario, players or 4)


def choose_spec(board: Board, scenario: str | None, players: int | None) -> SetupSpec:
    if scenario is None:
        if board.kind in SCENARIO_BOARD_KINDS:
            raise ValueError(f"a {board.kind} board needs --scenario NAME")
        scenario = board.kind
    spec = spec_for(scenario, players)
    if spec.kind != board.kind:
        raise ValueError(
            f"the board is a {board.kind} board but scenario {spec.name!r} is played on a "
            f"{spec.kind} board"
        )
    return spec


def report_json(report: Report, fix: FixResult) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "violations": [v.to_json() for v in report.violations],
        "suggestions": [s.to_json() for s in fix.swaps],
        "fixable": fix.fixed,
        "reason": fix.reason,
        "notes": list(report.notes),
    }


def report_text(board: Board, report: Report, fix: FixResult, players: int | None) -> str:
    who = f", {players} players" if players else ""
    lines = [f"{report.spec.name} set-up{who}:"]
    lines.append(draw_board(board, report.hexes()))
    lines.extend(f"({note})" for note in report.notes)
    if report.ok:
        lines.append("All set-up rules pass.")
        return "\n".join(lines)
    n = len(report.violations)
    lines.append(f"{n} problem{'s' if n != 1 else ''} (marked *like this* above):")
    width = max(len(v.rule) for v in report.violations)
    lines.extend(f"  {v.rule:<{width}}  {v.message}" for v in report.violations)
    if fix.swaps:
        k = len(fix.swaps)
        head = "Fix" if fix.fixed else "Partial fix"
        lines.append(f"{head} ({k} step{'s' if k != 1 else ''}):")
        steps = describe_swaps(board, fix.swaps)
        for i, (s, text) in enumerate(zip(fix.swaps, steps, strict=True), 1):
            cures = f"  [{', '.join(s.fixes)}]" if s.fixes else ""
            lines.append(f"  {i}. {text}{cures}")
    if not fix.fixed:
        lines.append(f"Cannot be made legal: {fix.reason}.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.max_swaps <= MAX_SWAPS_LIMIT:
        raise ValueError(f"--max-swaps {args.max_swaps}: choose 1 to {MAX_SWAPS_LIMIT}")
    photo = Path(args.board).suffix.lower() != ".json"
    board = load_board(args.board, known_map(args.scenario, args.players) if photo else None)
    spec = choose_spec(board, args.scenario, args.players)
    report = check_board(board, spec, args.players, spiral=args.spiral, beginner=args.beginner)
    fix = suggest_fixes(board, report.spec, args.players, max_swaps=args.max_swaps)
    log.debug("checked %s against %s: %d violations", args.board, spec.name, len(report.violations))
    if args.json:
        json.dump(report_json(report, fix), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(report_text(board, report, fix, args.players))
    return 0 if report.ok else 1
