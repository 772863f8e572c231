"""Scenario files: loading, material, the physical pool, hooks, and games to their end."""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import replace

import pytest
from conftest import Script, scenario_copy, set_hand
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.actions import (
    BuildRoad,
    BuildSettlement,
    BuildShip,
    Cards,
    ChooseGold,
    EndTurn,
    RollDice,
)
from companion.board import Terrain
from companion.bots import GreedyBot
from companion.game import Game, IllegalAction, Phase
from companion.scenario import (
    SCENARIO_DIR,
    ScenarioError,
    list_scenarios,
    load_scenario,
    player_counts,
)

COLORS = ["red", "blue", "white", "orange"]
#: seats for the 5-6 player layouts of the Big Box scenarios
SEATS = [*COLORS, "green", "brown"]

ALL = [(name, n) for name in list_scenarios() for n in player_counts(name)]


@pytest.mark.parametrize(("name", "players"), ALL)
def test_every_packaged_scenario_matches_its_material_table(name, players):
    data = json.loads((SCENARIO_DIR / f"{name}.json").read_text())
    layout = data.get("layouts", {}).get(str(players), {})
    for seed in range(5):
        s = load_scenario(name, players, seed=seed)
        for area, table in layout.get("material", {}).items():
            hexes = s.areas[area]
            terrain = Counter(s.board.tiles[h].terrain.value for h in hexes)
            assert terrain == Counter(table["terrain"]), (area, seed)
            if "chips" in table:
                chips = Counter(
                    str(s.board.tiles[h].number) for h in hexes if s.board.tiles[h].number
                )
                assert chips == Counter(table["chips"]), (area, seed)
        if data.get("setup", {}).get("red_adjacent") is False:
            from companion.layouts import red_pairs

            assert not red_pairs(s.board.tiles)


@pytest.mark.parametrize(("name", "players"), ALL)
def test_every_packaged_scenario_is_played_to_its_end(name, players):
    s = load_scenario(name, players, seed=3)
    game = Game(s.board, SEATS[:players], s.rules, rng=3)
    bot = GreedyBot(seed=3)
    while game.phase != Phase.GAME_OVER:
        game.apply(bot.choose(game))
        assert game.turn_number < 800
    winner = game.winner
    # the points, the scenario's own goal (a completed wonder) or its own end (villages dry)
    goal = any(
        hook.goal_reached(game, winner) or hook.game_end(game) == winner for hook in game.hooks
    )
    assert game.victory_points(winner) >= s.rules.victory_points or goal
    # the score recounted from the pieces and cards
    recount = (
        sum(lvl for v, lvl in enumerate(game.vertex_level) if game.vertex_owner[v] == winner)
        + game.special_vp[winner]
        + game.dev_hands[winner][1]
        + 2 * (game.longest_road == winner)
        + 2 * (game.largest_army == winner)
    )
    assert recount == game.victory_points(winner)


def test_a_scenario_map_keeps_its_chips_only_when_every_set_up_lays_the_same(monkeypatch):
    # The photo reader deduces a hidden chip from the map's chips: a scenario whose set-ups
    # lay different chips must not give it one set-up's as if they were the map's.
    import companion.scenario as scenario

    assert scenario.scenario_map("new-shores", 4).chip_counts() == (
        scenario.load_scenario("new-shores", 4, seed=7).board.chip_counts()
    )
    real = scenario.load_scenario

    def one_chip_off(name, players, seed=0):
        s = real(name, players, seed=0)
        if seed:
            h = next(h for h, t in s.board.tiles.items() if t.number == 5)
            s.board.tiles[h] = replace(s.board.tiles[h], number=4)
        return s

    monkeypatch.setattr(scenario, "load_scenario", one_chip_off)
    bare = scenario.scenario_map("new-shores", 4)
    assert not bare.chip_counts()
    assert bare.terrain_counts() == real("new-shores", 4, seed=0).board.terrain_counts()

    # The same chips, but another land hex left without one: no hex is promised chip-less.
    def chip_moved(name, players, seed=0):
        s = real(name, players, seed=0)
        if seed:
            h, t = next((h, t) for h, t in s.board.tiles.items() if t.number == 5)
            d = next(h for h, t in s.board.tiles.items() if t.terrain == Terrain.DESERT)
            s.board.tiles[h] = replace(t, number=None)
            s.board.tiles[d] = replace(s.board.tiles[d], terrain=Terrain.HILLS, number=5)
        return s

    monkeypatch.setattr(scenario, "load_scenario", chip_moved)
    assert not scenario.scenario_map("new-shores", 4).chip_counts()


