"""The Helpers (RULES.md 5.2): the stack, the dealing, keeping and exchanging, each helper of
the companion's catalogue (GAP 5.2.6), and a scripted game to 10 victory points.

Games are three players on the fixed board of conftest with FOUNDING_3: white places the
first second settlement, so white is dealt the top card, then blue, then red. The stack is a
parameter of the scenario's hook, so a test deals the helper it needs to the seat it tests.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import (
    FOUNDING_3,
    PLAYERS,
    Script,
    build_city,
    build_roads,
    build_settlement,
    fixed_board,
    found,
    give,
    hand,
    pass_turns_until,
    refusal,
    road_chain,
    roll,
    scenario_copy,
    set_hand,
)

from companion.actions import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevelopmentCard,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
)
from companion.board import Resource, Vertex
from companion.game import Game, Phase, Rules
from companion.hooks.helpers import (
    DEFAULT_STACK,
    HELPERS,
    HelperAlms,
    HelperAssist,
    HelperClaim,
    HelperDesert,
    HelperExchange,
    HelperForcedTrade,
    HelperKeep,
    HelperPort,
    Helpers,
    stack_problems,
)
from companion.scenario import load_scenario
from companion.setup_check import check_board

SEATS = ["red", "blue", "white", "orange", "green", "brown"]


def stack_for(white: str, blue: str, red: str) -> list[dict[str, Any]]:
    """The default stack's numbering with the given helpers dealt to white, blue and red."""
    first = [white, blue, red]
    rest = [c["helper"] for c in DEFAULT_STACK if c["helper"] not in first]
    keys = first + rest
    return [{**c, "helper": k} for c, k in zip(DEFAULT_STACK, keys, strict=True)]


def helpers_game(red: str = "road_assist", blue: str = "free_port", white: str = "balance") -> Game:
    rules = Rules.for_players(3)
    hook = {"hook": "helpers", "stack": stack_for(white, blue, red)}
    return Game(
        fixed_board(), PLAYERS, Rules.from_json({**rules.to_json(), "hooks": [hook]}), Script()
    )


def hook(game: Game) -> Helpers:
    h = game.hooks[0]
    assert isinstance(h, Helpers)
    return h


def card(game: Game, color: str) -> dict[str, Any]:
    c = hook(game).card_of(game, color)
    assert c is not None
    return c


def red_main(**dealt: str) -> Game:
    """After FOUNDING_3, red has rolled a 12 (only red's grain pays) and holds nothing."""
    game = helpers_game(**dealt)
    found(game)
    roll(game, 12)
    for c in game.players:
        set_hand(game, c)
    return game


def next_turn_of(game: Game, color: str) -> None:
    """End the turn; the others roll a 12 and end theirs; ``color`` rolls a 12; hands empty."""
    game.apply(EndTurn(game.current_player))
    pass_turns_until(game, color, total=12)
    roll(game, 12)
    for c in game.players:
        set_hand(game, c)


# -- 5.2.1-5.2.2: the cards and the stack --------------------------------------------------


def test_ten_helpers_six_numbered_on_top_in_order():
    assert len(HELPERS) == 10 and stack_problems(DEFAULT_STACK) == []
    numbered = [c for c in DEFAULT_STACK if "number" in c]
    assert [c["number"] for c in numbered] == [1, 2, 3, 4, 5, 6] and DEFAULT_STACK[:6] == tuple(
        numbered
    )
    swapped = [DEFAULT_STACK[1], DEFAULT_STACK[0], *DEFAULT_STACK[2:]]
    assert "numbered cards 1 to 6" in stack_problems(swapped)[0]
    unnumbered_first = [*DEFAULT_STACK[6:], *DEFAULT_STACK[:6]]
    assert stack_problems(unnumbered_first)
    assert any("twice" in p for p in stack_problems([*DEFAULT_STACK[:9], DEFAULT_STACK[0]]))
    assert "unknown helper 'cook'" in stack_problems([*DEFAULT_STACK[:9], {"helper": "cook"}])[0]


