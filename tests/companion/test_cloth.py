"""Scenario 6, Cloth for Catan (RULES.md 4.6 and the checks S6-* of 7.4).

The games run on the packaged map laid with seed 1, three players (red, blue, white) unless
said otherwise. Villages are named by their index in the hook's list: the even ones on the
tribe islands' north corners (numbers 2, 3, 4, 5), the odd ones on their south corners (12,
11, 10, 9).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import (
    Script,
    buy_card,
    hook_entry,
    network,
    refusal,
    roll,
    sail,
    scenario_copy,
    sea_path,
    set_hand,
)

from companion.actions import (
    BuildSettlement,
    BuildShip,
    ChooseGold,
    DevCard,
    EndTurn,
    MovePirate,
    MoveRobber,
    MoveShip,
    PlayKnight,
    action_from_json,
    action_to_json,
)
from companion.board import Edge, Terrain, Vertex
from companion.game import Game, Phase
from companion.hooks.cloth import ClothTrade, PirateTakesCloth
from companion.scenario import ScenarioError, load_scenario
from companion.setup_check import check_board

COLORS = ["red", "blue", "white", "orange"]


def cloth_game(players: int = 3, seed: int = 1, **changes: dict) -> Game:
    """A game before founding; ``changes`` maps a hook name to parameters to change."""
    s = load_scenario("cloth-for-catan", players, seed=seed)
    hooks = tuple({**h, **changes.get(h["hook"], {})} for h in s.rules.hooks)
    return Game(s.board, COLORS[:players], replace(s.rules, hooks=hooks), Script())


def trade(game: Game) -> ClothTrade:
    return next(h for h in game.hooks if isinstance(h, ClothTrade))


def village_side(game: Game, i: int) -> Edge:
    """A sea side touching village ``i``'s corner (where a ship links it)."""
    t = game.topology
    v = t.vertex_index[trade(game).villages[i]]
    return next(t.edges[e] for e in t.vertex_edges[v] if game.edge_sea[e])


def choose_gold(game: Game) -> None:
    while game.phase == Phase.CHOOSE_GOLD:
        game.apply(next(a for a in game.legal_actions() if isinstance(a, ChooseGold)))


def corner_towards(game: Game, area: str, village: int) -> Vertex:
    """The free founding corner of ``area`` with the shortest way by sea to ``village``."""
    t = game.topology
    hexes = {h for h in game.hooks[0].areas[area]}
    best = None
    for v in range(len(t.vertices)):
        land = {t.hexes[h] for h in t.vertex_hexes[v] if game.hex_land[h]}
        if not land or not land <= hexes or game._settlement_spot_error(game.current, v, True):
            continue
        try:
            n = len(sea_path(game, game.current_player, [v], village_side(game, village)))
        except AssertionError:
            continue
        if best is None or n < best[0]:
            best = (n, v)
    assert best is not None
    return t.vertices[best[1]]


#: founding plan for three players: (area, village to sail to) per settlement, in the order
#: red, blue, white, white, blue, red, red, blue, white (snake, then the third round)
PLAN = {
    "red": [("top", 2), ("top", 4), ("top", 6)],
    "blue": [("bottom", 3), ("bottom", 5), ("bottom", 1)],
    "white": [("bottom", 7), ("top", 0), ("bottom", 7)],
}


def found_cloth(game: Game) -> list[int]:
    """Play the three founding rounds by PLAN, each with a ship towards its village; returns
    the seats in the order they founded."""
    plan = {c: list(steps) for c, steps in PLAN.items()}
    order, target = [], 0
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD, Phase.CHOOSE_GOLD):
        who = game.current_player
        if game.phase == Phase.FOUNDING_SETTLEMENT:
            area, target = plan[who].pop(0)
            order.append(game.current)
            game.apply(BuildSettlement(who, corner_towards(game, area, target)))
        elif game.phase == Phase.FOUNDING_ROAD:
            path = sea_path(game, who, [game.last_settlement], village_side(game, target))
            game.apply(BuildShip(who, path[0]))
        choose_gold(game)
    return order


def throw(game: Game, total: int) -> list[dict]:
    """The player on turn rolls ``total``; gold fields' choices are made at once."""
    events = roll(game, total)
    choose_gold(game)
    return events