def test_a_scenario_map_is_refused_when_its_set_ups_lay_other_harbours(monkeypatch):
    # The photo reader reads a map's harbours on the map's sides under the map's set (none
    # where the map has none): a scenario whose set-ups differ there has no map to rely on.
    import companion.scenario as scenario

    assert len(scenario.scenario_map("new-shores", 4).harbors) == 9
    real = scenario.load_scenario

    def harbour_moved(name, players, seed=0):
        s = real(name, players, seed=0)
        if seed:
            h = s.board.harbors[0]
            s.board.harbors[0] = replace(h, kind="ore" if h.kind != "ore" else "wool")
        return s

    monkeypatch.setattr(scenario, "load_scenario", harbour_moved)
    with pytest.raises(ValueError, match="harbours at random"):
        scenario.scenario_map("new-shores", 4)


def test_a_scenario_map_whose_fog_moves_between_set_ups_is_refused(monkeypatch):
    # The photo reader gives a map's face-down hexes as the map has them: a scenario that
    # turned other hexes face down in another set-up has no such map to rely on.
    import companion.scenario as scenario
    from companion.board import Tile

    real = scenario.load_scenario

    def fog_moved(name, players, seed=0):
        s = real(name, players, seed=0)
        if seed:
            h = next(h for h, t in s.board.tiles.items() if t.terrain == Terrain.UNEXPLORED)
            s.board.tiles[h] = Tile(Terrain.PASTURE, 5)
        return s

    assert len(scenario.scenario_map("fog-islands", 4).tiles) == len(
        real("fog-islands", 4).board.tiles
    )
    monkeypatch.setattr(scenario, "load_scenario", fog_moved)
    with pytest.raises(ValueError, match="at random"):
        scenario.scenario_map("fog-islands", 4)


def test_an_unknown_scenario_names_the_known_ones():
    with pytest.raises(ScenarioError, match="new-shores"):
        load_scenario("atlantis", 4)


def test_a_missing_player_count_is_reported():
    with pytest.raises(ScenarioError, match="no layout for 6 players"):
        load_scenario("new-shores", 6)


def test_a_home_made_scenario_loads_by_path(tmp_path):
    path = scenario_copy(tmp_path, "new-shores", lambda d: d["rules"].update(victory_points=12))
    assert load_scenario(path, 4, seed=1).rules.victory_points == 12


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="x"), "format"),
        (lambda d: d["rules"].update(dragons=True), "unknown option 'dragons'"),
        (lambda d: d["hooks"].append({"hook": "dragons"}), "unknown hook 'dragons'"),
        (lambda d: d["hooks"].append({"hook": "founding_area"}), "missing parameter"),
        (
            lambda d: d["layouts"]["4"]["rows"][0].update(hexes="lava"),
            "unknown terrain 'lava'",
        ),
        (
            lambda d: d["layouts"]["4"]["material"]["main"]["terrain"].update(desert=2),
            "material of area 'main'",
        ),
        (
            # a 20th sea hex: more than the box holds (3.1.2)
            lambda d: d["layouts"]["4"]["rows"].append({"r": 5, "q": 0, "hexes": "sea " * 6}),
            "more hexes than the box holds",
        ),
        (
            lambda d: d["layouts"]["4"].update(catan_chips=60),
            "Catan chips",
        ),
        (
            lambda d: d["layouts"]["4"]["harbor_pool"].append("3:1"),
            "harbor_pool",
        ),
        (
            lambda d: d["layouts"]["4"].update(marks={"cape": [[40, 40, "N"]]}),
            "marks.cape: corner \\[40, 40, 'N'\\] is not on the map",
        ),
        (
            lambda d: d["hooks"].append({"hook": "founding_area", "areas": "@cape"}),
            "'@cape' names no area or mark",
        ),
    ],
)
def test_a_broken_scenario_file_says_what_is_wrong(tmp_path, mutate, message):
    with pytest.raises(ScenarioError, match=message):
        load_scenario(scenario_copy(tmp_path, "new-shores", mutate), 4, seed=1)


