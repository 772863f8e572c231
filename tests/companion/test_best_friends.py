"""Best Friends (RULES.md 5.1): guild favours, one test (or more) per numbered rule and GAP
choice, and a scripted game to 11 victory points.

Positions are played on the fixed board of conftest (three players, FOUNDING_3) through the
public API. The one shortcut is :func:`owe`, which queues favours as the rules would after an
earning move, so that a test of a redemption need not play the earning first; the tiles are
then drawn with the ordinary :class:`DrawFavour` action.
"""

from __future__ import annotations

import json
from collections import deque
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
    refusal,
    road_chain,
    roll,
    scenario_copy,
    set_hand,
)

from companion.actions import (
    DEV_CARDS,
    BuildRoad,
    BuildSettlement,
    DevCard,
    EndTurn,
    MoveRobber,
    PlayKnight,
)
from companion.board import Edge, Resource
from companion.game import Game, Phase, Rules
from companion.hooks.best_friends import (
    BOX,
    GUILD_NAMES,
    NEEDED,
    AcceptGift,
    BestFriends,
    DrawFavour,
    OfferGift,
    RedeemFavour,
    RefuseGift,
    ReturnFavour,
    SwapFavour,
    TraderSwap,
    _structures,
)
from companion.layouts import random_board
from companion.scenario import load_scenario
from companion.setup_check import check_board

COLORS6 = ["red", "blue", "white", "orange", "green", "brown"]


def bf_game(players: tuple[str, ...] = PLAYERS, board: Any = None, **params: Any) -> Game:
    """A Best Friends game (11 VP) on the fixed board, driven by a :class:`Script`."""
    rules = Rules.for_players(len(players))
    hook = {"hook": "best_friends", **params}
    data = {**rules.to_json(), "victory_points": 11, "hooks": [hook]}
    return Game(board or fixed_board(), players, Rules.from_json(data), Script())


def hook(game: Game) -> BestFriends:
    found_hook = game.hooks[0]
    assert isinstance(found_hook, BestFriends)
    return found_hook


def state(game: Game) -> dict[str, Any]:
    return hook(game).state(game)


def tiles(game: Game, color: str) -> dict[str, int]:
    out = {g: 0 for g in GUILD_NAMES}
    for guild, _ in state(game)["held"][color]:
        out[guild] += 1
    return out


def owe(game: Game, color: str, *guilds: str) -> None:
    """Queue favours for ``color`` (see the module docstring) and draw them as ``guilds``."""
    hook(game)._owe(game, [color] * len(guilds))
    for guild in guilds:
        game.apply(DrawFavour(color, guild))


def end_turns_until(game: Game, color: str, sbp: bool = False) -> None:
    """End turns (each player rolling a 12 first) until ``color`` is to roll, or with ``sbp``
    until it is ``color``'s move in a special building phase. Every hand is emptied at the
    end, so that nobody has to discard when a test rolls a 7."""
    for _ in range(8 * len(game.players)):
        actor = game.players[game.actor]
        if actor == color and game.phase == (Phase.SPECIAL_BUILD if sbp else Phase.ROLL):
            for c in game.players:
                set_hand(game, c)
            return
        if game.phase == Phase.ROLL:
            roll(game, 12)
        game.apply(EndTurn(actor))
    raise AssertionError(f"never reached {color}'s turn")


def empty_hexes(game: Game) -> list[tuple[int, int]]:
    """Land hexes with no building on a corner, the robber's own hex left out."""
    t = game.topology
    return [
        t.hexes[h]
        for h in range(len(t.hexes))
        if game.hex_land[h]
        and h != game.robber
        and all(game.vertex_owner[v] < 0 for v in t.hex_vertices[h])
    ]


def red_main(**params: Any) -> Game:
    """Three players after FOUNDING_3, red has rolled (a 12: nobody's corner) and may act."""
    game = bf_game(**params)
    found(game)
    roll(game, 12)
    for c in game.players:
        set_hand(game, c)
    assert game.phase == Phase.MAIN
    return game


