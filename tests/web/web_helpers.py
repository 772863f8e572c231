"""Helpers and fixtures of the web tests: a real Table over a JournaledGame, binding, play.

The fixtures live here, not in a conftest.py: test modules import them by name, so that no
second module called ``conftest`` competes with the other packages' when several test folders
run in one session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion import hooks
from companion.actions import (
    ACTION_TYPES,
    Action,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    EndTurn,
    RollDice,
)
from companion.board import RESOURCES, Board, Piece, Resource, Terrain, Tile, hex_distance
from companion.camera_link import CameraLink
from companion.game import Event, Game, IllegalAction, Phase, Rules
from companion.hooks.base import Hook
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.reconcile import Seen, game_pieces
from companion.scenario import load_scenario
from companion.table import ApplyAction, Inspect, Table
from web.app import create_app

CODE = "TEST42"
PLAYERS = ["red", "blue", "white"]


def make_table(path: Path, players: list[str] | None = None, **kw: Any) -> Table:
    game = JournaledGame.create(path, random_board(4, seed=11), players or PLAYERS, seed=3)
    table = Table(game, **kw)
    table.start()
    return table


def make_scenario_table(
    path: Path, scenario: str, players: list[str], seed: int | None = 3
) -> Table:
    """A started Table of the packaged ``scenario`` for ``players``: its map drawn with seed 1,
    its game (dice, draws) with ``seed``."""
    s = load_scenario(scenario, len(players), seed=1)
    table = Table(JournaledGame.create(path, s.board, players, s.rules, seed=seed))
    table.start()
    return table


class Clock:
    """A hand-driven clock for the rate limiters."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def csrf(client: FlaskClient) -> dict[str, str]:
    """Headers that carry this client's CSRF token."""
    token = client.get("/api/session").get_json()["csrf"]
    return {"X-CSRF-Token": token}


def bind(client: FlaskClient, player: str, code: str = CODE) -> dict[str, str]:
    """Bind ``client`` to ``player``; return the headers for its state-changing requests."""
    r = client.post("/api/bind", json={"code": code, "player": player}, headers=csrf(client))
    assert r.status_code == 200, r.get_json()
    return {"X-CSRF-Token": r.get_json()["csrf"]}


def first_legal(table: Table) -> Action:
    return table.call(Inspect(lambda g: g.legal_actions()[0]))


def play_founding(table: Table) -> None:
    """Place every founding settlement and road (the first legal spot each time)."""
    while table.call(Inspect(lambda g: g.phase.value.startswith("founding"))):
        table.call(ApplyAction(first_legal(table), source="test"))


def inspect(table: Table, fn: Any) -> Any:
    def read(game: Game) -> Any:
        return fn(game)

    return table.call(Inspect(read))


def dice_for(total: int) -> tuple[int, int]:
    first = min(6, total - 1)
    return (first, total - first)


def numbers_of(game: Game, color: str | None = None) -> list[int]:
    """Numbers (not 7) that produce for ``color`` (anybody if None), robber hex excluded."""
    t = game.topology
    numbers = []
    for v, owner in enumerate(game.vertex_owner):
        if owner < 0 or (color is not None and game.players[owner] != color):
            continue
        for h in t.vertex_hexes[v]:
            number = game.board.tiles[t.hexes[h]].number
            if number and number != 7 and h != game.robber and number not in numbers:
                numbers.append(number)
    assert numbers, "no building touches a numbered hex"
    return numbers


def pass_turns(table: Table, turns: int, for_color: str) -> None:
    """Each player in turn rolls a number that pays ``for_color``, then ends the turn."""
    for i in range(turns):
        player = table.state()["current"]
        numbers = inspect(table, lambda g: numbers_of(g, for_color))
        table.call(ApplyAction(RollDice(player, dice_for(numbers[i % len(numbers)])), source="t"))
        table.call(ApplyAction(EndTurn(player), source="test"))


def error_of(response: Any) -> str:
    body = response.get_json()
    assert isinstance(body, dict) and isinstance(body.get("error"), str), response.data
    return body["error"]


