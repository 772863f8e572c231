"""The generic scenario panel through the API: a toy scenario's panels and actions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_helpers import (
    CODE,
    app_fixture,  # noqa: F401  (a fixture, used by name)
    beacons_fixture,  # noqa: F401  (a fixture, used by name)
    bind,
    client_fixture,  # noqa: F401  (a fixture, used by name)
    clock_fixture,  # noqa: F401  (a fixture, used by name)
    error_of,
    inspect,
    make_beacon_table,
    play_founding,
    table_fixture,  # noqa: F401  (a fixture, used by name)
)

from companion.actions import RollDice
from companion.table import ApplyAction, Table
from web.app import create_app

PLAYERS = ["red", "blue", "white"]


@pytest.fixture(name="beacon_table")
def beacon_table_fixture(tmp_path: Path, beacons: None) -> Iterator[Table]:
    table = make_beacon_table(tmp_path / "beacons.sqlite", PLAYERS)
    yield table
    table.stop()


@pytest.fixture(name="beacon_client")
def beacon_client_fixture(beacon_table: Table) -> FlaskClient:
    return create_app(beacon_table, table_code=CODE).test_client()


def to_main_phase(table: Table) -> None:
    play_founding(table)
    table.call(ApplyAction(RollDice("red", (2, 3)), source="test"))


def test_a_plain_game_has_no_scenario_key(client: FlaskClient) -> None:
    bind(client, "red")
    state = client.get("/api/state").get_json()
    assert "scenario" not in state and "scenario" not in state["you"]


def test_the_state_carries_the_hooks_panels_and_action_labels(
    beacon_client: FlaskClient,
) -> None:
    scenario = beacon_client.get("/api/state").get_json()["scenario"]
    assert scenario["actions"] == {
        "test_light_beacon": "Light a beacon",  # the class's label
        "test_send_signal": "Test send signal",  # none given: its type in words
    }
    (panel,) = scenario["panels"]
    assert panel["hook"] == "test_beacons" and panel["title"] == "Beacons"
    assert [s["kind"] for s in panel["sections"]] == ["counters", "cards", "list"]
    lit = panel["sections"][0]["items"]
    assert [(i["label"], i["value"], i["color"]) for i in lit] == [(c, 0, c) for c in PLAYERS]


def test_private_panels_reach_their_player_only(beacon_client: FlaskClient) -> None:
    assert beacon_client.get("/api/state").get_json()["you"] is None
    bind(beacon_client, "blue")
    state = beacon_client.get("/api/state").get_json()
    (panel,) = state["you"]["scenario"]["panels"]
    assert panel["sections"][0]["items"] == [{"label": "blue's secret"}]
    assert "red's secret" not in str(state)


def test_scenario_actions_are_listed_and_posted_like_any_other(
    beacon_client: FlaskClient, beacon_table: Table
) -> None:
    to_main_phase(beacon_table)
    headers = bind(beacon_client, "red")
    listed = beacon_client.get("/api/actions").get_json()["actions"]
    hand = inspect(beacon_table, lambda g: g.private_view("red")["you"]["resources"])
    beacons = [a for a in listed if a["type"] == "test_light_beacon"]
    assert sorted(a["resource"] for a in beacons) == sorted(r for r, n in hand.items() if n)
    signals = [a for a in listed if a["type"] == "test_send_signal"]
    assert len(signals) == 2 * 5  # two partners, five resources

    r = beacon_client.post("/api/actions", json=beacons[0], headers=headers)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["events"] == [{"type": "beacon", "player": "red", "text": "lit a beacon"}]
    state = beacon_client.get("/api/state").get_json()
    lit = state["scenario"]["panels"][0]["sections"][0]["items"]
    assert lit[0] == {"label": "red", "value": 1, "color": "red"}
    listed = beacon_client.get("/api/actions").get_json()["actions"]
    assert not [a for a in listed if a["type"] == "test_light_beacon"]


def test_a_refused_scenario_action_names_its_rule_and_changes_nothing(
    beacon_client: FlaskClient, beacon_table: Table
) -> None:
    to_main_phase(beacon_table)
    headers = bind(beacon_client, "red")
    hand = inspect(beacon_table, lambda g: g.private_view("red")["you"]["resources"])
    missing = next(r for r in ("lumber", "brick", "wool", "grain", "ore") if not hand.get(r))
    before = inspect(beacon_table, lambda g: g.snapshot())
    action = {"type": "test_light_beacon", "player": "red", "resource": missing}
    r = beacon_client.post("/api/actions", json=action, headers=headers)
    assert r.status_code == 409 and r.get_json()["rule"] == "B.3"
    assert f"red has no {missing}" in error_of(r)
    assert inspect(beacon_table, lambda g: g.snapshot()) == before