def route(game: Game, color: str, target: str, goal: set[int] | None = None) -> list[Edge]:
    """The shortest chain of free sides from ``color``'s pieces to a corner of ``target``'s
    pieces (one of ``goal``, if given) that touches no other piece on the way."""
    t = game.topology
    p, q = game.seat(color), game.seat(target)
    if goal is None:  # a corner of the target's not yet touched by ``color``
        goal = set().union(*_structures(game, q)) - set().union(*_structures(game, p))
    avoid = (
        set().union(*(s for o in range(len(game.players)) if o != p for s in _structures(game, o)))
        - goal
    )
    starts = set().union(*_structures(game, p))
    queue = deque((v, []) for v in sorted(starts))
    seen = set(starts)
    while queue:
        v, path = queue.popleft()
        for e in t.vertex_edges[v]:
            if game.edge_owner[e] >= 0 or not game.edge_land[e]:
                continue
            w = next(x for x in t.edge_vertices[e] if x != v)
            if w in goal:
                return [*path, t.edges[e]]
            if w in seen or w in avoid or game.vertex_owner[w] >= 0:
                continue
            seen.add(w)
            queue.append((w, [*path, t.edges[e]]))
    raise AssertionError(f"no way from {color} to {target}")


# -- 5.1.1-5.1.2: material and set-up ------------------------------------------------------


def test_the_box_holds_84_favours_of_five_guilds():
    """5.1.1: 12/12/12 for one tile, 24/24 for two."""
    assert BOX == {
        "traders": 12,
        "merchants": 12,
        "road_builders": 12,
        "scholars": 24,
        "master_builders": 24,
    }
    assert sum(BOX.values()) == 84
    assert {g: 2 if BOX[g] == 24 else 1 for g in GUILD_NAMES} == NEEDED


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_supply_per_player_count_is_the_files_choice(players):
    """5.1.2, GAP BF-FAVOUR-COUNT: 14 tiles per player in the box's proportions."""
    s = load_scenario("best-friends", players, seed=1)
    game = Game(s.board, COLORS6[:players], s.rules, rng=1)
    supply = state(game)["supply"]
    assert supply == {g: 2 * players * NEEDED[g] for g in GUILD_NAMES}
    assert sum(supply.values()) == 14 * players
    assert s.board.kind == ("base" if players <= 4 else "5-6")
    assert s.rules.victory_points == 11  # 5.1.9
    assert check_board(s.board, s.setup, players).ok


def test_a_table_overrides_the_supply_in_the_scenario_file(tmp_path):
    path = scenario_copy(
        tmp_path, "best-friends", lambda d: d["layouts"]["4"]["hooks"][0].update(favours=BOX)
    )
    s = load_scenario(path, 4, seed=2)
    assert state(Game(s.board, COLORS6[:4], s.rules, rng=1))["supply"] == BOX


def test_the_checker_refuses_more_favours_than_the_box_holds(tmp_path, capsys):
    """BB-BF-FAVOURS (§7.5), through check-setup on a file that asks too much."""
    from companion.cli import main

    path = scenario_copy(
        tmp_path,
        "best-friends",
        lambda d: d["layouts"]["3"]["hooks"][0]["favours"].update(traders=13),
    )
    with pytest.raises(ValueError, match="BB-BF-FAVOURS.*13 traders favours"):
        load_scenario(path, 3, seed=1)
    s = load_scenario("best-friends", 3, seed=4)
    board = tmp_path / "board.json"
    s.board.save(board)
    assert main(["check-setup", str(board), "--scenario", "best-friends", "--players", "3"]) == 0
    capsys.readouterr()


def test_an_unknown_guild_in_the_file_is_refused():
    with pytest.raises(ValueError, match="unknown guild 'bakers'"):
        bf_game(favours={"bakers": 3})


# -- 5.1.3a: the harmless robber -----------------------------------------------------------


def test_moving_the_robber_where_nobody_lives_earns_a_favour():
    game = red_main()
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    roll(game, 7)
    events = game.apply(MoveRobber("red", empty_hexes(game)[0]))
    assert events[-1]["type"] == "favour_earned" and events[-1]["player"] == "red"
    assert state(game)["draws"] == ["red"]
    # 5.1.5: the favour is drawn before play goes on, by the companion or as drawn at the table
    drawn_at_table = [DrawFavour("red", g) for g in GUILD_NAMES]
    assert game.legal_actions() == [DrawFavour("red"), *drawn_at_table]
    assert refusal(game, EndTurn("red")).rule == "5.1.5"
    game.apply(DrawFavour("red", "scholars"))
    assert tiles(game, "red")["scholars"] == 1 and state(game)["supply"]["scholars"] == 23


