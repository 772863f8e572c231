"""The Wonders of Catan (Seafarers scenario 8, RULES.md §4.8 and checks S8-* of §7.4).

Games are played on the packaged map (``companion/scenarios/wonders.json``) through the public
API: founding spots are picked by their place on the map (next to the strait, on a harbour...),
the rest of the founding is left to a computer player, dice come from a :class:`Script`.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import replace
from typing import Any

import pytest
from conftest import Script, build_city, buy_card, refusal, roll, set_hand

from companion.actions import (
    BuildRoad,
    BuildSettlement,
    BuildShip,
    DevCard,
    EndTurn,
    MovePirate,
    action_from_json,
    action_to_json,
)
from companion.board import RESOURCES, Terrain, Vertex, vertex, vertex_hexes
from companion.bots import GreedyBot
from companion.game import Game, Phase
from companion.hooks.wonders import BuildWonderLevel, StartWonder, Wonders
from companion.journal import JournaledGame
from companion.longest_route import ROAD
from companion.scenario import SCENARIO_DIR, Scenario, load_scenario

COLORS = ["red", "blue", "white", "orange"]
FILE = json.loads((SCENARIO_DIR / "wonders.json").read_text())
WONDER_CARDS = FILE["hooks"][1]["wonders"]


def marks(players: int = 4) -> dict[str, list[Vertex]]:
    """The marked corners of the file's map, by mark (strait, desert_border, warning)."""
    return {
        name: [vertex(*c) for c in corners]
        for name, corners in FILE["layouts"][str(players)]["marks"].items()
    }


def cost(wonder: str) -> dict[str, int]:
    return dict(WONDER_CARDS[wonder]["cost"])


def new_game(
    players: int = 4, seed: int = 1, ships: int = 15, **wonder_params: Any
) -> tuple[Game, Scenario]:
    """A game of the scenario (scripted dice); ``wonder_params`` change the wonders hook."""
    s = load_scenario("wonders", players, seed=seed)
    rules = replace(s.rules, ships=ships)
    if wonder_params:
        hooks = tuple({**h, **wonder_params} if h["hook"] == "wonders" else h for h in rules.hooks)
        rules = replace(rules, hooks=hooks)
    return Game(s.board, COLORS[:players], rules, Script()), s


def wonders_hook(game: Game) -> Wonders:
    return next(h for h in game.hooks if isinstance(h, Wonders))


def corner(game: Game, v: Vertex) -> int:
    return game.topology.vertex_index[v]


def land_distances(game: Game, target: int) -> dict[int, int]:
    """Steps over land sides from every corner to corner ``target``."""
    t = game.topology
    dist = {target: 0}
    queue = deque([target])
    while queue:
        v = queue.popleft()
        for e in t.vertex_edges[v]:
            if game.edge_land[e]:
                w = next(x for x in t.edge_vertices[e] if x != v)
                if w not in dist:
                    dist[w] = dist[v] + 1
                    queue.append(w)
    return dist


def found(game: Game, first: dict[str, int] | None = None, seed: int = 1) -> None:
    """Play the founding phase: each colour in ``first`` puts its first settlement on that
    corner; everything else is chosen by a computer player."""
    first = dict(first or {})
    bot = GreedyBot(seed=seed)
    while game.phase != Phase.ROLL:
        color = game.players[game.actor]
        if game.phase == Phase.FOUNDING_SETTLEMENT and color in first:
            game.apply(BuildSettlement(color, game.topology.vertices[first.pop(color)]))
        else:
            game.apply(bot.choose(game))


def coastal_spot_near(game: Game, target: int) -> int:
    """The legal founding corner on the coast nearest to corner ``target`` over land."""
    t = game.topology
    dist = land_distances(game, target)
    spots = [corner(game, a.vertex) for a in game.legal_actions()]
    coastal = [v for v in spots if v in dist and any(game.edge_sea[e] for e in t.vertex_edges[v])]
    return min(coastal, key=lambda v: (dist[v], v))


def found_near(game: Game, color: str, target: int) -> None:
    """Founding with ``color``'s first settlement on the legal corner nearest to ``target``."""
    dist = land_distances(game, target)
    spots = [corner(game, a.vertex) for a in game.legal_actions()]
    found(game, {color: min((v for v in spots if v in dist), key=lambda v: (dist[v], v))})


