"""White pieces read by the tile seams they hide (vision.seams, PieceDetector._hidden_whites).

The renderer draws a board printed in one piece (no seams); these tests draw the dark seams of
a board made of cardboard tiles over its borders, and a pale disc of the border's own colour (a
white piece in the shade) over a corner.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_pieces import CAMERA, board_of

from companion.board import Edge, Terrain, Topology, Vertex, edge_vertices, vertex_position
from vision.pieces import HIDDEN_GAP, PieceDetector
from vision.seams import corner_gaps, inner_sides, seam_visibility, seams_seen
from vision.synth.render import render_board

CORNER = Vertex(0, 0, "N")
SEAM_BGR = (40, 50, 60)


def _render():  # type: ignore[no-untyped-def]
    board = board_of(Terrain.FIELDS, [])
    return board, render_board(board, width=800, height=600, rng=1, conditions=CAMERA)


def _plane_to_image(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h)[:, 0]


def _draw_seams(image: np.ndarray, h: np.ndarray, topology: Topology, skip=()) -> None:  # type: ignore[no-untyped-def]
    """Dark lines, two pixels wide, along every side between two land hexes (in place)."""
    for e in np.flatnonzero(inner_sides(topology)):
        if topology.edges[e] in skip:
            continue
        ends = _plane_to_image(h, [vertex_position(v) for v in edge_vertices(topology.edges[e])])
        a, b = (tuple(int(round(c)) for c in p) for p in ends)
        cv2.line(image, a, b, SEAM_BGR, 2, cv2.LINE_AA)


def _border_bgr(image: np.ndarray, h: np.ndarray) -> tuple[int, int, int]:
    """The border's colour: the photo at the middle of a side, seams not drawn yet."""
    a, b = (np.array(vertex_position(v)) for v in edge_vertices(Edge(1, 0, "E")))
    x, y = np.round(_plane_to_image(h, [(a + b) / 2])[0]).astype(int)
    return tuple(int(c) for c in np.median(image[y - 1 : y + 2, x - 1 : x + 2], axis=(0, 1)))  # type: ignore[return-value]


def _disc(image: np.ndarray, h: np.ndarray, at: Vertex, radius: float, bgr) -> None:  # type: ignore[no-untyped-def]
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.array(vertex_position(at)) + radius * np.column_stack(
        [np.cos(angles), np.sin(angles)]
    )
    cv2.fillPoly(image, [np.round(_plane_to_image(h, ring)).astype(np.int32)], bgr)


def _visible(image: np.ndarray, board):  # type: ignore[no-untyped-def]
    t = Topology.of(list(board.tiles))
    return t, seam_visibility(image, _render_h, t, inner_sides(t))


_board, _r = _render()
_render_h = _r.homography


def _pale_disc_on_seams(topology: Topology, skip=()) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The render with its seams drawn (but on ``skip``) and a disc of the border's colour on
    CORNER: a white piece in the shade, the border's colour, standing on the seams."""
    image = _r.image.copy()
    border = _border_bgr(image, _render_h)
    _draw_seams(image, _render_h, topology, skip)
    _disc(image, _render_h, CORNER, 0.18, border)
    return image


def test_seams_are_seen_where_drawn_and_not_on_a_board_in_one_piece() -> None:
    t = Topology.of(list(_board.tiles))
    free = np.zeros(len(t.edges), bool)
    _, raw = _visible(_r.image, _board)
    image = _r.image.copy()
    _draw_seams(image, _render_h, t)
    _, drawn = _visible(image, _board)
    assert seams_seen(raw, inner_sides(t), free) < 0.1
    assert seams_seen(drawn, inner_sides(t), free) > 0.9
    assert not drawn[~inner_sides(t)].any()