def test_robbing_a_player_earns_nothing():
    game = red_main()
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    give(game, "blue", wool=1)
    roll(game, 7)
    events = game.apply(MoveRobber("red", (1, 0), "blue"))  # blue's settlement (1, 0, S)
    assert [e["type"] for e in events] == ["robber_moved"]
    assert state(game)["draws"] == []


def test_a_knight_moves_the_robber_harmlessly_too():
    game = red_main()
    from conftest import buy_card

    buy_card(game, "red", DevCard.KNIGHT)
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    game.apply(PlayKnight("red"))
    events = game.apply(MoveRobber("red", empty_hexes(game)[0]))
    assert events[-1]["type"] == "favour_earned"


def desert_game() -> Game:
    """Blue's first settlement on a corner of the desert (0, 0), the other founding spots as
    in FOUNDING_3 where still legal; red to roll."""
    game = bf_game()
    desert = game.topology.hex_index[(0, 0)]
    corners = {game.topology.vertices[x] for x in game.topology.hex_vertices[desert]}
    for i, (v, e) in enumerate(FOUNDING_3):
        who = game.current_player
        legal = game.legal_actions()
        if i == 1:
            v = next(a.vertex for a in legal if a.vertex in corners)
        elif BuildSettlement(who, v) not in legal:
            v = legal[0].vertex
        game.apply(BuildSettlement(who, v))
        road = BuildRoad(who, e)
        game.apply(road if road in game.legal_actions() else game.legal_actions()[0])
    return game


def test_sparing_the_desert_neighbours_earns_a_favour():
    """5.1.3a: the robber to the desert, robbing nobody though blue lives there."""
    game = desert_game()
    give(game, "blue", wool=1)
    roll(game, 7)
    away = empty_hexes(game)[0]
    game.apply(MoveRobber("red", away))  # the robber starts on the desert: away first
    game.apply(DrawFavour("red", "traders"))
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    give(game, "blue", wool=1)
    roll(game, 7)
    assert MoveRobber("red", (0, 0), "blue") in game.legal_actions()
    spare = MoveRobber("red", (0, 0))
    assert spare in game.legal_actions()
    events = game.apply(spare)
    assert events[-1]["type"] == "favour_earned" and hand(game, "blue") == {"wool": 1}


def test_only_on_the_desert_may_the_robber_spare_a_neighbour():
    game = red_main()
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    give(game, "blue", wool=1)
    roll(game, 7)
    assert refusal(game, MoveRobber("red", (1, 0))).rule == "1.7.4"


# -- 5.1.3b: gifts -------------------------------------------------------------------------


def test_an_accepted_gift_earns_the_giver_a_favour():
    game = red_main()
    give(game, "red", ore=2)
    game.apply(OfferGift("red", "blue", Resource.ORE))
    assert game.legal_actions() == [AcceptGift("blue"), RefuseGift("blue")]
    assert refusal(game, EndTurn("red")).rule == "5.1.3"
    events = game.apply(AcceptGift("blue"))
    assert events[0]["giver"] == "red" and hand(game, "blue") == {"ore": 1}
    assert hand(game, "red") == {"ore": 1} and state(game)["draws"] == ["red"]
    game.apply(DrawFavour("red", "merchants"))
    # once per turn
    assert refusal(game, OfferGift("red", "white", Resource.ORE)).rule == "5.1.3"


def test_a_refused_gift_may_go_to_another_eligible_player():
    game = red_main()
    give(game, "red", ore=1)
    game.apply(OfferGift("red", "blue", Resource.ORE))
    game.apply(RefuseGift("blue"))
    assert hand(game, "red") == {"ore": 1} and state(game)["draws"] == []
    assert refusal(game, OfferGift("red", "blue", Resource.ORE)).rule == "5.1.3"
    game.apply(OfferGift("red", "white", Resource.ORE))
    game.apply(AcceptGift("white"))
    assert state(game)["draws"] == ["red"]


