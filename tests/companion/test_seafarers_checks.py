"""Set-up checks of RULES.md 7.4 that compare a table's board with a scenario file's map:
S2-OUTLINES (the Four Islands), S3-GREY-EMPTY (the Fog Islands), S6-FIXED-CENTRE (Cloth for
Catan); S5-GIFTS and S6-VILLAGES are tested with their scenarios."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import hook_entry, scenario_copy

from companion.board import Terrain, Tile
from companion.scenario import ScenarioError, load_scenario
from companion.setup_check import check_board


def rules_broken(board, scenario) -> dict[str, list]:
    out: dict[str, list] = {}
    for v in check_board(board, scenario.setup, scenario.players).violations:
        out.setdefault(v.rule, []).append(v)
    return out


@pytest.mark.parametrize("players", [3, 4])
def test_four_islands_outlines_are_the_files_map(players):
    s = load_scenario("four-islands", players, seed=5)
    assert "S2-OUTLINES" in s.setup.rules and check_board(s.board, s.setup, players).ok
    # a land hex (not red: no red pair by chance) and a sea hex trade places: the same
    # material, other outlines
    land = next(h for h in sorted(s.areas["island"]) if s.board.tiles[h].number not in (6, 8))
    sea = next(h for h, t in sorted(s.board.tiles.items()) if t.terrain == Terrain.SEA)
    s.board.tiles[land], s.board.tiles[sea] = s.board.tiles[sea], s.board.tiles[land]
    broken = rules_broken(s.board, s)
    assert set(broken) == {"S2-OUTLINES"}  # the counts still add up
    (v,) = broken["S2-OUTLINES"]
    assert set(v.hexes) == {land, sea}
    assert f"{land} should be land" in v.message and f"{sea} should be sea" in v.message


def test_four_islands_outline_check_notices_a_missing_hex():
    s = load_scenario("four-islands", 4, seed=5)
    land = sorted(s.areas["island"])[0]
    del s.board.tiles[land]
    (v,) = rules_broken(s.board, s)["S2-OUTLINES"]
    assert v.hexes == (land,) and "missing" in v.message


@pytest.mark.parametrize("players", [3, 4])
def test_fog_islands_grey_spaces_start_empty(players):
    s = load_scenario("fog-islands", players, seed=2)
    assert "S3-GREY-EMPTY" in s.setup.rules and check_board(s.board, s.setup, players).ok
    grey = sorted(s.areas["fog"])[0]
    s.board.tiles[grey] = Tile(Terrain.HILLS, 5)  # a hex laid where the fog should be
    (v,) = rules_broken(s.board, s)["S3-GREY-EMPTY"]
    assert v.hexes == (grey,) and "hills 5" in v.message


def _fog_file(tmp_path, mutate):
    def mutate_stacks(data):
        for layout in data["layouts"].values():
            mutate(hook_entry(layout, "exploration")["stack"])

    return scenario_copy(tmp_path, "fog-islands", mutate_stacks)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda stack: stack["terrain"].update(sea=1), "11 hexes for 12 grey spaces"),
        (lambda stack: stack["chips"].update({"11": 1}), "9 chips for 10 producing hexes"),
    ],
)
def test_fog_islands_stacks_must_fill_the_grey_spaces(tmp_path, mutate, message):
    with pytest.raises(ScenarioError, match=message):
        load_scenario(_fog_file(tmp_path, mutate), 4, seed=1)


def test_cloth_for_catan_tribe_islands_are_fixed():
    s = load_scenario("cloth-for-catan", 4, seed=3)
    tribe = sorted(s.areas["tribe"])
    s.board.tiles[tribe[0]] = replace(s.board.tiles[tribe[0]], terrain=Terrain.PASTURE)
    broken = rules_broken(s.board, s)
    assert tribe[0] in broken["S6-FIXED-CENTRE"][0].hexes
