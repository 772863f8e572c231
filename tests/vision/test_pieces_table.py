"""The pieces' colour table, classified cell by cell as frames look cells up."""

from __future__ import annotations

import numpy as np
from test_pieces import CAMERA, LAYOUT, board_of

from companion.board import Hex, Piece, Terrain, Vertex
from vision.pieces import PLASTIC_SHADES, PieceDetector
from vision.synth.render import render_board


def _renders() -> tuple[list[np.ndarray], np.ndarray, list[Hex]]:
    """Two renders under the same camera, with other land and other pieces."""
    images, homography, hexes = [], np.eye(3), []
    for terrain, layout in ((Terrain.HILLS, LAYOUT), (Terrain.PASTURE, LAYOUT[:2])):
        pieces = [
            Piece(k, "red", vertex=w) if isinstance(w, Vertex) else Piece(k, "red", edge=w)
            for k, w in layout
        ]
        board = board_of(terrain, pieces)
        r = render_board(board, width=640, height=480, rng=0, conditions=CAMERA)
        images.append(r.image)
        homography, hexes = r.homography, list(board.tiles)
    return images, homography, hexes


def test_cells_classified_on_demand_read_as_the_whole_table() -> None:
    images, homography, hexes = _renders()
    lazy = PieceDetector(homography, hexes, shades=PLASTIC_SHADES)
    whole = PieceDetector(homography, hexes, shades=PLASTIC_SHADES)
    table = whole._lut.copy()  # every cell classified up front
    for image in images:  # the second frame finds some of its cells already classified
        top = lazy.top_view(image)
        assert np.array_equal(lazy.labels(top), whole.labels(top))
        assert lazy.read(image).pieces() == whole.read(image).pieces()
    # The cells the frames looked up hold the whole table's classes; the rest wait.
    seen = lazy._cells >= -2
    assert 0 < seen.sum() < seen.size
    assert np.array_equal(lazy._cells[seen], table.ravel()[seen])
    assert np.array_equal(lazy._lut, table)