def test_gifts_go_only_to_players_with_no_more_visible_points():
    game = red_main()
    game.apply(EndTurn("red"))
    roll(game, 12)
    build_city(game, "blue", FOUNDING_3[1][0])  # blue: 3 visible VP, red 2
    game.apply(EndTurn("blue"))
    end_turns_until(game, "red")
    roll(game, 12)
    give(game, "red", ore=1)
    assert refusal(game, OfferGift("red", "blue", Resource.ORE)).rule == "5.1.3"
    assert OfferGift("red", "white", Resource.ORE) in game.legal_actions()
    assert refusal(game, AcceptGift("white")).rule == "5.1.3"  # nothing was offered


# -- 5.1.4: connecting structures ----------------------------------------------------------


def test_a_first_connection_pays_the_opponent_1_then_the_builder_3():
    game = red_main()
    path = route(game, "red", "white")
    build_roads(game, "red", path[:-1])
    assert state(game)["draws"] == []
    give(game, "red", lumber=1, brick=1)
    events = game.apply(BuildRoad("red", path[-1]))
    assert events[-1]["connected"] == ["white"]
    assert state(game)["draws"] == ["white", "red", "red", "red"]
    assert {a.player for a in game.legal_actions()} == {"white"}
    assert all(isinstance(a, DrawFavour) for a in game.legal_actions())
    for who in ("white", "red", "red", "red"):
        game.apply(DrawFavour(who))
    assert sum(tiles(game, "white").values()) == 1 and sum(tiles(game, "red").values()) == 3


def test_one_road_reaching_two_opponents_pays_each_1_and_the_builder_3():
    game = red_main()
    game.apply(EndTurn("red"))
    roll(game, 12)
    meeting = route(game, "blue", "white")  # blue's road reaches white's corner y
    build_roads(game, "blue", meeting)
    for who in ("white", "blue", "blue", "blue"):
        game.apply(DrawFavour(who))
    t = game.topology
    whites = set().union(*_structures(game, game.seat("white")))
    y = next(v for v in t.edge_vertices[t.edge_index[meeting[-1]]] if v in whites)
    game.apply(EndTurn("blue"))
    end_turns_until(game, "red")
    roll(game, 12)
    path = route(game, "red", "white", goal={y})
    build_roads(game, "red", path[:-1])
    give(game, "red", lumber=1, brick=1)
    events = game.apply(BuildRoad("red", path[-1]))
    assert events[-1]["connected"] == ["blue", "white"]  # clockwise from red
    assert state(game)["draws"] == ["blue", "white", "red", "red", "red"]


def test_reconnecting_the_same_structures_earns_nothing():
    game = red_main()
    path = route(game, "red", "white")
    build_roads(game, "red", path)
    for who in ("white", "red", "red", "red"):
        game.apply(DrawFavour(who))
    again = route(game, "red", "white")  # to another corner of white's
    build_roads(game, "red", again[:-1])
    give(game, "red", lumber=1, brick=1)
    events = game.apply(BuildRoad("red", again[-1]))
    assert all(e["type"] != "favour_earned" for e in events)
    assert state(game)["draws"] == []


def test_joining_ones_own_structures_earns_nothing():
    game = red_main()
    p = game.seat("red")
    first, second = _structures(game, p)
    t = game.topology
    # the way between red's two founding structures, touching nobody else
    queue = deque((v, []) for v in sorted(first))
    seen = set(first)
    others = set().union(*(s for o in (1, 2) for s in _structures(game, o)))
    path: list[Edge] = []
    while queue and not path:
        v, sofar = queue.popleft()
        for e in t.vertex_edges[v]:
            w = next(x for x in t.edge_vertices[e] if x != v)
            if game.edge_owner[e] >= 0 or w in seen or w in others:
                continue
            if w in second:
                path = [*sofar, t.edges[e]]
                break
            seen.add(w)
            queue.append((w, [*sofar, t.edges[e]]))
    build_roads(game, "red", path)
    assert len(_structures(game, p)) == 1
    assert state(game)["draws"] == []


def test_founding_connections_earn_nothing():
    game = bf_game()
    spots = list(FOUNDING_3)
    for v, e in spots:
        who = game.current_player
        game.apply(BuildSettlement(who, v))
        events = game.apply(BuildRoad(who, e))
        assert all(ev["type"] != "favour_earned" for ev in events)
    # and the engine was asked: a founding road that did touch someone would pay nothing
    assert hook(game).after_route(game, 0, 0, 1, founding=True) == []