def test_the_checker_and_the_loader_refuse_a_wrong_stack(tmp_path, capsys):
    """BB-HELPER-STACK (§7.5) on the file's stack, and check-setup on a board of it."""
    from companion.cli import main

    def swap_first_two(data):
        stack = data["layouts"]["4"]["hooks"][0]["stack"]
        stack[0], stack[1] = stack[1], stack[0]

    path = scenario_copy(tmp_path, "helpers", swap_first_two)
    with pytest.raises(ValueError, match="numbered cards 1 to 6"):
        load_scenario(path, 4, seed=1)
    s = load_scenario("helpers", 4, seed=1)
    assert "BB-HELPER-STACK" in s.setup.rules and check_board(s.board, s.setup, 4).ok
    board = tmp_path / "board.json"
    s.board.save(board)
    assert main(["check-setup", str(board), "--scenario", "helpers", "--players", "4"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_scenario_is_the_usual_game_to_10_points(players):
    """5.2.6: the victory target is unchanged; the board is the usual one for the count."""
    s = load_scenario("helpers", players, seed=2)
    assert s.rules.victory_points == 10
    assert s.board.kind == ("base" if players <= 4 else "5-6")
    game = Game(s.board, SEATS[:players], s.rules, rng=2)
    assert hook(game).state(game)["display"] == [c["helper"] for c in DEFAULT_STACK]


# -- 5.2.3: dealing -------------------------------------------------------------------------


def test_each_player_takes_the_top_card_after_their_second_settlement():
    game = helpers_game()
    dealt = []
    for i, (v, e) in enumerate(FOUNDING_3):
        who = game.current_player
        events = game.apply(BuildSettlement(who, v))
        got = [ev for ev in events if ev["type"] == "helper_dealt"]
        assert bool(got) == (i >= 3)  # only after a second settlement
        dealt += [(ev["player"], ev["card"]) for ev in got]
        game.apply(BuildRoad(who, e))
    # snake order: the last seat (white) places the first second settlement and gets A1
    assert dealt == [("white", "balance"), ("blue", "free_port"), ("red", "road_assist")]
    assert all(card(game, c)["side"] == "A" for c in PLAYERS)
    # the rest is the display, A side up
    assert hook(game).state(game)["display"] == [c["helper"] for c in DEFAULT_STACK[3:]]


# -- 5.2.4-5.2.5: after a use; prohibitions --------------------------------------------------


def test_after_a_use_keep_on_the_b_side_or_exchange():
    game = red_main(red="alms")
    game.apply(EndTurn("red"))
    roll(game, 12)
    build_city(game, "blue", FOUNDING_3[1][0])  # blue: 3 points, more than red's 2
    next_turn_of(game, "red")
    give(game, "blue", ore=1)
    game.apply(HelperAlms("red", "blue", Resource.ORE))
    assert hand(game, "red") == {"ore": 1}
    # 5.2.4: now keep (B side) or exchange, before anything else
    assert HelperKeep("red") in game.legal_actions()
    assert HelperExchange("red", "dev_assist") in game.legal_actions()
    assert refusal(game, EndTurn("red")).rule == "5.2.4"
    game.apply(HelperKeep("red"))
    assert card(game, "red")["side"] == "B"
    assert refusal(game, HelperAlms("red", "blue", Resource.ORE)).rule == "5.2.5"  # once a turn
    next_turn_of(game, "red")
    # 5.2.5: unused, on either side, it is not exchanged
    assert refusal(game, HelperExchange("red", "dev_assist")).rule == "5.2.5"
    give(game, "blue", wool=1)
    game.apply(HelperAlms("red", "blue", Resource.WOOL))
    # after the second use the card must go back
    assert refusal(game, HelperKeep("red")).rule == "5.2.4"
    assert refusal(game, HelperExchange("red", "alms")).rule == "5.2.4"  # not the same one
    assert refusal(game, HelperExchange("red", "free_port")).rule == "5.2.4"  # blue has it
    game.apply(HelperExchange("red", "robber_to_desert"))
    assert card(game, "red") == {
        "card": "robber_to_desert",
        "side": "A",
        "since": game.turn_number,
        "used": -1,
    }
    display = hook(game).state(game)["display"]
    assert "alms" in display and "robber_to_desert" not in display


def test_a_helper_waits_a_turn_after_it_was_received():
    game = red_main(red="road_assist")
    set_hand(game, "red", lumber=1, ore=1)
    game.apply(HelperAssist("red", Resource.ORE, Resource.BRICK))
    game.apply(HelperExchange("red", "city_assist"))
    set_hand(game, "red", grain=1, ore=3, wool=1)
    err = refusal(game, HelperAssist("red", Resource.WOOL, Resource.GRAIN))
    assert err.rule == "5.2.5" and "received" in str(err)
    next_turn_of(game, "red")
    set_hand(game, "red", grain=1, ore=3, wool=1)
    game.apply(HelperAssist("red", Resource.WOOL, Resource.GRAIN))
    assert hand(game, "red") == {"grain": 2, "ore": 3}


def test_an_unused_helper_is_not_exchanged():
    game = red_main()
    err = refusal(game, HelperExchange("red", "alms"))
    assert err.rule == "5.2.5" and "unused" in str(err)
    assert not [a for a in game.legal_actions() if isinstance(a, HelperExchange | HelperKeep)]


# -- 5.2.6 GAP: the catalogue ---------------------------------------------------------------


def test_the_mayor_pays_after_a_roll_that_gives_nothing():
    game = red_main()  # white holds the Mayor (balance)
    game.apply(EndTurn("red"))
    roll(game, 12)  # blue rolls: 12 pays red only; white got nothing
    assert HelperClaim("white", Resource.ORE) in game.legal_actions()
    game.apply(HelperClaim("white", Resource.ORE))  # in blue's turn
    assert hand(game, "white") == {"ore": 1}
    game.apply(HelperKeep("white"))
    game.apply(EndTurn("blue"))
    roll(game, 8)  # white's own roll pays white (ore 8, lumber 8): no claim
    assert not [a for a in game.legal_actions() if isinstance(a, HelperClaim)]
    assert refusal(game, HelperClaim("white", Resource.ORE)).rule == "5.2.6"


def test_on_the_b_side_a_claim_must_be_taken():
    game = red_main()
    game.apply(EndTurn("red"))
    roll(game, 12)
    game.apply(HelperClaim("white", Resource.ORE))
    game.apply(HelperKeep("white"))
    game.apply(EndTurn("blue"))
    pass_turns_until(game, "blue", total=8)
    roll(game, 12)  # white gets nothing again: the B side must be used now
    legal = game.legal_actions()
    assert legal and all(isinstance(a, HelperClaim) and a.player == "white" for a in legal)
    assert refusal(game, EndTurn("blue")).rule == "5.2.4"
    game.apply(HelperClaim("white", Resource.WOOL))
    assert [type(a) for a in game.legal_actions()] == [HelperExchange] * 7


def test_the_healer_pays_a_small_hand_on_a_7_and_spares_a_big_one_the_discard():
    game = red_main(red="seven_help")
    game.apply(EndTurn("red"))
    pass_turns_until(game, "red", total=12)
    set_hand(game, "red", wool=7)
    roll(game, 7)
    assert HelperClaim("red", Resource.ORE) in game.legal_actions()
    game.apply(HelperClaim("red", Resource.ORE))
    game.apply(HelperKeep("red"))
    game.apply(MoveRobber("red", (0, -2)))  # the ore 10: nobody to rob there
    game.apply(EndTurn("red"))
    pass_turns_until(game, "red", total=12)
    set_hand(game, "red", wool=8)
    give(game, "blue", ore=8)
    events = roll(game, 7)  # 8 cards: red keeps them all, blue discards
    assert events[1] == {
        "type": "helper_used",
        "player": "red",
        "text": "keeps every card on this 7 (Healer)",
    }
    assert events[0]["must_discard"] == {"blue": 4}
    assert not [a for a in game.legal_actions() if isinstance(a, HelperClaim)]
    # the second use (B side): the card goes back before play goes on
    assert refusal(game, HelperKeep("red")).rule == "5.2.4"
    game.apply(HelperExchange("red", "alms"))
    assert game.phase == Phase.DISCARD and hand(game, "red") == {"wool": 8}


def test_the_harbour_master_trades_2_to_1_for_the_turn():
    game = red_main(red="free_port", blue="alms")
    set_hand(game, "red", wool=2)
    assert MaritimeTrade("red", Resource.WOOL, Resource.ORE) not in game.legal_actions()
    game.apply(HelperPort("red", Resource.WOOL))
    game.apply(HelperKeep("red"))
    game.apply(MaritimeTrade("red", Resource.WOOL, Resource.ORE))
    assert hand(game, "red") == {"ore": 1}
    game.apply(EndTurn("red"))
    assert game.trade_ratios[0] == [4, 4, 4, 4, 4]


def test_the_road_mender_swaps_for_the_missing_brick():
    game = red_main(red="road_assist")
    set_hand(game, "red", lumber=1, brick=1, ore=1)
    assert "already" in str(refusal(game, HelperAssist("red", Resource.ORE, Resource.BRICK)))
    set_hand(game, "red", lumber=1, ore=1)
    assert "still not paid" in str(refusal(game, HelperAssist("red", Resource.ORE, Resource.GRAIN)))
    game.apply(HelperAssist("red", Resource.ORE, Resource.BRICK))
    assert hand(game, "red") == {"lumber": 1, "brick": 1}
    game.apply(HelperKeep("red"))
    game.apply(BuildRoad("red", game.road_spots("red")[0]))


@pytest.mark.parametrize(
    ("helper", "cards", "give_", "get", "build"),
    [
        (
            "city_assist",
            {"grain": 1, "ore": 3, "wool": 1},
            Resource.WOOL,
            Resource.GRAIN,
            BuildCity("red", FOUNDING_3[0][0]),
        ),
        (
            "dev_assist",
            {"wool": 1, "grain": 2},
            Resource.GRAIN,
            Resource.ORE,
            BuyDevelopmentCard("red"),
        ),
    ],
)
def test_the_other_builders_swap_for_what_their_build_lacks(helper, cards, give_, get, build):
    game = red_main(red=helper)
    set_hand(game, "red", **cards)
    game.apply(HelperAssist("red", give_, get))
    game.apply(HelperKeep("red"))
    game.apply(build)
    assert hand(game, "red") == {}


def test_the_carpenter_needs_a_spot_for_the_settlement():
    game = red_main(red="settlement_assist")
    set_hand(game, "red", lumber=1, brick=1, wool=1, ore=1)
    assert "no spot" in str(refusal(game, HelperAssist("red", Resource.ORE, Resource.GRAIN)))
    build_roads(game, "red", road_chain(game, "red", 2))
    set_hand(game, "red", lumber=1, brick=1, wool=1, ore=1)
    game.apply(HelperAssist("red", Resource.ORE, Resource.GRAIN))
    game.apply(HelperKeep("red"))
    game.apply(BuildSettlement("red", game.settlement_spots("red")[0]))


def test_the_almoner_takes_from_a_richer_player_only():
    game = red_main(red="alms")
    give(game, "blue", ore=1)
    assert refusal(game, HelperAlms("red", "blue", Resource.ORE)).rule == "5.2.6"  # 2 vs 2 points


def test_the_sheriff_sends_the_robber_to_the_desert():
    game = red_main(red="robber_to_desert")
    assert not [a for a in game.legal_actions() if isinstance(a, HelperDesert)]  # already there
    next_turn_of(game, "red")  # red's next turn: a 7 first moves the robber to the ore 10
    game.apply(EndTurn("red"))
    pass_turns_until(game, "red", total=12)
    roll(game, 7)
    game.apply(MoveRobber("red", (0, -2)))  # the ore 10: nobody to rob there
    ore = hand(game, "red").get("ore", 0)
    game.apply(HelperDesert("red", (0, 0)))
    assert game.robber == game.topology.hex_index[(0, 0)]
    assert hand(game, "red").get("ore", 0) == ore + 1  # the card of the hex it left


def test_the_merchant_forces_a_trade():
    game = red_main(red="forced_trade")
    give(game, "blue", ore=1)
    give(game, "red", wool=1)
    assert (
        refusal(game, HelperForcedTrade("red", "blue", Resource.GRAIN, Resource.WOOL)).rule
        == "5.2.6"
    )
    game.apply(HelperForcedTrade("red", "blue", Resource.ORE, Resource.WOOL))
    assert hand(game, "red") == {"ore": 1} and hand(game, "blue") == {"wool": 1}


def test_turn_helpers_work_after_the_roll_in_ones_own_turn():
    game = red_main(red="forced_trade", blue="alms")
    give(game, "red", ore=1)
    err = refusal(game, HelperAlms("blue", "red", Resource.ORE))
    assert err.rule == "5.2.6" and "own turn" in str(err)


def test_no_helper_in_the_special_building_phase():
    """5-6 players: the own-turn helpers wait for one's own turn. With five, white (third
    seat) is dealt A3, the Road mender, and builds second in red's building phase."""
    from companion.layouts import random_board

    rules = Rules.for_players(5)
    data = {**rules.to_json(), "hooks": [{"hook": "helpers"}]}
    game = Game(random_board(5, seed=3), SEATS[:5], Rules.from_json(data), Script())
    while game.phase.value.startswith("founding"):
        game.apply(game.legal_actions()[0])
    assert card(game, "white")["card"] == "road_assist"
    roll(game, 12)
    game.apply(EndTurn("red"))
    game.apply(EndTurn("blue"))
    assert game.phase == Phase.SPECIAL_BUILD and game.players[game.actor] == "white"
    set_hand(game, "white", lumber=1, ore=1)
    assert not [a for a in game.legal_actions() if a.type.startswith("helper_")]
    err = refusal(game, HelperAssist("white", Resource.ORE, Resource.BRICK))
    assert err.rule == "5.2.6" and "own turn" in str(err)


# -- a whole game ---------------------------------------------------------------------------


def test_a_scripted_game_to_10_points():
    """Red builds a road of five (two roads with the Road mender's help, kept then exchanged for
    the Stonemason), two settlements (one with the Carpenter's) and four cities, and wins."""
    game = helpers_game(red="road_assist")
    found(game)
    roll(game, 12)
    chain = road_chain(game, "red", 4)
    cities = 0
    settlements = [FOUNDING_3[0][0], FOUNDING_3[5][0]]
    used = []

    def turn() -> None:
        for c in game.players:
            set_hand(game, c)

    turn()
    set_hand(game, "red", lumber=1, ore=1)  # turn 1: a road with the Road mender
    used += game.apply(HelperAssist("red", Resource.ORE, Resource.BRICK))
    game.apply(HelperKeep("red"))
    game.apply(BuildRoad("red", chain[0]))
    next_turn_of(game, "red")  # turn 2: again, then the card must go
    set_hand(game, "red", lumber=1, wool=1)
    used += game.apply(HelperAssist("red", Resource.WOOL, Resource.BRICK))
    game.apply(HelperExchange("red", "city_assist"))
    game.apply(BuildRoad("red", chain[1]))
    next_turn_of(game, "red")  # turn 3: two roads (Longest Road), a settlement, a city
    build_roads(game, "red", chain[2:])
    assert game.longest_road == 0
    spot, later = two_spots(game, "red")
    build_settlement(game, "red", spot)
    settlements.append(spot)
    set_hand(game, "red", grain=1, ore=3, wool=1)
    used += game.apply(HelperAssist("red", Resource.WOOL, Resource.GRAIN))
    game.apply(HelperExchange("red", "settlement_assist"))
    game.apply(BuildCity("red", settlements[0]))
    cities += 1
    next_turn_of(game, "red")  # turn 4: a settlement with the Carpenter, a city
    spot = later
    set_hand(game, "red", lumber=1, brick=1, wool=1, ore=1)
    used += game.apply(HelperAssist("red", Resource.ORE, Resource.GRAIN))
    game.apply(HelperKeep("red"))
    game.apply(BuildSettlement("red", spot))
    settlements.append(spot)
    build_city(game, "red", settlements[1])
    cities += 1
    next_turn_of(game, "red")  # turn 5: two cities, the second wins
    build_city(game, "red", settlements[2])
    cities += 1
    events = build_city(game, "red", settlements[3])
    cities += 1
    assert len(used) == 4 and all(e["type"] == "helper_used" for e in used)
    assert game.phase == Phase.GAME_OVER and game.winner_color == "red"
    score = 2 * cities + 2  # four cities and Longest Road
    assert events[-1] == {"type": "won", "player": "red", "victory_points": score}
    assert score == 10 == game.victory_points(0)


def two_spots(game: Game, color: str) -> tuple[Vertex, Vertex]:
    """Two settlement spots of ``color`` that are no neighbours: both can be built."""
    t = game.topology
    spots = [t.vertex_index[v] for v in game.settlement_spots(color)]
    a, b = next((a, b) for a in spots for b in spots if b != a and b not in t.vertex_neighbours[a])
    return t.vertices[a], t.vertices[b]


def test_a_journaled_game_replays_with_its_helpers(tmp_path):
    from companion.bots import GreedyBot
    from companion.journal import JournaledGame

    s = load_scenario("helpers", 5, seed=4)
    jg = JournaledGame.create(tmp_path / "h.sqlite", s.board, SEATS[:5], s.rules, seed=4)
    bot = GreedyBot(seed=4)
    uses = 0
    while jg.game.phase != Phase.GAME_OVER:
        action = bot.choose(jg.game)
        uses += action.type.startswith("helper_")
        jg.apply(action)
    assert uses > 0
    jg.close()
    again = JournaledGame.open(tmp_path / "h.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    again.close()


def test_the_panel_shows_each_players_helper_and_the_display():
    game = red_main()
    panel = game.public_view()["scenario"]["panels"][0]
    in_play, display = panel["sections"][0]["items"], panel["sections"][-1]["items"]
    assert [(i["color"], i["label"]) for i in in_play] == [
        ("red", "Road mender (A3)"),
        ("blue", "Harbour master (A2)"),
        ("white", "Mayor (A1)"),
    ]
    assert in_play[0]["tags"] == ["A side"] and in_play[0]["text"] == HELPERS["road_assist"].text
    assert len(display) == 7 and panel["sections"][-1]["title"] == "Display"
