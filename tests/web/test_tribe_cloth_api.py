"""The Forgotten Tribe and Cloth for Catan at the table: their panels and actions through the
web API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_helpers import CODE, bind, error_of, first_legal, inspect, make_scenario_table

from companion.actions import RollDice
from companion.table import ApplyAction, Inspect, Table
from web.app import create_app

PLAYERS = ["red", "blue", "white", "orange"]


def found_and_roll(table: Table) -> None:
    """Every founding piece on the first legal spot (gold chosen likewise), then red rolls 5."""
    while table.call(
        Inspect(lambda g: g.phase.value in ("founding_settlement", "founding_road", "choose_gold"))
    ):
        table.call(ApplyAction(first_legal(table), source="test"))
    table.call(ApplyAction(RollDice("red", (2, 3)), source="test"))
    while table.call(Inspect(lambda g: g.phase.value == "choose_gold")):
        table.call(ApplyAction(first_legal(table), source="test"))


@pytest.fixture(name="tribe")
def tribe_fixture(tmp_path: Path) -> Iterator[Table]:
    table = make_scenario_table(tmp_path / "t.sqlite", "forgotten-tribe", PLAYERS)
    yield table
    table.stop()


@pytest.fixture(name="cloth")
def cloth_fixture(tmp_path: Path) -> Iterator[Table]:
    table = make_scenario_table(tmp_path / "c.sqlite", "cloth-for-catan", PLAYERS)
    yield table
    table.stop()


def test_the_tribe_panel_counts_the_gifts_and_names_the_gift_actions(tribe: Table) -> None:
    client = create_app(tribe, table_code=CODE).test_client()
    scenario = client.get("/api/state").get_json()["scenario"]
    assert scenario["actions"] == {
        "take_gift_card": "Turn up the card found",
        "place_gift_harbor": "Place the harbour token",
    }
    panel = next(p for p in scenario["panels"] if p["hook"] == "tribe_gifts")
    counters = {i["label"]: i["value"] for i in panel["sections"][0]["items"]}
    assert counters == {"Catan chips": 8, "Face-down cards": 4, "Harbour tokens": 6}


def test_a_harbour_token_nobody_holds_is_refused_through_the_api(tribe: Table) -> None:
    client: FlaskClient = create_app(tribe, table_code=CODE).test_client()
    found_and_roll(tribe)
    headers = bind(client, "red")
    before = inspect(tribe, lambda g: g.snapshot())
    action = {"type": "place_gift_harbor", "player": "red", "edge": [0, 0, "E"], "kind": "ore"}
    r = client.post("/api/actions", json=action, headers=headers)
    assert r.status_code == 409 and r.get_json()["rule"] == "4.5.11"
    assert "red holds no ore harbour token" in error_of(r)
    assert inspect(tribe, lambda g: g.snapshot()) == before


def test_the_cloth_panel_shows_the_villages_and_everyones_cloth(cloth: Table) -> None:
    client = create_app(cloth, table_code=CODE).test_client()
    scenario = client.get("/api/state").get_json()["scenario"]
    assert scenario["actions"] == {"pirate_takes_cloth": "Pirate: take a cloth"}
    panel = next(p for p in scenario["panels"] if p["hook"] == "cloth_trade")
    villages, cloth = panel["sections"]
    assert [i["value"] for i in villages["items"]] == [5] * 8
    assert {i["label"]: i["value"] for i in cloth["items"]} == {
        **{c: 0 for c in PLAYERS},
        "General supply": 10,
    }


def test_the_pirate_takes_no_cloth_outside_a_robber_move(cloth: Table) -> None:
    client = create_app(cloth, table_code=CODE).test_client()
    found_and_roll(cloth)
    headers = bind(client, "red")
    before = inspect(cloth, lambda g: g.snapshot())
    action = {"type": "pirate_takes_cloth", "player": "red", "hex": [2, -2], "victim": "blue"}
    r = client.post("/api/actions", json=action, headers=headers)
    assert r.status_code == 409 and r.get_json()["rule"] == "1.7.3"
    assert inspect(cloth, lambda g: g.snapshot()) == before