# -- 5.1.5: drawing ------------------------------------------------------------------------


def test_a_favour_drawn_by_the_companion_follows_the_supply():
    game = red_main()
    hook(game)._owe(game, ["red"])
    game.rng.picks.append(GUILD_NAMES.index("master_builders"))  # type: ignore[attr-defined]
    game.apply(DrawFavour("red"))
    assert tiles(game, "red")["master_builders"] == 1


def test_a_tile_the_supply_lacks_cannot_be_drawn():
    game = red_main(favours={"traders": 2})
    hook(game)._owe(game, ["red"])
    assert refusal(game, DrawFavour("red", "scholars")).rule == "5.1.5"
    assert refusal(game, DrawFavour("red", "bakers")).rule == "5.1.1"
    assert refusal(game, DrawFavour("blue", "traders")).rule == "5.1.5"


# -- 5.1.6: when favours are redeemed ------------------------------------------------------


def test_favours_drawn_this_turn_wait_for_the_next():
    game = red_main()
    owe(game, "red", "merchants")
    redeem = RedeemFavour("red", "merchants", Resource.ORE)
    err = refusal(game, redeem)
    assert err.rule == "5.1.6" and "drawn this turn" in str(err)
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    roll(game, 7)  # no card for anyone, and the robber goes where nobody lives
    game.apply(MoveRobber("red", empty_hexes(game)[0]))
    game.apply(DrawFavour("red", "traders"))
    game.apply(redeem)
    assert hand(game, "red") == {"ore": 1}


def usable(game: Game, color: str, *guilds: str) -> None:
    """``color`` holds ``guilds`` tiles drawn in an earlier turn; it is their turn, rolled;
    every hand is empty."""
    owe(game, color, *guilds)
    game.apply(EndTurn(game.current_player))
    end_turns_until(game, color)
    roll(game, 12)
    for c in game.players:
        set_hand(game, c)


def test_one_redemption_or_one_swap_a_turn():
    game = red_main()
    usable(game, "red", "merchants", "merchants")
    game.apply(RedeemFavour("red", "merchants", Resource.ORE))
    assert refusal(game, RedeemFavour("red", "merchants", Resource.ORE)).rule == "5.1.6"
    assert refusal(game, SwapFavour("red", "traders")).rule == "5.1.6"


def test_favours_wait_for_the_roll_by_default():
    """GAP BF-WHEN: redemptions after the roll (a table may allow them before)."""
    game = red_main()
    owe(game, "red", "merchants")
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    assert refusal(game, RedeemFavour("red", "merchants", Resource.ORE)).rule == "5.1.6"

    early = red_main(before_roll=True)
    owe(early, "red", "merchants")
    early.apply(EndTurn("red"))
    end_turns_until(early, "red")  # every hand empty
    early.apply(RedeemFavour("red", "merchants", Resource.ORE))
    assert early.phase == Phase.ROLL and hand(early, "red") == {"ore": 1}


def test_favours_are_not_used_in_the_special_building_phase():
    """5.1.6 with 5 players: no redemption in the SBP; a tile gained there is usable next turn."""
    game = bf_game(tuple(COLORS6[:5]), board=random_board(5, seed=3))
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD):
        game.apply(game.legal_actions()[0])
    owe(game, "blue", "merchants")  # in turn 1: usable from turn 2
    end_turns_until(game, "blue")
    end_turns_until(game, "blue", sbp=True)  # another player's turn, blue's building phase
    assert game.phase == Phase.SPECIAL_BUILD and game.turn_number > 2
    assert refusal(game, RedeemFavour("blue", "merchants", Resource.ORE)).rule == "5.1.6"
    assert not [a for a in game.legal_actions() if isinstance(a, RedeemFavour)]
    owe(game, "blue", "traders")  # gained in the SBP
    end_turns_until(game, "blue")
    roll(game, 12)
    give(game, "blue", wool=1)
    assert RedeemFavour("blue", "traders") in game.legal_actions()


# -- 5.1.7: what each guild does -----------------------------------------------------------


