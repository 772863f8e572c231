"""Computer players finish games with legal moves, on every board kind the engine knows."""

import pytest
from conftest import E, set_hand
from test_seafarers import ISLET, SHIP_2, founded, main_phase, next_round

from companion.actions import BuildCity, BuildShip, MoveShip, RollDice
from companion.board import Edge
from companion.bots import GreedyBot, RandomBot
from companion.game import Game, Phase, Rules
from companion.layouts import random_board

STRAY = E(1, 0, "NE")  # pasture / sea, from red's home to a corner beside it


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


def _stray_ship_game() -> tuple[Game, Edge]:
    """Red's fleet on the small Seafarers map of test_seafarers: the founding ship towards the
    islet, then one built from home along the coast, to a corner too near home to settle."""
    game = founded()
    main_phase(game)
    set_hand(game, "red", lumber=1, wool=1)
    game.apply(BuildShip("red", STRAY))
    next_round(game)
    set_hand(game, "red")
    return game, STRAY


def test_greedy_bot_moves_a_stray_ship_to_where_it_can_settle():
    game, stray = _stray_ship_game()
    assert not game.settlement_spots("red")
    move = GreedyBot(seed=0).choose(game)
    assert isinstance(move, MoveShip) and move.edge == stray
    before = game.snapshot()
    with game.imagined_ship_move(MoveShip("red", stray, SHIP_2)):
        assert ISLET in game.settlement_spots("red")
    assert game.snapshot() == before and not game.settlement_spots("red")
    game.apply(move)
    assert game.settlement_spots("red")


def test_greedy_bot_keeps_a_ship_that_reaches_a_corner_to_settle():
    game, stray = _stray_ship_game()
    game.apply(MoveShip("red", stray, SHIP_2))
    next_round(game)
    set_hand(game, "red")
    assert [a for a in game.legal_actions() if isinstance(a, MoveShip)]
    assert not isinstance(GreedyBot(seed=0).choose(game), MoveShip)
