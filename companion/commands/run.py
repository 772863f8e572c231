"""``catan-companion run``: a real game at a real table.

The board comes from the camera (or a photo, or a board JSON file); the setup check runs on it;
the dice tower rolls; the web page shows everything and takes what the camera cannot see. The
journal (by default in the user's data directory) resumes the game after any stop.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from companion.board import Board, Hex, Terrain
from companion.host import TableHost, open_or_create
from companion.scenario import load_scenario, scenario_map
from web.server import host_page

log = logging.getLogger(__name__)

COLORS = ("red", "blue", "white", "orange", "green", "brown")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--camera", help="camera index or URL: it follows the game (and reads a new board)"
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--photo", type=Path, help="read the board from this photo")
    source.add_argument("--board", type=Path, help="the board as JSON (see read-board --json)")
    parser.add_argument("--serial", help="dice tower port (/dev/ttyACM0, or sim://NAME)")
    parser.add_argument(
        "--players", default="red,blue,white,orange", help="colours in seat order, comma-separated"
    )
    parser.add_argument("--journal", type=Path, help="journal file (resumed if it exists)")
    parser.add_argument("--port", type=int, default=8765, help="web page port")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (0.0.0.0: the whole Wi-Fi)"
    )
    parser.add_argument(
        "--accept-setup", action="store_true", help="play even if the setup check finds faults"
    )
    parser.add_argument(
        "--scenario",
        help="a scenario id or file; without a board source, its map is laid out from the page",
    )
    parser.add_argument("--seed", type=int, help="seed of a scenario's random set-up")


def parse_players(text: str) -> list[str]:
    players = [c.strip().lower() for c in text.split(",") if c.strip()]
    unknown = [c for c in players if c not in COLORS]
    if unknown:
        raise ValueError(f"--players: unknown colour {unknown[0]!r} (use {', '.join(COLORS)})")
    if not 3 <= len(players) <= 6 or len(set(players)) != len(players):
        raise ValueError("--players: give 3 to 6 different colours, e.g. red,blue,white")
    return players


def photo_map(scenario: str, players: int) -> Board | None:
    """The scenario's map for reading its photo in the map's own hexes, which the scenario's
    rules name; None (read blind) when the scenario draws its sea at random."""
    try:
        return scenario_map(scenario, players)
    except ValueError as exc:
        log.warning("%s; reading the photo without the scenario's map", exc)
        return None


def read_table_board(args: argparse.Namespace, known: Board | None = None) -> Board:
    """The board of a new game, from the camera, a photo or a JSON file (a photo read in the
    hexes of ``known``, the scenario's map, when given)."""
    if args.board is not None:
        return Board.load(args.board)
    from vision.read_board import read_board

    if args.photo is not None:
        return read_board(args.photo, known=known)
    if args.camera is not None:
        return read_board(grab_frame(args.camera), known=known)
    raise ValueError("a new game needs its board: give --camera, --photo or --board")


def grab_frame(camera: str) -> object:
    """One frame from a camera (index or URL), after letting its exposure settle."""
    import cv2

    cap = cv2.VideoCapture(int(camera) if camera.isdigit() else camera)
    try:
        if not cap.isOpened():
            raise ValueError(f"--camera {camera}: no camera there (is it plugged in?)")
        frame = None
        for _ in range(15):  # the first frames of a webcam are dark while it adjusts
            ok, grabbed = cap.read()
            if ok:
                frame = grabbed
        if frame is None:
            raise ValueError(f"--camera {camera}: the camera gives no picture")
        return frame
    finally:
        cap.release()


def check_setup(board: Board, players: int, accept: bool, scenario: str | None = None) -> None:
    """Refuse a board that breaks the set-up rules (of ``scenario`` when named, else of the
    board's kind) unless ``accept``; the faults go to standard error."""
    from companion.setup_check import check_board, spec_for
    from vision.read_board import for_setup_check

    spec = spec_for(scenario, players) if scenario else None
    # A photo's harbours left unread would be judged missing; the game keeps those read.
    report = check_board(for_setup_check(board), spec, players=players)
    for v in report.violations:
        print(f"setup: {v.rule}: {v.message}", file=sys.stderr)
    if not report.ok and not accept:
        raise ValueError(
            f"the setup check found {len(report.violations)} fault(s) (above); fix the board "
            "(catan-companion check-setup suggests swaps) or pass --accept-setup"
        )


def start_figures(board: Board, starts: tuple[Hex | None, Hex | None], pirate: bool) -> list[str]:
    """Put the robber, and the pirate when the game has one (``pirate``), on their start
    hexes when the board does not place them (the camera did not see them), in place; returns
    notes saying where, for the players to put them there.

    ``starts``: the robber's and the pirate's start hexes on this board by the scenario's
    set-up (:meth:`companion.scenario.Scenario.start_hexes`), None where not known. Without one, the
    robber of the base game and 5-6 starts on a desert (RULES.md 1.3.6).

    >>> from companion.layouts import random_board
    >>> board = random_board(4, seed=1)
    >>> board.robber = None
    >>> start_figures(board, (None, None), pirate=False)
    ['the robber was not seen: it starts on the desert at (-1, -1)']
    >>> board.robber
    (-1, -1)

    Raises:
        ValueError: a figure is missing and its start hex is not known.
    """
    robber, pirate_start = starts
    notes = []
    if board.robber is None:
        if robber is None and board.kind in ("base", "5-6"):
            deserts = sorted(h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT)
            if not deserts:
                raise ValueError("the board has no robber and no desert to start it on")
            board.robber = deserts[0]
            notes.append(f"the robber was not seen: it starts on the desert at {deserts[0]}")
        elif robber is None:
            raise ValueError(_unseen("robber"))
        else:
            board.robber = robber
            notes.append(f"the robber was not seen: it starts on {robber}, as the scenario says")
    if pirate and board.pirate is None:
        if pirate_start is None:
            raise ValueError(_unseen("pirate"))
        board.pirate = pirate_start
        notes.append(f"the pirate was not seen: it starts on {pirate_start}, as the scenario says")
    return notes


def _unseen(figure: str) -> str:
    return (
        f"the {figure} is not in view and its start on this map is not known: show it to the "
        "camera and start again, or pass the board as JSON (--board)"
    )


def run(args: argparse.Namespace) -> int:
    players = parse_players(args.players)
    journal = args.journal
    if journal is None:
        from platformdirs import user_data_dir

        games = Path(user_data_dir("catan-companion")) / "games"
        games.mkdir(parents=True, exist_ok=True)
        journal = games / time.strftime("%Y-%m-%d-%H%M%S.sqlite")
    resume = journal.exists() and journal.stat().st_size > 0
    scenario = (
        load_scenario(args.scenario, len(players), seed=args.seed)
        if args.scenario and not resume
        else None
    )
    rules = scenario.rules if scenario is not None else None
    if resume:
        board = None  # the journal has it
    elif scenario is not None and not (args.board or args.photo or args.camera):
        board = scenario.board
    else:
        known = photo_map(args.scenario, len(players)) if args.scenario and not args.board else None
        board = read_table_board(args, known)
        for w in board.warnings:
            print(f"board: {w}", file=sys.stderr)
        starts: tuple[Hex | None, Hex | None] = (None, None)
        if scenario is not None:
            # A start given by coordinates holds in the map's own hexes: a board file's, or a
            # photo read in its map's (not one read blind).
            starts = scenario.start_hexes(board, known is not None or args.board is not None)
        game_pirate = scenario is not None and scenario.board.pirate is not None
        for note in start_figures(board, starts, game_pirate):
            print(f"board: {note}", file=sys.stderr)
        check_setup(board, len(players), args.accept_setup, args.scenario)
    jgame = open_or_create(journal, board, players, args.seed, rules)
    host = TableHost(
        jgame,
        web=host_page(args.host, args.port),
        tower_url=args.serial,
        camera=args.camera,
    )
    try:
        host.start()
    except OSError as exc:
        host.stop()
        raise ValueError(f"cannot listen on {args.host}:{args.port} ({exc})") from None
    host.serve("Catan Companion")
    return 0