def turn_of(game: Game, color: str, total: int = 6) -> None:
    """End turns (rolling ``total``) until ``color`` has rolled in its own turn."""
    while not (game.current_player == color and game.phase == Phase.MAIN):
        if game.phase == Phase.ROLL:
            throw(game, total)
        else:
            game.apply(EndTurn(game.current_player))


def link(game: Game, color: str, village: int) -> list[dict]:
    return sail(game, color, village_side(game, village))


# -- set-up (4.6.1, 4.6.2, 4.6.11, 4.6.16, S6-*) -----------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_eight_villages_on_the_tribe_islands_with_five_cloth_each(players):
    s = load_scenario("cloth-for-catan", players, seed=4)
    game = Game(s.board, COLORS[:players], s.rules)
    hook = trade(game)
    t = game.topology
    tribe = s.areas["tribe"]
    assert len(hook.villages) == 8 and sorted(hook.numbers) == [2, 3, 4, 5, 9, 10, 11, 12]
    for v in hook.villages:  # 4.6.1: on a corner of a tribe island only
        land = {h for h in t.vertex_hexes[t.vertex_index[v]] if game.hex_land[h]}
        assert land and {t.hexes[h] for h in land} <= tribe
    # 4.6.2: 5 cloth by each village, 10 in the supply: the 50 Catan chips
    assert hook.stock(game) == [5] * 8 and hook.supply(game) == 10 and s.catan_chips == 50
    assert "S6-VILLAGES" in s.setup.rules and check_board(s.board, s.setup, players).ok
    # 4.6.11: the robber starts on the fields with 12 (S6-ROBBER)
    tile = s.board.tiles[s.board.robber]
    assert (tile.terrain, tile.number) == (Terrain.FIELDS, 12)


def test_the_tribe_islands_never_change_while_the_main_islands_do():
    boards = [load_scenario("cloth-for-catan", 4, seed=k).board for k in range(6)]
    tribe = load_scenario("cloth-for-catan", 4, seed=0).areas["tribe"]
    assert len({tuple(b.tiles[h] for h in sorted(tribe)) for b in boards}) == 1  # 4.6.16
    main = sorted(h for h, t in boards[0].tiles.items() if t.terrain.is_land and h not in tribe)
    assert len({tuple(b.tiles[h] for h in main) for b in boards}) > 1


def _cloth_hook(data):
    return hook_entry(data, "cloth_trade")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: _cloth_hook(d)["villages"].pop(), "7 villages"),
        (lambda d: _cloth_hook(d)["villages"][0].__setitem__(1, -3), "not on a tribe island"),
        (lambda d: _cloth_hook(d)["villages"][0].__setitem__(3, 6), "chips on hexes and villages"),
        (lambda d: _cloth_hook(d).update(supply=12), "want 5 and 10"),
    ],
)
def test_s6_villages_reports_wrong_villages(tmp_path, mutate, message):
    with pytest.raises(ScenarioError, match=message):
        load_scenario(scenario_copy(tmp_path, "cloth-for-catan", mutate), 4, seed=1)


# -- founding (4.6.3-4.6.5) ---------------------------------------------------------------------


def test_a_third_founding_round_pays_for_the_third_settlement_only():
    game = cloth_game()
    order = found_cloth(game)
    assert order == [0, 1, 2, 2, 1, 0, 0, 1, 2]  # 4.6.4: the last placer starts, clockwise
    assert game.phase == Phase.ROLL and game.current_player == "red"
    assert all(len(game.buildings_of[p]) == 3 for p in range(3))


@pytest.mark.parametrize(("pays", "rounds"), [("third", {3}), ("second_and_third", {2, 3})])
def test_starting_resources_come_from_the_third_settlement(pays, rounds):
    game = cloth_game(third_settlement={"pays": pays})  # 4.6.4 GAP: the third only, or both
    paid = set()
    plan = {c: list(steps) for c, steps in PLAN.items()}
    while game.phase != Phase.ROLL:
        who = game.current_player
        if game.phase == Phase.FOUNDING_SETTLEMENT:
            area, target = plan[who].pop(0)
            events = game.apply(BuildSettlement(who, corner_towards(game, area, target)))
            if any(e["type"] == "starting_resources" for e in events):
                paid.add((who, len(game.buildings_of[game.seat(who)])))
        elif game.phase == Phase.FOUNDING_ROAD:
            game.apply(next(a for a in game.legal_actions() if isinstance(a, BuildShip)))
        choose_gold(game)
    assert paid == {(c, n) for c in ("red", "blue", "white") for n in rounds}