def road_path(game: Game, color: str, target: int) -> list[int]:
    """The fewest new roads that join ``color``'s network to corner ``target`` over land,
    through no opponent's corner."""
    t = game.topology
    p = game.seat(color)
    roads = [e for e in game.pieces_of[p] if game.edge_kind[e] == ROAD]
    starts = set(game.buildings_of[p]) | {v for e in roads for v in t.edge_vertices[e]}
    prev: dict[int, tuple[int, int] | None] = {v: None for v in starts}
    queue = deque(sorted(starts))
    while queue:
        v = queue.popleft()
        if v == target:
            path = []
            while prev[v] is not None:
                v, e = prev[v]  # type: ignore[misc]
                path.append(e)
            return [e for e in reversed(path) if game.edge_owner[e] != p]
        if game.vertex_owner[v] not in (-1, p):
            continue
        for e in t.vertex_edges[v]:
            own_road = game.edge_owner[e] == p and game.edge_kind[e] == ROAD
            if game.edge_land[e] and (game.edge_owner[e] == -1 or own_road):
                w = next(x for x in t.edge_vertices[e] if x != v)
                if w not in prev:
                    prev[w] = (v, e)
                    queue.append(w)
    raise AssertionError(f"no way over land for {color} to corner {t.vertices[target]}")


def roads_to(game: Game, color: str, target: int) -> int | None:
    """How many new roads join ``color``'s network to ``target``, None if no way."""
    try:
        return len(road_path(game, color, target))
    except AssertionError:
        return None


def build_roads_to(game: Game, color: str, target: int) -> None:
    """``color`` (to move, after the roll) pays for and builds the roads to ``target``."""
    for e in road_path(game, color, target):
        set_hand(game, color, lumber=1, brick=1)
        game.apply(BuildRoad(color, game.topology.edges[e]))


def settle(game: Game, color: str, target: int) -> None:
    """``color`` builds roads to ``target`` and a settlement on it."""
    build_roads_to(game, color, target)
    set_hand(game, color, lumber=1, brick=1, wool=1, grain=1)
    game.apply(BuildSettlement(color, game.topology.vertices[target]))


def lengthen(game: Game, color: str, length: int) -> None:
    """``color`` (to move, after the roll) builds roads until its trade route is ``length``
    long: along the shortest way to the farthest corner it can reach."""
    p = game.seat(color)
    home = min(game.buildings_of[p])
    by_distance = sorted(land_distances(game, home).items(), key=lambda kv: (-kv[1], kv[0]))
    far = next(v for v, _ in by_distance if roads_to(game, color, v) is not None)
    while game.road_lengths[p] < length:
        e = road_path(game, color, far)[0]
        set_hand(game, color, lumber=1, brick=1)
        game.apply(BuildRoad(color, game.topology.edges[e]))


def next_turn(game: Game, color: str) -> None:
    """End turns (rolling 12) until ``color`` has rolled its own turn."""
    for _ in range(len(game.players) + 1):
        if game.current_player == color and game.phase == Phase.ROLL:
            roll(game, 12)
            return
        if game.phase == Phase.ROLL:
            roll(game, 12)
        game.apply(EndTurn(game.current_player))
    raise AssertionError(f"never reached {color}'s turn")


def cities_for(game: Game, color: str, n: int) -> list[int]:
    """``color`` turns ``n`` of its settlements into cities; returns their corners."""
    p = game.seat(color)
    spots = sorted(v for v in game.buildings_of[p] if game.vertex_level[v] == 1)[:n]
    for v in spots:
        build_city(game, color, game.topology.vertices[v])
    return spots


def score(game: Game, color: str) -> int:
    """``color``'s victory points counted from the public snapshot and their cards, apart
    from the engine's own tally (RULES.md 1.13.1, 3.8.1)."""
    snap = game.snapshot()
    p = game.seat(color)
    pieces = Counter(kind for _, owner, kind in snap["buildings"] if owner == color)
    return (
        pieces["settlement"]
        + 2 * pieces["city"]
        + snap["special_vp"][p]
        + snap["dev_hands"][color][1]
        + 2 * (snap["longest_road"] == color)
        + 2 * (snap["largest_army"] == color)
    )


# -- the scenario file ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_the_map_uses_the_material_of_4_8_for_three_and_four_players(players: int) -> None:
    for seed in range(3):
        s = load_scenario("wonders", players, seed=seed)
        terrain = s.board.terrain_counts()
        assert terrain == Counter(
            {
                Terrain.SEA: 19,
                Terrain.DESERT: 3,
                Terrain.GOLD: 2,
                Terrain.FIELDS: 5,
                Terrain.HILLS: 5,
                Terrain.MOUNTAINS: 5,
                Terrain.PASTURE: 5,
                Terrain.FOREST: 5,
            }
        )
        chips = {2: 2, 12: 1} | {n: 3 for n in (3, 4, 5, 6, 8, 9, 10, 11)}
        assert s.board.chip_counts() == Counter(chips) and sum(chips.values()) == 27
        kinds = Counter(h.kind for h in s.board.harbors)
        assert kinds.pop("3:1") == 4 and sorted(kinds) == sorted(r.value for r in RESOURCES)
        assert s.catan_chips == 10
        assert s.rules.victory_points == 10 and s.rules.ships == 15


