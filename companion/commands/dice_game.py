"""``catan-companion dice-game``: the Catan Dice Game (or Plus) at a real table.

The dice tower throws the six resource dice (its button, or the page's roll button); each
player keeps their sheet on the page. The journal (by default in the user's data directory)
resumes the game after any stop.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from companion.dice_host import DiceTableHost
from companion.dice_table import JournaledDiceGame, open_or_create_dice
from web.dice_api import serve_dice_table

#: What a player's name may be: it is shown on the page and typed nowhere else.
NAME = re.compile(r"[A-Za-z0-9_-]{1,20}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", default="red,blue", help="player names in seat order, comma-separated"
    )
    parser.add_argument(
        "--variant",
        choices=("basic", "plus"),
        default="basic",
        help="basic: 15 rounds, highest score (1-4 players); plus: first to 10 VP (2-4)",
    )
    parser.add_argument("--serial", help="dice tower port (/dev/ttyACM0, or sim://NAME)")
    parser.add_argument("--journal", type=Path, help="journal file (resumed if it exists)")
    parser.add_argument("--port", type=int, default=8765, help="web page port (0: any free)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (0.0.0.0: the whole Wi-Fi)"
    )
    parser.add_argument("--seed", type=int, help="seed of the host's dice (when no tower)")


def parse_players(text: str) -> list[str]:
    """Player names from ``--players``; ValueError naming the first bad one."""
    players = [p.strip() for p in text.split(",") if p.strip()]
    bad = [p for p in players if not NAME.fullmatch(p)]
    if bad:
        raise ValueError(f"--players: {bad[0]!r} is no name (letters, digits, - or _; 20 at most)")
    if len(set(players)) != len(players):
        raise ValueError("--players: give different names")
    return players


def default_journal() -> Path:
    from platformdirs import user_data_dir

    games = Path(user_data_dir("catan-companion")) / "games"
    games.mkdir(parents=True, exist_ok=True)
    return games / time.strftime("dice-%Y-%m-%d-%H%M%S.sqlite")


def start_dice_table(
    jgame: JournaledDiceGame, host: str, port: int, tower_url: str | None
) -> DiceTableHost:
    """Start the table, its page and its tower; ValueError if the page cannot listen."""
    dice_host = DiceTableHost(
        jgame,  # type: ignore[arg-type]  # a JournaledGame's face, for the dice game
        web=lambda h: serve_dice_table(h.table, host, port, roll=h.roll),  # type: ignore[attr-defined]
        tower_url=tower_url,
    )
    try:
        dice_host.start()
    except OSError as exc:
        dice_host.stop()
        raise ValueError(f"cannot listen on {host}:{port} ({exc}); try --port 0") from None
    return dice_host


def run(args: argparse.Namespace) -> int:
    players = parse_players(args.players)
    journal = args.journal or default_journal()
    jgame = open_or_create_dice(journal, players, args.variant, args.seed)
    start_dice_table(jgame, args.host, args.port, args.serial).serve("Catan Dice Game")
    return 0
