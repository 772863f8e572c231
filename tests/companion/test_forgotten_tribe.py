"""Scenario 5, The Forgotten Tribe (RULES.md 4.5 and the checks S5-* of 7.4).

The games run on the packaged map laid with seed 1 (three players unless said otherwise): red
founds on the main island's north-east coast, by the small island with two Catan chips, a
harbour token and a card, and on the east coast; blue and white found in the south and west.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import (
    Script,
    V,
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
    DEV_CARDS,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    BuyDevelopmentCard,
    ChooseGold,
    DevCard,
    EndTurn,
    MaritimeTrade,
    MovePirate,
    MoveRobber,
    MoveShip,
    PlayKnight,
    action_from_json,
    action_to_json,
)
from companion.board import Edge, Resource, Terrain, Vertex, edge
from companion.game import Game, Phase
from companion.hooks.forgotten_tribe import PlaceGiftHarbor, TakeGiftCard, TribeGifts
from companion.scenario import ScenarioError, load_scenario
from companion.setup_check import check_board

COLORS = ["red", "blue", "white", "orange"]
RED_NORTH = V(2, -2, "N")  # by the small island of fields and pasture (north-east)
RED_EAST = V(2, 1, "N")  # by the small island of hills and mountains (east)
BLUE = (V(-1, 2, "S"), V(-3, 1, "N"))
WHITE = (V(-1, -2, "S"), V(0, 0, "N"))
CHIP_NE = edge(2, -3, "NE")  # Catan chips 2 and 3 ships from RED_NORTH
CHIP_NE2 = edge(3, -3, "NE")
CARD_NE = edge(3, -4, "NE")
HARBOUR_NE = edge(3, -4, "SE")  # the token lying on the north-east island's coast
HARBOUR_E = edge(2, 1, "E")


def tribe(players: int = 3, seed: int = 1, **gift_params: object) -> Game:
    """A game of the Forgotten Tribe before founding; ``gift_params`` change the gift hook."""
    s = load_scenario("forgotten-tribe", players, seed=seed)
    hooks = tuple({**h, **gift_params} if h["hook"] == "tribe_gifts" else h for h in s.rules.hooks)
    return Game(s.board, COLORS[:players], replace(s.rules, hooks=hooks), Script())


def gifts(game: Game) -> TribeGifts:
    return next(h for h in game.hooks if isinstance(h, TribeGifts))


def ix(game: Game, v: Vertex) -> int:
    return game.topology.vertex_index[v]


def choose_gold(game: Game) -> None:
    """Settle any gold choice with the first legal one (the test does not care which)."""
    while game.phase == Phase.CHOOSE_GOLD:
        game.apply(next(a for a in game.legal_actions() if isinstance(a, ChooseGold)))


def found_tribe(game: Game, red_ship_to: Edge = CHIP_NE, red_inland: bool = False) -> None:
    """Found red on RED_NORTH (with a ship towards ``red_ship_to``) and RED_EAST (or, with
    ``red_inland``, the first free corner inside the island), blue and white on their corners,
    each with the first legal road or ship."""
    spots = {"red": [RED_NORTH, RED_EAST], "blue": list(BLUE), "white": list(WHITE)}
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD, Phase.CHOOSE_GOLD):
        who = game.current_player
        if game.phase == Phase.FOUNDING_SETTLEMENT:
            if who == "red" and red_inland and spots["red"] == [RED_EAST]:
                spots["red"] = [_inland_corner(game)]
            game.apply(BuildSettlement(who, spots[who].pop(0)))
        elif game.phase == Phase.FOUNDING_ROAD:
            if who == "red" and game.last_settlement == ix(game, RED_NORTH):
                first = sea_path(game, "red", [game.last_settlement], red_ship_to)[0]
                game.apply(BuildShip("red", first))
            else:
                game.apply(next(a for a in game.legal_actions() if isinstance(a, BuildRoad)))
        choose_gold(game)
    for c in game.players:
        set_hand(game, c)


def _inland_corner(game: Game) -> Vertex:
    t = game.topology
    return next(
        t.vertices[v]
        for v in range(len(t.vertices))
        if not any(game.edge_sea[e] for e in t.vertex_edges[v])
        and game._settlement_spot_error(game.current, v, True) is None
    )


def move_onto(game: Game, goal: Edge) -> list[dict]:
    """Red sails up to the side before ``goal``, puts a spare ship by its east settlement, and
    in its next turn moves that spare ship onto ``goal``."""
    path = sea_path(game, "red", network(game, "red"), goal)
    for side in path[:-1]:
        set_hand(game, "red", lumber=1, wool=1)
        game.apply(BuildShip("red", side))
    t = game.topology
    spare = next(
        t.edges[e] for e in t.vertex_edges[ix(game, RED_EAST)] if game._route_spot_ok(0, e, 2)
    )
    set_hand(game, "red", lumber=1, wool=1)
    game.apply(BuildShip("red", spare))
    game.apply(EndTurn("red"))
    red_turn(game)
    return game.apply(MoveShip("red", spare, path[-1]))


def red_turn(game: Game, total: int = 2) -> None:
    """Pass turns (rolling ``total``) until red has rolled in its own turn."""
    while not (game.current_player == "red" and game.phase == Phase.MAIN):
        if game.phase == Phase.ROLL:
            roll(game, total)
        else:
            game.apply(EndTurn(game.current_player))


# -- set-up: the map, the gifts and the checks (4.5.1-4.5.4, 4.5.14, S5-*) ---------------------


@pytest.mark.parametrize("players", [3, 4])
def test_the_small_islands_carry_no_chips_and_hold_the_gifts(players):
    s = load_scenario("forgotten-tribe", players, seed=2)
    small = s.areas["small"]
    # 4.5.1 / S5-NO-CHIP-SMALL; the 9 small-island hexes are the land without chips
    assert all(s.board.tiles[h].number is None for h in small)
    assert sum(s.board.tiles[h].terrain.is_land for h in small) == 9
    # 4.5.3: the 6 tokens lie on the small islands' coasts, 5 special and 1 generic
    kinds = sorted(hb.kind for hb in s.board.harbors)
    assert kinds == sorted(["3:1", "brick", "grain", "lumber", "ore", "wool"])
    assert all((hb.q, hb.r) in small for hb in s.board.harbors)
    # 4.5.2, 4.5.4: 8 Catan chips and 4 cards, each on a side of its own
    game = Game(s.board, COLORS[:players], s.rules)
    hook = gifts(game)
    spots = {*hook.chip_spots, *hook.card_spots, *(hb.edge for hb in s.board.harbors)}
    assert (len(hook.chip_spots), len(hook.card_spots), len(spots)) == (8, 4, 18)
    assert s.catan_chips == 8
    assert {"S5-GIFTS", "S5-NO-CHIP-SMALL", "S5-RIGHT3-NUMBERS", "S5-ROBBER"} <= set(s.setup.rules)
    assert check_board(s.board, s.setup, players).ok


def test_the_three_rightmost_main_hexes_never_carry_5_6_8_or_9():
    for seed in range(12):  # 4.5.14: the variable set-up keeps the rule
        s = load_scenario("forgotten-tribe", 4, seed=seed)
        assert {s.board.tiles[h].number for h in s.areas["right3"]}.isdisjoint({5, 6, 8, 9})
    board = s.board
    right, other = (
        sorted(s.areas["right3"])[0],
        next(h for h, t in board.tiles.items() if t.number == 6),
    )
    board.tiles[right], board.tiles[other] = (
        replace(board.tiles[right], number=6),
        replace(board.tiles[other], number=board.tiles[right].number),
    )
    assert "S5-RIGHT3-NUMBERS" in {v.rule for v in check_board(board, s.setup, 4).violations}


def _gift_hook(data):
    return hook_entry(data, "tribe_gifts")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: _gift_hook(d)["catan_chips"].pop(), "7 Catan chip spots marked"),
        (
            lambda d: _gift_hook(d)["cards"].__setitem__(0, [0, 0, "E"]),
            "not on a small island's coast",
        ),
        (
            lambda d: _gift_hook(d)["cards"].__setitem__(0, _gift_hook(d)["catan_chips"][0]),
            "also holds",
        ),
        (
            lambda d: [
                L["harbor_pool"].__setitem__(L["harbor_pool"].index("ore"), "3:1")
                for L in d["layouts"].values()
            ],
            "5 special",
        ),
        (
            lambda d: d["checks"]["S5-GIFTS"].update(hook="tribe_presents"),
            "no hook 'tribe_presents'",
        ),
    ],
)
def test_s5_gifts_reports_wrong_marks(tmp_path, mutate, message):
    with pytest.raises(ScenarioError, match=message):
        load_scenario(scenario_copy(tmp_path, "forgotten-tribe", mutate), 4, seed=1)


def test_s5_gifts_reports_a_harbour_token_off_the_small_islands():
    s = load_scenario("forgotten-tribe", 4, seed=1)
    hb = s.board.harbors[0]
    s.board.harbors[0] = replace(hb, q=0, r=-2, side="NW")  # a main-island coast side
    violations = [v for v in check_board(s.board, s.setup, 4).violations if v.rule == "S5-GIFTS"]
    assert len(violations) == 1 and (0, -2) in violations[0].hexes


def test_check_setup_knows_the_scenario(tmp_path, capsys):
    from companion.cli import main

    path = tmp_path / "tribe-board.json"
    load_scenario("forgotten-tribe", 4, seed=3).board.save(path)
    assert main(["check-setup", str(path), "--scenario", "forgotten-tribe"]) == 0


# -- founding, settling, producing (4.5.5, 4.5.6) -----------------------------------------------


def test_founding_is_on_the_main_island_only():
    game = tribe()
    t = game.topology
    small = next(v for v in range(len(t.vertices)) if (0, -4) in _land_of(game, v))
    assert refusal(game, BuildSettlement("red", t.vertices[small])).rule == "4.5.5"
    game.apply(BuildSettlement("red", RED_NORTH))
    assert game.phase == Phase.FOUNDING_ROAD


def _land_of(game: Game, v: int) -> set[tuple[int, int]]:
    t = game.topology
    return {t.hexes[h] for h in t.vertex_hexes[v] if game.hex_land[h]}


def test_nobody_ever_settles_on_the_small_islands_and_they_never_produce():
    game = tribe()
    found_tribe(game)
    red_turn(game)
    sail(game, "red", CHIP_NE)
    t = game.topology
    end = next(
        v
        for e in game.pieces_of[0]
        for v in t.edge_vertices[e]
        if _land_of(game, v) <= gifts(game).small
        and game._settlement_spot_error(0, v, False).rule == "4.5.6"
    )
    set_hand(game, "red", lumber=1, brick=1, wool=1, grain=1)
    assert refusal(game, BuildSettlement("red", t.vertices[end])).rule == "4.5.6"
    # 4.5.6: no small-island hex is among the producing hexes of any number
    small = {t.hex_index[h] for h in gifts(game).small}
    assert all(small.isdisjoint(hexes) for hexes in game.hexes_by_number.values())


# -- robber and pirate (4.5.7, 4.5.8) -----------------------------------------------------------


def test_a_seven_moves_the_robber_or_the_pirate_never_onto_small_islands_or_home():
    game = tribe()
    found_tribe(game)
    start = game.board.robber
    assert game.board.tiles[start].terrain == Terrain.DESERT  # S5-ROBBER
    assert game.topology.hexes[game.pirate] == (0, 3)
    roll(game, 7)
    legal = game.legal_actions()
    assert {type(a) for a in legal} == {MoveRobber, MovePirate}  # 4.5.7: one or the other
    robber_hexes = {a.hex for a in legal if isinstance(a, MoveRobber)}
    assert robber_hexes.isdisjoint(gifts(game).small) and start not in robber_hexes
    assert refusal(game, MoveRobber("red", (0, -4))).rule == "4.5.8"
    desert = next(
        h
        for h, t in game.board.tiles.items()
        if t.terrain == Terrain.DESERT and h != start and h in robber_hexes
    )
    game.apply(MoveRobber("red", desert))
    game.apply(EndTurn("red"))
    roll(game, 7)
    # once it has left its start desert it may never return (4.5.8)
    assert refusal(game, MoveRobber("blue", start)).rule == "4.5.8"
    assert MoveRobber("blue", start) not in game.legal_actions()


# -- the gifts (4.5.9-4.5.12) -------------------------------------------------------------------


def test_the_first_ship_on_a_catan_chip_takes_it_for_one_point():
    game = tribe()
    found_tribe(game)
    red_turn(game)
    before = game.public_victory_points(0)
    events = sail(game, "red", CHIP_NE)
    assert {"type": "gift", "player": "red", "gift": "catan_chip", "vp": 1} in events
    assert game.special_vp[0] == 1 and game.public_victory_points(0) == before + 1
    # 4.5.9: later arrivals get nothing (the side is marked as taken)
    assert gifts(game).after_ship_moved(game, 1, game.topology.edge_index[CHIP_NE]) == []
    assert game.special_vp == [1, 0, 0]


def test_a_found_card_is_turned_up_first_and_is_not_played_in_that_turn():
    game = tribe()
    found_tribe(game, red_ship_to=CARD_NE)
    red_turn(game)
    events = sail(game, "red", CARD_NE, settle=False)
    assert {"type": "gift", "player": "red", "gift": "development_card"} in events
    assert game.legal_actions() == [TakeGiftCard("red")]
    assert refusal(game, EndTurn("red")).rule == "4.5.10"
    assert refusal(game, TakeGiftCard("blue")).rule == "4.5.10"
    deck = sum(game.deck)
    game.apply(TakeGiftCard("red", DevCard.KNIGHT))
    assert sum(game.deck) == deck - 1 and game.dev_hands[0][DEV_CARDS.index(DevCard.KNIGHT)] == 1
    assert refusal(game, PlayKnight("red")).rule == "1.10.2"  # not in the turn it was found
    game.apply(EndTurn("red"))
    red_turn(game)
    assert PlayKnight("red") in game.legal_actions()


def test_a_found_victory_point_card_stays_hidden():
    game = tribe()
    found_tribe(game, red_ship_to=CARD_NE)
    red_turn(game)
    sail(game, "red", CARD_NE, settle=False)
    public = game.public_victory_points(0)
    game.rng.picks.append(DEV_CARDS.index(DevCard.VICTORY_POINT))
    events = game.apply(TakeGiftCard("red"))  # drawn by the companion
    assert events[0]["card"] == "victory_point"
    assert game.public_victory_points(0) == public and game.victory_points(0) == public + 1


def test_the_cards_laid_out_are_not_for_sale_until_found():
    game = tribe()
    found_tribe(game, red_ship_to=CARD_NE)
    red_turn(game)
    assert game.public_view()["deck_size"] == sum(game.deck) - 4
    while sum(game.deck) > 4:  # red buys the whole deck on sale
        buy_card(game, "red", DEV_CARDS[next(i for i, n in enumerate(game.deck) if n)])
    assert game.public_view()["deck_size"] == 0
    set_hand(game, "red", wool=1, grain=1, ore=1)
    assert refusal(game, BuyDevelopmentCard("red")).rule == "1.10.6"
    assert BuyDevelopmentCard("red") not in game.legal_actions()
    sail(game, "red", CARD_NE, settle=False)
    game.apply(TakeGiftCard("red"))  # one of the 4 cards left: the one found
    assert sum(game.deck) == 3 and game.public_view()["deck_size"] == 0


@pytest.mark.parametrize("moved_ship_takes", [True, False])
def test_a_moved_ship_takes_a_gift_unless_the_table_chose_otherwise(moved_ship_takes):
    game = tribe(moved_ship_takes=moved_ship_takes)
    found_tribe(game, red_ship_to=CARD_NE)
    red_turn(game)
    move_onto(game, CARD_NE)  # 4.5.10 GAP
    expected = [TakeGiftCard("red")] if moved_ship_takes else []
    assert [a for a in game.legal_actions() if isinstance(a, TakeGiftCard)] == expected


def test_a_found_harbour_is_placed_at_once_and_trades_in_the_same_turn():
    game = tribe()
    found_tribe(game, red_ship_to=HARBOUR_NE)
    red_turn(game)
    token = next(hb for hb in game.board.harbors if hb.edge == HARBOUR_NE)
    events = move_onto(game, HARBOUR_NE)  # a move is not a build: trading stays open
    assert {
        "type": "gift",
        "player": "red",
        "gift": "harbor",
        "kind": token.kind,
        "board_changed": True,
    } in events
    assert token not in game.board.harbors
    legal = game.legal_actions()
    assert legal and all(isinstance(a, PlaceGiftHarbor) for a in legal)
    assert refusal(game, EndTurn("red")).rule == "4.5.11"
    place = legal[0]
    corners = set(game.topology.edge_vertices[game.topology.edge_index[place.edge]])
    assert corners & game.buildings_of[0]  # by one of red's own settlements
    game.apply(place)
    ratios = game.trade_ratios[0]
    if token.kind == "3:1":
        assert ratios == [3] * 5
        give, get = Resource.ORE, Resource.WOOL
    else:
        give = Resource(token.kind)
        assert ratios[list(Resource).index(give)] == 2
        get = Resource.ORE if give != Resource.ORE else Resource.WOOL
    set_hand(game, "red", **{give.value: ratios[list(Resource).index(give)]})
    game.apply(MaritimeTrade("red", give, get))  # 4.5.11: usable in the same turn
    assert game.hands[0][list(Resource).index(get)] == 1


def test_a_harbour_with_no_place_is_kept_until_a_coastal_settlement_is_built():
    game = tribe()
    found_tribe(game, red_ship_to=HARBOUR_NE, red_inland=True)
    red_turn(game)
    hook = gifts(game)
    sail(game, "red", HARBOUR_NE, settle=False)
    game.apply(game.legal_actions()[0])  # the first token goes by RED_NORTH
    # every other coast side of RED_NORTH now touches that harbour; red's other settlement
    # is inland: a second token has nowhere to go (4.5.12) and is kept (4.5.11)
    assert hook.harbor_places(game, 0) == []
    second = min(
        (hb for hb in hook.harbor_spots(game)),
        key=lambda hb: len(sea_path(game, "red", network(game, "red"), hb.edge)),
    )
    events = sail(game, "red", second.edge, settle=False)
    assert {
        "type": "gift",
        "player": "red",
        "gift": "harbor",
        "kind": second.kind,
        "board_changed": True,
    } in events
    assert not any(isinstance(a, PlaceGiftHarbor) for a in game.legal_actions())
    assert game.hook_state["tribe_gifts"]["tokens"]["red"] == [second.kind]
    assert EndTurn("red") in game.legal_actions()
    panel = game.public_view()["scenario"]["panels"][0]  # the page shows the waiting token
    held = next(s for s in panel["sections"] if s["kind"] == "list")["items"]
    assert held == [{"label": f"{second.kind} harbour token", "color": "red"}]
    counters = {i["label"]: i["value"] for i in panel["sections"][0]["items"]}
    assert counters == {"Catan chips": 8, "Face-down cards": 4, "Harbour tokens": 4}
    settle_by_road(game, "red", coastal=True)  # a coastal settlement: now it must go there
    legal = game.legal_actions()
    assert legal and {a.kind for a in legal if isinstance(a, PlaceGiftHarbor)} == {second.kind}
    game.apply(legal[0])
    assert game.hook_state["tribe_gifts"]["tokens"]["red"] == []
    assert EndTurn("red") in game.legal_actions()


def test_gifted_harbours_keep_apart_and_one_to_a_sea_hex_unless_the_table_chose_otherwise():
    game = tribe()
    found_tribe(game, red_ship_to=HARBOUR_NE)
    hook = gifts(game)
    t = game.topology
    north = sorted(hook.harbor_places(game, 0), key=tuple)
    assert north  # red's coastal settlements offer places
    first = north[0]
    game.set_harbors([*game.board.harbors, _harbour_at(game, first, "3:1")])
    after = hook.harbor_places(game, 0)
    corners = set(t.edge_vertices[t.edge_index[first]])
    assert first not in after
    assert all(not corners & set(t.edge_vertices[t.edge_index[s]]) for s in after)  # apart
    seas = {h for h in (first[:2], _across(first)) if not game.board.tiles[h].terrain.is_land}
    assert all(not seas & {s[:2], _across(s)} for s in after)  # one per sea hex
    loose = TribeGifts(
        hook.areas, **{**hook.params, "harbours_apart": False, "one_per_sea_hex": False}
    )
    assert set(after) < set(loose.harbor_places(game, 0))


def _across(side: Edge) -> tuple[int, int]:
    from companion.board import hex_neighbour

    return hex_neighbour((side.q, side.r), side.side)


def _harbour_at(game: Game, side: Edge, kind: str):
    from companion.board import Harbor, side_of

    land = next(h for h in (side[:2], _across(side)) if game.board.tiles[h].terrain.is_land)
    return Harbor(land[0], land[1], side_of(land, side), kind)


def test_gift_actions_travel_as_json():
    for action in (TakeGiftCard("red", DevCard.MONOPOLY), PlaceGiftHarbor("red", CHIP_NE, "ore")):
        assert action_from_json(action_to_json(action)) == action


def test_random_games_journal_and_replay_the_gifts(tmp_path):
    import random

    from companion.journal import JournaledGame

    s = load_scenario("forgotten-tribe", 4, seed=7)
    jg = JournaledGame.create(tmp_path / "t.sqlite", s.board, COLORS, s.rules, seed=7)
    chooser = random.Random(7)
    gifts_seen = set()
    while jg.game.phase != Phase.GAME_OVER and len(gifts_seen) < 3:
        legal = jg.game.legal_actions()
        ships = [a for a in legal if isinstance(a, BuildShip | TakeGiftCard | PlaceGiftHarbor)]
        action = chooser.choice(ships if ships and chooser.random() < 0.8 else legal)
        gifts_seen |= {e.get("gift") for e in jg.apply(action) if e["type"] == "gift"}
    assert {"catan_chip", "harbor", "development_card"} <= gifts_seen
    jg.close()
    again = JournaledGame.open(tmp_path / "t.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    assert again.game.board.harbors == jg.game.board.harbors
    again.close()


# -- a whole game to 13 points (4.5.13) ---------------------------------------------------------


def settle_by_road(game: Game, color: str, coastal: bool = False) -> None:
    """``color`` builds two roads from one of its buildings and a settlement at their end
    (with ``coastal``, at a corner by the sea where a harbour could go)."""
    t = game.topology
    p = game.seat(color)
    for v in sorted(game.buildings_of[p]):
        for e1 in t.vertex_edges[v]:
            a = next(x for x in t.edge_vertices[e1] if x != v)
            if not game.edge_land[e1] or game.edge_owner[e1] != -1 or game.vertex_owner[a] != -1:
                continue
            for e2 in t.vertex_edges[a]:
                b = next(x for x in t.edge_vertices[e2] if x != a)
                if e2 == e1 or not game.edge_land[e2] or game.edge_owner[e2] != -1:
                    continue
                if any(game.vertex_owner[n] != -1 for n in (b, *t.vertex_neighbours[b])):
                    continue
                if coastal and not any(
                    game.edge_sea[x] and game.edge_land[x] for x in t.vertex_edges[b]
                ):
                    continue
                for side in (e1, e2):
                    set_hand(game, color, lumber=1, brick=1)
                    game.apply(BuildRoad(color, t.edges[side]))
                set_hand(game, color, lumber=1, brick=1, wool=1, grain=1)
                game.apply(BuildSettlement(color, t.vertices[b]))
                return
    raise AssertionError(f"{color} has no room for a settlement two roads away")


def test_a_scripted_game_is_won_with_13_points_from_cities_and_gifts():
    game = tribe(players=3)
    found_tribe(game)
    t = game.topology
    hook = gifts(game)
    targets = [*hook.chip_spots, *hook.card_spots]
    game.rng.picks.extend([DEV_CARDS.index(DevCard.VICTORY_POINT)] * 4)
    red = 0
    while game.phase != Phase.GAME_OVER:
        red_turn(game, total=2)
        for v in sorted(game.buildings_of[red]):  # the two founding settlements become cities
            if game.vertex_level[v] == 1 and game.phase == Phase.MAIN:
                set_hand(game, "red", grain=2, ore=3)
                game.apply(BuildCity("red", t.vertices[v]))
        # then, one gift a turn, the nearest one left that red's ships can still reach
        taken = game.hook_state.get("tribe_gifts", {"taken": []})["taken"]
        left = [s for s in targets if list(s) not in taken]
        reachable = []
        for s in left:
            try:
                reachable.append((len(sea_path(game, "red", network(game, "red"), s)), tuple(s), s))
            except AssertionError:
                continue
        if game.phase == Phase.MAIN and reachable and game.ships_left[red] >= min(reachable)[0]:
            sail(game, "red", min(reachable)[2])
        elif game.phase == Phase.MAIN:  # out of ships: a settlement two roads inland
            settle_by_road(game, "red")
        if game.phase == Phase.MAIN:
            game.apply(EndTurn("red"))
        assert game.turn_number < 60
    # the score, counted from the board and the cards: cities, Catan chips under red's
    # ships, victory point cards, and the Longest Trade Route if red holds it
    ships = {t.edges[e] for e in game.pieces_of[red] if game.edge_kind[e] == 2}
    chips = len(ships & set(hook.chip_spots))
    cities = sum(game.vertex_level[v] == 2 for v in game.buildings_of[red])
    cards = game.dev_hands[red][DEV_CARDS.index(DevCard.VICTORY_POINT)]
    settlements = sum(game.vertex_level[v] == 1 for v in game.buildings_of[red])
    score = settlements + 2 * cities + chips + cards + 2 * (game.longest_road == red)
    assert game.winner_color == "red" and cities == 2
    assert score == game.victory_points(red) and 13 <= score <= 14
    assert game.victory_points(1) < 13 and game.victory_points(2) < 13


def test_a_computer_player_takes_a_gift_within_reach():
    from companion.bots import GreedyBot

    game = tribe()
    found_tribe(game)  # red's founding ship leads towards CHIP_NE
    red_turn(game)
    assert sea_path(game, "red", network(game, "red"), CHIP_NE) == [CHIP_NE]
    set_hand(game, "red", lumber=1, wool=1)
    assert GreedyBot(seed=1).choose(game) == BuildShip("red", CHIP_NE)


def test_tokens_still_on_the_islands_do_not_close_a_sea_hex_to_harbours():
    game = tribe()
    found_tribe(game)
    hook = gifts(game)
    tokens = hook.harbor_spots(game)
    without = list(game.board.harbors)
    places = hook.harbor_places(game, 0)
    game.set_harbors([hb for hb in without if hb not in tokens])  # the islands bare
    assert hook.harbor_places(game, 0) == places