def test_the_variable_set_up_rearranges_the_main_island_with_no_red_next_to_a_desert() -> None:
    """4.8.10 and check S8-DESERT-NEIGHBOURS; the deserts and small islands stay put."""
    from companion.board import hex_neighbours

    boards = [load_scenario("wonders", 4, seed=seed).board for seed in range(8)]
    main = load_scenario("wonders", 4, seed=0).areas["main"]
    layouts = {tuple(b.tiles[h] for h in sorted(main)) for b in boards}
    assert len(layouts) == len(boards)
    for board in boards:
        deserts = [h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT]
        assert deserts == [h for h, t in boards[0].tiles.items() if t.terrain == Terrain.DESERT]
        for d in deserts:
            for h in hex_neighbours(d):
                assert h not in board.tiles or board.tiles[h].number not in (6, 8)
        small = {h: t for h, t in board.tiles.items() if h not in main}
        assert small == {h: t for h, t in boards[0].tiles.items() if h not in main}


# -- founding, robber, pirate (4.8.1-4.8.3) -------------------------------------------------------


def test_founding_is_refused_on_the_small_islands_and_on_every_marked_corner() -> None:
    """4.8.1, S8-FOUND-FORBIDDEN: brown and purple squares, yellow "!", small islands."""
    game, s = new_game()
    for name, corners in marks().items():
        for v in corners:
            err = refusal(game, BuildSettlement("red", v))
            assert err.rule == "4.8.1" and "marked corner" in err.reason, name
    t = game.topology
    small = s.areas["small"]
    islet = next(
        v
        for v in range(len(t.vertices))
        if game.vertex_land[v] and {t.hexes[h] for h in t.vertex_hexes[v]} & small
    )
    err = refusal(game, BuildSettlement("red", t.vertices[islet]))
    assert err.rule == "4.8.1" and "small" in err.reason
    legal = {a.vertex for a in game.legal_actions()}
    assert not legal & {v for corners in marks().values() for v in corners}
    assert all(not {t.hexes[h] for h in t.vertex_hexes[corner(game, v)]} & small for v in legal)


def test_a_coastal_founding_settlement_may_take_a_ship_and_marked_corners_open_after() -> None:
    """4.8.1: a ship instead of the road (3.3.1); the marks bind only the founding."""
    game, _ = new_game()
    t = game.topology
    strait = corner(game, marks()["strait"][0])
    game.apply(BuildSettlement("red", t.vertices[coastal_spot_near(game, strait)]))
    ships = [a for a in game.legal_actions() if isinstance(a, BuildShip)]
    assert ships
    game.apply(ships[0])
    assert game.ships_left[0] == 14
    found(game)
    next_turn(game, "red")
    settle(game, "red", strait)
    assert game.vertex_owner[strait] == 0


def test_the_robber_starts_on_a_desert_and_there_is_no_pirate() -> None:
    """4.8.3 and S8-ROBBER: the robber on one of the three deserts, no pirate at all."""
    game, s = new_game()
    assert s.board.tiles[s.board.robber].terrain == Terrain.DESERT
    assert s.board.pirate is None and game.pirate is None
    found(game)
    roll(game, 7)
    while game.phase == Phase.DISCARD:
        game.apply(game.legal_actions()[0])
    assert game.phase == Phase.MOVE_ROBBER
    assert not any(isinstance(a, MovePirate) for a in game.legal_actions())
    sea = next(h for h, t in s.board.tiles.items() if t.terrain == Terrain.SEA)
    assert refusal(game, MovePirate("red", sea)).rule == "3.6.1"


# -- special victory points (4.8.4) ---------------------------------------------------------------


def test_every_settlement_built_on_a_small_island_earns_a_chip_while_the_chips_last() -> None:
    """4.8.4 and its GAP choices: each such settlement (not only the first) gets 1 VP; the
    supply is the 10 chips less the players' wonder markers."""
    game, s = new_game()
    found(game)
    t = game.topology
    bonus = next(h for h in game.hooks if h.name == "settlement_bonus")
    assert bonus.supply == 6 and load_scenario("wonders", 3).rules.hooks[2]["supply"] == 7
    small = s.areas["small"]
    islets = [
        v
        for v in range(len(t.vertices))
        if game.vertex_land[v]
        and {t.hexes[h] for h in t.vertex_hexes[v] if game.hex_land[h]} <= small
    ]
    main_corner = next(v for v in game.buildings_of[0])
    # Founding settlements on a small island would earn nothing (they are refused anyway).
    assert bonus.after_settlement(game, 0, islets[0], True) == []
    assert bonus.after_settlement(game, 0, main_corner, False) == []
    events = [bonus.after_settlement(game, 0, v, False) for v in islets[:7]]
    assert [len(e) for e in events] == [1, 1, 1, 1, 1, 1, 0]  # the seventh finds none left
    assert events[0][0] == {
        "type": "special_vp",
        "player": "red",
        "vp": 1,
        "why": "settlement on a small island",
        "text": "takes a Catan chip (1 VP) for a settlement on a small island",
    }
    assert game.special_vp[0] == 6


