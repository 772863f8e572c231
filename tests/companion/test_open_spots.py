"""The build spots ``legal_actions`` lists are kept until the board changes: every change that
opens or closes a spot must be seen (the property tests cover pieces placed and moved,
test_seafarers the pirate, this file a hex changed in play)."""

from __future__ import annotations

from conftest import give, refusal, roll

from companion.actions import BuildRoad
from companion.board import Terrain, Tile
from companion.game import Game


def test_a_side_turned_all_sea_is_no_longer_a_road_spot(started: Game) -> None:
    roll(started, 2)
    give(started, "red", lumber=1, brick=1)
    road = next(a for a in started.legal_actions() if isinstance(a, BuildRoad))
    t = started.topology
    for h in t.edge_hexes[t.edge_index[road.edge]]:
        started.set_tile(t.hexes[h], Tile(Terrain.SEA, None))
    assert road not in started.legal_actions()
    assert refusal(started, road).rule == "1.9.3"
