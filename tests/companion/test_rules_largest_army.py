"""RULES.md 1.12: Largest Army."""

from conftest import buy_card, found, new_game, pass_turns_until, refusal, roll, set_hand

from companion.actions import DevCard, MoveRobber, PlayKnight
from companion.game import Game


def play_knight(game: Game, color: str) -> list[dict]:
    """``color`` (whose turn it is) plays a knight and moves the robber to the first listed spot."""
    events = game.apply(PlayKnight(color))
    move = next(a for a in game.legal_actions() if isinstance(a, MoveRobber))
    game.apply(move)
    return events


def armed(red: int, blue: int) -> Game:
    """Red's second turn (before the roll): red and blue bought ``red``/``blue`` knights."""
    g = new_game()
    found(g)
    for color, n in (("red", red), ("blue", blue)):
        pass_turns_until(g, color)
        roll(g, 12)
        for _ in range(n):
            buy_card(g, color, DevCard.KNIGHT)
    pass_turns_until(g, "red")
    return g


def army(game: Game) -> str | None:
    return None if game.largest_army is None else game.players[game.largest_army]


def test_the_third_played_knight_takes_the_card() -> None:
    g = armed(3, 0)
    for _ in range(3):
        assert army(g) is None
        vp = g.victory_points(0)
        events = play_knight(g, "red")
        roll(g, 12)
        pass_turns_until(g, "red")
    assert g.knights[0] == 3 and army(g) == "red"
    assert {"type": "largest_army", "player": "red", "knights": 3} in events
    assert g.victory_points(0) == vp + 2


def test_knights_held_but_not_played_do_not_count() -> None:
    g = armed(5, 0)
    assert army(g) is None and g.knights[0] == 0
    play_knight(g, "red")
    assert army(g) is None


def test_a_tie_keeps_the_holder_and_more_knights_take_it() -> None:
    g = armed(3, 4)
    for _ in range(3):
        play_knight(g, "red")
        pass_turns_until(g, "blue")
        play_knight(g, "blue")
        pass_turns_until(g, "red")
    assert g.knights[:2] == [3, 3] and army(g) == "red"  # 1.12.2 needs strictly more
    pass_turns_until(g, "blue")
    play_knight(g, "blue")
    assert army(g) == "blue"
    assert g.public_view()["players"][1]["largest_army"] is True


def test_one_knight_per_turn_even_for_the_army() -> None:
    g = armed(3, 0)
    play_knight(g, "red")
    set_hand(g, "red")
    assert refusal(g, PlayKnight("red")).rule == "1.10.2"