def test_a_settlement_sailed_to_a_small_island_scores_its_chip() -> None:
    game, s = new_game()
    t = game.topology
    small = s.areas["small"]
    targets = {
        v
        for v in range(len(t.vertices))
        if game.vertex_land[v]
        and {t.hexes[h] for h in t.vertex_hexes[v] if game.hex_land[h]} <= small
    }
    found(game)
    next_turn(game, "red")
    before = score(game, "red")
    path = _ship_path(game, "red", targets)
    for e in path:
        set_hand(game, "red", lumber=1, wool=1)
        game.apply(BuildShip("red", t.edges[e]))
    end = next(v for v in t.edge_vertices[path[-1]] if v in targets)
    set_hand(game, "red", lumber=1, brick=1, wool=1, grain=1)
    events = game.apply(BuildSettlement("red", t.vertices[end]))
    assert events[-1]["why"] == "settlement on a small island"
    assert score(game, "red") == before + 2 == game.public_victory_points(0)


def _ship_path(game: Game, color: str, targets: set[int]) -> list[int]:
    """The fewest ships from ``color``'s buildings to a free corner of ``targets`` that the
    distance rule allows."""
    t = game.topology
    p = game.seat(color)
    ok = {
        v
        for v in targets
        if game.vertex_owner[v] == -1
        and all(game.vertex_owner[n] == -1 for n in t.vertex_neighbours[v])
    }
    prev: dict[int, tuple[int, int] | None] = {v: None for v in game.buildings_of[p]}
    queue = deque(sorted(prev))
    while queue:
        v = queue.popleft()
        if v in ok:
            path = []
            while prev[v] is not None:
                v, e = prev[v]  # type: ignore[misc]
                path.append(e)
            return path[::-1]
        for e in t.vertex_edges[v]:
            if game.edge_sea[e] and game.edge_owner[e] == -1:
                w = next(x for x in t.edge_vertices[e] if x != v)
                if w not in prev and game.vertex_owner[w] == -1:
                    prev[w] = (v, e)
                    queue.append(w)
    raise AssertionError("no way by sea to a small island")


# -- starting a wonder (4.8.5, 4.8.6, 4.8.8, S8-WONDER-START) ----------------------------------


def test_a_wonder_is_started_only_when_its_condition_holds_and_commits_its_builder() -> None:
    game, _ = new_game()
    found(game)
    next_turn(game, "red")
    err = refusal(game, StartWonder("red", "great_theatre"))
    assert err.rule == "4.8.8" and "2 cities" in err.reason
    cities_for(game, "red", 2)
    legal = [a for a in game.legal_actions() if isinstance(a, StartWonder)]
    assert StartWonder("red", "great_theatre") in legal
    assert StartWonder("red", "great_bridge") not in legal  # no settlement on the strait
    hand, ships = list(game.hands[0]), game.ships_left[0]
    events = game.apply(StartWonder("red", "great_theatre"))
    assert events == [
        {
            "type": "wonder_started",
            "player": "red",
            "wonder": "great_theatre",
            "text": "starts the Great Theatre",
            "ship": True,
        }
    ]
    # 4.8.6: one of red's ships goes on the card; no card is paid
    assert game.ships_left[0] == ships - 1 and game.hands[0] == hand
    assert wonders_hook(game).pieces_aside(game, 0) == {"ships": 1}
    assert refusal(game, StartWonder("red", "palace")).rule == "4.8.6"  # one wonder each
    assert not any(isinstance(a, StartWonder) for a in game.legal_actions())
    assert refusal(game, StartWonder("red", "eiffel_tower")).rule == "4.8.5"


def test_a_wonder_taken_is_closed_to_the_others_and_starting_waits_for_ones_turn() -> None:
    """4.8.5 and S8-WONDER-START: later players choose among the wonders not yet taken."""
    game, _ = new_game()
    found(game)
    next_turn(game, "red")
    cities_for(game, "red", 2)
    assert refusal(game, StartWonder("blue", "great_theatre")).rule == "4.8.7"  # not blue's turn
    game.apply(StartWonder("red", "great_theatre"))
    next_turn(game, "blue")
    cities_for(game, "blue", 2)
    err = refusal(game, StartWonder("blue", "great_theatre"))
    assert err.rule == "4.8.5" and "red has taken the Great Theatre" in err.reason
    offered = {a.wonder for a in game.legal_actions() if isinstance(a, StartWonder)}
    assert "great_theatre" not in offered
    buy_card(game, "blue", DevCard.VICTORY_POINT)
    buy_card(game, "blue", DevCard.VICTORY_POINT)  # 2 cities and 2 cards: 6 points
    game.apply(StartWonder("blue", "palace"))
    assert wonders_hook(game).started(game) == {"red": "great_theatre", "blue": "palace"}


