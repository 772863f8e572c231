"""Trade offers: proposed by the active player, accepted or declined by the partner."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from web_helpers import (
    Stream,
    app_fixture,  # noqa: F401  (a fixture, used by name)
    bind,
    client_fixture,  # noqa: F401  (a fixture, used by name)
    clock_fixture,  # noqa: F401  (a fixture, used by name)
    dice_for,
    error_of,
    inspect,
    numbers_of,
    pass_turns,
    play_founding,
    table_fixture,  # noqa: F401  (a fixture, used by name)
)

from companion.actions import EndTurn, RollDice
from companion.table import ApplyAction, Table
from web.offers import MAX_OFFERS, Offers


def hand(table: Table, color: str) -> dict[str, int]:
    return inspect(table, lambda g: g.private_view(color)["you"]["resources"])


def to_main_phase(table: Table) -> None:
    """Founding, a few turns so red and blue hold cards, then red has rolled."""
    play_founding(table)
    pass_turns(table, 3, "blue")
    pass_turns(table, 3, "red")
    assert table.state()["current"] == "red"
    number = inspect(table, lambda g: numbers_of(g, "red"))[0]
    table.call(ApplyAction(RollDice("red", dice_for(number)), source="test"))
    assert hand(table, "red") and hand(table, "blue")


def fair_offer(table: Table) -> dict[str, Any]:
    """One card red holds for one card blue holds (of another resource)."""
    mine, theirs = hand(table, "red"), hand(table, "blue")
    give = next(iter(mine))
    get = next(r for r in theirs if r != give)
    return {"partner": "blue", "give": {give: 1}, "get": {get: 1}}


def clients(app: Flask) -> dict[str, tuple[FlaskClient, dict[str, str]]]:
    out = {}
    for color in ("red", "blue", "white"):
        c = app.test_client()
        out[color] = (c, bind(c, color))
    return out


def test_offer_accepted_by_the_partner_moves_the_cards(app: Flask, table: Table) -> None:
    to_main_phase(table)
    devices = clients(app)
    red, red_h = devices["red"]
    blue, blue_h = devices["blue"]
    white, _ = devices["white"]
    body = fair_offer(table)
    before = {c: hand(table, c) for c in ("red", "blue")}
    count = table.state()["action_count"]
    r = red.post("/api/offers", json=body, headers=red_h)
    assert r.status_code == 201
    offer = r.get_json()["offer"]
    assert (offer["from"], offer["to"], offer["give"], offer["get"]) == (
        "red",
        "blue",
        body["give"],
        body["get"],
    )
    assert table.state()["action_count"] == count  # nothing happens until blue accepts
    assert blue.get("/api/offers").get_json()["offers"] == [offer]
    assert red.get("/api/offers").get_json()["offers"] == [offer]
    assert white.get("/api/offers").get_json()["offers"] == []
    r = blue.post(f"/api/offers/{offer['id']}/accept", headers=blue_h)
    assert r.status_code == 200 and r.get_json()["events"][0]["type"] == "domestic_trade"
    assert table.state()["action_count"] == count + 1
    (give, n), (get, m) = next(iter(body["give"].items())), next(iter(body["get"].items()))
    after = {c: hand(table, c) for c in ("red", "blue")}
    assert after["red"].get(give, 0) == before["red"][give] - n
    assert after["red"].get(get, 0) == before["red"].get(get, 0) + m
    assert after["blue"].get(give, 0) == before["blue"].get(give, 0) + n
    r = blue.post(f"/api/offers/{offer['id']}/accept", headers=blue_h)
    assert r.status_code == 404 and "no longer open" in error_of(r)


def test_only_the_partner_accepts(app: Flask, table: Table) -> None:
    to_main_phase(table)
    devices = clients(app)
    red, red_h = devices["red"]
    white, white_h = devices["white"]
    offer = red.post("/api/offers", json=fair_offer(table), headers=red_h).get_json()["offer"]
    for client, headers in ((red, red_h), (white, white_h)):
        r = client.post(f"/api/offers/{offer['id']}/accept", headers=headers)
        assert r.status_code == 403 and "only blue" in error_of(r)
    r = white.post(f"/api/offers/{offer['id']}/decline", headers=white_h)
    assert r.status_code == 403 and "other players" in error_of(r)


def test_decline_and_withdraw_close_the_offer(app: Flask, table: Table) -> None:
    to_main_phase(table)
    devices = clients(app)
    red, red_h = devices["red"]
    blue, blue_h = devices["blue"]
    count = table.state()["action_count"]
    for client, headers in ((blue, blue_h), (red, red_h)):  # declined, then withdrawn
        offer = red.post("/api/offers", json=fair_offer(table), headers=red_h).get_json()["offer"]
        r = client.post(f"/api/offers/{offer['id']}/decline", headers=headers)
        assert r.status_code == 200 and r.get_json() == {"offers": []}
        assert blue.post(f"/api/offers/{offer['id']}/accept", headers=blue_h).status_code == 404
    assert table.state()["action_count"] == count


def test_a_new_offer_replaces_the_old_one(app: Flask, table: Table) -> None:
    to_main_phase(table)
    red, red_h = clients(app)["red"]
    first = red.post("/api/offers", json=fair_offer(table), headers=red_h).get_json()["offer"]
    second = red.post("/api/offers", json=fair_offer(table), headers=red_h).get_json()["offer"]
    assert red.get("/api/offers").get_json()["offers"] == [second]
    assert first["id"] != second["id"]


def test_offers_lapse_with_the_turn(app: Flask, table: Table) -> None:
    to_main_phase(table)
    devices = clients(app)
    red, red_h = devices["red"]
    blue, blue_h = devices["blue"]
    offer = red.post("/api/offers", json=fair_offer(table), headers=red_h).get_json()["offer"]
    table.call(ApplyAction(EndTurn("red"), source="test"))
    assert blue.get("/api/offers").get_json()["offers"] == []
    assert blue.post(f"/api/offers/{offer['id']}/accept", headers=blue_h).status_code == 404


def test_bad_offers_are_refused_with_the_reason(app: Flask, table: Table) -> None:
    devices = clients(app)
    red, red_h = devices["red"]
    offer = {"partner": "blue", "give": {"ore": 1}, "get": {"wool": 1}}
    r = red.post("/api/offers", json=offer, headers=red_h)  # the founding phase
    assert r.status_code == 409 and r.get_json()["rule"] == "1.4.1"
    to_main_phase(table)
    cases = [
        ({"give": {"ore": 1}, "get": {"wool": 1}}, 400, "partner"),
        ({**offer, "give": {"ore": -1}}, 400, "give.ore"),
        ({**offer, "get": "wool"}, 400, "get"),
        ({**offer, "give": {"ore": 99}}, 409, "does not hold the cards offered"),
        ({**offer, "partner": "red"}, 409, "themselves"),
        ({**offer, "partner": "green"}, 409, "not playing"),
    ]
    for body, status, words in cases:
        r = red.post("/api/offers", json=body, headers=red_h)
        assert r.status_code == status and words in error_of(r), (body, r.get_json())
    blue, blue_h = devices["blue"]
    r = blue.post("/api/offers", json={**offer, "partner": "red"}, headers=blue_h)
    assert r.status_code == 409 and "only the active player" in error_of(r)
    assert red.get("/api/offers").get_json()["offers"] == []


def test_spectators_have_no_offers(client: FlaskClient) -> None:
    assert client.get("/api/offers").status_code == 403


def test_direct_domestic_trade_is_refused(app: Flask, table: Table) -> None:
    to_main_phase(table)
    red, red_h = clients(app)["red"]
    body = {"type": "domestic_trade", "player": "red", **fair_offer(table)}
    r = red.post("/api/actions", json=body, headers=red_h)
    assert r.status_code == 400 and "/api/offers" in error_of(r)


def test_the_partner_hears_of_an_offer_live(app: Flask, table: Table) -> None:
    to_main_phase(table)
    devices = clients(app)
    red, red_h = devices["red"]
    blue, _ = devices["blue"]
    stream = Stream(blue)
    assert stream.next()[0] == "state"
    assert stream.next() == ("offers", {"offers": []})
    offer = red.post("/api/offers", json=fair_offer(table), headers=red_h).get_json()["offer"]
    assert stream.next() == ("offers", {"offers": [offer]})
    stream.close()


def test_the_offer_store_stays_small() -> None:
    offers = Offers()
    for i in range(MAX_OFFERS + 5):
        offers.add(f"p{i}", "blue", {"ore": 1}, {"wool": 1}, turn=1)
    assert len(offers.involving("blue", turn=1)) == MAX_OFFERS
    assert offers.get(1, turn=1) is None and offers.get(MAX_OFFERS + 5, turn=1) is not None