def test_founding_goes_on_the_main_islands_and_nobody_ever_settles_the_tribe_islands():
    game = cloth_game()
    t = game.topology
    village = t.vertex_index[trade(game).villages[2]]
    assert refusal(game, BuildSettlement("red", t.vertices[village])).rule == "4.6.3"
    found_cloth(game)
    turn_of(game, "red")
    link(game, "red", 2)
    set_hand(game, "red", lumber=1, brick=1, wool=1, grain=1)
    err = refusal(game, BuildSettlement("red", t.vertices[village]))
    assert err.rule == "4.6.5"


# -- trading cloth (4.6.6-4.6.10) ---------------------------------------------------------------


def test_a_ship_reaching_a_village_takes_a_cloth_and_then_one_on_each_roll_of_its_number():
    game = cloth_game()
    found_cloth(game)
    turn_of(game, "red")
    hook = trade(game)
    events = link(game, "red", 2)
    where = list(hook.villages[2])
    assert {"type": "village_linked", "player": "red", "village": where, "cloth": 1} in events
    assert hook.cloth(game, 0) == 1 and hook.stock(game)[2] == 4
    game.apply(EndTurn("red"))
    events = throw(game, hook.numbers[2])  # blue rolls the village's number: red takes one
    assert {"type": "cloth", "village": where, "gains": {"red": 1}} in events
    assert hook.cloth(game, 0) == 2 and hook.stock(game)[2] == 3


def test_two_cloth_are_a_point_and_an_odd_one_is_nothing():
    game = cloth_game()
    found_cloth(game)
    turn_of(game, "red")
    hook = trade(game)
    base = game.public_victory_points(0)
    link(game, "red", 2)
    assert hook.cloth(game, 0) == 1 and game.public_victory_points(0) == base
    game.apply(EndTurn("red"))
    throw(game, hook.numbers[2])
    assert hook.cloth(game, 0) == 2 and game.public_victory_points(0) == base + 1
    roll_for = hook.numbers[2]
    game.apply(EndTurn("blue"))
    throw(game, roll_for)
    assert hook.cloth(game, 0) == 3 and game.public_victory_points(0) == base + 1


def _two_linked(game: Game, red_knight: bool = False) -> ClothTrade:
    """Red and blue both trade with village 2 (blue sails across from the bottom island); with
    ``red_knight`` red buys a knight in its turn. Blue is on turn at the end."""
    found_cloth(game)
    turn_of(game, "red")
    link(game, "red", 2)
    if red_knight:
        buy_card(game, "red", DevCard.KNIGHT)
    turn_of(game, "blue")
    hook = trade(game)
    t = game.topology
    v = t.vertex_index[hook.villages[2]]
    other = next(
        t.edges[e] for e in t.vertex_edges[v] if game.edge_sea[e] and game.edge_owner[e] == -1
    )
    sail(game, "blue", other)
    assert 2 in hook.links(game, 1)
    return hook


def test_a_short_village_is_topped_up_from_the_supply_and_an_empty_one_serves_nobody():
    game = cloth_game()
    hook = _two_linked(game)  # each took a cloth on linking: 3 left
    where = list(hook.villages[2])
    game.apply(EndTurn("blue"))
    throw(game, hook.numbers[2])  # white rolls: red and blue take one each, 1 left
    supply, red, blue = hook.supply(game), hook.cloth(game, 0), hook.cloth(game, 1)
    game.apply(EndTurn("white"))
    events = throw(game, hook.numbers[2])  # red rolls: red takes the last, blue's is topped up
    assert {"type": "cloth", "village": where, "gains": {"red": 1, "blue": 1}} in events
    assert hook.stock(game)[2] == 0 and hook.supply(game) == supply - 1  # 4.6.7
    assert (hook.cloth(game, 0), hook.cloth(game, 1)) == (red + 1, blue + 1)
    game.apply(EndTurn("red"))
    events = throw(game, hook.numbers[2])  # 4.6.8: empty: nobody, not even from the supply
    assert {"type": "cloth", "village": where, "gains": {}, "empty": True} in events
    assert hook.supply(game) == supply - 1 and hook.cloth(game, 1) == blue + 1


