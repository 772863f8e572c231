"""Computer players finish games with legal moves, on every board kind the engine knows."""

import pytest
from conftest import set_hand

from companion.actions import BuildCity, RollDice
from companion.bots import GreedyBot, RandomBot
from companion.game import Game, Phase, Rules
from companion.layouts import random_board


@pytest.mark.parametrize("players", [3, 4, 6])
def test_greedy_bots_finish_a_game_in_a_plausible_number_of_turns(players):
    colors = ["red", "blue", "white", "orange", "green", "brown"][:players]
    game = Game(random_board(players, seed=players), colors, rng=players)
    bot = GreedyBot(seed=1)
    while game.phase != Phase.GAME_OVER:
        game.apply(bot.choose(game))
        assert game.turn_number < 400, "the greedy bot should finish well before 400 turns"
    assert game.victory_points(game.winner) >= 10


def test_greedy_bot_prefers_a_city_to_ending_the_turn():
    game = Game(random_board(3, seed=2), ["red", "blue", "white"], Rules(), rng=2)
    bot = RandomBot(seed=0)
    while game.phase != Phase.ROLL:
        game.apply(bot.choose(game))
    game.apply(RollDice("red", (1, 1)))
    set_hand(game, "red", grain=2, ore=3)
    assert isinstance(GreedyBot(seed=0).choose(game), BuildCity)
