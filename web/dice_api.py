"""The dice game's page and JSON API (``/dice``, ``/api/dice/...``); docs/api.md documents them.

A dice-game table is served by :func:`create_dice_app`: the board game's app (session, binding,
``/api/state``, the live updates of ``/api/events``, the protections) with this blueprint added;
the board game's own endpoints answer 404 there, and ``/`` opens the dice page.

>>> import tempfile, os
>>> from companion.dice_table import JournaledDiceGame
>>> from companion.table import Table
>>> path = os.path.join(tempfile.mkdtemp(), "d.sqlite")
>>> table = Table(JournaledDiceGame.create(path, ["ann", "ben"], "plus"))
>>> table.start()
>>> app = create_dice_app(table, table_code="ABCD42")
>>> app.test_client().get("/api/state").get_json()["dice"]["count"]
3
>>> table.stop()
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from flask import (
    Flask,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
)

from companion.dice_table import Hold, RollFree, TableDiceGame, table_action_from_json
from companion.dicegame import FACES, Build, ExchangeGold, UseJoker
from companion.table import ApplyAction, Inspect, Table
from web.app import create_app, error_response
from web.common import (
    ApiError,
    api_blueprint,
    applied,
    call,
    current_context,
    json_body,
    require_player,
    table_refusals,
)
from web.server import WebServer

log = logging.getLogger(__name__)

# The API guards shared with the board game: rate limits, the CSRF token, refusals as JSON.
dice = api_blueprint("dice", __name__)

#: Seconds to wait for a roll (the tower answers in milliseconds; a lost tower times out first).
ROLL_TIMEOUT = 10.0
#: Endpoints of the board game's app a dice table keeps: who you are, the state, live updates.
SHARED_ENDPOINTS = frozenset(
    {
        "api.get_session",
        "api.get_table_code",
        "api.bind",
        "api.unbind",
        "api.get_state",
        "api.events",
        "pages.static",
        "static",
    }
)

#: Rolls the free dice of a player: (player, who asked) -> the future of the roll's events.
Roller = Callable[[str, str], "Future[Any]"]


@dataclass
class DiceWebContext:
    """What the dice endpoints need beyond the board game's context (``app.extensions``)."""

    roll: Roller


def create_dice_app(table: Table, roll: Roller | None = None, **kwargs: Any) -> Flask:
    """The web app of a dice-game ``table``; ``roll`` rolls through the tower (without it, the
    host's generator rolls). ``kwargs`` are :func:`web.app.create_app`'s."""
    app = create_app(table, **kwargs)

    def host_roll(player: str, source: str) -> Future[Any]:
        return table.post(ApplyAction(RollFree(player, "host"), source=source))

    app.extensions["dice"] = DiceWebContext(roll or host_roll)
    app.register_blueprint(dice)
    app.before_request(_dice_table_only)
    return app


def serve_dice_table(
    table: Table,
    host: str = "127.0.0.1",
    port: int = 0,
    table_code: str | None = None,
    roll: Roller | None = None,
) -> WebServer:
    """The dice page of ``table`` served on ``host``:``port`` (see :func:`create_dice_app`)."""
    app = create_dice_app(table, roll, table_code=table_code)
    server = WebServer(app, host, port)
    server.table_code = app.extensions["catan"].table_code
    return server


def _dice_table_only() -> Response | None:
    if request.path == "/":
        return redirect("/dice")  # type: ignore[return-value]
    endpoint = request.endpoint or ""
    if endpoint.startswith("dice.") or endpoint in SHARED_ENDPOINTS:
        return None
    if endpoint:
        return error_response(404, "this table plays the dice game: see /api/dice in docs/api.md")
    return None


def _roller() -> Roller:
    return current_app.extensions["dice"].roll


# -- the page --------------------------------------------------------------------------------


@dice.get("/dice")
def page() -> str:
    return render_template("dice.html")


# -- what the player may do ------------------------------------------------------------------


def options(game: TableDiceGame, player: str) -> dict[str, Any]:
    """What ``player`` may do now, in the page's terms (not every legal action: a roll for
    each set of held dice, or a joker for each die, would be hundreds of entries)."""
    mine = not game.over and game.current_player == player
    legal = game.legal_actions() if mine else []
    t = game.turn
    jokers = sorted({a.joker for a in legal if isinstance(a, UseJoker)})
    return {
        "player": player,
        "your_turn": mine,
        "roll": mine and t.rolls < 3 and not t.fixed,
        "hold": mine and 0 < t.rolls < 3 and not t.fixed,
        "build": [{"piece": a.piece, "index": a.index} for a in legal if isinstance(a, Build)],
        "jokers": jokers,
        "exchange_gold": any(isinstance(a, ExchangeGold) for a in legal),
        "end_turn": mine and t.rolls > 0,
    }


@dice.get("/api/dice/options")
def get_options() -> Response:
    player = require_player()
    return jsonify(call(Inspect(lambda game: options(game, player))))


# -- acting ----------------------------------------------------------------------------------


def _own(data: dict[str, Any], player: str) -> dict[str, Any]:
    """``data`` as ``player``'s action: it may leave the player out, not name another."""
    named = data.get("player", player)
    if named != player:
        raise ApiError(403, f"this device is bound to {player}; {named} enters their own actions")
    return {**data, "player": player}


@dice.post("/api/dice/actions")
def post_action() -> Response:
    player = require_player()
    try:
        action = table_action_from_json(_own(json_body(), player))
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    return applied(call(ApplyAction(action, source="web")))


@dice.post("/api/dice/hold")
def post_hold() -> Response:
    player = require_player()
    held = json_body().get("dice")
    if not isinstance(held, list):
        raise ApiError(400, "dice: give the list of die numbers to hold (0 for the first)")
    return applied(call(ApplyAction(Hold(player, tuple(held)), source="web")))


@dice.post("/api/dice/roll")
def post_roll() -> Response:
    """Roll the free dice: the tower throws (or the host); ``faces`` types in physical dice."""
    player = require_player()
    data = request.get_json(silent=True) if request.content_length else {}
    if not isinstance(data, dict):
        raise ApiError(400, "send a JSON object (or nothing) with Content-Type: application/json")
    faces = data.get("faces")
    if faces is None:
        future = _roller()(player, "web")
    elif not isinstance(faces, list) or not all(f is None or f in FACES for f in faces):
        raise ApiError(
            400, f"faces: give one per die, each one of {', '.join(FACES)} (null for a held die)"
        )
    else:
        action = RollFree(player, "manual", tuple(faces))
        future = current_context().table.post(ApplyAction(action, source="web"))
    # The dice game refuses a roll it cannot take (an unknown source) with a plain ValueError.
    with table_refusals("the dice did not come; is the tower plugged in?", malformed=ValueError):
        events = future.result(ROLL_TIMEOUT)
    return applied(events)


__all__ = ["create_dice_app", "options", "serve_dice_table"]
