"""Flask test-client tests of every endpoint, with good and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_helpers import (
    CODE,
    PLAYERS,
    Clock,
    Stream,
    app_fixture,  # noqa: F401  (a fixture, used by name)
    bind,
    client_fixture,  # noqa: F401  (a fixture, used by name)
    clock_fixture,  # noqa: F401  (a fixture, used by name)
    csrf,
    error_of,
    first_legal,
    inspect,
    make_sea_table,
    make_table,
    pass_turns,
    play_founding,
    table_fixture,  # noqa: F401  (a fixture, used by name)
)

from companion.actions import EndTurn, RollDice, action_to_json
from companion.board import Terrain, Tile
from companion.table import ApplyAction, Inspect, ReportPart, Table
from web.app import MAX_CONTENT_LENGTH, create_app

REMOTE = {"REMOTE_ADDR": "192.168.1.20"}


# -- session, table code, binding ------------------------------------------------------------


def test_session_of_a_new_device_is_a_spectator_with_a_token(client: FlaskClient) -> None:
    body = client.get("/api/session").get_json()
    assert body["player"] is None
    assert body["players"] == PLAYERS
    assert len(body["csrf"]) >= 16
    assert body["can_show_code"] is True  # the test client is on the loopback address


def test_session_token_is_stable_within_a_session(client: FlaskClient) -> None:
    a = client.get("/api/session").get_json()["csrf"]
    b = client.get("/api/session").get_json()["csrf"]
    assert a == b


def test_table_code_is_shown_to_this_machine_only(client: FlaskClient) -> None:
    assert client.get("/api/table-code").get_json() == {"code": CODE}
    remote = client.get("/api/table-code", environ_base=REMOTE)
    assert remote.status_code == 403
    assert "own screen" in error_of(remote)
    proxied = client.get("/api/table-code", headers={"X-Forwarded-For": "10.0.0.9"})
    assert proxied.status_code == 403
    assert client.get("/api/session", environ_base=REMOTE).get_json()["can_show_code"] is False


def test_table_code_can_be_hidden_from_this_machine_too(table: Table) -> None:
    app = create_app(table, table_code=CODE, show_code_to_loopback=False)
    assert app.test_client().get("/api/table-code").status_code == 403


def test_bind_with_the_code_makes_a_player(client: FlaskClient) -> None:
    headers = bind(client, "blue", code="test-42")  # case and dashes do not matter
    assert client.get("/api/session").get_json()["player"] == "blue"
    assert headers["X-CSRF-Token"]


def test_bind_sets_a_strict_http_only_cookie(client: FlaskClient) -> None:
    r = client.post("/api/bind", json={"code": CODE, "player": "red"}, headers=csrf(client))
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"code": "WRONG1", "player": "red"}, 403, "not this table's code"),
        ({"code": CODE, "player": "green"}, 400, "red, blue, white"),
        ({"code": CODE}, 400, "player"),
        ({"player": "red"}, 400, "code"),
        ({"code": 42, "player": "red"}, 400, "code"),
        ({"code": "   ", "player": "red"}, 400, "code"),
    ],
)
def test_bad_bind_is_refused_and_leaves_a_spectator(
    client: FlaskClient, body: dict[str, Any], status: int, words: str
) -> None:
    r = client.post("/api/bind", json=body, headers=csrf(client))
    assert r.status_code == status
    assert words in error_of(r)
    assert client.get("/api/session").get_json()["player"] is None


def test_bind_needs_a_json_object(client: FlaskClient) -> None:
    headers = csrf(client)
    bodies = [
        ("code=x", "application/x-www-form-urlencoded"),
        ("[1]", "application/json"),
        ("{bad", "application/json"),
    ]
    for data, ctype in bodies:
        r = client.post("/api/bind", data=data, content_type=ctype, headers=headers)
        assert r.status_code == 400
        assert "JSON object" in error_of(r)


def test_bind_attempts_are_rate_limited_per_address(client: FlaskClient, clock: Clock) -> None:
    headers = csrf(client)
    wrong = {"code": "NOPE99", "player": "red"}
    for _ in range(5):
        assert client.post("/api/bind", json=wrong, headers=headers).status_code == 403
    r = client.post("/api/bind", json={"code": CODE, "player": "red"}, headers=headers)
    assert r.status_code == 429  # even the right code: guessing must stay slow
    assert r.get_json()["retry_after"] >= 1
    # Another address has its own bucket.
    other = client.post("/api/bind", json=wrong, headers=headers, environ_base=REMOTE)
    assert other.status_code == 403
    clock.now += 10.0  # one attempt per 10 s refills
    r = client.post("/api/bind", json={"code": CODE, "player": "red"}, headers=headers)
    assert r.status_code == 200


def test_unbind_returns_to_spectator(client: FlaskClient) -> None:
    headers = bind(client, "red")
    assert client.post("/api/unbind", headers=headers).get_json() == {"player": None}
    assert client.get("/api/session").get_json()["player"] is None


def test_binding_does_not_survive_a_new_table_code(table: Table) -> None:
    key = b"k" * 32
    first = create_app(table, table_code=CODE, secret_key=key).test_client()
    bind(first, "red")
    cookie = first.get_cookie("catan_companion")
    assert cookie is not None
    second = create_app(table, table_code="OTHER7", secret_key=key).test_client()
    second.set_cookie("catan_companion", cookie.value)
    assert second.get("/api/session").get_json()["player"] is None


# -- CSRF, origin, limits, errors ------------------------------------------------------------


def test_state_changing_requests_need_the_csrf_header(client: FlaskClient) -> None:
    headers = bind(client, "red")
    action = action_to_json(RollDice("red"))
    for bad in ({}, {"X-CSRF-Token": "forged"}):
        r = client.post("/api/actions", json=action, headers=bad)
        assert r.status_code == 403
        assert "X-CSRF-Token" in error_of(r)
    r = client.post("/api/undo", headers={})
    assert r.status_code == 403
    assert client.post("/api/undo", headers=headers).status_code == 409  # token accepted


def test_cross_site_origin_is_refused(client: FlaskClient) -> None:
    headers = {**bind(client, "red"), "Origin": "http://evil.example"}
    r = client.post("/api/undo", headers=headers)
    assert r.status_code == 403
    assert "another site" in error_of(r)
    same = {**headers, "Origin": "http://localhost"}
    assert client.post("/api/undo", headers=same).status_code == 409


def test_unknown_host_names_are_refused(table: Table) -> None:
    client = create_app(table, table_code=CODE, allowed_hosts=["Catan.local"]).test_client()
    r = client.get("/api/table-code", headers={"Host": "evil.example:8000"})
    assert r.status_code == 400 and "unknown host name 'evil.example'" in error_of(r)
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    for host in ("localhost:5000", "127.0.0.1:8000", "[::1]:8000", "192.168.1.5", "catan.local"):
        assert client.get("/api/session", headers={"Host": host}).status_code == 200, host


def test_too_large_body_is_refused_with_json(client: FlaskClient) -> None:
    headers = bind(client, "red")
    r = client.post(
        "/api/actions",
        data=json.dumps({"type": "end_turn", "player": "red", "pad": "x" * MAX_CONTENT_LENGTH}),
        content_type="application/json",
        headers=headers,
    )
    assert r.status_code == 413
    assert "too large" in error_of(r)


def test_posts_are_rate_limited(table: Table, clock: Clock) -> None:
    client = create_app(table, table_code=CODE, post_rate=(3, 1.0), clock=clock).test_client()
    headers = bind(client, "red")  # one post
    statuses = [client.post("/api/undo", headers=headers).status_code for _ in range(3)]
    assert statuses == [409, 409, 429]
    clock.now += 1.0
    assert client.post("/api/undo", headers=headers).status_code == 409


def test_all_api_requests_are_rate_limited(table: Table, clock: Clock) -> None:
    client = create_app(table, table_code=CODE, api_rate=(2, 1.0), clock=clock).test_client()
    statuses = [client.get("/api/session").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_unknown_endpoint_and_method_answer_json(client: FlaskClient) -> None:
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "docs/api.md" in error_of(r)
    r = client.delete("/api/state")
    assert r.status_code == 405
    assert "GET" in r.headers["Allow"]


def test_internal_failure_shows_no_details(client: FlaskClient, monkeypatch: Any) -> None:
    def boom(*_: Any) -> Any:
        raise RuntimeError("secret internals /home/user/db")

    monkeypatch.setattr("web.api.dice_stats", boom)
    r = client.get("/api/stats")
    assert r.status_code == 500
    assert "log" in error_of(r)
    assert b"secret internals" not in r.data and b"Traceback" not in r.data


def test_security_headers(client: FlaskClient) -> None:
    r = client.get("/api/state")
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Cache-Control"] == "no-store"


def test_factory_refuses_bad_settings(table: Table) -> None:
    with pytest.raises(ValueError, match="table code"):
        create_app(table, table_code="ab")
    with pytest.raises(ValueError, match="heartbeat"):
        create_app(table, heartbeat=0)


def test_factory_makes_a_random_code(table: Table) -> None:
    a = create_app(table).test_client().get("/api/table-code").get_json()["code"]
    b = create_app(table).test_client().get("/api/table-code").get_json()["code"]
    assert len(a) == 6 and a.isalnum() and a != b


# -- state, board, actions, undo -------------------------------------------------------------


def test_spectator_state_is_public(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    assert state["action_count"] == 0
    assert state["you"] is None
    assert [p["color"] for p in state["players"]] == PLAYERS
    assert state["recent"] == []


def test_player_state_has_their_own_cards(client: FlaskClient, table: Table) -> None:
    play_founding(table)
    bind(client, "blue")
    state = client.get("/api/state").get_json()
    hand = inspect(table, lambda g: g.private_view("blue")["you"]["resources"])
    assert state["you"]["color"] == "blue"
    assert state["you"]["resources"] == hand
    assert state["action_count"] == 2 * 2 * len(PLAYERS)


def test_board_has_drawing_geometry(client: FlaskClient, table: Table) -> None:
    body = client.get("/api/board").get_json()
    assert len(body["board"]["hexes"]) == 19
    layout = body["layout"]
    assert len(layout["hexes"]) == 19 and len(layout["vertices"]) == 54
    assert len(layout["edges"]) == 72 and len(layout["harbors"]) == 9
    assert body["players"] == PLAYERS and body["victory_points"] == 10
    x, y, w, h = layout["viewbox"]
    for px, py in layout["vertices"].values():
        assert x < px < x + w and y < py < y + h


def test_board_of_a_seafarers_game(tmp_path: Path) -> None:
    table = make_sea_table(tmp_path / "g.sqlite", ["red", "blue"])
    try:
        client = create_app(table, table_code=CODE).test_client()
        body = client.get("/api/board").get_json()
        assert body["ships"] == 15 and body["board"]["kind"] == "seafarers"
        assert body["board"]["pirate"] == {"q": 3, "r": 0}
        assert sum(h["terrain"] == "sea" for h in body["board"]["hexes"]) == 18
        assert len(body["layout"]["hexes"]) == 37
        setup = client.get("/api/stats").get_json()["setup"]
        assert setup["ok"] is None and "--scenario" in setup["error"]
        # A fog hex turned face up changes the board during play (here set directly, as the
        # engine's exploration does): the next read shows it.
        table.call(Inspect(lambda g: g.set_tile((3, 0), Tile(Terrain.GOLD, 5))))
        hexes = client.get("/api/board").get_json()["board"]["hexes"]
        assert {"q": 3, "r": 0, "terrain": "gold", "number": 5} in hexes
    finally:
        table.stop()


def test_legal_actions_of_the_bound_player(client: FlaskClient) -> None:
    assert client.get("/api/actions").status_code == 403
    bind(client, "red")
    body = client.get("/api/actions").get_json()
    assert body["player"] == "red" and body["domestic_trade"] is False
    assert len(body["actions"]) == 54
    assert {a["type"] for a in body["actions"]} == {"build_settlement"}
    bind(client, "blue")  # not blue's turn: nothing to do
    assert client.get("/api/actions").get_json()["actions"] == []


def test_discards_are_listed_once_with_their_count(client: FlaskClient, table: Table) -> None:
    play_founding(table)
    pass_turns(table, 24, "red")  # red collects far more than 7 cards
    table.call(ApplyAction(RollDice("red", (3, 4)), source="test"))
    owed = {p["color"]: p["to_discard"] for p in table.state()["players"]}
    assert owed["red"] > 0
    bind(client, "red")
    body = client.get("/api/actions").get_json()
    assert body["actions"] == [{"type": "discard", "player": "red", "count": owed["red"]}]
    bind(client, "white")  # white may or may not owe cards: either way, one entry at most
    expected = [{"type": "discard", "player": "white", "count": owed["white"]}]
    assert client.get("/api/actions").get_json()["actions"] == (expected if owed["white"] else [])


def test_post_action_applies_it(client: FlaskClient, table: Table) -> None:
    headers = bind(client, "red")
    action = client.get("/api/actions").get_json()["actions"][0]
    r = client.post("/api/actions", json=action, headers=headers)
    assert r.status_code == 200
    body = r.get_json()
    assert body["events"][0]["type"] == "built" and body["action_count"] == 1
    state = client.get("/api/state").get_json()
    assert state["buildings"][0]["vertex"] == action["vertex"]
    assert state["recent"][-1]["events"][0]["vertex"] == action["vertex"]


def test_illegal_action_names_the_rule_and_changes_nothing(
    client: FlaskClient, table: Table
) -> None:
    headers = bind(client, "red")
    r = client.post("/api/actions", json={"type": "end_turn", "player": "red"}, headers=headers)
    assert r.status_code == 409
    assert r.get_json()["rule"] == "1.4.1" and "founding settlement" in error_of(r)
    r = client.post(
        "/api/actions",
        json={"type": "build_settlement", "player": "red", "vertex": [9, 9, "N"]},
        headers=headers,
    )
    assert r.status_code == 409 and "not on this board" in error_of(r)
    assert client.get("/api/state").get_json()["action_count"] == 0


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"type": "fly", "player": "red"}, "type"),
        ({"player": "red"}, "type"),
        ({"type": "build_settlement", "player": "red"}, "missing field 'vertex'"),
        ({"type": "build_settlement", "player": "red", "vertex": [0, 0, "Q"]}, "vertex"),
        ({"type": "roll_dice", "player": "red", "dice": [7, 1]}, "dice"),
        ({"type": "end_turn", "player": "red", "extra": 1}, "unknown field"),
    ],
)
def test_malformed_action_is_a_400_naming_the_field(
    client: FlaskClient, action: dict[str, Any], words: str
) -> None:
    headers = bind(client, "red")
    r = client.post("/api/actions", json=action, headers=headers)
    assert r.status_code == 400
    assert words in error_of(r)


def test_a_player_cannot_act_for_another(client: FlaskClient, table: Table) -> None:
    headers = bind(client, "blue")
    r = client.post(
        "/api/actions",
        json={"type": "build_settlement", "player": "red", "vertex": [0, 0, "N"]},
        headers=headers,
    )
    assert r.status_code == 403 and "bound to blue" in error_of(r)
    assert table.state()["action_count"] == 0


def test_spectator_cannot_act_or_undo(client: FlaskClient, table: Table) -> None:
    headers = csrf(client)
    r = client.post("/api/actions", json={"type": "end_turn", "player": "red"}, headers=headers)
    assert r.status_code == 403 and "spectator" in error_of(r)
    assert client.post("/api/undo", headers=headers).status_code == 403


def test_undo_takes_back_the_last_action(client: FlaskClient, table: Table) -> None:
    headers = bind(client, "red")
    r = client.post("/api/undo", headers=headers)
    assert r.status_code == 409 and "nothing to undo" in error_of(r)
    table.call(ApplyAction(first_legal(table), source="test"))
    r = client.post("/api/undo", headers=headers)
    assert r.status_code == 200
    assert r.get_json()["events"] == [{"type": "undone", "action": "build_settlement"}]
    assert r.get_json()["action_count"] == 0
    assert table.jgame.journal.length == 2  # journaled, not erased


def test_only_the_player_of_the_last_action_undoes_it(client: FlaskClient, table: Table) -> None:
    table.call(ApplyAction(first_legal(table), source="test"))  # red's settlement
    r = client.post("/api/undo", headers=bind(client, "blue"))
    assert r.status_code == 403 and "only red can undo" in error_of(r)
    assert table.state()["action_count"] == 1
    assert client.post("/api/undo", headers=bind(client, "red")).status_code == 200


def test_stats_count_the_rolls(client: FlaskClient, table: Table) -> None:
    play_founding(table)
    table.call(ApplyAction(RollDice("red", (2, 3), source="manual"), source="test"))
    table.call(ApplyAction(EndTurn("red"), source="test"))
    table.call(ApplyAction(RollDice("blue", (4, 4)), source="test"))  # the engine's generator
    stats = client.get("/api/stats").get_json()
    dice = stats["dice"]
    assert dice["rolls"] == 2 and dice["histogram"]["5"] == 1 and dice["histogram"]["8"] == 1
    assert sum(dice["histogram"].values()) == 2
    assert dice["totals_test"] is None and dice["faces_test"] is None
    # Only the table's own dice (tower, typed in) are tested for fairness.
    assert stats["table_dice"]["rolls"] == 1 and stats["table_dice"]["histogram"]["5"] == 1
    assert stats["setup"]["ok"] is True and stats["setup"]["violations"] == []


def test_stats_of_the_board_follow_the_buildings(client: FlaskClient, table: Table) -> None:
    board = client.get("/api/stats").get_json()["board"]
    assert board["players"] == {}
    assert sum(board["pips_per_resource"].values()) == 58  # every chip's dots, any layout
    best = board["best_openings"][0]["vertex"]
    action = {"type": "build_settlement", "player": "red", "vertex": best}
    assert client.post("/api/actions", json=action, headers=bind(client, "red")).status_code == 200
    board = client.get("/api/stats").get_json()["board"]
    assert board["players"]["red"]["settlements"] == 1
    assert board["players"]["red"]["total_per_round"] > 0
    assert best not in [c["vertex"] for c in board["best_openings"]]


def test_setup_of_a_two_player_game_is_checked_as_the_base_game(tmp_path: Path) -> None:
    table = make_table(tmp_path / "g.sqlite", players=["red", "blue"])
    try:
        client = create_app(table, table_code=CODE).test_client()
        assert client.get("/api/stats").get_json()["setup"] == {"ok": True, "violations": []}
    finally:
        table.stop()


def test_without_a_camera_nothing_is_proposed(client: FlaskClient) -> None:
    body = client.get("/api/proposals").get_json()
    assert body == {"camera": None, "proposals": [], "discrepancies": []}


def test_page_and_static_assets(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '<html lang="en">' in html and "/static/app.js" in html
    for asset in ("/static/app.js", "/static/app.css"):
        assert client.get(asset).status_code == 200


# -- live updates ----------------------------------------------------------------------------


def test_events_send_the_state_then_updates(client: FlaskClient, table: Table) -> None:
    stream = Stream(client)
    assert stream.response.mimetype == "text/event-stream"
    name, first = stream.next()
    assert name == "state" and first["action_count"] == 0 and first["you"] is None
    table.call(ApplyAction(first_legal(table), source="test"))
    name, update = stream.next()
    assert name == "update"
    assert update["source"] == "test" and update["events"][0]["type"] == "built"
    assert update["state"]["action_count"] == 1
    assert update["version"] == update["state"]["version"]
    stream.close()


def test_events_heartbeat_when_idle(client: FlaskClient) -> None:
    stream = Stream(client)
    assert stream.next()[0] == "state"
    assert stream.next() == ("comment", "heartbeat")
    stream.close()


def test_events_hide_a_bought_card_from_others(tmp_path: Path) -> None:
    table = make_table(tmp_path / "g.sqlite", players=["red", "blue"])
    try:
        app = create_app(table, table_code=CODE, heartbeat=0.05)
        red, blue = app.test_client(), app.test_client()
        bind(red, "red")
        bind(blue, "blue")
        streams = {"red": Stream(red), "blue": Stream(blue)}
        for s in streams.values():
            assert s.next()[0] == "state"
            assert s.next() == ("offers", {"offers": []})  # a player's stream has offers
        # An event as the engine reports a purchase, published through the Table's own path.
        card = {"type": "bought_card", "player": "red", "card": "victory_point"}
        table._publish({"type": "events", "source": "test", "events": [card]})
        seen = {}
        for color, s in streams.items():
            name, update = s.next()
            assert name == "update"
            seen[color] = update["events"][0]
            s.close()
        assert seen["red"]["card"] == "victory_point"
        assert "card" not in seen["blue"] and seen["blue"]["player"] == "red"
    finally:
        table.stop()


def test_events_resend_the_state_after_a_lag(tmp_path: Path) -> None:
    table = make_table(tmp_path / "g.sqlite", subscriber_queue=2)
    try:
        client = create_app(table, table_code=CODE, heartbeat=0.05).test_client()
        stream = Stream(client)
        assert stream.next()[0] == "state"
        for _ in range(3):
            table.call(ApplyAction(first_legal(table), source="test"))
        name, state = stream.next()
        assert name == "state" and state["lagged"] is True
        assert state["action_count"] == 3
        stream.close()
    finally:
        table.stop()


def test_events_player_stream_has_private_view(client: FlaskClient, table: Table) -> None:
    bind(client, "red")
    stream = Stream(client)
    name, first = stream.next()
    assert first["you"]["color"] == "red"
    stream.close()


def test_events_report_parts_and_proposals_follow(client: FlaskClient, table: Table) -> None:
    down = {"up": False, "detail": "no frames from /dev/video0"}
    stream = Stream(client)
    assert stream.next()[0] == "state"
    table.call(ReportPart("camera", down["up"], down["detail"]))
    name, update = stream.next()
    assert name == "update" and update["type"] == "parts" and update["events"] == []
    assert update["state"]["parts"]["camera"] == down
    stream.close()
    assert client.get("/api/proposals").get_json()["camera"] == down


def test_open_streams_are_capped_and_released(table: Table) -> None:
    client = create_app(table, table_code=CODE, heartbeat=0.05, max_streams=1).test_client()
    first = Stream(client)
    assert first.next()[0] == "state"
    r = client.get("/api/events")
    assert r.status_code == 503 and "too many" in error_of(r)
    first.close()
    again = Stream(client)
    assert again.next()[0] == "state"
    again.close()


def test_stream_ends_when_the_table_stops(tmp_path: Path) -> None:
    table = make_table(tmp_path / "g.sqlite")
    client = create_app(table, table_code=CODE, heartbeat=0.05).test_client()
    stream = Stream(client)
    assert stream.next()[0] == "state"
    table.stop()
    with pytest.raises(StopIteration):
        while True:
            stream.next()