def test_ships_at_a_village_stay_put():
    game = cloth_game()
    found_cloth(game)
    turn_of(game, "red")
    link(game, "red", 2)
    game.apply(EndTurn("red"))
    turn_of(game, "red")
    t = game.topology
    side = village_side(game, 2)
    e = t.edge_index[side]
    assert game.edge_owner[e] == 0
    spare = next(x for x in range(len(t.edges)) if game._route_spot_ok(0, x, 2) and x != e)
    err = refusal(game, MoveShip("red", side, t.edges[spare]))
    assert err.rule == "4.6.10"  # the base rules alone would let the open end move
    assert not any(isinstance(a, MoveShip) and a.edge == side for a in game.legal_actions())


# -- robber and pirate (4.6.11-4.6.13) ----------------------------------------------------------


def test_the_robber_never_goes_onto_the_tribe_islands():
    game = cloth_game()
    found_cloth(game)
    throw(game, 7)
    tribe = game.hooks[0].areas["tribe"]
    robber = {a.hex for a in game.legal_actions() if isinstance(a, MoveRobber)}
    assert robber and robber.isdisjoint(tribe)
    assert refusal(game, MoveRobber("red", sorted(tribe)[0])).rule == "4.6.11"


def until_roll(game: Game, color: str) -> None:
    """End turns (rolling 6) until ``color`` is about to roll."""
    while not (game.current_player == color and game.phase == Phase.ROLL):
        if game.phase == Phase.ROLL:
            throw(game, 6)
        else:
            game.apply(EndTurn(game.current_player))


def test_only_a_player_trading_with_a_village_may_choose_the_pirate():
    game = cloth_game()
    found_cloth(game)
    throw(game, 7)
    assert not any(isinstance(a, MovePirate) for a in game.legal_actions())
    sea = next(h for h, t in game.board.tiles.items() if t.terrain == Terrain.SEA)
    assert refusal(game, MovePirate("red", sea)).rule == "4.6.12"
    game.apply(next(a for a in game.legal_actions() if isinstance(a, MoveRobber)))
    link(game, "red", 2)
    game.apply(EndTurn("red"))
    until_roll(game, "red")
    throw(game, 7)
    while game.phase == Phase.DISCARD:
        game.apply(game.legal_actions()[0])
    assert any(isinstance(a, MovePirate) for a in game.legal_actions())


