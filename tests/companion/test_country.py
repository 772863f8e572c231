"""Big Box country maps, Corsica and New York, and the Erie Canal (RULES.md 5.3, 7.5).

The maps are data (companion/scenarios/corsica.json, new-york.json): the tests find the spaces
they need in the country hook's own lists, so they hold for any map a table writes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import Script, corner_path, give, refusal, roll, set_hand

from companion.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    Cards,
    EndTurn,
    MaritimeTrade,
    action_from_json,
    action_to_json,
)
from companion.board import RESOURCES, Edge, Resource, Vertex, vertex_position
from companion.bots import GreedyBot
from companion.game import Game, IllegalAction, Phase
from companion.hooks.country import (
    BuyCanalTile,
    Country,
    ErieCanal,
    PlayCanalTile,
    SellCanalTile,
)
from companion.scenario import ScenarioError, load_scenario

SEATS = ["red", "blue", "white", "orange", "green", "brown"]


def country_game(
    name: str = "corsica",
    players: int = 4,
    country: dict[str, Any] | None = None,
    erie: dict[str, Any] | None = None,
) -> Game:
    """A game of a country scenario driven by a :class:`Script`, with hook parameters
    changed as a table would change them in the scenario file."""
    s = load_scenario(name, players, seed=0)
    changes = {"country": country or {}, "erie_canal": erie or {}}
    hooks = tuple({**h, **changes.get(h["hook"], {})} for h in s.rules.hooks)
    return Game(s.board, SEATS[:players], replace(s.rules, hooks=hooks), Script())


def hook_of(game: Game, cls: type) -> Any:
    return next(h for h in game.hooks if isinstance(h, cls))


def spaces(game: Game) -> Any:
    return hook_of(game, Country).spaces(game)


def corner(game: Game, v: int) -> Vertex:
    return game.topology.vertices[v]


def index(game: Game, v: Vertex) -> int:
    return game.topology.vertex_index[v]


def stretches(game: Game, a: int) -> list[tuple[int, int]]:
    """(middle corner, town) of every stretch of two road spaces from town ``a`` to another
    town through a corner that is neither a town nor a VP space."""
    t, sp = game.topology, spaces(game)
    out = []
    for e in t.vertex_edges[a]:
        if e not in sp.roads:
            continue
        m = next(x for x in t.edge_vertices[e] if x != a)
        if m in sp.towns or m in sp.vp:
            continue
        for f in t.vertex_edges[m]:
            b = next(x for x in t.edge_vertices[f] if x != m)
            if f != e and f in sp.roads and b in sp.towns:
                out.append((m, b))
    return out


def walk(game: Game, *corners: int) -> list[Edge]:
    return corner_path(*(corner(game, v) for v in corners))


def chain(game: Game, towns: int = 3, free: bool = False) -> list[int]:
    """Corners town, middle, town, middle, ... of a walk through ``towns`` towns (``free``:
    towns the distance rule leaves open)."""
    t = game.topology
    for a in sorted(spaces(game).towns):
        if free and any(game.vertex_owner[n] != -1 for n in (a, *t.vertex_neighbours[a])):
            continue
        path = [a]
        while len(path) < 2 * towns - 1:
            nxt = [(m, b) for m, b in stretches(game, path[-1]) if b not in path and m not in path]
            if not nxt:
                break
            path.extend(nxt[0])
        if len(path) == 2 * towns - 1:
            return path
    raise AssertionError("no such walk on the map")


def found_far(game: Game, near: Iterable[int] = (), first: tuple[int, Edge] | None = None) -> None:
    """Play the founding phase: ``first`` (corner, road) for the first placement if given;
    every other placement is the legal one farthest from the corners ``near``."""
    anchor = [vertex_position(corner(game, v)) for v in near] or [(0.0, 0.0)]

    def far(a: Action) -> tuple[bool, float]:
        """Far from ``near``; never a red road space (its certificate would muddle tests)."""
        if isinstance(a, BuildSettlement):
            x = vertex_position(a.vertex)
            return True, min(math.dist(x, y) for y in anchor)
        e = index_e(game, a.edge)  # type: ignore[attr-defined]
        x = vertex_position(corner(game, game.topology.edge_vertices[e][0]))
        return e not in spaces(game).certificates, min(math.dist(x, y) for y in anchor)

    if first is not None:
        v, e = first
        game.apply(BuildSettlement(game.current_player, corner(game, v)))
        game.apply(BuildRoad(game.current_player, e))
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD):
        game.apply(max(game.legal_actions(), key=far))


def index_e(game: Game, e: Edge) -> int:
    return game.topology.edge_index[e]


def to_main(game: Game, color: str = "red", total: int = 12) -> None:
    """End turns until ``color`` has rolled ``total`` in their turn."""
    for _ in range(len(game.players) + 1):
        if game.phase == Phase.ROLL:
            roll(game, total)
        if game.current_player == color:
            return
        game.apply(EndTurn(game.current_player))
    raise AssertionError(f"never reached {color}'s turn")


def build(game: Game, color: str, edges: Iterable[Edge]) -> list[dict]:
    events: list[dict] = []
    for e in edges:
        give(game, color, lumber=1, brick=1)
        events += game.apply(BuildRoad(color, e))
    return events


def settle(game: Game, color: str, v: int) -> list[dict]:
    give(game, color, lumber=1, brick=1, wool=1, grain=1)
    return game.apply(BuildSettlement(color, corner(game, v)))


# -- 5.3.1: material --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "chips"), [("corsica", 11), ("new-york", 9)])
def test_the_maps_have_their_catan_chips_and_the_base_or_5_6_material(name, chips) -> None:
    for players in (3, 4, 5, 6):
        s = load_scenario(name, players, seed=0)
        hook = next(h for h in s.rules.hooks if h["hook"] == "country")
        assert len(hook["vp_spaces"]) == chips
        assert s.catan_chips == (chips if players <= 4 else 0)  # 5.3.2: on the VP spaces
        assert s.board.kind == "country" and not s.board.harbors  # printed, no frame
        five_six = players >= 5
        assert s.rules.special_building_phase == five_six
        assert s.rules.cards_per_resource == (24 if five_six else 19)


# -- 5.3.2 / 5.3.3 / 5.3.7: where settlements go ---------------------------------------------


def test_founding_settlements_go_on_town_spaces_only() -> None:  # 5.3.3
    game = country_game(players=4)
    sp = spaces(game)
    legal = {index(game, a.vertex) for a in game.legal_actions()}
    assert legal == sp.towns
    off_map = next(
        v
        for v in range(len(game.topology.vertices))
        if game.vertex_land[v] and v not in legal and v not in sp.vp
    )
    assert refusal(game, BuildSettlement("red", corner(game, off_map))).rule == "5.3.3"


def test_with_three_or_four_players_a_vp_space_holds_a_chip_not_a_town() -> None:  # 5.3.2
    for players in (3, 4):
        game = country_game(players=players)
        vp = min(spaces(game).vp)
        assert refusal(game, BuildSettlement("red", corner(game, vp))).rule == "5.3.7"


@pytest.mark.parametrize("players", [5, 6])
def test_with_five_or_six_players_vp_spaces_are_ordinary_town_spaces(players: int) -> None:
    game = country_game(players=players)  # 5.3.7
    sp = spaces(game)
    legal = {corner(game, v) for v in (index(game, a.vertex) for a in game.legal_actions())}
    country = hook_of(game, Country)
    assert legal == set(country.towns) | set(country.vp_spaces)
    game.apply(BuildSettlement("red", corner(game, min(sp.vp))))
    assert game.special_vp == [0] * players


def test_the_robber_starts_on_the_printed_robber_picture() -> None:  # 5.3.2, BB-KNY-ROBBER
    for name in ("corsica", "new-york"):
        data = json.loads(_scenario_text(name))
        picture = tuple(data["checks"]["BB-KNY-ROBBER"]["hex"])
        for players in (3, 4, 5, 6):
            assert load_scenario(name, players, seed=players).board.robber == picture


def _scenario_text(name: str) -> str:
    from companion.scenario import SCENARIO_DIR

    return (SCENARIO_DIR / f"{name}.json").read_text()


# -- 5.3.4: road spaces, and no road beyond a town space without one's settlement --------------


def test_roads_go_on_road_spaces_only() -> None:
    game = country_game()
    sp, t = spaces(game), game.topology
    town = next(
        v
        for v in sorted(sp.towns)
        if any(e not in sp.roads and game.edge_land[e] for e in t.vertex_edges[v])
    )
    game.apply(BuildSettlement("red", corner(game, town)))
    legal = {index_e(game, a.edge) for a in game.legal_actions()}
    assert legal == {e for e in t.vertex_edges[town] if e in sp.roads}
    ridge = next(e for e in t.vertex_edges[town] if e not in sp.roads and game.edge_land[e])
    assert refusal(game, BuildRoad("red", t.edges[ridge])).rule == "5.3.4"


def test_a_road_goes_beyond_a_town_space_only_from_ones_own_settlement_there() -> None:
    game = country_game()
    a, m, b, m2, c = chain(game, 3)
    found_far(game, near=[a, b, c], first=(a, walk(game, a, m)[0]))
    to_main(game)
    build(game, "red", walk(game, m, b))
    beyond = walk(game, b, m2)[0]
    give(game, "red", lumber=1, brick=1)
    assert refusal(game, BuildRoad("red", beyond)).rule == "5.3.4"
    assert BuildRoad("red", beyond) not in game.legal_actions()
    settle(game, "red", b)
    assert BuildRoad("red", beyond) in game.legal_actions()
    game.apply(BuildRoad("red", beyond))
    assert game.edge_owner[index_e(game, beyond)] == 0


def test_an_unjoined_road_is_refused_by_the_base_rule_not_the_map() -> None:
    game = country_game()
    a, m, b, m2, c = chain(game, 3)
    found_far(game, near=[a, b, c], first=(a, walk(game, a, m)[0]))
    to_main(game)
    give(game, "red", lumber=1, brick=1)
    assert refusal(game, BuildRoad("red", walk(game, m2, c)[0])).rule == "1.9.3"


# -- 5.3.5: red road spaces and their certificates ---------------------------------------------


@pytest.mark.parametrize("kind", ["3:1", "ore"])
def test_a_road_on_a_red_road_space_gives_its_certificates_trade(kind: str) -> None:
    game = country_game()
    sp, t = spaces(game), game.topology
    e = next(e for e, k in sorted(sp.certificates.items()) if k == kind)
    town = next(v for v in t.edge_vertices[e] if v in sp.towns)
    other = next(x for x in t.vertex_edges[town] if x in sp.roads and x != e)
    found_far(game, near=[town], first=(town, t.edges[other]))
    assert game.trade_ratios[0] == [4] * 5
    to_main(game)
    events = build(game, "red", [t.edges[e]])
    cert = next(x for x in events if x["type"] == "certificate")
    assert (cert["player"], cert["trade"]) == ("red", kind)
    ratios = game.trade_ratios[0]
    if kind == "3:1":
        assert ratios == [3] * 5
    else:
        assert ratios[RESOURCES.index(Resource.ORE)] == 2
        assert sorted(ratios) == [2, 4, 4, 4, 4]
    # the trade is made at the new ratio, by the engine's own maritime trade, next turn
    game.apply(EndTurn("red"))
    to_main(game)
    set_hand(game, "red", ore=ratios[RESOURCES.index(Resource.ORE)])
    game.apply(MaritimeTrade("red", Resource.ORE, Resource.GRAIN))
    assert game.hands[0] == [0, 0, 0, 1, 0]


def test_a_founding_road_on_a_red_road_space_gives_the_certificate_too() -> None:
    game = country_game()
    sp, t = spaces(game), game.topology
    e, kind = next((e, k) for e, k in sorted(sp.certificates.items()) if k != "3:1")
    town = next(v for v in t.edge_vertices[e] if v in sp.towns)
    game.apply(BuildSettlement("red", corner(game, town)))
    events = game.apply(BuildRoad("red", t.edges[e]))
    assert any(x["type"] == "certificate" and x["trade"] == kind for x in events)
    assert game.trade_ratios[0][RESOURCES.index(Resource(kind))] == 2


# -- 5.3.7: VP chips -------------------------------------------------------------------------


def _town_next_to_vp(game: Game) -> tuple[int, int, Edge]:
    """A town space, a VP space one road space from it, and that road space."""
    t, sp = game.topology, spaces(game)
    for v in sorted(sp.vp):
        for e in t.vertex_edges[v]:
            town = next(x for x in t.edge_vertices[e] if x != v)
            if e in sp.roads and town in sp.towns:
                return town, v, t.edges[e]
    raise AssertionError("no VP space next to a town")


def test_the_first_road_to_reach_a_vp_space_takes_its_chip() -> None:
    game = country_game(players=4)
    town, vp, e = _town_next_to_vp(game)
    found_far(game, near=[town], first=(town, next(x for x in _roads_at(game, town) if x != e)))
    to_main(game)
    events = build(game, "red", [e])
    assert {"type": "special_vp", "player": "red", "vp": 1, "why": "VP intersection"} in events
    assert game.special_vp[0] == 1
    assert game.public_victory_points(0) == 2 + 1
    # the chip is gone: whoever reaches the space next takes nothing
    hook = hook_of(game, Country)
    other = next(x for x in game.topology.vertex_edges[vp] if game.edge_owner[x] == -1)
    assert hook.after_route(game, 1, other, 1, False) == []
    assert game.special_vp[1] == 0


def _roads_at(game: Game, v: int) -> list[Edge]:
    t, sp = game.topology, spaces(game)
    return [t.edges[e] for e in t.vertex_edges[v] if e in sp.roads]


@pytest.mark.parametrize("founding_chips", [True, False])
def test_a_founding_road_takes_a_chip_unless_the_table_says_otherwise(founding_chips) -> None:
    game = country_game(players=3, country={"founding_chips": founding_chips})  # GAP 5.3.7
    town, vp, e = _town_next_to_vp(game)
    game.apply(BuildSettlement("red", corner(game, town)))
    game.apply(BuildRoad("red", e))
    assert game.special_vp[0] == int(founding_chips)


def test_no_chips_with_five_players() -> None:  # 5.3.7
    game = country_game(players=5)
    town, vp, e = _town_next_to_vp(game)
    game.apply(BuildSettlement("red", corner(game, town)))
    game.apply(BuildRoad("red", e))
    assert game.special_vp == [0] * 5
    assert "VP chips" not in json.dumps(game.public_view()["scenario"])


# -- 5.3.6 and 5.3.9: production at the edge, the distance rule --------------------------------


def test_a_town_space_at_the_edge_produces_from_the_landscape_it_touches() -> None:
    game = country_game(players=3)
    t, sp = game.topology, spaces(game)
    edge_town = next(
        v
        for v in sorted(sp.towns)
        if sum(game.hex_land[h] for h in t.vertex_hexes[v]) == 1
        and any(game.hex_resource[h] >= 0 for h in t.vertex_hexes[v])
    )
    (h,) = [h for h in t.vertex_hexes[edge_town] if game.hex_land[h]]
    number = game.board.tiles[t.hexes[h]].number
    found_far(game, near=[edge_town], first=(edge_town, _roads_at(game, edge_town)[0]))
    set_hand(game, "red")
    if game.current_player != "red" or game.phase != Phase.ROLL:
        pytest.fail("red starts the game")
    roll(game, number)
    assert game.hands[0][game.hex_resource[h]] >= 1


def test_the_distance_rule_is_the_base_games_between_corners() -> None:  # 5.3.9 GAP
    game = country_game(players=5)
    sp, t = spaces(game), game.topology
    vp = min(sp.vp)
    game.apply(BuildSettlement("red", corner(game, vp)))
    game.apply(BuildRoad("red", _roads_at(game, vp)[0]))
    for town in t.vertex_neighbours[vp]:
        if town in sp.towns:
            assert refusal(game, BuildSettlement("blue", corner(game, town))).rule == "1.9.5"
    # two town spaces one stretch apart may both be settled
    a, m, b = chain(game, 2, free=True)
    game.apply(BuildSettlement("blue", corner(game, a)))
    game.apply(BuildRoad("blue", _roads_at(game, a)[0]))
    assert BuildSettlement("white", corner(game, b)) in game.legal_actions()


def test_a_table_may_keep_town_spaces_one_stretch_apart_empty() -> None:  # 5.3.9 GAP option
    game = country_game(country={"distance": "towns"})
    a, m, b = chain(game, 2)
    game.apply(BuildSettlement("red", corner(game, a)))
    game.apply(BuildRoad("red", _roads_at(game, a)[0]))
    assert refusal(game, BuildSettlement("blue", corner(game, b))).rule == "5.3.9"
    assert BuildSettlement("blue", corner(game, b)) not in game.legal_actions()


# -- 5.3.8: victory ----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "target"), [(3, 13), (4, 12), (5, 10), (6, 10)])
def test_victory_needs_13_12_or_10_points_by_the_player_count(players: int, target: int) -> None:
    for name in ("corsica", "new-york", "new-york-erie"):
        assert load_scenario(name, players, seed=0).rules.victory_points == target


def _first_reach(game: Game, history: list[Action]) -> dict[int, str]:
    """Who took each VP chip, found again from the actions: the first road at each space."""
    t = game.topology
    vp = spaces(game).vp
    taken: dict[int, str] = {}
    for a in history:
        if isinstance(a, BuildRoad):
            for v in t.edge_vertices[t.edge_index[a.edge]]:
                if v in vp:
                    taken.setdefault(v, a.player)
    return taken


@pytest.mark.parametrize(("name", "players"), [("corsica", 3), ("new-york-erie", 4)])
def test_a_game_played_to_its_end_scores_what_the_map_and_pieces_give(name, players) -> None:
    s = load_scenario(name, players, seed=11)
    game = Game(s.board, SEATS[:players], s.rules, rng=11)
    bot = GreedyBot(seed=11)
    history: list[Action] = []
    while game.phase != Phase.GAME_OVER:
        action = bot.choose(game)
        history.append(action)
        game.apply(action)
        assert game.turn_number < 600
    p = game.winner
    assert p is not None and game.players[p] == game.current_player  # on their own turn
    me = game.players[p]
    t = game.topology
    settled = {
        t.vertex_index[a.vertex]
        for a in history
        if isinstance(a, BuildSettlement) and a.player == me
    }
    buildings = sum(game.vertex_level[v] for v in settled)
    chips = sum(1 for who in _first_reach(game, history).values() if who == me)
    score = (
        buildings
        + chips
        + game.dev_hands[p][1]
        + 2 * (game.longest_road == p)
        + 2 * (game.largest_army == p)
    )
    assert score == game.victory_points(p) >= s.rules.victory_points
    assert game.special_vp[p] == chips


# -- 5.3.10: the Erie Canal --------------------------------------------------------------------


def erie_game(players: int = 4, **erie: Any) -> Game:
    return country_game("new-york-erie", players, erie=erie)


def canal_chain(game: Game, towns: int = 3) -> list[int]:
    """town, middle, town, ... along the canal (consecutive canal towns)."""
    t = game.topology
    canal = [t.vertex_index[v] for v in hook_of(game, ErieCanal).canal]
    out = [canal[0]]
    for a, b in zip(canal, canal[1:towns], strict=False):
        (m,) = set(t.vertex_neighbours[a]) & set(t.vertex_neighbours[b])
        out += [m, b]
    return out


def canal_state(game: Game) -> dict[str, Any]:
    return game.hook_state["erie_canal"]


def test_the_variant_is_the_new_york_map_with_the_canal() -> None:
    plain, erie = load_scenario("new-york", 4, seed=1), load_scenario("new-york-erie", 4, seed=1)
    assert plain.board.tiles == erie.board.tiles and plain.board.robber == erie.board.robber
    assert [h["hook"] for h in erie.rules.hooks] == ["country", "erie_canal"]
    assert [h["hook"] for h in plain.rules.hooks] == ["country"]


def test_linking_two_canal_towns_after_founding_earns_a_canal_tile() -> None:
    game = erie_game()
    a, m, b, m2, c = canal_chain(game, 3)
    found_far(game, near=[a, b, c], first=(a, walk(game, a, m)[0]))
    assert "erie_canal" not in game.hook_state  # nothing earned in founding
    to_main(game)
    events = build(game, "red", walk(game, m, b))
    tiles = [x for x in events if x["type"] == "canal_tile"]
    assert len(tiles) == 1 and tiles[0]["player"] == "red"
    assert canal_state(game)["held"] == {"red": 1} and canal_state(game)["supply"] == 11
    # on past b (settled): b-c pays, a-c does not (it passes the town space b)
    settle(game, "red", b)
    events = build(game, "red", walk(game, b, m2, c))
    assert [x["towns"] for x in events if x["type"] == "canal_tile"] == [
        [list(corner(game, b)), list(corner(game, c))]
    ]
    assert canal_state(game)["held"] == {"red": 2}


def test_a_link_made_in_the_founding_phase_never_pays() -> None:
    game = erie_game(players=3)
    a, m, b = canal_chain(game, 2)
    spots = iter([(a, walk(game, a, m)[0]), (b, walk(game, b, m)[0])])
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD):
        if game.current_player == "red" and game.phase == Phase.FOUNDING_SETTLEMENT:
            v, e = next(spots)
            game.apply(BuildSettlement("red", corner(game, v)))
            game.apply(BuildRoad("red", e))
        else:
            found_one(game, near=[a, b])
    assert "erie_canal" not in game.hook_state
    to_main(game)
    other = next(e for e in _roads_at(game, a) if game.edge_owner[index_e(game, e)] == -1)
    build(game, "red", [other])
    assert game.hook_state.get("erie_canal", {}).get("held", {}) == {}


def found_one(game: Game, near: list[int]) -> None:
    """One founding placement far from ``near`` (see :func:`found_far`)."""
    anchor = [vertex_position(corner(game, v)) for v in near]
    legal = game.legal_actions()
    if game.phase == Phase.FOUNDING_SETTLEMENT:
        game.apply(
            max(legal, key=lambda a: min(math.dist(vertex_position(a.vertex), y) for y in anchor))
        )
    else:
        game.apply(legal[0])


@pytest.mark.parametrize(("once_per", "blue_tiles"), [("player", 1), ("game", 0)])
def test_each_pair_pays_each_player_once_or_only_the_first(once_per, blue_tiles) -> None:
    game = erie_game(once_per=once_per)  # GAP 5.3.10
    a, m, b = canal_chain(game, 2)
    hook = hook_of(game, ErieCanal)
    found_far(game, near=[a, b])
    # On our maps two canal towns are joined by one stretch only, so two players cannot both
    # build it: the test lends the stretch to red, then to blue, and asks the hook each time.
    e1, e2 = (index_e(game, e) for e in walk(game, a, m, b))
    for p in (0, 1):
        game.edge_owner[e1] = p
        game.edge_kind[e1] = game.edge_kind[e2] = 1
        game.edge_owner[e2] = p
        hook.after_route(game, p, e2, 1, False)
    assert canal_state(game)["held"].get("blue", 0) == blue_tiles
    assert canal_state(game)["held"]["red"] == 1


def test_an_empty_supply_pays_nothing(monkeypatch) -> None:
    game = erie_game(tiles=1)
    a, m, b, m2, c = canal_chain(game, 3)
    found_far(game, near=[a, b, c], first=(a, walk(game, a, m)[0]))
    to_main(game)
    build(game, "red", walk(game, m, b))
    assert canal_state(game)["supply"] == 0
    settle(game, "red", b)
    events = build(game, "red", walk(game, b, m2, c))
    assert not [x for x in events if x["type"] == "canal_tile"]
    assert canal_state(game)["held"] == {"red": 1}


def _red_with_a_tile(game: Game) -> None:
    a, m, b = canal_chain(game, 2)
    found_far(game, near=[a, b], first=(a, walk(game, a, m)[0]))
    to_main(game)
    build(game, "red", walk(game, m, b))
    game.apply(EndTurn("red"))
    to_main(game)


def test_a_played_canal_tile_makes_two_cards_of_a_resource_worth_one_this_turn() -> None:
    game = erie_game()
    _red_with_a_tile(game)
    wool = RESOURCES.index(Resource.WOOL)
    before = list(game.trade_ratios[0])
    assert PlayCanalTile("red", Resource.WOOL) in game.legal_actions()
    game.apply(PlayCanalTile("red", Resource.WOOL))
    assert game.trade_ratios[0][wool] == 2 and canal_state(game)["held"]["red"] == 0
    set_hand(game, "red", wool=4)
    game.apply(MaritimeTrade("red", Resource.WOOL, Resource.ORE))
    game.apply(MaritimeTrade("red", Resource.WOOL, Resource.GRAIN))  # as often as they like
    assert game.hands[0] == [0, 0, 0, 1, 1]
    assert refusal(game, PlayCanalTile("red", Resource.WOOL)).rule == "5.3.10"
    game.hook_state["erie_canal"]["held"]["red"] = 1  # a second tile, for the next refusal
    game.trade_ratios[0][RESOURCES.index(Resource.ORE)] = 2  # as an ore certificate gives
    assert PlayCanalTile("red", Resource.ORE) not in game.legal_actions()
    assert refusal(game, PlayCanalTile("red", Resource.ORE)).rule == "5.3.10"
    game.trade_ratios[0][RESOURCES.index(Resource.ORE)] = 4
    game.hook_state["erie_canal"]["held"]["red"] = 0
    game.apply(EndTurn("red"))  # the tile goes back to the supply, the ratio back to before
    assert game.trade_ratios[0] == before and canal_state(game)["supply"] == 12


def test_a_canal_tile_is_played_only_by_the_player_to_move_in_their_trade_phase() -> None:
    game = erie_game()
    _red_with_a_tile(game)
    game.apply(EndTurn("red"))
    roll(game, 12)
    assert refusal(game, PlayCanalTile("red", Resource.ORE)).rule == "5.3.10"
    assert refusal(game, PlayCanalTile("blue", Resource.ORE)).rule == "5.3.10"  # has none


def test_canal_tiles_are_traded_to_other_players_for_resources() -> None:
    game = erie_game()
    _red_with_a_tile(game)
    set_hand(game, "blue", ore=2)
    set_hand(game, "red")
    assert refusal(game, SellCanalTile("red", "blue", Cards.of(grain=1))).rule == "1.8.2"
    assert refusal(game, SellCanalTile("red", "red", Cards.of(ore=1))).rule == "1.8.2"
    assert refusal(game, SellCanalTile("red", "blue", Cards())).rule == "5.3.10"
    events = game.apply(SellCanalTile("red", "blue", Cards.of(ore=2)))
    assert events[0]["type"] == "canal_tile_trade"
    assert canal_state(game)["held"] == {"red": 0, "blue": 1}
    assert game.hands[0][RESOURCES.index(Resource.ORE)] == 2 and sum(game.hands[1]) == 0
    assert refusal(game, SellCanalTile("red", "blue", Cards.of(ore=1))).rule == "5.3.10"
    game.apply(BuyCanalTile("red", "blue", Cards.of(ore=1)))
    assert canal_state(game)["held"] == {"red": 1, "blue": 0}
    assert game.hands[1][RESOURCES.index(Resource.ORE)] == 1


def test_canal_actions_travel_as_json() -> None:
    for action in (
        PlayCanalTile("red", Resource.ORE),
        SellCanalTile("red", "blue", Cards.of(ore=2)),
        BuyCanalTile("red", "blue", Cards.of(wool=1)),
    ):
        assert action_from_json(action_to_json(action)) == action


def test_the_page_shows_the_canal_and_the_map() -> None:
    game = erie_game()
    _red_with_a_tile(game)
    panels = {p["hook"]: p for p in game.public_view()["scenario"]["panels"]}
    items = panels["erie_canal"]["sections"][0]["items"]
    assert {"label": "Canal tiles", "value": 1, "color": "red"} in items
    assert len(panels["erie_canal"]["map"]["canal"]) == len(hook_of(game, ErieCanal).canal)
    drawn = panels["country"]["map"]
    assert len(drawn["towns"]) == len(spaces(game).towns)
    assert len(drawn["roads"]) == len(spaces(game).roads)
    assert "play_canal_tile" in game.public_view()["scenario"]["actions"]


# -- the set-up checks (RULES.md 7.5) ----------------------------------------------------------


def _board_with(name: str, players: int, pieces: list[dict[str, Any]], tmp_path) -> str:
    board = load_scenario(name, players, seed=0).board.to_json()
    board["pieces"] = pieces
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board))
    return str(path)


def _violations(path: str, name: str, players: int, capsys) -> set[str]:
    from companion.cli import main

    code = main(["check-setup", path, "--scenario", name, "--players", str(players), "--json"])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == (0 if report["ok"] else 1)
    return {v["rule"] for v in report["violations"]}


def test_check_setup_passes_a_country_board_as_laid_out(tmp_path, capsys) -> None:
    for name in ("corsica", "new-york", "new-york-erie"):
        for players in (3, 5):
            assert (
                _violations(_board_with(name, players, [], tmp_path), name, players, capsys)
                == set()
            )


def test_check_setup_finds_pieces_off_the_maps_spaces(tmp_path, capsys) -> None:
    game = country_game("corsica", 4)
    sp, t = spaces(game), game.topology
    off = next(
        v for v in range(len(t.vertices)) if game.vertex_land[v] and v not in sp.towns | sp.vp
    )
    a, m, b, m2, c = chain(game, 3)
    ridge = next(e for e in range(len(t.edges)) if game.edge_land[e] and e not in sp.roads)
    vp = min(sp.vp)
    pieces = [
        {"kind": "settlement", "color": "red", "vertex": list(corner(game, off))},
        {"kind": "road", "color": "blue", "edge": list(t.edges[ridge])},
        # blue's roads from a go on beyond b, which blue has not settled
        {"kind": "settlement", "color": "white", "vertex": list(corner(game, a))},
        {"kind": "settlement", "color": "orange", "vertex": list(corner(game, vp))},
    ]
    pieces += [{"kind": "road", "color": "white", "edge": list(e)} for e in walk(game, a, m, b, m2)]
    found = _violations(_board_with("corsica", 4, pieces, tmp_path), "corsica", 4, capsys)
    assert found == {"BB-KNY-TOWNS", "BB-KNY-ROADS", "BB-KNY-VP-CHIPS"}
    # with 5 players the VP space is a town space: only the other faults remain
    found = _violations(_board_with("corsica", 5, pieces, tmp_path), "corsica", 5, capsys)
    assert found == {"BB-KNY-TOWNS", "BB-KNY-ROADS"}
    # white settles b: its road beyond b is fine now
    ok = [p for p in pieces if p["color"] == "white"]
    ok.append({"kind": "settlement", "color": "white", "vertex": list(corner(game, b))})
    assert _violations(_board_with("corsica", 4, ok, tmp_path), "corsica", 4, capsys) == set()


def test_check_setup_finds_the_robber_off_its_picture(tmp_path, capsys) -> None:
    path = _board_with("new-york", 4, [], tmp_path)
    board = json.loads(Path(path).read_text())
    land = next(h for h in board["hexes"] if h["terrain"] == "forest")
    board["robber"] = {"q": land["q"], "r": land["r"]}
    Path(path).write_text(json.dumps(board))
    assert _violations(path, "new-york", 4, capsys) == {"BB-KNY-ROBBER"}


def test_check_setup_wants_the_scenario_of_a_country_board(tmp_path, capsys) -> None:
    from companion.cli import main

    assert main(["check-setup", _board_with("corsica", 4, [], tmp_path)]) == 2
    assert "country board needs --scenario" in capsys.readouterr().err


# -- scenario files: variants and shared layouts -----------------------------------------------


def test_a_variant_file_and_a_copied_layout_say_what_is_wrong(tmp_path) -> None:
    (tmp_path / "loop.json").write_text(json.dumps({"extends": "loop"}))
    with pytest.raises(ScenarioError, match="circle"):
        load_scenario(tmp_path / "loop.json", 4)
    data = json.loads(_scenario_text("corsica"))
    data["layouts"]["4"]["like"] = "9"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match="no layout '9' to copy"):
        load_scenario(tmp_path / "bad.json", 4)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h: h.update(distance="far"), "distance"),
        (lambda h: h["towns"].append(h["vp_spaces"][0]), "VP space is listed as a town"),
        (lambda h: h["certificates"].append({"road": [9, 9, "E"], "kind": "ore"}), "no road"),
        (lambda h: h["towns"].append([40, 40, "N"]), r"town space \(40, 40, 'N'\) is off"),
        (lambda h: h["roads"].remove(h["roads"][0]) or h["roads"].clear(), "no road space"),
    ],
)
def test_a_broken_country_map_says_what_is_wrong(tmp_path, change, message) -> None:
    data = json.loads(_scenario_text("corsica"))
    change(data["hooks"][0])
    (tmp_path / "c.json").write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match=message):
        load_scenario(tmp_path / "c.json", 4)


def test_refused_canal_actions_leave_no_trace() -> None:
    game = erie_game()
    found_far(game)
    to_main(game)
    before = game.snapshot()
    with pytest.raises(IllegalAction):
        game.apply(PlayCanalTile("red", Resource.ORE))
    assert game.snapshot() == before and "erie_canal" not in game.hook_state


# -- scripted games to the end (5.3.8) ---------------------------------------------------------


def _vp_next_to(game: Game, towns: list[int]) -> tuple[int, int]:
    """A VP space one road space from one of ``towns``, and that town."""
    t, sp = game.topology, spaces(game)
    for town in towns:
        for e in t.vertex_edges[town]:
            v = next(x for x in t.edge_vertices[e] if x != town)
            if e in sp.roads and v in sp.vp:
                return v, town
    raise AssertionError("no VP space next to these towns")


def _chain_with_vp(game: Game, towns: int) -> list[int]:
    """A walk through ``towns`` towns (see :func:`chain`) with a VP space next to one."""
    for a in sorted(spaces(game).towns):
        path = [a]
        while len(path) < 2 * towns - 1:
            nxt = [(m, b) for m, b in stretches(game, path[-1]) if b not in path and m not in path]
            if not nxt:
                break
            path.extend(nxt[0])
        if len(path) == 2 * towns - 1:
            try:
                _vp_next_to(game, path[::2])
            except AssertionError:
                continue
            return path
    raise AssertionError("no such walk on the map")


@pytest.mark.parametrize(("name", "players"), [("corsica", 4), ("new-york-erie", 5)])
def test_a_scripted_game_ends_when_red_reaches_the_maps_target(name: str, players: int) -> None:
    """Red settles a line of four town spaces and upgrades them to cities. With four players:
    four cities, the other founding settlement, the Longest Road (6 roads) and a VP chip make
    12 (11 before the chip); with five (no chips) the third city makes 10."""
    game = country_game(name, players)
    walk_ = _chain_with_vp(game, 4)
    towns = walk_[::2]
    vp, at = _vp_next_to(game, towns)
    found_far(game, near=[*towns, vp], first=(towns[0], walk(game, towns[0], walk_[1])[0]))
    to_main(game)
    chips = spaces(game).chips
    target = game.rules.victory_points
    for i in range(1, 4):  # on along the line, settling each town space reached
        build(game, "red", walk(game, walk_[2 * i - 1], walk_[2 * i]))
        settle(game, "red", walk_[2 * i])
        if i < 3:
            build(game, "red", walk(game, walk_[2 * i], walk_[2 * i + 1]))
    expected = {"buildings": 5, "longest_road": 2 * (game.longest_road == 0), "chips": 0}
    assert game.road_lengths[0] >= 6 and expected["longest_road"] == 2
    for town in towns:
        if game.phase == Phase.GAME_OVER:
            break
        give(game, "red", grain=2, ore=3)
        game.apply(BuildCity("red", corner(game, town)))
        expected["buildings"] += 1
    if chips and game.phase != Phase.GAME_OVER:
        build(game, "red", walk(game, at, vp))
        expected["chips"] = 1
    score = sum(expected.values())
    assert game.phase == Phase.GAME_OVER and game.winner_color == "red"
    assert score == game.victory_points(0) == target
    assert game.special_vp[0] == expected["chips"]
    assert refusal(game, EndTurn("red")).rule == "1.13.2"


def test_the_listed_canal_trades_are_one_tile_for_one_or_two_cards_of_a_resource() -> None:
    game = erie_game()
    _red_with_a_tile(game)
    set_hand(game, "red", wool=1)
    set_hand(game, "blue", ore=2)
    set_hand(game, "white")
    set_hand(game, "orange")
    sells = {a for a in game.legal_actions() if isinstance(a, SellCanalTile)}
    assert sells == {
        SellCanalTile("red", "blue", Cards.of(ore=1)),
        SellCanalTile("red", "blue", Cards.of(ore=2)),
    }
    assert not [a for a in game.legal_actions() if isinstance(a, BuyCanalTile)]  # none held
    game.apply(SellCanalTile("red", "blue", Cards.of(ore=1)))
    buys = {a for a in game.legal_actions() if isinstance(a, BuyCanalTile)}
    assert buys == {  # red now holds 1 wool and the ore blue paid
        BuyCanalTile("red", "blue", Cards.of(wool=1)),
        BuyCanalTile("red", "blue", Cards.of(ore=1)),
    }
    for action in buys:
        assert game.is_legal(action)


def test_a_canal_game_replays_from_its_journal(tmp_path) -> None:
    from conftest import play_random

    from companion.journal import JournaledGame

    s = load_scenario("new-york-erie", 4, seed=4)
    jg = JournaledGame.create(tmp_path / "ny.sqlite", s.board, SEATS[:4], s.rules, seed=4)
    played = play_random(jg, 600, seed=4)
    kinds = {a.type for a in played}
    assert {"play_canal_tile", "sell_canal_tile"} & kinds  # the random moves used the canal
    jg.close()
    again = JournaledGame.open(tmp_path / "ny.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    assert again.game.hook_state["erie_canal"] == jg.game.hook_state["erie_canal"]
    again.close()
