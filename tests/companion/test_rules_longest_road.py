"""RULES.md 1.11: Longest Road.

The positions are LR_FOUNDING of conftest: see its comment.
"""

import pytest
from conftest import (
    BLUE_INLAND,
    COAST,
    LR_FOUNDING,
    V,
    build_roads,
    build_settlement,
    coast,
    corner_path,
    found,
    new_game,
    pass_turns_until,
    refusal,
    roll,
    walk,
)

from companion.actions import BuildRoad
from companion.game import Game


@pytest.fixture
def lr() -> Game:
    g = new_game()
    found(g, LR_FOUNDING)
    return g


def on_turn(game: Game, color: str) -> None:
    """Move on to ``color``'s turn and roll (a 2: only wool for blue's (1,-1,N))."""
    pass_turns_until(game, color)
    roll(game, 2)


def length(game: Game, color: str) -> int:
    return game.road_lengths[game.seat(color)]


def holder(game: Game) -> str | None:
    return None if game.longest_road is None else game.players[game.longest_road]


def cut_red_at_18(game: Game) -> list[dict]:
    """Blue builds a road to COAST[18] and a settlement on it (on blue's turn)."""
    on_turn(game, "blue")
    build_roads(game, "blue", corner_path(BLUE_INLAND, COAST[18]))
    return build_settlement(game, "blue", COAST[18])


def test_the_first_chain_of_five_takes_the_card(lr: Game) -> None:
    on_turn(lr, "red")
    vp = lr.victory_points(0)
    build_roads(lr, "red", walk(19, 16))
    assert length(lr, "red") == 4 and holder(lr) is None  # 1.11.2 needs 5
    build_roads(lr, "red", walk(16, 15))
    assert length(lr, "red") == 5 and holder(lr) == "red"
    assert lr.victory_points(0) == vp + 2  # 1.1.7


def test_a_tie_keeps_the_holder_and_strictly_longer_takes_it(lr: Game) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 15))
    on_turn(lr, "white")
    build_roads(lr, "white", walk(1, 5))
    assert length(lr, "white") == 5 and holder(lr) == "red"  # 1.11.5: a tie keeps it
    vp_red, vp_white = lr.victory_points(0), lr.victory_points(2)
    build_roads(lr, "white", coast(0, 29))  # through white's own settlement: 6
    assert length(lr, "white") == 6 and holder(lr) == "white"  # 1.11.3
    assert (lr.victory_points(0), lr.victory_points(2)) == (vp_red - 2, vp_white + 2)


def test_a_chain_runs_on_through_its_owners_own_settlement(lr: Game) -> None:
    # red's settlement at COAST[20] sits between COAST[21] and COAST[19]
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 17) + coast(20, 21))
    assert length(lr, "red") == 4
    build_roads(lr, "red", walk(17, 16))
    assert length(lr, "red") == 5 and holder(lr) == "red"


def test_branches_do_not_add_to_the_length(lr: Game) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 16))
    build_roads(lr, "red", corner_path(COAST[18], BLUE_INLAND))  # a fork at COAST[18]
    assert lr.roads_left[0] == 15 - 6
    assert length(lr, "red") == 4 and holder(lr) is None  # 1.11.1


def test_a_loop_counts_every_side_once_and_a_tail_adds_to_it(lr: Game) -> None:
    # Red's second settlement (0,0,N) is the SE corner of hex (0,-1): red rings that hex.
    on_turn(lr, "red")
    ring = corner_path(
        V(0, -1, "S"), V(0, -1, "SW"), V(0, -1, "NW"), V(0, -1, "N"), V(0, -1, "NE"), V(0, 0, "N")
    )
    build_roads(lr, "red", ring)
    assert length(lr, "red") == 6 and holder(lr) == "red"
    build_roads(lr, "red", corner_path(V(0, -1, "N"), COAST[23]))  # a tail out of the ring
    assert length(lr, "red") == 7


