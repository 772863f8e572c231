"""``catan-companion bench engine``: full games between uniformly random players, per second.

Game ``i`` is played on a random board with seed ``--seed + i``; every player picks uniformly
among :meth:`companion.game.Game.legal_actions` until someone wins or ``--turn-cap`` turns have
passed. With ``--vs-catanatron`` the same number of games is played by catanatron's own engine
with its ``RandomPlayer`` and the same cap, interleaved with ours in alternating order (ours
first, then catanatron first, ...) so that a change of load on the machine during the run falls
on both engines alike. Each engine's wall-clock and CPU time are summed over its games only;
board generation and game set-up count, since both engines do them for every game.

The goal: our engine plays at least 3 times as many games per second as catanatron 3.2.1.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import sys
import time
from dataclasses import dataclass
from typing import Any

from companion.game import Game, Phase, Rules
from companion.layouts import random_board
from companion.scenario import load_scenario

log = logging.getLogger(__name__)

GOAL_RATIO = 3.0
COLORS = ("red", "blue", "white", "orange", "green", "brown")
#: catanatron stops its own games after this many turns (catanatron.game.TURNS_LIMIT).
DEFAULT_TURN_CAP = 1000
GAME_OVER = Phase.GAME_OVER


@dataclass
class Tally:
    """Games played by one engine and what they cost."""

    games: int = 0
    actions: int = 0
    turns: int = 0
    finished: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def add(self, actions: int, turns: int, finished: bool, seconds: float, cpu: float) -> None:
        self.games += 1
        self.actions += actions
        self.turns += turns
        self.finished += finished
        self.seconds += seconds
        self.cpu_seconds += cpu

    def summary(self, prefix: str = "") -> dict[str, Any]:
        seconds = max(self.seconds, 1e-9)
        cpu = max(self.cpu_seconds, 1e-9)
        return {
            f"{prefix}games_per_s": round(self.games / seconds, 2),
            f"{prefix}cpu_games_per_s": round(self.games / cpu, 2),
            f"{prefix}actions_per_s": round(self.actions / seconds, 1),
            f"{prefix}mean_actions_per_game": round(self.actions / self.games, 1),
            f"{prefix}mean_turns_per_game": round(self.turns / self.games, 1),
            f"{prefix}finished_games": self.finished,
            f"{prefix}seconds": round(self.seconds, 3),
        }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=50, help="games per engine (default 50)")
    parser.add_argument("--players", type=int, default=4, help="players per game, 3-6 (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument(
        "--turn-cap",
        type=int,
        default=DEFAULT_TURN_CAP,
        help=f"stop a game nobody has won after this many turns (default {DEFAULT_TURN_CAP})",
    )
    parser.add_argument(
        "--scenario",
        help="play a scenario (an id such as new-shores, or a scenario file) instead of the "
        "base or 5-6 board",
    )
    parser.add_argument(
        "--vs-catanatron",
        action="store_true",
        help="also play catanatron's games, side by side (needs the catanatron package)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def play_ours(seed: int, players: int, turn_cap: int, scenario: str | None = None) -> Game:
    """One game between uniformly random players; returns the finished (or capped) game.

    With ``scenario``, on that scenario's map (laid out with ``seed``) under its rules.
    """
    chooser = random.Random(seed)
    if scenario is not None:
        s = load_scenario(scenario, players, seed=seed)
        board, rules = s.board, s.rules
    else:
        board, rules = random_board(players, seed=seed), Rules.for_players(players)
    game = Game(board, COLORS[:players], rules, rng=seed)
    # Drawn as catanatron's RandomPlayer draws (random.choice); the same picks as
    # randrange(len(actions)) would make.
    choose, legal_actions, apply, over = chooser.choice, game.legal_actions, game.apply, GAME_OVER
    while game.phase != over and game.turn_number <= turn_cap:
        apply(choose(legal_actions()))
    return game


def import_catanatron() -> Any:
    """The catanatron package, or a ValueError that says how to install it."""
    try:
        import catanatron
    except ImportError:
        raise ValueError(
            "--vs-catanatron needs the catanatron package: pip install 'catan-companion[test]'"
        ) from None
    return catanatron


def play_catanatron(catanatron: Any, seed: int, players: int, turn_cap: int) -> Any:
    """One catanatron game between its RandomPlayers; returns catanatron's Game."""
    colors = list(catanatron.Color)[:players]
    # catanatron treats seed 0 as "no seed": shift by one so that every game is seeded.
    game = catanatron.Game([catanatron.RandomPlayer(c) for c in colors], seed=seed + 1)
    while game.winning_color() is None and game.state.num_turns < turn_cap:
        game.play_tick()
    return game


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise ValueError(f"--games {args.games}: must be at least 1")
    if not 3 <= args.players <= 6:
        raise ValueError(f"--players {args.players}: must be 3 to 6")
    if args.turn_cap < 1:
        raise ValueError(f"--turn-cap {args.turn_cap}: must be at least 1")
    catanatron = None
    if args.vs_catanatron:
        if args.scenario:
            raise ValueError("--vs-catanatron plays the base game only: leave out --scenario")
        if args.players > 4:
            raise ValueError(f"--players {args.players}: catanatron plays 3 or 4 players")
        catanatron = import_catanatron()

    ours, theirs = Tally(), Tally()
    for i in range(args.games):
        seed = args.seed + i
        order = ["ours", "catanatron"] if i % 2 == 0 else ["catanatron", "ours"]
        for engine in order:
            if engine == "ours":
                start, cpu = time.perf_counter(), time.process_time()
                game = play_ours(seed, args.players, args.turn_cap, args.scenario)
                ours.add(
                    game.actions_applied,
                    game.turn_number,
                    game.phase == Phase.GAME_OVER,
                    time.perf_counter() - start,
                    time.process_time() - cpu,
                )
            elif catanatron is not None:
                start, cpu = time.perf_counter(), time.process_time()
                cat = play_catanatron(catanatron, seed, args.players, args.turn_cap)
                theirs.add(
                    len(cat.state.actions),
                    cat.state.num_turns,
                    cat.winning_color() is not None,
                    time.perf_counter() - start,
                    time.process_time() - cpu,
                )
        if (i + 1) % 10 == 0:
            log.info("%d of %d games played", i + 1, args.games)

    doc: dict[str, Any] = {
        "games": args.games,
        "players": args.players,
        "scenario": args.scenario or ("5-6" if args.players > 4 else "base"),
        "seed": args.seed,
        "turn_cap": args.turn_cap,
        **ours.summary(),
        "catanatron_games_per_s": None,
        "ratio": None,
    }
    if catanatron is not None:
        doc.update(theirs.summary("catanatron_"))
        doc["catanatron_version"] = getattr(catanatron, "__version__", None) or _version()
        doc["ratio"] = round(ours.games / ours.seconds / (theirs.games / theirs.seconds), 2)
        doc["cpu_ratio"] = round(
            ours.games / ours.cpu_seconds / (theirs.games / theirs.cpu_seconds), 2
        )
        doc["goal_ratio"] = GOAL_RATIO
        doc["goal_met"] = doc["ratio"] >= GOAL_RATIO
    doc["load_average_1min"] = round(os.getloadavg()[0], 2)
    doc["python"] = platform.python_version()
    if args.json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(
        f"bench engine: {args.games} games of {args.players} random players, "
        f"turn cap {args.turn_cap}, one core (load average {doc['load_average_1min']})"
    )
    _print_line("ours", ours)
    if catanatron is not None:
        _print_line("catanatron", theirs)
        verdict = "met" if doc["goal_met"] else "NOT met"
        print(
            f"  ratio {doc['ratio']:.2f} wall, {doc['cpu_ratio']:.2f} CPU; "
            f"goal {GOAL_RATIO:.0f}x: {verdict}"
        )
    return 0


def _print_line(name: str, t: Tally) -> None:
    s = t.summary()
    print(
        f"  {name:<11} {s['games_per_s']:>7.2f} games/s ({s['cpu_games_per_s']:.2f} per CPU s), "
        f"{s['mean_actions_per_game']:.0f} actions and {s['mean_turns_per_game']:.0f} turns "
        f"a game, {t.finished} of {t.games} won"
    )


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("catanatron")
    except PackageNotFoundError:
        return None