def test_the_palace_needs_a_city_and_six_points() -> None:
    game, _ = new_game()
    found(game)
    next_turn(game, "red")
    assert "needs 1 city" in refusal(game, StartWonder("red", "palace")).reason
    cities_for(game, "red", 1)
    assert game.victory_points(0) == 3
    assert "6 victory points" in refusal(game, StartWonder("red", "palace")).reason
    for _ in range(3):
        buy_card(game, "red", DevCard.VICTORY_POINT)
    game.apply(StartWonder("red", "palace"))


@pytest.mark.parametrize(
    ("wonder", "mark"), [("great_bridge", "strait"), ("great_wall", "desert_border")]
)
def test_the_bridge_and_the_wall_need_a_settlement_on_their_marked_corners(wonder, mark) -> None:
    game, _ = new_game()
    target = corner(game, marks()[mark][0])
    found_near(game, "red", target)
    next_turn(game, "red")
    err = refusal(game, StartWonder("red", wonder))
    assert err.rule == "4.8.8" and "marked corners" in err.reason
    settle(game, "red", target)
    game.apply(StartWonder("red", wonder))
    assert wonders_hook(game).started(game) == {"red": wonder}


def test_the_colossus_needs_a_harbour_city_and_a_trade_route_of_five() -> None:
    game, _ = new_game()
    spots = {corner(game, a.vertex) for a in game.legal_actions()}
    harbour = min(v for v in game.vertex_harbor if v in spots)
    found(game, {"red": harbour})
    next_turn(game, "red")
    build_city(game, "red", game.topology.vertices[harbour])
    lengthen(game, "red", 4)
    err = refusal(game, StartWonder("red", "colossus"))
    assert "trade route of 5" in err.reason
    lengthen(game, "red", 5)
    game.apply(StartWonder("red", "colossus"))


def test_a_city_away_from_the_harbours_does_not_open_the_colossus() -> None:
    game, _ = new_game()
    spots = [corner(game, a.vertex) for a in game.legal_actions()]
    inland = min(v for v in spots if v not in game.vertex_harbor)
    found(game, {"red": inland})
    next_turn(game, "red")
    build_city(game, "red", game.topology.vertices[inland])
    assert "city on a harbour" in refusal(game, StartWonder("red", "colossus")).reason


@pytest.mark.parametrize("ship", ["if_any", "required"])
def test_with_no_ship_left_the_table_chooses_whether_a_wonder_may_start(ship: str) -> None:
    """GAP (4.8.6): the ship is a marker; "if_any" starts without one, "required" refuses."""
    game, _ = new_game(ships=1, ship=ship)  # one ship each: red's founding ship uses it up
    strait = corner(game, marks()["strait"][0])
    coastal = coastal_spot_near(game, strait)
    game.apply(BuildSettlement("red", game.topology.vertices[coastal]))
    game.apply(next(a for a in game.legal_actions() if isinstance(a, BuildShip)))
    found(game)
    next_turn(game, "red")
    cities_for(game, "red", 2)
    assert game.ships_left[0] == 0
    if ship == "required":
        assert refusal(game, StartWonder("red", "great_theatre")).rule == "4.8.6"
        return
    events = game.apply(StartWonder("red", "great_theatre"))
    assert "ship" not in events[0] and wonders_hook(game).pieces_aside(game, 0) == {}


# -- building the levels (4.8.7) ------------------------------------------------------------------


def test_levels_cost_the_cards_on_the_wonder_card_and_several_may_be_paid_in_one_turn() -> None:
    game, _ = new_game()
    found(game)
    next_turn(game, "red")
    assert refusal(game, BuildWonderLevel("red")).rule == "4.8.6"  # nothing started
    cities_for(game, "red", 2)
    game.apply(StartWonder("red", "great_theatre"))
    price = cost("great_theatre")
    assert sum(price.values()) == 5
    set_hand(game, "red", **{r: 2 * n for r, n in price.items()}, ore=1)
    bank = list(game.bank)
    points = game.victory_points(0)
    for level in (1, 2):
        events = game.apply(BuildWonderLevel("red"))
        assert events == [
            {
                "type": "wonder_level",
                "player": "red",
                "wonder": "great_theatre",
                "level": level,
                "text": f"builds level {level} of the Great Theatre",
                "cards": price,
            }
        ]
    assert game.hands[0] == [0, 0, 0, 0, 1]
    paid = [2 * price.get(r.value, 0) for r in RESOURCES]
    assert [b - a for a, b in zip(bank, game.bank, strict=True)] == paid
    assert game.victory_points(0) == points  # 4.8.9: wonder levels are not victory points
    assert wonders_hook(game).level(game, "red") == 2
    err = refusal(game, BuildWonderLevel("red"))
    assert err.rule == "4.8.7" and "costs" in err.reason
    assert BuildWonderLevel("red") not in game.legal_actions()


