"""The 5-6 player extension (RULES.md §2): material and the special building phase."""

import random

import pytest

from companion.actions import (
    BuildRoad,
    BuildSettlement,
    EndTurn,
    MaritimeTrade,
    PlayKnight,
    RollDice,
)
from companion.board import Resource, Topology, extension_frame
from companion.game import Game, IllegalAction, Phase, Rules
from companion.layouts import random_board

SIX = ["red", "blue", "white", "orange", "green", "brown"]


class ScriptedDice:
    """Dice from a list; card draws and steals take the first possible choice."""

    def __init__(self, rolls):
        self.rolls = list(rolls)

    def roll(self):
        return self.rolls.pop(0)

    def pick(self, weights):
        return next(i for i, w in enumerate(weights) if w)


def founded_game(players=SIX, rolls=((3, 3),) * 50):
    game = Game(random_board(len(players), seed=5), players, rng=ScriptedDice(rolls))
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD):
        game.apply(game.legal_actions()[0])
    return game


def test_material_for_five_and_six_players():
    for n in (5, 6):
        rules = Rules.for_players(n)
        assert rules.cards_per_resource == 24
        assert dict(rules.dev_deck) == {
            "knight": 20,
            "victory_point": 5,
            "road_building": 3,
            "year_of_plenty": 3,
            "monopoly": 3,
        }
        assert rules.special_building_phase
    assert not Rules.for_players(4).special_building_phase
    game = Game(random_board(6, seed=1), SIX)
    assert game.bank == [24] * 5 and sum(game.deck) == 34
    assert len(Topology.of(extension_frame()).hexes) == 30


def test_founding_snake_order_with_six_players():
    game = Game(random_board(6, seed=2), SIX, rng=1)
    order = []
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD):
        if game.phase == Phase.FOUNDING_SETTLEMENT:
            order.append(game.current_player)
        game.apply(game.legal_actions()[0])
    assert order == SIX + SIX[::-1]
    assert game.current_player == "red" and game.phase == Phase.ROLL


def _roll(game):
    return RollDice(game.current_player)


def to_special_build(game):
    game.apply(_roll(game))
    game.apply(EndTurn(game.current_player))
    assert game.phase == Phase.SPECIAL_BUILD


def test_special_building_phase_order_starts_left_of_the_active_player():
    game = founded_game()
    to_special_build(game)
    seen = []
    while game.phase == Phase.SPECIAL_BUILD:
        seen.append(game.players[game.actor])
        game.apply(EndTurn(game.players[game.actor]))
    assert seen == ["blue", "white", "orange", "green", "brown"]
    assert game.current_player == "blue" and game.phase == Phase.ROLL


def test_special_building_phase_allows_building_and_forbids_trade_and_cards():
    game = founded_game()
    to_special_build(game)
    blue = game.seat("blue")
    game.hands[blue] = [5, 5, 5, 5, 5]
    game.bank = [b - 5 for b in game.bank]
    game.dev_hands[blue][0] = 1  # a knight bought in an earlier turn
    with pytest.raises(IllegalAction) as err:
        game.apply(MaritimeTrade("blue", Resource.LUMBER, Resource.ORE))
    assert err.value.rule == "2.3.5"
    with pytest.raises(IllegalAction) as err:
        game.apply(PlayKnight("blue"))
    assert err.value.rule == "2.3.5"
    with pytest.raises(IllegalAction) as err:  # the active player takes no part
        game.apply(BuildRoad("red", game.road_spots("red")[0]))
    assert err.value.rule == "1.5.3"
    spot = game.road_spots("blue")[0]
    game.apply(BuildRoad("blue", spot))
    assert game.hands[blue][:2] == [4, 4]
    legal_types = {type(a).__name__ for a in game.legal_actions()}
    assert legal_types <= {
        "EndTurn",
        "BuildRoad",
        "BuildSettlement",
        "BuildCity",
        "BuyDevelopmentCard",
    }


def test_points_reached_in_the_special_building_phase_win_only_on_the_own_turn():
    game = founded_game()
    to_special_build(game)
    white = game.seat("white")
    # Hidden VP cards: 2 settlements + 8 = 10 (more than the deck holds; only the rule matters).
    game.dev_hands[white][1] = 8
    game.apply(EndTurn("blue"))
    assert game.phase == Phase.SPECIAL_BUILD and game.winner is None
    while game.phase == Phase.SPECIAL_BUILD:
        game.apply(EndTurn(game.players[game.actor]))
    # blue's turn: white still has 10 but it is not white's turn
    assert game.current_player == "blue" and game.winner is None
    game.apply(_roll(game))
    game.apply(EndTurn("blue"))
    while game.phase == Phase.SPECIAL_BUILD:
        game.apply(EndTurn(game.players[game.actor]))
    assert game.winner_color == "white"  # 1.13.3: at the start of white's own turn


@pytest.mark.parametrize("seed", range(3))
def test_random_six_player_games_finish_with_a_legal_winner(seed):
    rng = random.Random(seed)
    game = Game(random_board(6, seed=seed), SIX, rng=seed)
    while game.phase != Phase.GAME_OVER and game.turn_number < 600:
        game.apply(rng.choice(game.legal_actions()))
        assert all(b + sum(h[r] for h in game.hands) == 24 for r, b in enumerate(game.bank))
    assert game.winner is not None
    assert game.victory_points(game.winner) >= 10


def test_founding_settlement_action_is_the_same_for_six():
    game = Game(random_board(6, seed=3), SIX, rng=0)
    v = game.settlement_spots("red")[0]
    game.apply(BuildSettlement("red", v))
    assert game.phase == Phase.FOUNDING_ROAD