def test_garbage_is_not_a_scenario(tmp_path):
    path = tmp_path / "garbage.json"
    path.write_bytes(b"\x00\xffnope")
    with pytest.raises(ScenarioError, match="not a JSON document"):
        load_scenario(path, 4)


# -- New Shores, played by hand ----------------------------------------------------------------


def _ship_path(game: Game, start: int, targets: set[int]) -> list[int]:
    """The shortest chain of navigable sides from corner ``start`` to one of ``targets``."""
    t = game.topology
    prev: dict[int, tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        if v in targets:
            path = []
            while prev[v] is not None:
                u, e = prev[v]
                path.append(e)
                v = u
            return path[::-1]
        for e in t.vertex_edges[v]:
            if not game.edge_sea[e]:
                continue
            a, b = t.edge_vertices[e]
            w = b if a == v else a
            if w not in prev:
                prev[w] = (v, e)
                queue.append(w)
    raise AssertionError("no way by sea")


def test_new_shores_founding_on_the_main_island_and_two_points_for_each_new_island():
    s = load_scenario("new-shores", 4, seed=2)
    game = Game(s.board, COLORS, s.rules, Script())
    t = game.topology
    main, small = s.areas["main"], s.areas["small"]
    small_land = {h for h in small if s.board.tiles[h].terrain.is_land}

    # 4.1.2: not on a small island in the founding phase
    islet = next(
        v
        for v, hs in enumerate(t.vertex_hexes)
        if {t.hexes[h] for h in hs if game.hex_land[h]} & small_land
    )
    with pytest.raises(IllegalAction) as err:
        game.apply(BuildSettlement("red", t.vertices[islet]))
    assert err.value.rule == "4.1.2"
    # red founds on the main island's coast nearest the islets; the others anywhere on main
    coast = [
        v
        for v, hs in enumerate(t.vertex_hexes)
        if any(t.hexes[h] in main and game.hex_land[h] for h in hs)
        and any(game.edge_sea[e] for e in t.vertex_edges[v])
        and game._settlement_spot_error(0, v, True) is None
    ]
    home = min(coast, key=lambda v: len(_ship_path(game, v, _corners_of(game, small_land))))
    game.apply(BuildSettlement("red", t.vertices[home]))
    first_ship = _ship_path(game, home, _corners_of(game, small_land))[0]
    game.apply(BuildShip("red", t.edges[first_ship]))
    bot = GreedyBot(seed=1)
    while game.phase != Phase.ROLL:
        game.apply(bot.choose(game))
    assert game.special_vp == [0, 0, 0, 0]
    # red sails to the nearest free islet corner and settles it
    game.rng.dice.append((1, 1))
    game.apply(RollDice("red"))
    free = {
        v
        for v in _corners_of(game, small_land)
        if game.vertex_owner[v] == -1
        and all(game.vertex_owner[n] == -1 for n in t.vertex_neighbours[v])
    }
    path = [e for e in _ship_path(game, home, free) if game.edge_owner[e] != 0]
    set_hand(game, "red", lumber=len(path) + 1, wool=len(path) + 1, brick=1, grain=1)
    for e in path:
        game.apply(BuildShip("red", t.edges[e]))
    target = next(v for v in free if any(v in t.edge_vertices[e] for e in path))
    events = game.apply(BuildSettlement("red", t.vertices[target]))
    assert {"type": "special_vp", "player": "red", "vp": 2, "why": "new island"} in events
    assert game.special_vp[0] == 2
    assert game.public_victory_points(0) == 2 + 1 + 2  # two founding settlements, one more, +2
    # A second settlement on the same islet earns nothing more (4.1.4: the first only).
    bonus = next(h for h in game.hooks if h.name == "island_bonus")
    same_islet = next(
        v
        for v in _corners_of(game, small_land)
        if v != target and bonus._region_of(game, v) == bonus._region_of(game, target)
    )
    assert bonus.after_settlement(game, 0, same_islet, False) == []
    # ...but blue's first settlement there does earn blue the bonus.
    assert bonus.after_settlement(game, 1, same_islet, False)[0]["player"] == "blue"
    game.apply(EndTurn("red"))
    snapshot = game.snapshot()
    assert snapshot["special_vp"][0] == 2


def _corners_of(game: Game, hexes: set) -> set[int]:
    t = game.topology
    return {v for h in hexes for v in t.hex_vertices[t.hex_index[h]]}


def test_the_robber_of_three_player_new_shores_starts_on_the_hills_with_12():
    s = load_scenario("new-shores", 3, seed=4)
    tile = s.board.tiles[s.board.robber]
    assert (tile.terrain, tile.number) == (Terrain.HILLS, 12)
    assert s.board.pirate is not None and s.board.tiles[s.board.pirate].terrain == Terrain.SEA


def test_scenario_rules_survive_the_journal(tmp_path):
    from companion.journal import JournaledGame

    s = load_scenario("new-shores", 4, seed=5)
    jg = JournaledGame.create(tmp_path / "s.sqlite", s.board, COLORS, s.rules, seed=5)
    bot = GreedyBot(seed=5)
    for _ in range(400):
        if jg.game.phase == Phase.GAME_OVER:
            break
        jg.apply(bot.choose(jg.game))
    jg.close()
    again = JournaledGame.open(tmp_path / "s.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    assert again.game.rules.victory_points == 14 and len(again.game.hooks) == 2
    again.close()


def test_through_the_desert_strip_is_foreign_and_closed_to_founding():
    s = load_scenario("through-the-desert", 4, seed=1)
    game = Game(s.board, COLORS, s.rules, Script())
    t = game.topology
    strip, main_area = s.areas["strip"], s.areas["mainarea"]

    def land_of(v):
        return {t.hexes[h] for h in t.vertex_hexes[v] if game.hex_land[h]}

    strip_corner = next(v for v in range(len(t.vertices)) if land_of(v) and land_of(v) <= strip)
    main_corner = next(v for v in range(len(t.vertices)) if land_of(v) and land_of(v) <= main_area)
    with pytest.raises(IllegalAction) as err:  # 4.4.2
        game.apply(BuildSettlement("red", t.vertices[strip_corner]))
    assert err.value.rule == "4.4.2"
    bonus = next(h for h in game.hooks if h.name == "island_bonus")
    assert bonus.after_settlement(game, 0, main_corner, False) == []
    assert bonus.after_settlement(game, 0, strip_corner, False)[0]["vp"] == 2  # 4.4.4
    assert game.special_vp[0] == 2


# -- The Fog Islands: exploration -------------------------------------------------------------


def _fog_game(seed: int = 1) -> tuple[Game, object]:
    s = load_scenario("fog-islands", 4, seed=seed)
    return Game(s.board, COLORS, s.rules, Script()), s


def _first_road_into_fog(game: Game) -> tuple[int, int]:
    """A founding corner on a start island next to a fog space, and a side from it that
    reaches the fog (a road over land, or a ship over sea)."""
    t = game.topology
    for v in range(len(t.vertices)):
        if game._settlement_spot_error(0, v, True) is not None:
            continue
        for e in t.vertex_edges[v]:
            if not game.edge_land[e]:
                continue  # a road over land (ships would have to mind the pirate)
            far = next(x for x in t.edge_vertices[e] if x != v)
            if any(
                game.board.tiles[t.hexes[h]].terrain == Terrain.UNEXPLORED
                for h in t.vertex_hexes[far]
            ):
                return v, e
    raise AssertionError("no corner next to the fog")


def _found_towards_fog(game: Game) -> tuple[int, int]:
    v, e = _first_road_into_fog(game)
    t = game.topology
    game.apply(BuildSettlement("red", t.vertices[v]))
    return v, e


def _fog_reached(game: Game, e: int) -> tuple[int, int]:
    """A fog hex next to side ``e`` (the lowest by index where the side touches two)."""
    t = game.topology
    fog = [
        h
        for x in t.edge_vertices[e]
        for h in t.vertex_hexes[x]
        if game.board.tiles[t.hexes[h]].terrain == Terrain.UNEXPLORED
    ]
    return t.hexes[min(fog)]


def test_a_piece_reaching_the_fog_turns_up_a_hex_and_land_pays_its_explorer():
    game, _ = _fog_game()
    t = game.topology
    v, e = _found_towards_fog(game)
    piece = BuildRoad
    game.rng.picks.extend([2])  # the stack's terrains in sorted order: fields, forest, gold...
    events = game.apply(piece("red", t.edges[e]))
    explored = [x for x in events if x["type"] == "explored"]
    assert len(explored) == 1
    q, r = explored[0]["hex"]
    tile = game.board.tiles[(q, r)]
    assert tile.terrain.value == explored[0]["terrain"] != "unexplored"
    if tile.terrain.resource is not None:
        assert explored[0]["cards"] == {tile.terrain.resource.value: 1}
        assert sum(game.hands[0]) == 1 and tile.number is not None
    stack = game.hook_state["exploration"]["terrain"]
    assert sum(stack.values()) == 11  # one of the twelve is on the board now
    # the journaled action carries what was revealed, so a replay needs no randomness
    assert game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.CHOOSE_GOLD)


def test_the_table_may_say_what_was_revealed_and_impossible_reports_are_refused():
    game, _ = _fog_game()
    t = game.topology
    v, e = _found_towards_fog(game)
    piece = BuildRoad
    q, r = _fog_reached(game, e)
    before = game.snapshot()
    with pytest.raises(IllegalAction) as err:  # not a hex this piece reaches
        game.apply(piece("red", t.edges[e], ((q + 5, r, "hills", 5),)))
    assert err.value.rule == "4.3.5"
    with pytest.raises(IllegalAction):  # no desert in the fog stack
        game.apply(piece("red", t.edges[e], ((q, r, "desert", 0),)))
    assert game.snapshot() == before
    game.apply(piece("red", t.edges[e], ((q, r, "hills", 5),)))
    assert game.board.tiles[(q, r)].terrain == Terrain.HILLS
    assert game.board.tiles[(q, r)].number == 5
    assert game.hands[0][1] == 1  # one brick for the explorer


def test_an_explored_gold_field_gives_a_card_of_choice_then_play_goes_on():
    game, _ = _fog_game()
    t = game.topology
    v, e = _found_towards_fog(game)
    piece = BuildRoad
    q, r = _fog_reached(game, e)
    game.apply(piece("red", t.edges[e], ((q, r, "gold", 8),)))
    assert game.phase == Phase.CHOOSE_GOLD
    game.apply(ChooseGold("red", Cards.of(ore=1)))
    assert game.phase == Phase.FOUNDING_SETTLEMENT and game.current_player == "blue"
    assert game.hands[0][4] == 1


def test_fog_islands_replay_from_the_journal_rebuilds_the_explored_board(tmp_path):
    from companion.journal import JournaledGame

    s = load_scenario("fog-islands", 3, seed=2)
    jg = JournaledGame.create(tmp_path / "fog.sqlite", s.board, COLORS[:3], s.rules, seed=2)
    bot = GreedyBot(seed=2)
    explored = 0
    while jg.game.phase != Phase.GAME_OVER:
        explored += sum(e["type"] == "explored" for e in jg.apply(bot.choose(jg.game)))
    assert explored > 0
    jg.close()
    again = JournaledGame.open(tmp_path / "fog.sqlite")
    assert again.game.snapshot() == jg.game.snapshot()
    again.close()


def test_the_setup_checker_knows_the_scenario_files(tmp_path, capsys):
    from companion.cli import main

    s = load_scenario("four-islands", 4, seed=6)
    path = tmp_path / "four.json"
    s.board.save(path)
    assert main(["check-setup", str(path), "--scenario", "four-islands", "--players", "4"]) == 0
    # a 2 on a forest breaks the scenario's own check (4.2.6, as the file configures it)
    data = json.loads(path.read_text())
    forest = next(h for h in data["hexes"] if h["terrain"] == "forest")
    two = next(h for h in data["hexes"] if h.get("number") == 2)
    forest["number"], two["number"] = two["number"], forest["number"]
    path.write_text(json.dumps(data))
    assert main(["check-setup", str(path), "--scenario", "four-islands", "--json"]) == 1
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "S2-FOREST-PASTURE-NUMBERS" in {v["rule"] for v in report["violations"]}


def test_generate_board_for_a_scenario_keeps_its_outlines(capsys):
    from companion.cli import main

    assert main(["generate-board", "--scenario", "four-islands", "--seed", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    reference = load_scenario("four-islands", 4, seed=4).board
    sea = {(h["q"], h["r"]) for h in doc["hexes"] if h["terrain"] == "sea"}
    assert sea == {h for h, t in reference.tiles.items() if t.terrain == Terrain.SEA}


@pytest.mark.parametrize(("name", "players"), ALL)
def test_bench_engine_plays_random_games_of_every_scenario_to_their_end(name, players, capsys):
    from companion.cli import main

    assert (
        main(
            [
                "bench",
                "engine",
                "--scenario",
                name,
                "--players",
                str(players),
                "--games",
                "1",
                "--seed",
                "2",
                "--json",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["scenario"] == name and doc["finished_games"] == 1


def test_bench_engine_refuses_a_scenario_against_catanatron(capsys):
    from companion.cli import main

    assert main(["bench", "engine", "--scenario", "new-shores", "--vs-catanatron"]) == 2
    assert "base game only" in capsys.readouterr().err


def _check_invariants(game: Game) -> None:
    rules = game.rules
    for r in range(5):  # every resource card is in the bank or a hand
        assert game.bank[r] + sum(h[r] for h in game.hands) == rules.cards_per_resource
    for p in range(len(game.players)):
        levels = [game.vertex_level[v] for v in game.buildings_of[p]]
        aside: Counter[str] = Counter()
        for hook in game.hooks:  # e.g. the settlement on a pirate fortress (4.7.3)
            aside.update(hook.pieces_aside(game, p))
        # a city's settlement went back to the supply (1.9.6)
        held = levels.count(1) + game.settlements_left[p] + aside["settlements"]
        assert held == rules.settlements
        assert levels.count(2) + game.cities_left[p] == rules.cities
        kinds = [game.edge_kind[e] for e in game.pieces_of[p]]
        assert kinds.count(1) + game.roads_left[p] == rules.roads
        assert kinds.count(2) + game.ships_left[p] + aside["ships"] == rules.ships
        recount = (
            sum(levels)
            + game.special_vp[p]
            + game.dev_hands[p][1]
            + 2 * (game.longest_road == p)
            + 2 * (game.largest_army == p)
        )
        assert recount == game.victory_points(p)


@pytest.mark.parametrize(("name", "players"), ALL)
@settings(max_examples=3, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_random_legal_games_of_every_scenario_keep_the_invariants(name, players, seed):
    import random

    s = load_scenario(name, players, seed=seed)
    game = Game(s.board, SEATS[:players], s.rules, rng=seed)
    chooser = random.Random(seed)
    for step in range(400):
        if game.phase == Phase.GAME_OVER:
            break
        actions = game.legal_actions()
        if step % 25 == 0:  # an action by the wrong player is refused and changes nothing
            before = game.snapshot()
            wrong = next(c for c in SEATS[:players] if c != actions[0].player)
            intruder = replace(actions[0], player=wrong)
            if intruder not in actions:
                with pytest.raises(IllegalAction):
                    game.apply(intruder)
                assert game.snapshot() == before
        game.apply(chooser.choice(actions))
        _check_invariants(game)
