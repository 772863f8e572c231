"""The JSON API (``/api/...``): every page is built on it. docs/api.md documents each endpoint.

Reads that need the game itself (a player's private view, the legal actions, the rolls so far)
run in the Table's owner thread through :class:`companion.table.Inspect`, so they see one
consistent state; the public state comes from the Table's own snapshot.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from flask import Response, jsonify, session

from companion.actions import (
    ActionError,
    Cards,
    DomesticTrade,
    RollDice,
    action_from_json,
    action_to_json,
)
from companion.board import SCENARIO_BOARD_KINDS, Piece, Vertex
from companion.game import Game, IllegalAction, Phase
from companion.setup_check import SpecError, check_board
from companion.stats import board_stats
from companion.table import ApplyAction, Inspect, Undo
from web.app import WebContext
from web.common import (
    ApiError,
    api_blueprint,
    applied,
    call,
    client_address,
    current_context,
    fingerprint,
    is_loopback,
    json_body,
    require_player,
    table_players,
    too_many,
    viewer,
)
from web.security import codes_match
from web.stats import dice_stats
from web.views import board_layout, redact

log = logging.getLogger(__name__)

api = api_blueprint("api", __name__, url_prefix="/api")

#: Roll sources whose dice are the table's own: the tower's (its button, or asked by the host)
#: and physical dice typed in on the page. The engine's and the host's generators are not
#: tested: they are Python's Mersenne Twister.
TABLE_DICE = frozenset({"button", "tower", "manual"})
#: Openings listed on the page before the game starts.
TOP_OPENINGS = 5
#: Seconds between a live stream's checks for new trade offers (they do not pass through the
#: Table, whose updates wake the stream at once).
OFFER_POLL = 0.2


def _csrf() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def viewer_state(ctx: WebContext, player: str | None) -> dict[str, Any]:
    """The whole state as ``player`` may see it (the public state for a spectator)."""
    table = ctx.table
    if player is None:
        return {**table.state(), "you": None}

    def read(game: Game) -> dict[str, Any]:
        view = game.private_view(player)
        view["action_count"] = len(table.jgame.history)
        view["journal_length"] = table.jgame.journal.length
        view["version"] = table.version
        view["parts"] = dict(table.parts)
        return view

    return call(Inspect(read), table)


def _redacted(update: dict[str, Any], player: str | None) -> list[dict[str, Any]]:
    return [redact(e, player) for e in update.get("events", ())]


# -- endpoints -------------------------------------------------------------------------------


@api.get("/session")
def get_session() -> Response:
    return jsonify(
        {
            "player": viewer(),
            "players": table_players(),
            "csrf": _csrf(),
            "can_show_code": current_context().show_code_to_loopback and is_loopback(),
        }
    )


@api.get("/table-code")
def get_table_code() -> Response:
    ctx = current_context()
    if not (ctx.show_code_to_loopback and is_loopback()):
        raise ApiError(403, "the table code is shown only on the companion's own screen")
    return jsonify({"code": ctx.table_code})


@api.post("/bind")
def bind() -> Response:
    ctx = current_context()
    if not ctx.bind_limiter.allow(client_address()):
        raise too_many("bind_limiter")
    data = json_body()
    code, player = data.get("code"), data.get("player")
    if not isinstance(code, str) or not code.strip():
        raise ApiError(400, "code: enter the table code shown on the big screen")
    players = table_players()
    if player not in players:
        raise ApiError(400, f"player: choose one of {', '.join(players)}")
    if not codes_match(code, ctx.table_code):
        raise ApiError(403, "code: that is not this table's code; check the big screen")
    session["player"] = player
    session["table"] = fingerprint(ctx.table_code)
    session["csrf"] = secrets.token_urlsafe(24)  # a new binding gets a new token
    log.info("a device from %s is bound to %s", client_address(), player)
    return jsonify({"player": player, "csrf": session["csrf"]})


@api.post("/unbind")
def unbind() -> Response:
    session.pop("player", None)
    session.pop("table", None)
    return jsonify({"player": None})


@api.get("/state")
def get_state() -> Response:
    ctx = current_context()
    player = viewer()
    state = viewer_state(ctx, player)
    state["recent"] = [
        {"version": u["version"], "source": u.get("source"), "events": _redacted(u, player)}
        for u in ctx.feed.recent()
        if u.get("type") == "events"
    ]
    return jsonify(state)


@api.get("/board")
def get_board() -> Response:
    # Not cached: exploring a Seafarers fog hex turns it face up during play.
    def read(game: Game) -> dict[str, Any]:
        return {
            "board": game.board.to_json(),
            "layout": board_layout(game.board),
            "players": list(game.players),
            "victory_points": game.rules.victory_points,
            "ships": game.rules.ships,
        }

    return jsonify(call(Inspect(read)))


@api.get("/actions")
def get_actions() -> Response:
    player = require_player()

    def read(game: Game) -> dict[str, Any]:
        trade = (
            game.phase == Phase.MAIN
            and game.current_player == player
            and (not game.turn.built or game.rules.trade_after_build)
        )
        if game.phase == Phase.DISCARD:
            # Every way to choose the cards would be listed (hundreds for a big hand): one
            # entry says how many; the engine checks the cards posted.
            owed = next(
                p["to_discard"] for p in game.public_view()["players"] if p["color"] == player
            )
            actions = [{"type": "discard", "player": player, "count": owed}] if owed else []
        else:
            actions = [action_to_json(a) for a in game.legal_actions() if a.player == player]
            gold = game.public_view().get("gold_due", {}).get(player, 0)
            if gold:
                # Like discards: how many cards to choose, not every way to choose them.
                actions = [a for a in actions if a["type"] != "choose_gold"]
                actions.append({"type": "choose_gold", "player": player, "count": gold})
        return {
            "player": player,
            "actions": actions,
            # Domestic trades are too many to list (RULES.md 1.8.2): whether one may be offered.
            "domestic_trade": trade,
        }

    return jsonify(call(Inspect(read)))


@api.post("/actions")
def post_action() -> Response:
    player = require_player()
    try:
        action = action_from_json(json_body())
    except ActionError as exc:
        raise ApiError(400, str(exc)) from None
    if action.player != player:
        raise ApiError(
            403, f"this device is bound to {player}; {action.player} enters their own actions"
        )
    if isinstance(action, DomesticTrade):
        raise ApiError(
            400, "domestic_trade: offer it with POST /api/offers; the partner accepts it"
        )
    events = call(ApplyAction(action, source="web"))
    return applied([redact(e, player) for e in events])


@api.post("/undo")
def post_undo() -> Response:
    player = require_player()
    table = current_context().table

    def last_player(game: Game) -> str | None:
        return table.jgame.history[-1].player if table.jgame.history else None

    # A player takes back their own last action, not someone else's. (Another action may
    # slip in between this check and the undo; at a table that is a rare, visible race.)
    last = call(Inspect(last_player))
    if last is not None and last != player:
        raise ApiError(403, f"the last action is {last}'s: only {last} can undo it")
    return applied(call(Undo(source="web")))


@api.get("/offers")
def get_offers() -> Response:
    player = require_player()
    ctx = current_context()
    return jsonify({"offers": ctx.offers.involving(player, ctx.table.state()["turn"])})


@api.post("/offers")
def post_offer() -> Response:
    player = require_player()
    ctx = current_context()
    data = json_body()
    partner = data.get("partner")
    if not isinstance(partner, str) or not partner:
        raise ApiError(400, "partner: choose the player to trade with")
    try:
        give = Cards.from_json(data.get("give"), "give")
        get = Cards.from_json(data.get("get"), "get")
    except ActionError as exc:
        raise ApiError(400, str(exc)) from None
    action = DomesticTrade(player, partner, give, get)

    def check(game: Game) -> int:
        game.resolve(action)  # the rules' verdict as things stand; the state is unchanged
        return game.turn_number

    turn = call(Inspect(check))
    offer = ctx.offers.add(player, partner, give.to_json(), get.to_json(), turn)
    log.info("%s offers %s a trade: %s for %s", player, partner, offer["give"], offer["get"])
    response = jsonify({"offer": offer})
    response.status_code = 201
    return response


def _open_offer(offer_id: int) -> dict[str, Any]:
    offer = current_context().offers.get(offer_id, current_context().table.state()["turn"])
    if offer is None:
        raise ApiError(404, "that offer is no longer open")
    return offer


@api.post("/offers/<int:offer_id>/accept")
def accept_offer(offer_id: int) -> Response:
    player = require_player()
    ctx = current_context()
    offer = _open_offer(offer_id)
    if offer["to"] != player:
        raise ApiError(403, f"only {offer['to']} can accept this offer")
    if not ctx.offers.remove(offer_id):  # accepted (or withdrawn) at the same moment
        raise ApiError(404, "that offer is no longer open")
    action = DomesticTrade(
        offer["from"], offer["to"], Cards.from_json(offer["give"]), Cards.from_json(offer["get"])
    )
    return applied(call(ApplyAction(action, source="web")))


@api.post("/offers/<int:offer_id>/decline")
def decline_offer(offer_id: int) -> Response:
    """The partner declines, or the proposer withdraws."""
    player = require_player()
    ctx = current_context()
    offer = _open_offer(offer_id)
    if player not in (offer["from"], offer["to"]):
        raise ApiError(403, "this offer is between other players")
    ctx.offers.remove(offer_id)
    return jsonify({"offers": ctx.offers.involving(player, ctx.table.state()["turn"])})


@api.get("/stats")
def get_stats() -> Response:
    ctx = current_context()
    table = ctx.table

    def read(game: Game) -> dict[str, Any]:
        rolls = [
            (a.dice, a.source)
            for a in table.jgame.history
            if isinstance(a, RollDice) and a.dice is not None
        ]
        return {
            "dice": dice_stats([dice for dice, _ in rolls]),
            "table_dice": dice_stats([dice for dice, source in rolls if source in TABLE_DICE]),
            "board": _board_stats(game),
            "setup": _setup(game),
        }

    return jsonify(call(Inspect(read)))


def _board_stats(game: Game) -> dict[str, Any]:
    """companion.stats on the board as it stands: today's buildings and robber."""
    view = game.public_view()
    pieces = [Piece(b["kind"], b["color"], vertex=Vertex(*b["vertex"])) for b in view["buildings"]]
    board = replace(game.board, robber=tuple(view["robber"]), pieces=pieces)
    return board_stats(board, players=len(game.players), top=TOP_OPENINGS)


