"""``catan-companion bench demo``: what the demo costs a laptop or a Raspberry Pi, and how its
camera does.

The demo's table runs in this process exactly as ``catan-companion demo`` runs it (the Table,
the page's server with nobody reading it, the simulated tower, the computer players and the
synthetic camera: live renders of the simulated table, the tracker, reconciliation) for
``--seconds`` of wall-clock time or until the game is over. Measured:

- **cpu**: the process's CPU time over the wall-clock time (100 % = one core), from the moment
  the camera has found the board (the start-up's imports and first registration excluded,
  and reported apart);
- **camera**: frames filmed per wall second and on the camera's clock, renders made (one per
  state of the table), and how the moves put on the board got into the game: seen by the
  camera, proposed by it and confirmed (the robber; a coast piece's road or ship, counted
  also as ``kind_questions``), or *fallbacks* entered as on the page after the camera missed
  them (goal: few), and actions the camera applied that were not the move made (goal: none);
- **game**: turns and actions played.

``--scenario`` plays a scenario's map (a Seafarers scenario: ships and the pirate too), as the
demo's ``--scenario``; ``--no-camera`` runs the same table without the camera, for comparison.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.benches import print_report
from companion.demo_players import DemoCamera
from companion.game import Phase
from companion.host import TableHost, open_or_create
from companion.layouts import random_board
from companion.scenario import load_scenario
from web.server import host_page

log = logging.getLogger(__name__)

COLORS = ["red", "blue", "white", "orange", "green", "brown"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=60.0, help="wall seconds to run")
    parser.add_argument("--speed", type=float, default=1.0, help="the demo's --speed")
    parser.add_argument("--players", type=int, default=4, choices=range(3, 7), metavar="3-6")
    parser.add_argument("--seed", type=int, default=7, help="board, dice and players' seed")
    parser.add_argument(
        "--scenario", help="a scenario id (e.g. new-shores) or file, as the demo's; default: base"
    )
    parser.add_argument("--no-camera", action="store_true", help="the demo without its camera")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


def run(args: argparse.Namespace) -> int:
    if not args.seconds > 0 or not args.speed > 0:
        raise ValueError("--seconds and --speed must be positive numbers")
    with tempfile.TemporaryDirectory() as tmp:
        doc = measure(args, Path(tmp) / "bench-demo.sqlite")
    print_report(doc, args.json)
    return 0


def measure(args: argparse.Namespace, journal: Path) -> dict[str, Any]:
    wall0, cpu0 = time.monotonic(), time.process_time()
    players = COLORS[: args.players]
    if getattr(args, "scenario", None):
        scenario = load_scenario(args.scenario, args.players, seed=args.seed)
        board, rules = scenario.board, scenario.rules
    else:
        board, rules = random_board(args.players, seed=args.seed), None
    jgame = open_or_create(journal, board, players, args.seed, rules)
    camera = None
    if not args.no_camera:
        camera = DemoCamera.for_game(jgame.game, speed=args.speed, seed=args.seed)
    host = TableHost(
        jgame,
        web=host_page(),
        tower_url=f"sim://bench-demo?seed={args.seed}",
        demo_camera=camera,
    )
    host.start()
    updates = host.table.subscribe()
    try:
        players_ = host.play_with_bots(pace=1.0 / args.speed, seed=args.seed)
        if camera is not None:
            taken = 0
            while not camera.tracking and time.monotonic() - wall0 < 60:
                taken = camera.source.wait_frames(taken, timeout=1.0)
        start_wall, start_cpu = time.monotonic(), time.process_time()
        frames0 = camera.source.frames_taken if camera is not None else 0
        clock0 = camera.source.clock if camera is not None else 0.0
        end = start_wall + args.seconds
        while time.monotonic() < end:
            if host.table.state()["phase"] == Phase.GAME_OVER.value:
                break
            updates.get(timeout=min(1.0, max(0.0, end - time.monotonic())))
        wall = time.monotonic() - start_wall
        cpu = time.process_time() - start_cpu
        state = host.table.state()
        doc: dict[str, Any] = {
            "command": args.command_line,
            "camera": camera is not None,
            "speed": args.speed,
            "scenario": getattr(args, "scenario", None),
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 2),
            "cpu_percent_of_one_core": round(100 * cpu / wall, 1),
            "startup_cpu_s": round(start_cpu - cpu0, 2),
            "load_average": round(os.getloadavg()[0], 2),
            "turns": state["turn"],
            "actions": state["action_count"],
            "game_over": state["phase"] == Phase.GAME_OVER.value,
        }
        if camera is not None:
            src = camera.source
            tally = players_.tally
            doc.update(
                {
                    "video": f"{src.width}x{src.height} at {src.fps:g} fps of its clock",
                    "frames": src.frames_taken - frames0,
                    "frames_per_wall_s": round((src.frames_taken - frames0) / wall, 1),
                    "camera_clock_s": round(src.clock - clock0, 1),
                    "renders": src.renders,
                    "moves_on_board": tally.moves,
                    "seen_by_camera": tally.seen,
                    "confirmed": tally.confirmed,
                    "kind_questions": tally.kind_questions,
                    "fallbacks": tally.fallbacks,
                    "fallback_examples": tally.reasons[:5],
                    "other_camera_actions": tally.other,
                }
            )
        return doc
    finally:
        updates.close()
        host.stop()
