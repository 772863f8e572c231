"""The dice game's JSON API: each action, refusals, malformed requests, whole scripted games."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import CODE, Stream, bind, error_of

from companion.dice_host import DiceTableHost
from companion.dice_table import JournaledDiceGame
from companion.dicegame import BASIC_SHEET, PENALTY, TURNS
from companion.table import Table
from firmware_bridge.simulator import sim_device
from web.dice_api import create_dice_app

SETTLE = ["brick", "lumber", "wool", "grain", "ore", "ore"]
#: Whole games post hundreds of actions from one address: no rate limits in these tests.
UNLIMITED = {"api_rate": (1e6, 1e6), "post_rate": (1e6, 1e6)}


def dice_table(path: Path, players: list[str], variant: str = "basic") -> Table:
    table = Table(JournaledDiceGame.create(path, players, variant, seed=2))
    table.start()
    return table


@pytest.fixture(name="table")
def table_fixture(tmp_path: Path) -> Iterator[Table]:
    table = dice_table(tmp_path / "dice.sqlite", ["ann", "ben"])
    yield table
    table.stop()


@pytest.fixture(name="app")
def app_fixture(table: Table) -> Flask:
    return create_dice_app(table, table_code=CODE, heartbeat=0.05, **UNLIMITED)


@pytest.fixture(name="client")
def client_fixture(app: Flask) -> FlaskClient:
    return app.test_client()


class Player:
    """A bound phone: posts its actions and reads the state."""

    def __init__(self, app: Flask, name: str):
        self.client = app.test_client()
        self.headers = bind(self.client, name)

    def post(self, path: str, body: Any = None) -> Any:
        return self.client.post(f"/api/dice/{path}", json=body, headers=self.headers)

    def ok(self, path: str, body: Any = None) -> list[dict[str, Any]]:
        r = self.post(path, body)
        assert r.status_code == 200, r.get_json()
        return r.get_json()["events"]

    def roll(self, faces: list[str | None] | None = None) -> list[dict[str, Any]]:
        return self.ok("roll", {} if faces is None else {"faces": faces})

    def act(self, type_: str, **kw: Any) -> list[dict[str, Any]]:
        return self.ok("actions", {"type": type_, **kw})

    def state(self) -> dict[str, Any]:
        state = self.client.get("/api/state").get_json()
        state.pop("recent")
        return state


# -- pages and endpoints ----------------------------------------------------------------------


def test_the_dice_table_opens_the_dice_page(client: FlaskClient) -> None:
    r = client.get("/")
    assert r.status_code == 302 and r.headers["Location"].endswith("/dice")
    page = client.get("/dice")
    assert page.status_code == 200 and b"dice.js" in page.data
    assert client.get("/static/dice.js").status_code == 200


@pytest.mark.parametrize("path", ["/api/board", "/api/actions", "/api/stats", "/api/offers"])
def test_the_board_games_endpoints_are_not_there(client: FlaskClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404 and "dice game" in error_of(r)


def test_the_state_is_the_dice_games(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    assert state["game"] == "dice" and state["current"] == "ann" and state["phase"] == "roll"
    assert state["dice"]["count"] == 6 and state["rounds"] == TURNS


def test_a_spectator_cannot_act(client: FlaskClient) -> None:
    token = client.get("/api/session").get_json()["csrf"]
    r = client.post("/api/dice/roll", json={}, headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and "spectator" in error_of(r)
    assert client.get("/api/dice/options").status_code == 403


def test_acting_needs_the_csrf_token(app: Flask) -> None:
    ann = Player(app, "ann")
    r = ann.client.post("/api/dice/roll", json={})
    assert r.status_code == 403 and "X-CSRF-Token" in error_of(r)


# -- each action --------------------------------------------------------------------------------


def test_roll_hold_roll_again_build_and_end_the_turn(app: Flask) -> None:
    ann = Player(app, "ann")
    first = ann.roll()[0]
    assert first["type"] == "rolled" and first["source"] == "host" and len(first["dice"]) == 6
    assert ann.client.get("/api/dice/options").get_json()["hold"] is True
    assert ann.ok("hold", {"dice": [1, 3]}) == [{"type": "held", "player": "ann", "dice": [1, 3]}]
    second = ann.roll(["brick", None, "wool", None, "ore", "ore"])[0]  # typed in
    assert second["source"] == "manual" and second["held"] == [1, 3]
    assert second["dice"] == ["brick", first["dice"][1], "wool", first["dice"][3], "ore", "ore"]
    third = ann.roll(SETTLE)[0]
    assert third["dice"] == ["brick", first["dice"][1], "wool", first["dice"][3], "ore", "ore"]
    options = ann.client.get("/api/dice/options").get_json()
    assert options["roll"] is False and options["your_turn"] is True
    ended = ann.act("end_turn")
    assert ended == [{"type": "scored", "player": "ann", "entry": PENALTY},
                     {"type": "turn", "player": "ben"}]  # fmt: skip
    assert ann.state()["players"][0]["track"] == [PENALTY]


def test_build_joker_and_gold_exchange(app: Flask) -> None:
    ann, ben = Player(app, "ann"), Player(app, "ben")
    ann.roll(["ore", "wool", "grain", "gold", "gold", "lumber"])
    assert ann.act("build", piece="knight", index=0)[0]["piece"] == "knight"
    # Knight 1 unlocks the ore joker at once; the two gold make grain.
    assert ann.act("exchange_gold", dice=[3, 4], resource="grain")[0]["to"] == "grain"
    assert ann.act("use_joker", joker=0, die=5)[0]["to"] == "ore"
    dice = ann.state()["dice"]
    assert dice["faces"] == ["ore", "wool", "grain", "grain", "gold", "ore"]
    assert dice["void"][4] and dice["spent"][:3] == [True] * 3
    ann.act("end_turn")
    assert ann.state()["players"][0]["jokers_used"][0] == 0
    assert ben.client.get("/api/dice/options").get_json()["your_turn"] is True


@pytest.mark.parametrize(
    ("path", "body", "status", "rule"),
    [
        ("actions", {"type": "build", "piece": "road", "index": 1}, 409, "6.2.2"),
        ("actions", {"type": "build", "piece": "road", "index": 9}, 409, "6.3.1"),
        ("actions", {"type": "build", "piece": "castle", "index": 0}, 409, "6.2.2"),
        ("actions", {"type": "build", "piece": "road", "index": "one"}, 409, "6.3.5"),
        ("actions", {"type": "use_joker", "joker": 0, "die": 0}, 409, "6.4.1"),
        ("actions", {"type": "exchange_gold", "dice": [0, 1], "resource": "ore"}, 409, "6.5.1"),
        ("hold", {"dice": [0, 1, 2, 3, 4, 5]}, 409, "6.2.1"),
        ("hold", {"dice": [7]}, 409, "6.2.1"),
        ("actions", {"type": "fly"}, 400, None),
        ("actions", {"type": "build", "piece": "road"}, 400, None),
        ("actions", {"type": "roll"}, 400, None),
        ("actions", ["end_turn"], 400, None),
        ("hold", {"dice": "0,1"}, 400, None),
        ("hold", {}, 400, None),
        ("roll", {"faces": ["ore", "sheep"]}, 400, None),
        ("roll", {"faces": "ore"}, 400, None),
        ("roll", [], 400, None),
        ("actions", {"type": "end_turn", "player": "ben"}, 403, None),
    ],
)
def test_refused_and_malformed_requests_change_nothing(
    app: Flask, path: str, body: Any, status: int, rule: str | None
) -> None:
    ann = Player(app, "ann")
    ann.roll(["gold", "ore", "ore", "ore", "ore", "ore"])
    before = json.dumps(ann.state())
    r = ann.post(path, body)
    assert r.status_code == status, r.get_json()
    assert error_of(r) and r.get_json().get("rule") == rule
    assert json.dumps(ann.state()) == before


def test_a_roll_with_too_few_typed_faces_is_refused(app: Flask) -> None:
    ann = Player(app, "ann")
    r = ann.post("roll", {"faces": ["ore"] * 5})
    assert r.status_code == 409 and "6 faces" in error_of(r)
    assert ann.state()["dice"]["rolls"] == 0


def test_it_is_nobody_elses_turn(app: Flask) -> None:
    ben = Player(app, "ben")
    r = ben.post("roll", {})
    assert r.status_code == 409 and r.get_json()["rule"] == "6.2"
    assert ben.client.get("/api/dice/options").get_json() == {
        "player": "ben", "your_turn": False, "roll": False, "hold": False, "build": [],
        "jokers": [], "exchange_gold": False, "end_turn": False,
    }  # fmt: skip


def test_undo_is_not_offered(app: Flask) -> None:
    ann = Player(app, "ann")
    assert ann.client.post("/api/undo", json={}, headers=ann.headers).status_code == 404


def test_the_live_stream_sends_each_action_with_the_new_state(app: Flask) -> None:
    ann = Player(app, "ann")
    stream = Stream(ann.client)
    try:
        kind, first = stream.next()
        assert kind == "state" and first["dice"]["rolls"] == 0
        ann.roll(SETTLE)
        while (message := stream.next())[0] != "update":
            pass
        update = message[1]
        assert update["events"][0]["type"] == "rolled"
        assert update["state"]["dice"]["faces"] == SETTLE
    finally:
        stream.close()


# -- the tower behind the page -----------------------------------------------------------------


def test_the_pages_roll_is_thrown_by_the_tower_and_held_dice_stay(tmp_path: Path) -> None:
    jg = JournaledDiceGame.create(tmp_path / "dice.sqlite", ["ann", "ben"])
    host = DiceTableHost(jg, tower_url="sim://dice-api-tower?seed=3")  # type: ignore[arg-type]
    host.start()
    try:
        app = create_dice_app(host.table, roll=host.roll, table_code=CODE)
        ann = Player(app, "ann")
        first = ann.roll()[0]
        assert first["source"] == "tower"
        ann.ok("hold", {"dice": [0, 5]})
        second = ann.roll()[0]
        assert second["source"] == "tower"
        assert [second["dice"][0], second["dice"][5]] == [first["dice"][0], first["dice"][5]]
        assert ann.state()["parts"]["tower"]["up"] is True
        # A roll that would not count is refused before the tower throws: it shows no throw.
        ann.roll()  # the third
        assert host.dice_link is not None
        assert host.dice_link.wait_shown(host.table.state()["version"])
        third = sim_device("sim://dice-api-tower").state.shown
        assert ann.post("roll", {}).status_code == 409
        assert Player(app, "ben").post("roll", {}).status_code == 409
        assert sim_device("sim://dice-api-tower").state.shown == third
    finally:
        host.stop()


def test_without_a_tower_the_host_rolls_and_the_page_says_so(tmp_path: Path) -> None:
    jg = JournaledDiceGame.create(tmp_path / "dice.sqlite", ["ann"])
    host = DiceTableHost(jg, tower_url="/dev/no-such-tower")  # type: ignore[arg-type]
    host.start()
    try:
        app = create_dice_app(host.table, roll=host.roll, table_code=CODE)
        ann = Player(app, "ann")
        assert ann.roll()[0]["source"] == "host"
        assert ann.state()["parts"]["tower"]["up"] is False
    finally:
        host.stop()


# -- whole games --------------------------------------------------------------------------------

# A basic game: per turn of ann, the faces of each roll (holding nothing, unless a turn holds
# dice first), then what she does. Ben builds settlement 3 in his first turn, then only rolls.
BASIC_ANN: list[tuple[list[list[str | None]], list[dict[str, Any]]]] = [
    ([SETTLE], [{"type": "build", "piece": "settlement", "index": 0}]),
    ([["brick", "lumber", "brick", "lumber", "ore", "gold"]],
     [{"type": "build", "piece": "road", "index": i} for i in (1, 2)]),
    ([["ore", "ore", "wool", "wool", "gold", "gold"],
      [None, None, "ore", "grain", "grain", "wool"]],
     [{"type": "build", "piece": "city", "index": 0}]),
    ([["brick", "lumber", "wool", "grain", "brick", "lumber"]],
     [{"type": "build", "piece": "settlement", "index": 1},
      {"type": "build", "piece": "road", "index": 3}]),
    ([["ore", "wool", "grain", "ore", "wool", "grain"]],
     [{"type": "build", "piece": "knight", "index": 0},
      {"type": "build", "piece": "knight", "index": 1}]),
    ([["gold"] * 6], []),
    ([["brick", "lumber", "brick", "lumber", "wool", "gold"]],
     [{"type": "build", "piece": "road", "index": i} for i in (4, 5)]),
    ([["brick", "lumber", "wool", "gold", "gold", "ore"]],
     [{"type": "exchange_gold", "dice": [3, 4], "resource": "grain"},
      {"type": "build", "piece": "settlement", "index": 2}]),
    ([["ore", "ore", "grain", "grain", "wool", "wool"]],
     [{"type": "use_joker", "joker": 0, "die": 4},
      {"type": "build", "piece": "city", "index": 1}]),
    ([["ore", "wool", "grain", "gold", "gold", "gold"]],
     [{"type": "build", "piece": "knight", "index": 2}]),
    ([["lumber"] * 6, ["lumber"] * 6, ["lumber"] * 6], []),
    ([["brick", "lumber"] * 3],
     [{"type": "build", "piece": "road", "index": i} for i in (6, 7, 8)]),
    ([SETTLE], [{"type": "build", "piece": "settlement", "index": 3}]),
    ([["ore", "ore", "ore", "grain", "grain", "gold"]],
     [{"type": "build", "piece": "city", "index": 2}]),
    ([["gold"] * 6], []),
]  # fmt: skip
HOLDS = {2: [0, 1]}  # ann's third turn holds her two ore for the second roll


def value(action: dict[str, Any]) -> int:
    """What a build scores on the basic sheet (its printed value; roads 1)."""
    piece, i = action["piece"], action["index"]
    return {
        "road": lambda: BASIC_SHEET.road_value,
        "settlement": lambda: BASIC_SHEET.settlement_values[i],
        "city": lambda: BASIC_SHEET.city_values[i],
        "knight": lambda: BASIC_SHEET.knight_values[i],
    }[piece]()


def expected_basic_score(turns: list[tuple[list[Any], list[dict[str, Any]]]]) -> int:
    """The score track's sum: each turn its builds' values, or -2 without a build (6.2.3)."""
    total = 0
    for _, actions in turns:
        builds = [value(a) for a in actions if a["type"] == "build"]
        total += sum(builds) if builds else PENALTY
    return total


def test_a_scripted_basic_game_to_its_end(app: Flask) -> None:
    ann, ben = Player(app, "ann"), Player(app, "ben")
    ben_turns = [([SETTLE], [{"type": "build", "piece": "settlement", "index": 0}])]
    ben_turns += [([["gold"] * 6], [])] * (TURNS - 1)
    for turn, (ann_turn, ben_turn) in enumerate(zip(BASIC_ANN, ben_turns, strict=True)):
        for who, (rolls, actions) in ((ann, ann_turn), (ben, ben_turn)):
            for r, faces in enumerate(rolls):
                if r == 1 and who is ann and turn in HOLDS:
                    who.ok("hold", {"dice": HOLDS[turn]})
                who.roll(faces)
            for action in actions:
                who.ok("actions", action)
            who.act("end_turn")
    state = ann.state()
    ann_score, ben_score = expected_basic_score(BASIC_ANN), expected_basic_score(ben_turns)
    assert [p["score"] for p in state["players"]] == [ann_score, ben_score]
    assert [sum(p["track"]) for p in state["players"]] == [ann_score, ben_score]
    assert state["phase"] == "over" and state["winners"] == ["ann"]
    assert ann.post("roll", {}).status_code == 409  # nothing more after the end


# A Plus game: the ramp throws 3, 4, 5 dice in the game's first three turns, then 6. Ben takes
# Largest Army first; ann takes Longest Road by marking road 6, then Largest Army from him
# with a fourth knight, and wins with her second city.
PLUS_TURNS: list[tuple[str, list[str], list[tuple[str, int]]]] = [
    ("ann", ["brick", "lumber", "gold"], [("road", 1)]),
    ("ben", ["ore", "wool", "grain", "gold"], [("knight", 0)]),
    ("ann", ["brick", "lumber", "wool", "grain", "gold"], [("settlement", 0)]),
    ("ben", ["ore", "wool", "grain"] * 2, [("knight", 1), ("knight", 2)]),
    ("ann", ["ore", "ore", "ore", "grain", "grain", "gold"], [("city", 0)]),
    ("ben", ["gold"] * 6, []),
    ("ann", ["brick", "lumber"] * 3, [("road", 2), ("road", 3), ("road", 4)]),
    ("ben", ["gold"] * 6, []),
    ("ann", ["brick", "lumber", "brick", "lumber", "wool", "grain"],
     [("road", 6), ("settlement", 1)]),
    ("ben", ["gold"] * 6, []),
    ("ann", ["ore", "wool", "grain"] * 2, [("knight", 0), ("knight", 1)]),
    ("ben", ["gold"] * 6, []),
    ("ann", ["ore", "wool", "grain"] * 2, [("knight", 2), ("knight", 3)]),
    ("ben", ["gold"] * 6, []),
    ("ann", ["brick", "lumber", "wool", "grain", "brick", "lumber"],
     [("settlement", 2), ("road", 5)]),
    ("ben", ["gold"] * 6, []),
    ("ann", ["ore", "ore", "ore", "grain", "grain", "gold"], [("city", 1)]),
]  # fmt: skip
#: Plus values (RULES.md 6.6.1-6.6.3): settlements 1 VP, cities 2, each bonus 2.
PLUS_VP = {"settlement": 1, "city": 2, "road": 0, "knight": 0}


def test_a_scripted_plus_game_to_its_end(tmp_path: Path) -> None:
    table = dice_table(tmp_path / "plus.sqlite", ["ann", "ben"], "plus")
    try:
        app = create_dice_app(table, table_code=CODE, **UNLIMITED)
        phones = {"ann": Player(app, "ann"), "ben": Player(app, "ben")}
        counts = []
        for n, (who, faces, builds) in enumerate(PLUS_TURNS):
            phone = phones[who]
            counts.append(phone.state()["dice"]["count"])
            phone.roll(faces)
            for piece, index in builds:
                phone.act("build", piece=piece, index=index)
            if n < len(PLUS_TURNS) - 1:
                phone.act("end_turn")
        state = phones["ann"].state()
    finally:
        table.stop()
    assert counts[:4] == [3, 4, 5, 6] and set(counts[4:]) == {6}
    built = {p: [b for w, _, bs in PLUS_TURNS if w == p for b in bs] for p in ("ann", "ben")}
    knights = {p: sum(piece == "knight" for piece, _ in built[p]) for p in built}
    army = max(knights, key=lambda p: knights[p])  # passed on to the player with more
    expected = {
        p: sum(PLUS_VP[piece] for piece, _ in built[p])
        + 2 * (p == army)
        + 2 * (("road", 6) in built[p])  # only ann marks road 6
        for p in built
    }
    assert {p["color"]: p["score"] for p in state["players"]} == expected
    assert state["winners"] == ["ann"] and expected["ann"] >= 10 > expected["ben"]
    assert state["largest_army"] == "ann" and state["longest_road"] == "ann"
