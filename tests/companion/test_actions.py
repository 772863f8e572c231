"""Actions as JSON: every action type round-trips; malformed JSON is refused naming the field."""

import json
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.actions import (
    ACTION_TYPES,
    Action,
    ActionError,
    BuildRoad,
    BuildSettlement,
    Cards,
    DevCard,
    DomesticTrade,
    EndTurn,
    MoveRobber,
    PlayYearOfPlenty,
    RollDice,
    action_from_json,
    action_to_json,
)
from companion.board import (
    CORNERS,
    RESOURCES,
    SIDES,
    Edge,
    Resource,
    Terrain,
    Vertex,
    edge,
    vertex,
)

coord = st.integers(-6, 6)
colour = st.sampled_from(["red", "blue", "white", "orange", "a colour with spaces"])

#: A value strategy per field annotation (the text :mod:`companion.actions` parses by).
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "str": colour,
    "Vertex": st.builds(vertex, coord, coord, st.sampled_from(CORNERS)),
    "Edge": st.builds(edge, coord, coord, st.sampled_from(SIDES)),
    "Hex": st.tuples(coord, coord),
    "tuple[int, int]": st.tuples(st.integers(1, 6), st.integers(1, 6)),
    "int": st.integers(-(2**40), 2**40),
    "DevCard": st.sampled_from(list(DevCard)),
    "Resource": st.sampled_from(RESOURCES),
    "tuple[Resource, ...]": st.lists(st.sampled_from(RESOURCES), max_size=3).map(tuple),
    "Cards": st.tuples(*[st.integers(0, 19)] * len(RESOURCES)).map(Cards),
    "tuple[Reveal, ...]": st.lists(
        st.tuples(coord, coord, st.sampled_from([t.value for t in Terrain]), st.integers(0, 12)),
        max_size=2,
    ).map(tuple),
}


def _field_strategy(annotation: str) -> st.SearchStrategy[Any]:
    base = annotation.removesuffix(" | None")
    assert base in FIELD_VALUES, f"no test values for action fields of type {annotation!r}"
    values = FIELD_VALUES[base]
    return st.one_of(st.none(), values) if base != annotation else values


def _action_strategy(cls: type[Action]) -> st.SearchStrategy[Action]:
    return st.builds(cls, **{f.name: _field_strategy(str(f.type)) for f in fields(cls)})


@pytest.mark.parametrize("cls", list(ACTION_TYPES.values()), ids=list(ACTION_TYPES))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_action_type_survives_a_json_round_trip(
    cls: type[Action], data: st.DataObject
) -> None:
    action = data.draw(_action_strategy(cls))
    as_json = action_to_json(action)
    assert as_json["type"] == cls.type
    # every field is written, but an optional outcome that is not known (None) is left out
    written = {
        f.name for f in fields(cls) if not (getattr(action, f.name) is None and f.default is None)
    }
    assert set(as_json) == {"type"} | written
    assert action_from_json(json.loads(json.dumps(as_json))) == action


def test_any_corner_or_side_name_reads_as_the_canonical_one() -> None:
    a = action_from_json({"type": "build_settlement", "player": "red", "vertex": [0, 0, "NE"]})
    assert a == BuildSettlement("red", Vertex(1, -1, "S"))
    b = action_from_json({"type": "build_road", "player": "red", "edge": [1, 0, "W"]})
    assert b == BuildRoad("red", Edge(0, 0, "E"))


def test_optional_outcomes_may_be_left_out() -> None:
    assert action_from_json({"type": "roll_dice", "player": "red"}) == RollDice("red")
    assert action_from_json(
        {"type": "move_robber", "player": "red", "hex": [1, 0], "victim": None}
    ) == MoveRobber("red", (1, 0))


