"""``catan-companion demo``: a whole table on this computer, with nothing to plug in.

Computer players play a game on a generated board, at a simulated physical table filmed by a
synthetic camera: what they put on the board reaches the game through the camera (the real
tracker and reconciliation, see companion.demo_players), the rest as the page sends it; the
simulated dice tower rolls and lights the producing hexes; the journal is a SQLite file (a
temporary one unless ``--journal`` names one, which also resumes a game left there). Open the
printed address in a browser. ``--no-camera`` sends every move to the game directly.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from pathlib import Path

from companion.demo_players import DemoCamera
from companion.host import TableHost, open_or_create
from companion.layouts import random_board
from companion.scenario import load_scenario
from web.server import host_page

log = logging.getLogger(__name__)

COLORS = ["red", "blue", "white", "orange", "green", "brown"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8765, help="web page port (0: any free)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--journal", type=Path, help="journal file (resumed if it exists)")
    parser.add_argument("--players", type=int, default=4, choices=range(3, 7), metavar="3-6")
    parser.add_argument(
        "--speed", type=float, default=1.0, help="game speed: 1 is one action a second"
    )
    parser.add_argument("--seed", type=int, default=None, help="board and dice seed")
    parser.add_argument(
        "--scenario", help="a scenario id (e.g. new-shores) or a scenario file; default: base"
    )
    parser.add_argument(
        "--dice-game",
        nargs="?",
        const="basic",
        choices=("basic", "plus"),
        help="the Catan Dice Game instead (basic, or plus), 4 players at most",
    )
    parser.add_argument(
        "--no-camera",
        action="store_true",
        help="no synthetic camera: the players send every move to the game directly",
    )


def run(args: argparse.Namespace) -> int:
    if args.speed <= 0:
        raise ValueError("--speed must be a positive number")
    journal = args.journal
    if journal is None:
        journal = Path(tempfile.mkdtemp(prefix="catan-demo-")) / "journal.sqlite"
    players = COLORS[: args.players]
    if args.dice_game:
        return _dice_demo(args, journal, players[:4])
    if args.scenario:
        scenario = load_scenario(args.scenario, args.players, seed=args.seed)
        board, rules = scenario.board, scenario.rules
    else:
        board, rules = random_board(args.players, seed=args.seed), None
    jgame = open_or_create(journal, board, players, args.seed, rules)
    camera = None
    if not args.no_camera:
        try:
            camera = DemoCamera.for_game(jgame.game, speed=args.speed, seed=args.seed or 0)
        except ValueError as exc:
            log.warning("%s: the players enter every move as on the page", exc)
    host = TableHost(
        jgame,
        web=host_page(args.host, args.port),
        # A seeded demo rolls the same dice each time (the same game, whatever its camera).
        tower_url="sim://demo" if args.seed is None else f"sim://demo?seed={args.seed}",
        demo_camera=camera,
    )
    try:
        host.start()
    except OSError as exc:
        host.stop()
        raise ValueError(
            f"cannot listen on {args.host}:{args.port} ({exc}); try --port 0"
        ) from None
    host.play_with_bots(pace=1.0 / args.speed, seed=args.seed)
    host.serve("Catan Companion demo")
    return 0


def _dice_demo(args: argparse.Namespace, journal: Path, players: list[str]) -> int:
    """The dice game with computer players and the simulated tower."""
    from companion.commands.dice_game import start_dice_table
    from companion.dice_table import open_or_create_dice

    if args.scenario:
        raise ValueError("--dice-game: the dice game has no scenarios; leave out --scenario")
    jgame = open_or_create_dice(journal, players, args.dice_game, args.seed)
    host = start_dice_table(jgame, args.host, args.port, "sim://dice-demo")
    host.play_with_bots(pace=1.0 / args.speed, seed=args.seed)
    host.serve("Catan Dice Game demo")
    return 0
