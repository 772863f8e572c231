"""``catan-companion generate-board``: a random legal board, balanced on request.

``--json`` prints the board JSON (the format ``check-setup`` and the engine read) with one
more key, ``generator``: the seed, the balance level and the balance figures.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys

from companion.generate import BALANCES, generate_board
from companion.scenario import list_scenarios, load_scenario
from companion.setup_check import draw_board, spec_for

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, help="3, 4, 5 or 6 (default 4)")
    parser.add_argument("--scenario", help="set-up to generate (default: base or 5-6 by players)")
    parser.add_argument("--seed", type=int, help="same seed, same board (default: a random seed)")
    parser.add_argument(
        "--balance",
        choices=BALANCES,
        default="fair",
        help="none: rules only; fair: no equal numbers or terrain clumps side by side; "
        "tournament: also even production (default fair)",
    )
    parser.add_argument("--json", action="store_true", help="print the board as JSON")


def run(args: argparse.Namespace) -> int:
    if args.players not in (3, 4, 5, 6):
        raise ValueError(f"--players {args.players}: choose 3, 4, 5 or 6")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    log.info("seed %d (pass --seed %d to get this board again)", seed, seed)
    if args.scenario in list_scenarios() or (args.scenario or "").endswith(".json"):
        # A scenario file lays out its own map: its outlines stay, its variable set-up is
        # drawn by its own rules (balance levels apply to open frames only).
        return _print_scenario(args, seed)
    spec = spec_for(args.scenario, args.players)
    g = generate_board(spec, seed, args.balance)
    if args.json:
        doc = g.board.to_json()
        doc["generator"] = {
            "scenario": spec.name,
            "seed": seed,
            "balance": args.balance,
            "figures": g.balance.to_json(),
        }
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"{spec.name} board, seed {seed}, balance {args.balance}:")
    print(draw_board(g.board))
    harbours = ", ".join(f"{h.kind} at {(h.q, h.r)} {h.side}" for h in g.board.harbors)
    print(f"harbours: {harbours}")
    b = g.balance
    print(
        f"balance score {b.score:.2f} (lower is better): pip spread {b.pip_spread:.2f}, "
        f"equal numbers side by side {b.same_number_pairs}, equal terrain side by side "
        f"{b.same_terrain_pairs}, 2:1 harbours on their resource {b.harbours_on_own_resource}, "
        f"corners {b.min_inland_corner}-{b.max_corner} pips"
    )
    return 0


def _print_scenario(args: argparse.Namespace, seed: int) -> int:
    scenario = load_scenario(args.scenario, args.players, seed=seed)
    if args.json:
        doc = scenario.board.to_json()
        doc["generator"] = {"scenario": scenario.id, "seed": seed, "balance": "scenario"}
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"{scenario.title} ({scenario.id}), {args.players} players, seed {seed}:")
    print(draw_board(scenario.board))
    harbours = ", ".join(f"{h.kind} at {(h.q, h.r)} {h.side}" for h in scenario.board.harbors)
    print(f"harbours: {harbours}")
    return 0