def test_cards_leave_out_zero_counts() -> None:
    trade = DomesticTrade("red", "blue", Cards.of(ore=2), Cards.of(wool=1))
    data = action_to_json(trade)
    assert data["give"] == {"ore": 2} and data["get"] == {"wool": 1}
    assert action_from_json(data) == trade


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ([1, 2], "JSON object"),
        ("end_turn", "JSON object"),
        ({"player": "red"}, "type"),
        ({"type": "fly", "player": "red"}, "type"),
        ({"type": "end_turn"}, "'player'"),
        ({"type": "end_turn", "player": "red", "extra": 1}, "'extra'"),
        ({"type": "end_turn", "player": 7}, "end_turn.player"),
        ({"type": "end_turn", "player": ""}, "end_turn.player"),
        ({"type": "end_turn", "player": None}, "end_turn.player"),
        ({"type": "build_road", "player": "red"}, "'edge'"),
        ({"type": "build_road", "player": "red", "edge": [0, 0]}, "build_road.edge"),
        ({"type": "build_road", "player": "red", "edge": [0, 0, "N"]}, "build_road.edge"),
        ({"type": "build_road", "player": "red", "edge": [0.5, 0, "E"]}, "build_road.edge"),
        ({"type": "build_road", "player": "red", "edge": "0,0,E"}, "build_road.edge"),
        ({"type": "build_settlement", "player": "red", "vertex": [0, 0, "E"]}, "vertex"),
        ({"type": "build_city", "player": "red", "vertex": [True, 0, "N"]}, "build_city.vertex"),
        ({"type": "roll_dice", "player": "red", "dice": [0, 3]}, "roll_dice.dice"),
        ({"type": "roll_dice", "player": "red", "dice": [3, 7]}, "roll_dice.dice"),
        ({"type": "roll_dice", "player": "red", "dice": [3]}, "roll_dice.dice"),
        ({"type": "roll_dice", "player": "red", "dice": [True, 3]}, "roll_dice.dice"),
        ({"type": "buy_development_card", "player": "red", "card": "joker"}, ".card"),
        ({"type": "play_monopoly", "player": "red", "resource": "gold"}, "play_monopoly.resource"),
        ({"type": "play_monopoly", "player": "red"}, "'resource'"),
        ({"type": "play_year_of_plenty", "player": "red", "resources": "ore"}, ".resources"),
        ({"type": "play_year_of_plenty", "player": "red", "resources": ["ore", 3]}, ".resources"),
        ({"type": "move_robber", "player": "red", "hex": [0]}, "move_robber.hex"),
        ({"type": "move_robber", "player": "red", "hex": [0, "1"]}, "move_robber.hex"),
        ({"type": "move_robber", "player": "red", "hex": [0, 1], "stolen": "gold"}, ".stolen"),
        ({"type": "move_robber", "player": "red", "hex": [0, 1], "victim": 3}, ".victim"),
        ({"type": "discard", "player": "red", "cards": [1, 2]}, "discard.cards"),
        ({"type": "discard", "player": "red", "cards": {"ore": -1}}, "discard.cards.ore"),
        ({"type": "discard", "player": "red", "cards": {"ore": 1.5}}, "discard.cards.ore"),
        ({"type": "discard", "player": "red", "cards": {"ore": True}}, "discard.cards.ore"),
        ({"type": "discard", "player": "red", "cards": {"gold": 1}}, "'gold'"),
        (
            {"type": "domestic_trade", "player": "red", "partner": "blue", "give": {}},
            "'get'",
        ),
        (
            {
                "type": "domestic_trade",
                "player": "red",
                "partner": "blue",
                "give": {"ore": 1},
                "get": {"wool": "1"},
            },
            "domestic_trade.get.wool",
        ),
        ({"type": "maritime_trade", "player": "red", "give": "ore", "get": None}, ".get"),
        ({"type": "attack_fortress", "player": "red", "die": "6"}, "attack_fortress.die"),
        ({"type": "attack_fortress", "player": "red", "die": True}, "attack_fortress.die"),
    ],
)
def test_malformed_json_is_refused_naming_the_field(data: Any, named: str) -> None:
    with pytest.raises(ActionError) as info:
        action_from_json(data)
    assert named in str(info.value)
    assert "\n" not in str(info.value)


def test_an_action_error_is_a_value_error_and_not_a_rules_refusal() -> None:
    # the CLI turns ValueError into exit code 2 with a one-line message
    assert issubclass(ActionError, ValueError)
    with pytest.raises(ValueError):
        action_from_json({"type": "end_turn", "player": 1})


def test_parsed_actions_are_what_the_engine_takes() -> None:
    from conftest import new_game

    g = new_game()
    a = action_from_json({"type": "build_settlement", "player": "red", "vertex": [0, -1, "N"]})
    g.apply(a)
    assert g.vertex_owner[g.topology.vertex_index[a.vertex]] == 0
    assert action_from_json(action_to_json(EndTurn("red"))) == EndTurn("red")
    yop = PlayYearOfPlenty("red", (Resource.ORE, Resource.ORE))
    assert action_from_json(action_to_json(yop)) == yop