class Stream:
    """Reads server-sent events from a streamed test-client response."""

    def __init__(self, client: FlaskClient, path: str = "/api/events"):
        self.response = client.get(path, buffered=False)
        self._chunks = iter(self.response.response)

    def next(self) -> tuple[str, Any]:
        """The next message: ("comment", text) or (event name, decoded data)."""
        while True:
            raw = next(self._chunks)
            text = raw.decode() if isinstance(raw, bytes) else raw
            if text.startswith("retry:"):
                continue
            if text.startswith(":"):
                return "comment", text[1:].strip()
            fields = dict(line.split(": ", 1) for line in text.strip().splitlines())
            return fields["event"], json.loads(fields["data"])

    def close(self) -> None:
        self.response.close()


# -- fixtures (imported by the test modules) ----------------------------------------------


@pytest.fixture(name="table")
def table_fixture(tmp_path: Path) -> Iterator[Table]:
    t = make_table(tmp_path / "game.sqlite")
    yield t
    t.stop()


@pytest.fixture(name="clock")
def clock_fixture() -> Clock:
    return Clock()


@pytest.fixture(name="app")
def app_fixture(table: Table, clock: Clock) -> Flask:
    return create_app(table, table_code=CODE, heartbeat=0.05, clock=clock)


@pytest.fixture(name="client")
def client_fixture(app: Flask) -> FlaskClient:
    return app.test_client()


def sea_board(seed: int = 11) -> Board:
    """A Seafarers board: the base island in a ring of sea, with the pirate out at sea."""
    base = random_board(4, seed=seed)
    tiles = dict(base.tiles)
    for q in range(-3, 4):
        for r in range(-3, 4):
            if hex_distance((0, 0), (q, r)) == 3:
                tiles[(q, r)] = Tile(Terrain.SEA)
    return Board("seafarers", tiles, base.harbors, base.robber, pirate=(3, 0))


def make_sea_table(path: Path, players: list[str]) -> Table:
    table = Table(JournaledGame.create(path, sea_board(), players, Rules(ships=15), seed=3))
    table.start()
    return table


def coast_question(table: Table) -> tuple[CameraLink, BuildRoad]:
    """Red's founding settlement on the coast, then the camera sees a road beside it whose
    kind it doubts, on a side where red could found a road or a ship: a pending question."""

    def coastal(game: Game) -> BuildSettlement:
        t = game.topology
        for a in game.legal_actions():
            hexes = t.vertex_hexes[t.vertex_index[a.vertex]]
            if any(not game.hex_land[h] for h in hexes) and any(game.hex_land[h] for h in hexes):
                return a
        raise AssertionError("no coastal corner")

    table.call(ApplyAction(table.call(Inspect(coastal))))

    def road_or_ship(game: Game) -> tuple[BuildRoad, list]:
        ships = {a.edge for a in game.legal_actions() if isinstance(a, BuildShip)}
        road = next(a for a in game.legal_actions() if isinstance(a, BuildRoad) and a.edge in ships)
        return road, game_pieces(game)

    road, pieces = table.call(Inspect(road_or_ship))
    link = CameraLink(table, iter(()), None)  # type: ignore[arg-type]  (handle() alone)
    seen = Seen([*pieces, Piece("road", road.player, edge=road.edge)], doubtful_kinds=(road.edge,))
    link.handle(seen)
    return link, road


# -- a toy scenario for the generic scenario panel ------------------------------------------


@dataclass(frozen=True)
class LightBeacon(Action):
    """Burn one card of ``resource`` to light a beacon (a toy scenario's action)."""

    type: ClassVar[str] = "test_light_beacon"
    label: ClassVar[str] = "Light a beacon"
    resource: Resource


@dataclass(frozen=True)
class SendSignal(Action):
    """Tell ``partner`` about ``resource`` (free; many choices, so the page lists them)."""

    type: ClassVar[str] = "test_send_signal"
    partner: str
    resource: Resource