@pytest.mark.parametrize("condition", ["start", "every_level"])
def test_the_condition_binds_later_levels_only_when_the_table_says_so(condition: str) -> None:
    """GAP (4.8.8): by default the condition is needed to start; ``every_level`` asks it
    again for each level. Red's Palace rests on Longest Road's 2 points, which blue takes."""
    game, _ = new_game(condition=condition)
    found(game)
    next_turn(game, "red")
    cities_for(game, "red", 1)
    lengthen(game, "red", 5)
    buy_card(game, "red", DevCard.VICTORY_POINT)
    assert game.longest_road == 0 and game.victory_points(0) == 6
    game.apply(StartWonder("red", "palace"))
    next_turn(game, "blue")
    lengthen(game, "blue", game.road_lengths[0] + 1)
    assert game.longest_road == 1 and game.victory_points(0) == 4
    next_turn(game, "red")
    set_hand(game, "red", **cost("palace"))
    if condition == "every_level":
        err = refusal(game, BuildWonderLevel("red"))
        assert err.rule == "4.8.8" and "6 victory points" in err.reason
        assert BuildWonderLevel("red") not in game.legal_actions()
    else:
        game.apply(BuildWonderLevel("red"))
        assert wonders_hook(game).level(game, "red") == 1


# -- the end of the game (4.8.9) ------------------------------------------------------------------


def test_scripted_game_won_by_completing_a_wonder_below_ten_points() -> None:
    """Red takes the Great Theatre with two cities and pays its four levels over three turns;
    the fourth level wins at once, with 4 points (two cities), far below the 10 of the file."""
    game, _ = new_game()
    found(game)
    next_turn(game, "red")
    cities_for(game, "red", 2)
    game.apply(StartWonder("red", "great_theatre"))
    price = cost("great_theatre")
    set_hand(game, "red", **{r: 2 * n for r, n in price.items()})
    game.apply(BuildWonderLevel("red"))
    game.apply(BuildWonderLevel("red"))
    next_turn(game, "red")
    set_hand(game, "red", **price)
    game.apply(BuildWonderLevel("red"))
    assert game.phase == Phase.MAIN and game.winner is None
    next_turn(game, "red")
    set_hand(game, "red", **price)
    events = game.apply(BuildWonderLevel("red"))
    expected = score(game, "red")
    assert expected == 4 < game.rules.victory_points
    assert events[-1] == {"type": "won", "player": "red", "victory_points": expected}
    assert game.winner_color == "red" and game.phase == Phase.GAME_OVER
    assert wonders_hook(game).level(game, "red") == 4
    assert refusal(game, EndTurn("red")).rule == "1.13.2"
    assert [score(game, c) for c in COLORS] == [game.victory_points(p) for p in range(4)]


def test_scripted_game_won_with_ten_points_and_more_levels_than_anyone() -> None:
    """Red reaches 10 points with no level: no win (the points alone never win). Blue builds a
    level of the Great Theatre; red starts the Palace and ties blue at one level (no win), then
    wins with its second level."""
    game, _ = new_game()
    found(game)
    next_turn(game, "red")
    cities_for(game, "red", 2)
    for _ in range(5):
        buy_card(game, "red", DevCard.VICTORY_POINT)
    p = 0
    t = game.topology
    spot = next(
        v
        for v in range(len(t.vertices))
        if game.vertex_owner[v] == -1
        and game.vertex_land[v]
        and all(game.vertex_owner[n] == -1 for n in t.vertex_neighbours[v])
        and roads_to(game, "red", v) == 2
    )
    settle(game, "red", spot)
    assert score(game, "red") == game.victory_points(p) == 10
    assert game.winner is None and game.phase == Phase.MAIN
    next_turn(game, "blue")
    cities_for(game, "blue", 2)
    game.apply(StartWonder("blue", "great_theatre"))
    set_hand(game, "blue", **cost("great_theatre"))
    game.apply(BuildWonderLevel("blue"))
    next_turn(game, "red")
    assert game.winner is None
    game.apply(StartWonder("red", "palace"))
    set_hand(game, "red", **{r: 2 * n for r, n in cost("palace").items()})
    game.apply(BuildWonderLevel("red"))
    assert game.winner is None  # one level each: not more than every other player
    events = game.apply(BuildWonderLevel("red"))
    assert events[-1] == {"type": "won", "player": "red", "victory_points": score(game, "red")}
    assert game.winner_color == "red" and score(game, "red") == 10