def test_a_table_may_allow_fewer_traders_swaps():
    game = red_main(trader_swaps=1)
    usable(game, "red", "traders")
    set_hand(game, "red", wool=2)
    game.apply(RedeemFavour("red", "traders"))
    game.apply(TraderSwap("red", Resource.WOOL, Resource.ORE))
    assert refusal(game, TraderSwap("red", Resource.WOOL, Resource.ORE)).rule == "5.1.7"


def test_traders_swap_with_the_bank_twice():
    game = red_main()
    usable(game, "red", "traders")
    set_hand(game, "red", wool=3)
    game.apply(RedeemFavour("red", "traders"))
    game.apply(TraderSwap("red", Resource.WOOL, Resource.ORE))
    game.apply(TraderSwap("red", Resource.WOOL, Resource.BRICK))
    assert hand(game, "red") == {"wool": 1, "ore": 1, "brick": 1}
    assert refusal(game, TraderSwap("red", Resource.WOOL, Resource.ORE)).rule == "5.1.7"
    game.apply(EndTurn("red"))
    assert state(game)["swaps_left"] == 0  # they do not last beyond the turn


def test_merchants_give_any_resource():
    game = red_main()
    usable(game, "red", "merchants")
    set_hand(game, "red")
    assert refusal(game, RedeemFavour("red", "merchants")).rule == "5.1.7"
    game.apply(RedeemFavour("red", "merchants", Resource.GRAIN))
    assert hand(game, "red") == {"grain": 1}
    assert state(game)["redeemed"]["merchants"] == 1


def test_road_builders_build_a_road_for_free():
    game = red_main()
    usable(game, "red", "road_builders")
    set_hand(game, "red")
    game.apply(RedeemFavour("red", "road_builders"))
    assert game.phase == Phase.ROAD_BUILDING
    spot = game.road_spots("red")[0]
    game.apply(BuildRoad("red", spot))
    assert game.phase == Phase.MAIN and hand(game, "red") == {}
    assert game.roads_left[0] == 15 - 3


def test_scholars_draw_a_development_card_for_two_tiles():
    game = red_main()
    usable(game, "red", "scholars", "scholars")
    game.rng.picks.append(DEV_CARDS.index(DevCard.KNIGHT))  # type: ignore[attr-defined]
    events = game.apply(RedeemFavour("red", "scholars"))
    assert events[0]["card"] == "knight" and tiles(game, "red")["scholars"] == 0
    assert game.dev_hands[0][DEV_CARDS.index(DevCard.KNIGHT)] == 1
    assert refusal(game, PlayKnight("red")).rule  # like a bought card: not this turn
    from web.views import redact

    assert "card" not in redact(events[0], "blue") and redact(events[0], "red")["card"] == "knight"


def test_master_builders_give_a_catan_chip_while_they_last():
    game = red_main(catan_chips=1)
    usable(game, "red", *["master_builders"] * 4)
    before = game.victory_points(0)
    game.apply(RedeemFavour("red", "master_builders"))
    assert game.victory_points(0) == before + 1 and game.special_vp[0] == 1
    assert state(game)["chips"] == 0
    game.apply(EndTurn("red"))
    end_turns_until(game, "red")
    roll(game, 12)
    err = refusal(game, RedeemFavour("red", "master_builders"))
    assert err.rule == "5.1.7" and "used up" in str(err)


def test_a_redemption_that_could_do_nothing_is_refused():
    game = red_main()
    usable(game, "red", "traders")
    set_hand(game, "red")
    assert "hold none" in str(refusal(game, RedeemFavour("red", "traders")))
    assert RedeemFavour("red", "traders") not in game.legal_actions()


# -- 5.1.8: the swap -----------------------------------------------------------------------


def test_a_swap_draws_one_tile_and_returns_one():
    game = red_main()
    usable(game, "red", "traders")
    game.apply(SwapFavour("red", "scholars"))
    assert tiles(game, "red") == {**{g: 0 for g in GUILD_NAMES}, "traders": 1, "scholars": 1}
    assert set(game.legal_actions()) == {
        ReturnFavour("red", "traders"),
        ReturnFavour("red", "scholars"),
    }
    assert refusal(game, ReturnFavour("red", "merchants")).rule == "5.1.8"
    supply = dict(state(game)["supply"])
    game.apply(ReturnFavour("red", "traders"))
    assert (
        tiles(game, "red")["traders"] == 0
        and state(game)["supply"]["traders"] == supply["traders"] + 1
    )
    assert refusal(game, RedeemFavour("red", "scholars")).rule == "5.1.6"


