"""``catan-companion bench table``: from the tower's button to the LEDs and to the page.

A whole table runs in this process: the Table, the web server, the simulated tower (speaking
the real protocol through the real driver) and a live page (a server-sent-events client on a
socket). Computer players play; at each roll the bench presses the simulated button and times

* **LEDs**: until the tower lights the producing hexes (or, on a 7, shows the roll),
* **page**: until the page's live stream delivers the roll.

Then it plays one long session (``--actions`` in one game that nobody can win) with a page
open, and samples the memory Python holds, to show what grows with the length of a session
(the journaled history kept for undo and replay grows by design; nothing else should).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import statistics
import tempfile
import threading
import time
import tracemalloc
import urllib.request
from itertools import islice
from pathlib import Path
from typing import Any

from companion.actions import RollDice
from companion.bots import GreedyBot, RandomBot
from companion.game import Phase, Rules
from companion.host import TableHost
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.table import ApplyAction, Inspect
from web.server import serve_table

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--presses", type=int, default=200, help="button presses to time")
    parser.add_argument(
        "--actions", type=int, default=6000, help="actions of the long session (memory)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


class PageClient(threading.Thread):
    """A live page: reads the event stream and stamps each update's arrival."""

    def __init__(self, url: str):
        super().__init__(daemon=True, name="bench-page")
        self.url = url
        self.arrivals: list[tuple[float, dict[str, Any]]] = []
        self.cond = threading.Condition()

    def run(self) -> None:
        with urllib.request.urlopen(self.url + "api/events", timeout=60) as stream:
            for raw in stream:
                if raw.startswith(b"data:"):
                    now = time.perf_counter()
                    data = json.loads(raw[5:])
                    with self.cond:
                        self.arrivals.append((now, data))
                        self.cond.notify_all()

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> float:
        deadline = time.perf_counter() + timeout
        with self.cond:
            while True:
                for stamp, data in self.arrivals:
                    if predicate(data):
                        self.arrivals.clear()
                        return stamp
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError("the page never showed the roll")
                self.cond.wait(left)


def _play_until_roll(host: TableHost, bot: GreedyBot) -> None:
    while True:
        state = host.table.state()
        if state["phase"] in (Phase.ROLL.value, Phase.GAME_OVER.value):
            return
        action = host.table.call(Inspect(bot.choose))
        host.table.call(ApplyAction(action, source="bench"))


def _new_host(tmp: Path, n: int, seed: int) -> TableHost:
    colors = ["red", "blue", "white", "orange"]
    board = random_board(4, seed=seed)
    jg = JournaledGame.create(tmp / f"bench{n}.sqlite", board, colors, seed=seed)
    host = TableHost(
        jg, web=lambda h: serve_table(h.table), tower_url=f"sim://bench-table-{n}?seed={seed}"
    )
    host.start()
    return host


def time_presses(tmp: Path, presses: int) -> dict[str, Any]:
    from firmware_bridge.protocol import MsgType
    from firmware_bridge.simulator import sim_device

    leds_ms: list[float] = []
    page_ms: list[float] = []
    n = 0
    while len(page_ms) < presses:
        n += 1
        host = _new_host(tmp, n, seed=n)
        device = sim_device(host.tower_url or "")
        page = PageClient(host.url)
        page.start()
        bot = GreedyBot(seed=n)
        try:
            while len(page_ms) < presses:
                _play_until_roll(host, bot)
                if host.table.state()["phase"] == Phase.GAME_OVER.value:
                    break
                executed = len(device.log)
                count = host.table.state()["action_count"]
                t0 = time.perf_counter()
                device.press_button()
                # The LEDs: every roll ends in one SET_LEDS on the tower (nothing lit on a 7),
                # so wait for the device to have executed it: what a person would see.
                now = t0
                while now - t0 < 5 and not any(
                    e.type == MsgType.SET_LEDS for e in islice(device.log, executed, None)
                ):
                    time.sleep(0.0002)
                    now = time.perf_counter()
                leds_ms.append((now - t0) * 1000)
                t_page = page.wait_for(
                    lambda d, c=count: d.get("state", {}).get("action_count", 0) > c
                )
                page_ms.append((t_page - t0) * 1000)
        finally:
            host.stop()
    return {
        "presses": len(page_ms),
        "leds_median_ms": round(statistics.median(leds_ms), 2),
        "leds_p95_ms": round(_p95(leds_ms), 2),
        "page_median_ms": round(statistics.median(page_ms), 2),
        "page_p95_ms": round(_p95(page_ms), 2),
    }


def measure_memory(tmp: Path, actions: int) -> dict[str, Any]:
    """One table in one long game (a victory target nobody reaches), with a live page open:
    sample the memory Python holds as the session goes on."""
    colors = ["red", "blue", "white", "orange"]
    board = random_board(4, seed=99)
    rules = Rules(victory_points=99)
    jg = JournaledGame.create(tmp / "session.sqlite", board, colors, rules, seed=99)
    host = TableHost(jg, web=lambda h: serve_table(h.table), tower_url="sim://bench-session")
    host.start()
    page = PageClient(host.url)
    page.start()
    bot = RandomBot(seed=99)
    samples: list[tuple[int, int]] = []
    tracemalloc.start()
    try:
        for done in range(1, actions + 1):
            action = host.table.call(Inspect(bot.choose))
            if isinstance(action, RollDice):
                action = RollDice(action.player, source="host")
            host.table.call(ApplyAction(action, source="bench"))
            if done % 250 == 0:
                with page.cond:
                    page.arrivals.clear()  # a real page forgets what it has shown
                gc.collect()
                samples.append((done, tracemalloc.get_traced_memory()[0]))
    finally:
        tracemalloc.stop()
        host.stop()
    quarter = max(1, len(samples) // 4)
    first = statistics.mean(s for _, s in samples[:quarter])
    last = statistics.mean(s for _, s in samples[-quarter:])
    span = statistics.mean(d for d, _ in samples[-quarter:]) - statistics.mean(
        d for d, _ in samples[:quarter]
    )
    return {
        "actions": actions,
        "traced_mib_first_quarter": round(first / 2**20, 2),
        "traced_mib_last_quarter": round(last / 2**20, 2),
        "growth_kib_per_1000_actions": round((last - first) / 1024 / span * 1000, 1),
    }


def _p95(xs: list[float]) -> float:
    return sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)]


def run(args: argparse.Namespace) -> int:
    if args.presses < 1 or args.actions < 1000:
        raise ValueError("--presses must be >= 1 and --actions >= 1000")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    logging.getLogger("firmware_bridge").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="bench-table-") as d:
        tmp = Path(d)
        log.info("timing %d button presses...", args.presses)
        latency = time_presses(tmp, args.presses)
        log.info("playing a long session of %d actions...", args.actions)
        memory = measure_memory(tmp, args.actions)
    result = {**latency, **memory}
    if args.json:
        print(json.dumps({"command": args.command_line, **result}))
    else:
        print(args.command_line)
        for k, v in result.items():
            print(f"  {k}: {v}")
    return 0
