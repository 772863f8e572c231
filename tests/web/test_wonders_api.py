"""The Wonders of Catan at the table: its panel and its actions through the web API."""

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
    table = make_scenario_table(tmp_path / "w.sqlite", "wonders", PLAYERS)
    yield table
    table.stop()


@pytest.fixture(name="client")
def client_fixture(table: Table) -> FlaskClient:
    return create_app(table, table_code=CODE).test_client()


def test_the_page_state_shows_every_wonder_and_names_the_wonder_actions(
    client: FlaskClient,
) -> None:
    scenario = client.get("/api/state").get_json()["scenario"]
    assert scenario["actions"] == {
        "start_wonder": "Start a wonder",
        "build_wonder_level": "Build a wonder level",
    }
    panel = next(p for p in scenario["panels"] if p["hook"] == "wonders")
    section, marked = panel["sections"]
    assert marked["title"] == "Marked corners" and len(marked["items"]) == 3
    titles = [item["label"] for item in section["items"]]
    assert titles == ["Great Bridge", "Great Wall", "Palace", "Colossus", "Great Theatre"]
    assert all("value" not in item for item in section["items"])  # nobody has started one


def test_a_wonder_started_too_early_is_refused_with_its_rule(
    client: FlaskClient, table: Table
) -> None:
    play_founding(table)
    table.call(ApplyAction(RollDice("red", (6, 6)), source="test"))
    headers = bind(client, "red")
    listed = client.get("/api/actions").get_json()["actions"]
    assert not [a for a in listed if a["type"] in ("start_wonder", "build_wonder_level")]
    before = inspect(table, lambda g: g.snapshot())
    action = {"type": "start_wonder", "player": "red", "wonder": "great_theatre"}
    r = client.post("/api/actions", json=action, headers=headers)
    assert r.status_code == 409 and r.get_json()["rule"] == "4.8.8"
    assert "the Great Theatre needs 2 cities" in error_of(r)
    assert inspect(table, lambda g: g.snapshot()) == before