def _setup(game: Game) -> dict[str, Any]:
    """The set-up check of the board (RULES.md section 7), for the page before the game."""
    if game.board.kind in SCENARIO_BOARD_KINDS:
        return {"ok": None, "violations": [],
                "error": f"a {game.board.kind} board is checked against its scenario: "
                         "catan-companion check-setup --scenario ID"}  # fmt: skip
    try:
        try:
            report = check_board(game.board, players=len(game.players))
        except SpecError:
            # A player count the spec does not name (a 2-player game on the base board):
            # the board is still checked, against the spec of its kind.
            report = check_board(game.board)
    except ValueError as exc:
        return {"ok": None, "violations": [], "error": str(exc)}
    return {"ok": report.ok, "violations": [v.to_json() for v in report.violations]}


@api.get("/proposals")
def get_proposals() -> Response:
    """What the camera proposes (to confirm) and what it saw that the game does not allow."""
    ctx = current_context()
    camera = ctx.table.state()["parts"].get("camera")
    link = ctx.camera_link
    pending = link.pending() if link is not None else {"proposals": [], "discrepancies": []}
    return jsonify({"camera": camera, **pending})


@api.post("/proposals/<int:item_id>/confirm")
def confirm_proposal(item_id: int) -> Response:
    """Apply a camera proposal, with the choice it asks for (e.g. the robber's victim)."""
    require_player()
    choice = json_body().get("choice")
    if choice is not None and not isinstance(choice, str):
        raise ApiError(400, "choice: must be a player's colour or left out")
    link = _camera_link()
    try:
        link.confirm(item_id, choice)
    except IllegalAction as exc:
        raise ApiError(409, str(exc)) from None
    except ValueError as exc:
        unknown = str(exc).startswith("no camera proposal")
        raise ApiError(404 if unknown else 400, str(exc)) from None
    return jsonify({"ok": True, **link.pending()})


