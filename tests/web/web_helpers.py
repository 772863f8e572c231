"""Helpers and fixtures of the web tests: a real Table over a JournaledGame, binding, play.

The fixtures live here, not in a conftest.py: test modules import them by name, so that no
second module called ``conftest`` competes with the other packages' when several test folders
run in one session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.actions import Action, EndTurn, RollDice
from companion.board import Board, Terrain, Tile, hex_distance
from companion.game import Game, Rules
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.table import ApplyAction, Inspect, Table
from web.app import create_app

CODE = "TEST42"
PLAYERS = ["red", "blue", "white"]


def make_table(path: Path, players: list[str] | None = None, **kw: Any) -> Table:
    game = JournaledGame.create(path, random_board(4, seed=11), players or PLAYERS, seed=3)
    table = Table(game, **kw)
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