class Beacons(Hook):
    """A toy scenario: in the main phase the current player may light one beacon a turn
    (paying a card) and send signals. Every panel kind and both views are used."""

    name = "test_beacons"
    actions = (LightBeacon, SendSignal)

    def _state(self, game: Game) -> dict[str, Any]:
        return game.hook_state.setdefault(self.name, {"lit": {}, "signals": [], "turn": -1})

    def generate(self, game: Game, out: list[Action]) -> None:
        if game.phase != Phase.MAIN:
            return
        me = game.current_player
        if self._state(game)["turn"] != game.turn_number:
            hand = game.hands[game.current]
            out.extend(LightBeacon(me, r) for i, r in enumerate(RESOURCES) if hand[i])
        out.extend(SendSignal(me, o, r) for o in game.players if o != me for r in RESOURCES)

    def check(self, game: Game, p: int, action: Action) -> None:
        if game.phase != Phase.MAIN or p != game.current:
            raise IllegalAction("B.1", "beacons are lit in one's own turn, after the roll")
        if isinstance(action, LightBeacon):
            if self._state(game)["turn"] == game.turn_number:
                raise IllegalAction("B.2", "one beacon a turn")
            if not game.hands[p][RESOURCES.index(action.resource)]:
                raise IllegalAction("B.3", "{} has no {}", game.players[p], action.resource.value)

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        state, me = self._state(game), game.players[p]
        if isinstance(action, LightBeacon):
            i = RESOURCES.index(action.resource)
            game.hands[p][i] -= 1
            game.bank[i] += 1
            state["lit"][me] = state["lit"].get(me, 0) + 1
            state["turn"] = game.turn_number
            return [{"type": "beacon", "player": me, "text": "lit a beacon"}]
        assert isinstance(action, SendSignal)
        state["signals"].append([me, action.partner, action.resource.value])
        return [{"type": "signal", "player": me}]

    def public_view(self, game: Game) -> dict[str, Any]:
        state = self._state(game)
        return {
            "title": "Beacons",
            "text": "One beacon a turn.",
            "sections": [
                {
                    "title": "Lit",
                    "kind": "counters",
                    "items": [
                        {"label": c, "value": state["lit"].get(c, 0), "color": c}
                        for c in game.players
                    ],
                },
                {
                    "title": "Signals",
                    "kind": "cards",
                    "items": [
                        {"label": f"{a} to {b}", "text": r, "color": a, "tags": ["sent"]}
                        for a, b, r in state["signals"]
                    ],
                },
                {"title": "Turn", "kind": "list", "items": [{"label": "turn", "value": 0}]},
            ],
        }

    def private_view(self, game: Game, p: int) -> dict[str, Any]:
        secret = f"{game.players[p]}'s secret"
        return {"title": "Secret", "sections": [{"kind": "list", "items": [{"label": secret}]}]}


@pytest.fixture(name="beacons")
def beacons_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes the toy scenario's hook and actions known (for this test only)."""
    monkeypatch.setitem(hooks.HOOKS, Beacons.name, Beacons)
    for cls in Beacons.actions:
        monkeypatch.setitem(ACTION_TYPES, cls.type, cls)


def make_beacon_table(path: Path, players: list[str]) -> Table:
    """A table playing the toy scenario (needs the ``beacons`` fixture)."""
    rules = Rules.for_players(len(players))
    rules = Rules.from_json({**rules.to_json(), "hooks": [{"hook": Beacons.name}]})
    table = Table(JournaledGame.create(path, random_board(4, seed=11), players, rules, seed=3))
    table.start()
    return table


# -- browser tests (Playwright driving Debian's chromium) ----------------------------------

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
#: Where the browser tests' screenshots go (gitignored).
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
PHONE = {"width": 360, "height": 740}
SCREEN = {"width": 1920, "height": 1080}
#: Generous bound for the page to catch up with the table (a sanity bound, not a benchmark).
WAIT_MS = 10_000
#: A browser test module's ``pytestmark``.
NEEDS_CHROMIUM = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium"
)


@pytest.fixture(name="browser", scope="module")
def browser_fixture() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


class BrowserDevice:
    """One browser context (a phone or the big screen) on ``url``, its page's errors collected;
    ready once ``ready_selector`` is on the page."""

    def __init__(
        self, browser: Any, url: str, viewport: dict[str, int], ready_selector: str, **context: Any
    ):
        self.context = browser.new_context(viewport=viewport, **context)
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", self._console)
        self.page.goto(url + "/")
        self.page.wait_for_selector(ready_selector)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def bind(self, player: str) -> None:
        self.page.fill("#bind-code", CODE.lower())
        self.page.select_option("#bind-player", player)
        self.page.get_by_role("button", name="Join as this player", exact=True).click()
        self.page.wait_for_selector("#bound:not([hidden])")

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.evaluate("window.scrollTo(0, 0)")  # else the sticky header lands mid-page
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        self.context.close()


def finish(*devices: Any, controls_named: bool = False) -> None:
    """Close each device after the checks every browser test ends with: no script error on
    its page and, with ``controls_named``, no control without an accessible name."""
    for device in devices:
        if controls_named:
            assert device.unnamed_controls() == []
        assert device.errors == []
        device.close()