def test_the_points_may_win_only_with_strictly_more_levels_and_the_goal_is_the_last() -> None:
    """4.8.9 as the hook judges a state: ``may_win`` (the points' condition) and
    ``goal_reached`` (the completed wonder), read from the hook's memory."""
    game, _ = new_game()
    hook = wonders_hook(game)
    state = {"started": {"red": "palace", "blue": "great_theatre"}, "levels": {"red": 1}}
    game.hook_state["wonders"] = state
    assert hook.may_win(game, 0) and not hook.may_win(game, 1) and not hook.may_win(game, 2)
    state["levels"]["blue"] = 1
    assert not hook.may_win(game, 0) and not hook.goal_reached(game, 0)
    state["levels"]["red"] = 4
    assert hook.goal_reached(game, 0) and not hook.goal_reached(game, 1)


# -- the set-up checks (§7.4) ----------------------------------------------------------------------


def test_check_setup_passes_the_scenarios_board_and_names_each_broken_s8_rule(tmp_path, capsys):
    from companion.cli import main

    s = load_scenario("wonders", 4, seed=2)
    path = tmp_path / "wonders.json"
    s.board.save(path)
    assert main(["check-setup", str(path), "--scenario", "wonders", "--players", "4"]) == 0
    capsys.readouterr()
    data = json.loads(path.read_text())
    strait = marks()["strait"][0]
    data["pieces"] = [
        {"kind": "settlement", "color": "red", "vertex": list(strait)},
        {"kind": "settlement", "color": "blue", "vertex": [-3, 3, "N"]},  # a small island
    ]
    field = next(h for h in data["hexes"] if h["terrain"] not in ("sea", "desert"))
    data["robber"] = {"q": field["q"], "r": field["r"]}
    deserts = {(h["q"], h["r"]) for h in data["hexes"] if h["terrain"] == "desert"}
    from companion.board import hex_neighbours

    by_hex = {(h["q"], h["r"]): h for h in data["hexes"]}
    beside = next(
        by_hex[n]
        for d in sorted(deserts)
        for n in hex_neighbours(d)
        if n in by_hex and by_hex[n].get("number") and n not in deserts
    )
    red = next(h for h in data["hexes"] if h.get("number") in (6, 8))
    beside["number"], red["number"] = red["number"], beside["number"]
    path.write_text(json.dumps(data))
    assert main(["check-setup", str(path), "--scenario", "wonders", "--json"]) == 1
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    rules = Counter(v["rule"] for v in report["violations"])
    assert rules["S8-FOUND-FORBIDDEN"] == 2
    assert rules["S8-ROBBER"] == 1 and rules["S8-DESERT-NEIGHBOURS"] >= 1
    messages = [v["message"] for v in report["violations"] if v["rule"] == "S8-FOUND-FORBIDDEN"]
    assert any("marked corner" in m for m in messages)
    assert any("small island" in m for m in messages)


# -- the table: JSON, journal, page --------------------------------------------------------------


def test_wonder_actions_travel_as_json() -> None:
    for action in (StartWonder("red", "palace"), BuildWonderLevel("blue")):
        data = action_to_json(action)
        assert action_from_json(json.loads(json.dumps(data))) == action
    assert action_to_json(StartWonder("red", "palace")) == {
        "type": "start_wonder",
        "player": "red",
        "wonder": "palace",
    }