@api.post("/proposals/<int:item_id>/dismiss")
def dismiss_proposal(item_id: int) -> Response:
    """Drop a proposal or a discrepancy the table has dealt with."""
    require_player()
    link = _camera_link()
    try:
        link.dismiss(item_id)
    except ValueError as exc:
        raise ApiError(404, str(exc)) from None
    return jsonify({"ok": True, **link.pending()})


@api.get("/camera.jpg")
def camera_view() -> Response:
    """What the camera sees, with the grid it registered drawn on it (on request).

    For a bound phone or the big screen only: the camera may see cards in someone's hand.
    """
    ctx = current_context()
    if viewer() is None and not is_loopback():
        raise ApiError(403, "bind this phone to a player to see the camera")
    view = ctx.camera_view() if ctx.camera_view is not None else None
    if view is None:
        raise ApiError(404, "no camera picture yet (is a camera connected?)")
    return Response(view, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def _camera_version(ctx: WebContext) -> str | None:
    """What the camera has waiting for the page, as a comparable text (None: no camera)."""
    link = ctx.camera_link
    return None if link is None else json.dumps(link.pending(), sort_keys=True)


def _camera_link() -> Any:
    link = current_context().camera_link
    if link is None:
        raise ApiError(409, "no camera is connected: enter what happens with the controls")
    return link


# -- live updates ----------------------------------------------------------------------------


def _sse(event: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


@api.get("/events")
def events() -> Response:
    ctx = current_context()
    with ctx.streams_lock:
        if ctx.streams >= ctx.max_streams:
            raise ApiError(503, "too many open live pages; close one and reload")
        ctx.streams += 1
    player = viewer()
    try:
        # Subscribe before reading the state, so no update falls between the two.
        sub = ctx.table.subscribe()
        first = viewer_state(ctx, player)
    except BaseException:
        with ctx.streams_lock:
            ctx.streams -= 1
        raise

    closed = False

    def cleanup() -> None:
        # Runs when the response is closed, even if the stream never started.
        nonlocal closed
        if closed:
            return
        closed = True
        sub.close()
        with ctx.streams_lock:
            ctx.streams -= 1

    def offers() -> str:
        return _sse("offers", {"offers": ctx.offers.involving(player, ctx.table.state()["turn"])})

    def stream() -> Iterator[str]:
        yield "retry: 1000\n\n"
        yield _sse("state", first, first["version"])
        seen_offers = ctx.offers.version
        seen_camera = _camera_version(ctx)
        if player is not None:
            yield offers()
        quiet_since = time.monotonic()
        while True:
            update = sub.get(timeout=min(ctx.heartbeat, OFFER_POLL))
            if sub.closed:  # the table stopped
                return
            if player is not None and ctx.offers.version != seen_offers:
                seen_offers = ctx.offers.version
                quiet_since = time.monotonic()
                yield offers()
            camera = _camera_version(ctx)
            if camera != seen_camera:  # the camera proposes something, or an item went
                seen_camera = camera
                quiet_since = time.monotonic()
                yield _sse("camera", {"changed": True})
            if update is None:
                if time.monotonic() - quiet_since >= ctx.heartbeat:
                    quiet_since = time.monotonic()
                    yield ": heartbeat\n\n"
                continue
            quiet_since = time.monotonic()
            if sub.lagged:
                # Updates were dropped: skip what is queued and send the whole state.
                sub.lagged = False
                while sub.get(timeout=0) is not None:
                    pass
                state = viewer_state(ctx, player)
                yield _sse("state", {**state, "lagged": True}, state["version"])
                continue
            payload = {
                "version": update["version"],
                "at": update["at"],
                "type": update["type"],
                "source": update.get("source"),
                "events": _redacted(update, player),
                "state": viewer_state(ctx, player),
            }
            yield _sse("update", payload, update["version"])

    response = Response(
        stream(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(cleanup)
    return response