def test_a_pale_disc_on_a_corner_hides_its_seams_and_only_there() -> None:
    t = Topology.of(list(_board.tiles))
    image = _pale_disc_on_seams(t)
    _, visible = _visible(image, _board)
    gaps = corner_gaps(visible, t, inner_sides(t), np.zeros(len(t.edges), bool))
    v = t.vertex_index[CORNER]
    assert gaps[v] >= HIDDEN_GAP
    others = np.delete(gaps, v)
    assert np.nanmax(others) < HIDDEN_GAP
    # Rim corners have one inner arm at most: one seam is no evidence either way.
    rim = [i for i, hs in enumerate(t.vertex_hexes) if len(hs) < 3]
    assert np.isnan(gaps[rim]).all()


def test_a_short_dark_mark_at_the_corner_is_not_its_seam() -> None:
    # A piece's own dark edge or contact shadow runs along an arm for a few hundredths of a
    # hex: shorter than the run a seam must show (SEAM_RUN).
    t = Topology.of(list(_board.tiles))
    image = _pale_disc_on_seams(t)
    arm = t.edges[t.vertex_edges[t.vertex_index[CORNER]][0]]
    a, b = (np.array(vertex_position(v)) for v in edge_vertices(arm))
    start = a if edge_vertices(arm)[0] == CORNER else b
    end = start + 0.04 * ((b + a - 2 * start) / np.linalg.norm(b - a))
    p, q = (tuple(int(round(c)) for c in x) for x in _plane_to_image(_render_h, [start, end]))
    cv2.line(image, p, q, SEAM_BGR, 2, cv2.LINE_AA)
    _, visible = _visible(image, _board)
    gaps = corner_gaps(visible, t, inner_sides(t), np.zeros(len(t.edges), bool))
    assert gaps[t.vertex_index[CORNER]] >= HIDDEN_GAP


def test_corner_gaps_need_two_free_arms() -> None:
    t = Topology.of(list(_board.tiles))
    inner = inner_sides(t)
    visible = np.zeros((len(t.edges), 41), bool)
    v = t.vertex_index[CORNER]
    arms = list(t.vertex_edges[v])
    occupied = np.zeros(len(t.edges), bool)
    assert corner_gaps(visible, t, inner, occupied)[v] == 1.0
    occupied[arms[:2]] = True
    assert np.isnan(corner_gaps(visible, t, inner, occupied)[v])


def _read_whites(image: np.ndarray) -> list:  # type: ignore[type-arg]
    detector = PieceDetector(_render_h, list(_board.tiles), ground=True)
    return [p for p in detector.read(image).pieces() if p.color == "white"]


def test_a_white_piece_in_the_borders_colour_is_read_by_the_seams_it_hides() -> None:
    t = Topology.of(list(_board.tiles))
    image = _pale_disc_on_seams(t)
    whites = _read_whites(image)
    assert [(p.kind, p.vertex) for p in whites] == [("settlement", CORNER)]
    # Read by what it hides, not by its colour: a piece, but not a sure one.
    assert whites[0].confidence < 0.75


def test_its_road_is_the_side_beside_it_that_hides_its_seam() -> None:
    t = Topology.of(list(_board.tiles))
    road = t.edges[t.vertex_edges[t.vertex_index[CORNER]][1]]
    image = _pale_disc_on_seams(t, skip={road})
    whites = _read_whites(image)
    assert sorted((p.kind, str(p.vertex or p.edge)) for p in whites) == sorted(
        [("settlement", str(CORNER)), ("road", str(road))]
    )


@pytest.mark.parametrize("seams", [False, True])
def test_no_white_piece_from_seams_on_a_board_in_one_piece_or_at_bare_corners(
    seams: bool,
) -> None:
    t = Topology.of(list(_board.tiles))
    image = _r.image.copy()
    border = _border_bgr(image, _render_h)
    if seams:
        _draw_seams(image, _render_h, t)  # every corner shows its seams: nothing stands
    else:
        _disc(image, _render_h, CORNER, 0.18, border)  # no seams to hide: not evidence
    assert _read_whites(image) == []