def test_a_journaled_game_replays_to_the_same_wonders(tmp_path) -> None:
    s = load_scenario("wonders", 4, seed=4)
    jg = JournaledGame.create(tmp_path / "w.sqlite", s.board, COLORS, s.rules, seed=4)
    bot = GreedyBot(seed=4)
    kinds = Counter()
    while jg.game.phase != Phase.GAME_OVER:
        action = bot.choose(jg.game)
        kinds[type(action).__name__] += 1
        jg.apply(action)
    assert kinds["StartWonder"] >= 1 and kinds["BuildWonderLevel"] >= 1
    jg.close()
    again = JournaledGame.open(tmp_path / "w.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    assert again.game.hook_state["wonders"] == jg.game.hook_state["wonders"]
    again.close()


def test_replay_tells_the_wonders_in_words(tmp_path, capsys) -> None:
    from companion.cli import main

    s = load_scenario("wonders", 4, seed=4)
    jg = JournaledGame.create(tmp_path / "w.sqlite", s.board, COLORS, s.rules, seed=4)
    bot = GreedyBot(seed=4)
    while jg.game.phase != Phase.GAME_OVER:
        jg.apply(bot.choose(jg.game))
    wonders = wonders_hook(jg.game)
    started = wonders.started(jg.game)
    jg.close()
    assert main(["replay", str(tmp_path / "w.sqlite")]) == 0
    out = capsys.readouterr().out
    for color, wonder in started.items():
        assert f"{color} starts the {wonders.wonders[wonder].title}" in out
    assert "builds level 1 of the" in out


def test_the_public_view_shows_each_wonder_its_builder_and_level() -> None:
    game, _ = new_game()
    found(game)
    next_turn(game, "red")
    cities_for(game, "red", 2)
    game.apply(StartWonder("red", "great_theatre"))
    set_hand(game, "red", **cost("great_theatre"))
    game.apply(BuildWonderLevel("red"))
    view = game.public_view()["scenario"]
    panel = next(p for p in view["panels"] if p["hook"] == "wonders")
    items = {i["label"]: i for i in panel["sections"][0]["items"]}
    assert set(items) == {card["title"] for card in WONDER_CARDS.values()}
    theatre = items["Great Theatre"]
    assert theatre["color"] == "red" and theatre["value"] == "1/4"
    assert "2 cities" in theatre["text"] and "2 grain" in theatre["text"]
    assert "color" not in items["Palace"] and "value" not in items["Palace"]
    assert view["actions"] == {
        "start_wonder": "Start a wonder",
        "build_wonder_level": "Build a wonder level",
    }
    # the marks in words: a board laid from our map has no printed squares to look at
    marked = {i["label"]: i["text"] for i in panel["sections"][1]["items"]}
    assert len(marked) == 3
    strait = next(text for label, text in marked.items() if label.startswith("Strait"))
    places = strait.split("; ")
    assert len(places) == len(marks()["strait"])
    for v, place in zip(marks()["strait"], places, strict=True):
        tiles = [game.board.tiles[h] for h in vertex_hexes(v) if h in game.board.tiles]
        for tile in tiles:
            if tile.terrain.is_land:
                assert f"{tile.terrain.value} {tile.number}" in place
        assert ("the sea" in place) == any(not t.terrain.is_land for t in tiles)


# -- the file's parameters ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"condition": "sometimes"}, "condition is 'start' or 'every_level'"),
        ({"ship": "borrowed"}, "ship is 'if_any' or 'required'"),
        ({"wonders": {"pyramid": {"needs": {"camels": 3}, "cost": {}}}}, "unknown condition"),
        ({"wonders": {"pyramid": {"needs": {}, "cost": {"sand": 5}}}}, "unknown resource"),
    ],
)
def test_a_wonders_hook_with_a_bad_parameter_is_refused_when_the_file_loads(
    tmp_path, change: dict[str, Any], message: str
) -> None:
    from companion.scenario import ScenarioError

    data = json.loads(json.dumps(FILE))
    data["hooks"][1].update(change)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match=message):
        load_scenario(path, 4)


def test_a_home_made_wonder_with_its_own_condition_and_cost_can_be_played(tmp_path) -> None:
    data = json.loads(json.dumps(FILE))
    data["hooks"][1]["wonders"] = {
        "lighthouse": {
            "title": "Lighthouse",
            "needs": {"cities": 1},
            "cost": {"ore": 1, "wool": 1},
        }
    }
    data["hooks"][1]["levels"] = 2
    path = tmp_path / "lighthouse.json"
    path.write_text(json.dumps(data))
    s = load_scenario(path, 4, seed=1)
    game = Game(s.board, COLORS, s.rules, Script())
    found(game)
    next_turn(game, "red")
    (item,) = wonders_hook(game).public_view(game)["sections"][0]["items"]
    assert item == {"label": "Lighthouse", "text": "to start: 1 city; each level: 1 wool, 1 ore"}
    cities_for(game, "red", 1)
    game.apply(StartWonder("red", "lighthouse"))
    set_hand(game, "red", ore=2, wool=2)
    game.apply(BuildWonderLevel("red"))
    events = game.apply(BuildWonderLevel("red"))
    assert events[-1]["type"] == "won" and game.winner_color == "red"


def test_wonders_wait_for_the_roll_of_ones_own_turn() -> None:
    game, _ = new_game()
    found(game)
    assert game.phase == Phase.ROLL
    assert refusal(game, StartWonder("red", "great_theatre")).rule == "4.8.7"
    assert not any(isinstance(a, StartWonder | BuildWonderLevel) for a in game.legal_actions())
    roll(game, 12)
    cities_for(game, "red", 2)
    game.apply(StartWonder("red", "great_theatre"))
    set_hand(game, "red", **cost("great_theatre"))
    assert refusal(game, BuildWonderLevel("blue")).rule == "4.8.7"
    game.apply(EndTurn("red"))
    assert refusal(game, BuildWonderLevel("red")).rule == "4.8.7"


def test_three_players_found_under_the_same_marks() -> None:
    game, _ = new_game(players=3)
    for v in marks(3)["strait"] + marks(3)["warning"]:
        assert refusal(game, BuildSettlement("red", v)).rule == "4.8.1"
    found(game)
    assert game.phase == Phase.ROLL and game.players == ("red", "blue", "white")
