"""The Pirate Islands at the table: its panel and its actions through the web API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_helpers import CODE, bind, error_of, inspect, make_scenario_table, play_founding

from companion.actions import RollDice
from companion.table import ApplyAction, Table
from web.app import create_app

PLAYERS = ["red", "blue", "white", "orange"]


@pytest.fixture(name="table")
def table_fixture(tmp_path: Path) -> Iterator[Table]:
    table = make_scenario_table(tmp_path / "pi.sqlite", "pirate-islands", PLAYERS)
    yield table
    table.stop()


@pytest.fixture(name="client")
def client_fixture(table: Table) -> FlaskClient:
    return create_app(table, table_code=CODE).test_client()


def test_the_page_shows_the_fleet_the_fortresses_and_names_the_actions(client: FlaskClient):
    scenario = client.get("/api/state").get_json()["scenario"]
    assert set(scenario["actions"]) == {
        "attack_fortress",
        "arm_warship",
        "reveal_victory_point",
        "surrender_cards",
        "take_booty",
        "raid",
    }
    panel = next(p for p in scenario["panels"] if p["hook"] == "pirate_islands")
    fleet, fortresses, warships = panel["sections"][:3]
    assert fleet["items"][0]["value"] == "(5, -3)"  # the "x" of the scenario file
    assert [(i["label"], i["value"]) for i in fortresses["items"]] == [(c, 3) for c in PLAYERS]
    assert [i["value"] for i in warships["items"]] == [0, 0, 0, 0]


def test_a_seven_offers_the_raid_on_the_phone_and_the_table_names_the_card(
    client: FlaskClient, table: Table
):
    play_founding(table)
    table.call(ApplyAction(RollDice("red", (3, 4)), source="test"))
    while inspect(table, lambda g: g.hook_state["pirate_islands"]["due"]):  # the fleet's attack
        table.call(ApplyAction(inspect(table, lambda g: g.legal_actions()[0]), source="test"))
    headers = bind(client, "red")
    listed = client.get("/api/actions").get_json()["actions"]
    raids = [a for a in listed if a["type"] == "raid"]
    assert raids and all(a["player"] == "red" for a in raids)
    victim = raids[0]["victim"]
    held = inspect(table, lambda g: g.hands[g.seat(victim)])
    card = ["lumber", "brick", "wool", "grain", "ore"][next(i for i, n in enumerate(held) if n)]
    r = client.post("/api/actions", json={**raids[0], "stolen": card}, headers=headers)
    assert r.status_code == 200, r.get_json()
    assert inspect(table, lambda g: g.phase.value) == "main"


def test_an_attack_before_the_route_reaches_the_fortress_is_refused_with_its_rule(
    client: FlaskClient, table: Table
):
    play_founding(table)
    table.call(ApplyAction(RollDice("red", (4, 5)), source="test"))
    while inspect(table, lambda g: g.hook_state["pirate_islands"]["due"]):
        table.call(ApplyAction(inspect(table, lambda g: g.legal_actions()[0]), source="test"))
    headers = bind(client, "red")
    before = inspect(table, lambda g: g.snapshot())
    r = client.post(
        "/api/actions", json={"type": "attack_fortress", "player": "red", "die": 1}, headers=headers
    )
    assert r.status_code == 409 and r.get_json()["rule"] == "4.7.17"
    assert "does not reach your fortress" in error_of(r)
    assert inspect(table, lambda g: g.snapshot()) == before