# -- GAP BF-EMPTY-SUPPLY ---------------------------------------------------------------------


def test_an_empty_supply_pays_nothing_unless_the_table_reshuffles():
    game = red_main(favours={"merchants": 1})
    hook(game)._owe(game, ["red", "red"])
    assert state(game)["draws"] == ["red"]

    game = red_main(favours={"merchants": 1}, reshuffle=True)
    usable(game, "red", "merchants")
    game.apply(RedeemFavour("red", "merchants", Resource.ORE))
    hook(game)._owe(game, ["red"])
    assert state(game)["draws"] == ["red"] and state(game)["supply"]["merchants"] == 1


# -- 5.1.9 and a whole game ----------------------------------------------------------------


def test_a_scripted_game_to_11_points():
    """Red earns two favours a turn (a harmless robber move and a gift), turns each pair of
    master builders' tiles into a Catan chip, builds a road of five, a settlement and two
    cities, and wins with the last chip on its own turn."""
    game = bf_game()
    found(game)
    built_vp = 2  # the two founding settlements
    chips = 0
    longest = False
    red = FOUNDING_3[0][0], FOUNDING_3[5][0]
    events: list[dict[str, Any]] = []
    for turn in range(1, 6):
        end_turns_until(game, "red")
        if turn < 5:  # two favours: the robber where nobody lives, and a gift
            roll(game, 7)
            game.apply(MoveRobber("red", empty_hexes(game)[0]))
            game.apply(DrawFavour("red", "master_builders"))
            give(game, "red", wool=1)
            partner = "blue" if turn % 2 else "white"
            game.apply(OfferGift("red", partner, Resource.WOOL))
            game.apply(AcceptGift(partner))
            game.apply(DrawFavour("red", "master_builders"))
        else:
            roll(game, 12)
        if turn == 2:
            build_roads(game, "red", road_chain(game, "red", 4))
            longest = game.longest_road == 0
        elif turn == 3:
            build_settlement(game, "red", game.settlement_spots("red")[0])
            built_vp += 1
        elif turn >= 4:
            build_city(game, "red", red[turn - 4])
            built_vp += 1
        if turn > 1:  # last turn's two tiles make a chip
            events = game.apply(RedeemFavour("red", "master_builders"))
            chips += 1
        if turn < 5:
            assert game.phase == Phase.MAIN
            game.apply(EndTurn("red"))
    assert longest and chips == 4
    assert game.phase == Phase.GAME_OVER and game.winner_color == "red"
    assert events[-1] == {"type": "won", "player": "red", "victory_points": 11}
    assert built_vp + 2 + chips == 11 == game.victory_points(0)


def test_a_journaled_game_replays_with_its_drawn_favours(tmp_path):
    from companion.bots import GreedyBot
    from companion.journal import JournaledGame

    s = load_scenario("best-friends", 4, seed=5)
    jg = JournaledGame.create(tmp_path / "bf.sqlite", s.board, COLORS6[:4], s.rules, seed=5)
    bot = GreedyBot(seed=5)
    draws = 0
    while jg.game.phase != Phase.GAME_OVER:
        action = bot.choose(jg.game)
        draws += isinstance(action, DrawFavour)
        jg.apply(action)
    assert draws > 0
    jg.close()
    again = JournaledGame.open(tmp_path / "bf.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    again.close()


def test_the_views_show_the_supply_and_hide_the_tiles():
    game = red_main()
    owe(game, "red", "scholars", "traders")
    public = game.public_view()["scenario"]["panels"][0]
    held = public["sections"][0]["items"]
    assert held[0] == {"label": "red", "value": 2, "color": "red", "text": "favour tiles"}
    assert "scholars" not in json.dumps(held)
    mine = game.private_view("red")["you"]["scenario"]["panels"][0]["sections"][0]["items"]
    assert {i["label"]: i["value"] for i in mine} == {"Traders": 1, "Scholars": 1}
    assert game.private_view("blue")["you"]["scenario"]["panels"][0]["sections"][0]["items"] == []
    assert game.public_view()["scenario"]["actions"]["redeem_favour"] == "Redeem a favour"