def test_the_pirate_may_take_a_cloth_instead_of_a_card():
    game = cloth_game()
    hook = _two_linked(game, red_knight=True)  # red and blue trade with village 2
    game.apply(EndTurn("blue"))
    until_roll(game, "red")
    t = game.topology
    sea = next(
        t.hexes[h]
        for e in sorted(game.pieces_of[1])
        for h in t.edge_hexes[e]
        if game.hex_sea[h] and h != game.pirate
    )
    # red plays the knight before rolling: the pirate may be chosen (4.6.12) and takes a
    # cloth (4.6.13)
    game.apply(PlayKnight("red"))
    action = PirateTakesCloth("red", sea, "blue")
    assert action in game.legal_actions()
    assert refusal(game, PirateTakesCloth("red", sea, "white")).rule == "4.6.13"
    red, blue, vp = hook.cloth(game, 0), hook.cloth(game, 1), game.special_vp[:2]
    events = game.apply(action)
    assert events[0]["stolen"] == "cloth" and game.topology.hexes[game.pirate] == sea
    assert (hook.cloth(game, 0), hook.cloth(game, 1)) == (red + 1, blue - 1)
    assert game.special_vp[:2] == [(red + 1) // 2, (blue - 1) // 2]
    assert vp == [red // 2, blue // 2] and game.phase == Phase.ROLL


def test_pirate_cloth_travels_as_json():
    action = PirateTakesCloth("red", (1, -1), "blue")
    assert action_from_json(action_to_json(action)) == action


# -- Longest Road and Largest Army (4.6.14) -----------------------------------------------------


def test_no_longest_road_but_a_largest_army():
    game = cloth_game()
    found_cloth(game)
    turn_of(game, "red")
    for i in (2, 0):  # one route on to the far west village
        link(game, "red", i)
    assert game.road_lengths[0] >= 5 and game.longest_road is None  # 4.6.14
    for _ in range(3):
        buy_card(game, "red", DevCard.KNIGHT)
    for _ in range(3):
        game.apply(EndTurn("red"))
        turn_of(game, "red")
        game.apply(PlayKnight("red"))
        game.apply(next(a for a in game.legal_actions() if isinstance(a, MoveRobber)))
    assert game.largest_army == 0


# -- the end (4.6.15) ---------------------------------------------------------------------------


def test_the_end_when_three_villages_hold_cloth_goes_to_the_most_points_then_cloth():
    game = cloth_game()
    found_cloth(game)
    turn_of(game, "red")
    hook = trade(game)
    state = game.hook_state.setdefault("cloth_trade", hook._state(game))

    def dry(*villages: int) -> None:  # their cloth goes to the supply (the total stays 50)
        for i in villages:
            state["supply"] += state["stock"][i]
            state["stock"][i] = 0

    dry(0, 1, 2, 4)
    assert hook.game_end(game) is None  # four villages still hold cloth
    dry(5)
    assert [game.victory_points(p) for p in range(3)] == [3, 3, 3]
    # a tie on points and cloth: the first in turn order from the player on turn (GAP)
    assert hook.game_end(game) == game.current == 0
    state["supply"] -= 1
    hook._give(game, 2, 1)  # white one cloth ahead: the most cloth wins the tie on points
    assert hook.game_end(game) == 2
    state["supply"] -= 2
    hook._give(game, 1, 2)  # blue: two cloth, a point ahead
    assert hook.game_end(game) == 1
    events = game.apply(EndTurn("red"))  # the end is noticed on the next action
    assert game.winner_color == "blue" and events[-1]["type"] == "won"


def test_a_scripted_game_ends_when_the_villages_run_dry():
    """Red trades with villages 2, 4 and 6 (numbers 3, 4, 5), blue with 3 and 5 (11, 10);
    the dice drain those five villages one after the other, and the game ends when only the
    three untouched villages hold cloth: red has the most points."""
    game = cloth_game()
    found_cloth(game)
    hook = trade(game)
    turn_of(game, "red")
    for i in (2, 4, 6):
        link(game, "red", i)
    turn_of(game, "blue")
    for i in (3, 5):
        link(game, "blue", i)
    drained = (2, 4, 6, 3, 5)
    while game.phase != Phase.GAME_OVER:
        left = [hook.numbers[i] for i in drained if hook.stock(game)[i]]
        if game.phase == Phase.ROLL:
            throw(game, left[0])
        else:
            game.apply(EndTurn(game.current_player))
        assert game.turn_number < 60
    # red took every cloth of its 3 villages, blue of its 2; 3 settlements each
    red = 3 + (3 * 5) // 2
    blue = 3 + (2 * 5) // 2
    assert (game.victory_points(0), game.victory_points(1)) == (red, blue)
    assert game.winner_color == "red" and red < game.rules.victory_points
    assert sum(n > 0 for n in hook.stock(game)) == 3
    assert (
        hook.cloth(game, 0) + hook.cloth(game, 1) + hook.supply(game) + sum(hook.stock(game)) == 50
    )


def test_random_games_journal_and_replay_the_cloth(tmp_path):
    import random

    from companion.journal import JournaledGame

    s = load_scenario("cloth-for-catan", 4, seed=5)
    jg = JournaledGame.create(tmp_path / "c.sqlite", s.board, COLORS, s.rules, seed=5)
    chooser = random.Random(5)
    seen: set[str] = set()
    while jg.game.phase != Phase.GAME_OVER:
        legal = jg.game.legal_actions()
        ships = [a for a in legal if isinstance(a, BuildShip | PirateTakesCloth)]
        action = chooser.choice(ships if ships and chooser.random() < 0.6 else legal)
        seen |= {e["type"] for e in jg.apply(action)}
    assert {"village_linked", "cloth"} <= seen  # links, and cloth on rolls
    jg.close()
    again = JournaledGame.open(tmp_path / "c.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    assert again.game.hook_state["cloth_trade"] == jg.game.hook_state["cloth_trade"]
    again.close()


def test_a_computer_player_links_a_village_within_reach():
    from companion.bots import GreedyBot

    game = cloth_game()
    found_cloth(game)
    turn_of(game, "red")
    t = game.topology
    village = t.vertex_index[trade(game).villages[2]]
    for side in sea_path(game, "red", network(game, "red"), village_side(game, 2)):
        if village in t.edge_vertices[t.edge_index[side]]:
            break  # the next ship would link the village
        set_hand(game, "red", lumber=1, wool=1)
        game.apply(BuildShip("red", side))
    set_hand(game, "red", lumber=1, wool=1)
    chosen = GreedyBot(seed=1).choose(game)
    assert isinstance(chosen, BuildShip)
    assert village in t.edge_vertices[t.edge_index[chosen.edge]]