def test_a_road_ending_at_an_opponents_settlement_counts_up_to_it(lr: Game) -> None:
    cut_red_at_18(lr)
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 18))
    assert length(lr, "red") == 2  # COAST[20] - COAST[19] - blue's COAST[18]
    # 1.9.3: red cannot build on through blue's settlement
    assert refusal(lr, BuildRoad("red", walk(18, 17)[0])).rule == "1.9.3"


def test_a_cut_splits_seven_into_two_and_five_and_a_unique_five_keeps_it(lr: Game) -> None:
    # 1.11.4 (the [DE] example): red keeps the card with the 5 below the cut.
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 13))
    assert length(lr, "red") == 7 and holder(lr) == "red"
    events = cut_red_at_18(lr)
    assert length(lr, "red") == 5 and holder(lr) == "red"
    assert not [e for e in events if e["type"] == "longest_road"]


def test_a_cut_below_five_sets_the_card_aside(lr: Game) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 14))
    vp = lr.victory_points(0)
    events = cut_red_at_18(lr)
    assert length(lr, "red") == 4 and holder(lr) is None  # 1.11.5: nobody has 5
    assert lr.victory_points(0) == vp - 2
    assert {"type": "longest_road", "player": None, "length": 4} in events
    # it comes back into play for the first to reach 5 again: red, on the other side
    on_turn(lr, "red")
    build_roads(lr, "red", walk(14, 13))
    assert holder(lr) == "red"


def test_a_cut_hands_the_card_to_a_uniquely_longest_opponent(lr: Game) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 13))
    on_turn(lr, "white")
    build_roads(lr, "white", walk(1, 5) + coast(0, 29))
    assert length(lr, "white") == 6 and holder(lr) == "red"
    cut_red_at_18(lr)  # on blue's turn
    assert holder(lr) == "white"


def test_a_cut_into_a_tie_with_one_other_keeps_the_holder(lr: Game) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 13))
    on_turn(lr, "white")
    build_roads(lr, "white", walk(1, 5))
    cut_red_at_18(lr)
    assert (length(lr, "red"), length(lr, "white")) == (5, 5)
    assert holder(lr) == "red"  # 1.11.5: a tie with the holder does not take it away


def test_a_cut_into_a_tie_with_two_others_sets_the_card_aside(lr: Game) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 13))
    on_turn(lr, "blue")
    build_roads(lr, "blue", walk(10, 6))
    on_turn(lr, "white")
    build_roads(lr, "white", walk(1, 5))
    events = cut_red_at_18(lr)
    assert [length(lr, c) for c in ("red", "blue", "white")] == [5, 5, 5]
    assert holder(lr) is None  # 1.11.5: several players tie after the holder's chain broke
    assert {"type": "longest_road", "player": None, "length": 5} in events
    # the first to become uniquely longest takes it
    on_turn(lr, "white")
    build_roads(lr, "white", coast(0, 29))
    assert holder(lr) == "white"


def test_a_cut_that_leaves_two_others_tied_above_the_holder_sets_the_card_aside(
    lr: Game,
) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 13))
    on_turn(lr, "blue")
    build_roads(lr, "blue", walk(10, 5))
    on_turn(lr, "white")
    build_roads(lr, "white", walk(1, 4) + coast(0, 29, 28))
    assert (length(lr, "blue"), length(lr, "white"), holder(lr)) == (6, 6, "red")
    cut_red_at_18(lr)
    assert holder(lr) is None


def test_after_a_set_aside_a_unique_five_takes_it_and_a_tie_does_not_take_it_away(lr: Game) -> None:
    on_turn(lr, "red")
    build_roads(lr, "red", walk(19, 14))
    cut_red_at_18(lr)  # red drops to 4: set aside
    build_roads(lr, "blue", walk(10, 6))  # blue alone at 5 takes it
    assert holder(lr) == "blue"
    on_turn(lr, "white")
    build_roads(lr, "white", walk(1, 5))
    assert holder(lr) == "blue"
