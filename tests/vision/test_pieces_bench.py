"""The confusion table of pieces' kinds on renders (vision.bench_pieces)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from companion.board import Terrain, Topology
from vision.bench_pieces import KINDS, kinds_on_photos, kinds_on_renders, random_pieces
from vision.synth.boards import seafarers_board, standard_board


def test_random_pieces_keep_the_rules_of_placement() -> None:
    rng = np.random.default_rng(5)
    for board in (standard_board("base", rng), seafarers_board(rng)):
        pieces = random_pieces(board, rng)
        t = Topology.of(board.tiles)
        built = {t.vertex_index[p.vertex] for p in pieces if p.vertex is not None}
        assert built and all(not set(t.vertex_neighbours[v]) & built for v in built)
        for p in pieces:
            if p.edge is None:
                continue
            hexes = [board.tiles[t.hexes[i]].terrain for i in t.edge_hexes[t.edge_index[p.edge]]]
            if p.kind == "road":
                assert any(x != Terrain.SEA for x in hexes)
            else:
                assert board.kind == "seafarers"
                assert len(hexes) < 2 or Terrain.SEA in hexes
        assert {"settlement", "city", "road"} <= {p.kind for p in pieces}


def test_every_true_piece_lands_in_one_cell_of_the_table() -> None:
    out = kinds_on_renders(3, seed=1, width=640, height=480)
    table = out["confusion"]
    assert set(table) == set(KINDS) and all(set(row) <= set(KINDS) for row in table.values())
    assert sum(sum(row.values()) for k, row in table.items() if k != "none") == out["pieces"]
    assert sum(table[k].get(k, 0) for k in ("settlement", "road", "ship")) > out["pieces"] / 2
    assert sum(out["by_board"]["seafarers"]["ship"].values()) > 0
    # Every building read at a true building is tallied by kind right or wrong, sure or not.
    buildings = ("settlement", "city")
    found = sum(table[k].get(c, 0) for k in buildings for c in buildings)
    assert sum(out["kind_sure"].values()) == found
    wrong = table["settlement"].get("city", 0) + table["city"].get("settlement", 0)
    assert sum(n for key, n in out["kind_sure"].items() if "_wrong_" in key) == wrong


def test_photos_without_the_datasets_are_skipped(tmp_path: Path) -> None:
    assert "skipped" in kinds_on_photos(tmp_path)
