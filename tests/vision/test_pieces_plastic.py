"""Options for real plastic pieces: shaded colours, standing pieces, the ground around a site."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_pieces import CAMERA, board_of

from companion.board import (
    Edge,
    Piece,
    Terrain,
    Vertex,
    edge_vertices,
    vertex_edges,
    vertex_position,
)
from vision.pieces import (
    COLOURS,
    PLAYER_CLASSES,
    PieceDetector,
    camera_position,
    shaded_class,
    state_code,
)
from vision.synth.render import render_board

CORNER = Vertex(0, 0, "N")
RED = (30, 30, 190)  # BGR of a red the classes call red on this render


def look_at(centre: np.ndarray, target: np.ndarray) -> np.ndarray:
    """World -> camera rotation of a camera at ``centre`` looking at ``target`` (z into view)."""
    z = (target - centre) / np.linalg.norm(target - centre)
    x = np.cross(z, [0.0, 0.0, 1.0])
    x /= np.linalg.norm(x)
    return np.stack([x, np.cross(z, x), z])


@pytest.mark.parametrize("centre", [(1.5, -6.0, 8.0), (-4.0, 2.0, 5.0), (0.5, 0.3, 12.0)])
def test_camera_position_is_recovered_from_a_pinhole_homography(centre: tuple) -> None:
    c = np.array(centre)
    rot = look_at(c, np.array([0.0, 0.0, 0.0]))
    k = np.array([[900.0, 0.0, 640.0], [0.0, 900.0, 360.0], [0.0, 0.0, 1.0]])
    t = -rot @ c
    h = 3.7 * k @ np.column_stack([rot[:, 0], rot[:, 1], t])
    assert np.allclose(camera_position(h, (1280, 720)), centre, atol=1e-6)


def test_a_top_down_view_gives_no_camera() -> None:
    assert camera_position(np.diag([40.0, 40.0, 1.0]), (640, 480)) is None


def test_a_shade_is_darker_and_keeps_the_hue() -> None:
    (l0, a0, b0), _ = PLAYER_CLASSES["red"]
    (l1, a1, b1), (sl, _, _) = shaded_class(PLAYER_CLASSES["red"], 0.5)
    assert l1 < l0 - 10
    assert sl < PLAYER_CLASSES["red"][1][0]
    assert abs(np.arctan2(b1, a1) - np.arctan2(b0, a0)) < 0.15


@pytest.mark.parametrize("colour", ["red", "blue"])
def test_shades_add_darker_colours_to_each_player_colour(colour: str) -> None:
    tiles = list(board_of(Terrain.MOUNTAINS, []).tiles)
    h = np.diag([40.0, 40.0, 1.0])
    i = COLOURS.index(colour)
    # The colour tables are what the detector classifies a light-normalised pixel by.
    plain = PieceDetector(h, tiles)._lut == i
    shaded = PieceDetector(h, tiles, shades=(0.4,))._lut == i
    assert shaded.sum() > 1.05 * plain.sum()
    cells = np.argwhere(shaded & ~plain)
    # What the shade adds is darker than what the colour already was (lower B+G+R cells).
    assert cells.sum(axis=1).mean() < np.argwhere(plain).sum(axis=1).mean()


def _paint(image: np.ndarray, homography: np.ndarray, at: np.ndarray, radius: float) -> None:
    """A disc of RED ``radius`` hex radii around the board-plane point ``at`` (in place)."""
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = at + radius * np.column_stack([np.cos(angles), np.sin(angles)])
    pts = cv2.perspectiveTransform(ring.reshape(-1, 1, 2), homography)
    cv2.fillPoly(image, [np.round(pts).astype(np.int32)], RED)


def _state(det: PieceDetector, image: np.ndarray) -> int:
    return int(det.read(image).vertex_state[det.topology.vertex_index[CORNER]])


def test_a_standing_piece_is_read_where_it_projects() -> None:
    board = board_of(Terrain.MOUNTAINS, [])
    r = render_board(board, width=640, height=480, rng=1, conditions=CAMERA)
    # A camera low and far to the side: the corner's building appears well beyond its foot.
    camera = (-6.0, 0.0, 2.0)
    p = np.array(vertex_position(CORNER))
    flat = PieceDetector(r.homography, list(board.tiles))
    standing = PieceDetector(r.homography, list(board.tiles), camera=camera)
    image = r.image.copy()
    _paint(image, r.homography, standing.seen_at(p, 0.15), 0.13)
    assert np.linalg.norm(standing.seen_at(p, 0.15) - p) > 0.3
    assert _state(standing, image) == state_code(COLOURS.index("red"), False)
    assert _state(flat, image) != state_code(COLOURS.index("red"), False)


def test_a_colour_all_around_a_corner_is_ground_not_a_piece() -> None:
    board = board_of(Terrain.MOUNTAINS, [])
    r = render_board(board, width=640, height=480, rng=1, conditions=CAMERA)
    tiles = list(board.tiles)
    p = np.array(vertex_position(CORNER))
    small, large = r.image.copy(), r.image.copy()
    _paint(small, r.homography, p, 0.13)
    _paint(large, r.homography, p, 0.6)
    red = state_code(COLOURS.index("red"), False)
    checked = PieceDetector(r.homography, tiles, context=0.25)
    assert _state(PieceDetector(r.homography, tiles), large) > 0
    assert _state(checked, large) == 0
    assert _state(checked, small) == red


def test_bad_options_are_refused() -> None:
    board = board_of(Terrain.MOUNTAINS, [])
    h = np.diag([40.0, 40.0, 1.0])
    with pytest.raises(ValueError, match="shades"):
        PieceDetector(h, list(board.tiles), shades=(1.5,))
    with pytest.raises(ValueError, match="camera"):
        PieceDetector(h, list(board.tiles), camera=(0.0, 0.0, 0.1))
    with pytest.raises(ValueError, match="context"):
        PieceDetector(h, list(board.tiles), context=0.0)


def test_a_colour_on_one_hand_of_a_side_is_ground_not_a_road() -> None:
    """The coast's foam along the rim: a side's strip and one hand of it in one colour."""
    board = board_of(Terrain.MOUNTAINS, [])
    r = render_board(board, width=640, height=480, rng=1, conditions=CAMERA)
    tiles = list(board.tiles)
    side = Edge(0, 0, "NE")
    a, b = (np.array(vertex_position(v)) for v in edge_vertices(side))
    d = (b - a) / np.linalg.norm(b - a)
    normal = np.array([-d[1], d[0]])
    band = np.array([a, b, b + 0.35 * normal, a + 0.35 * normal])
    image = r.image.copy()
    pts = cv2.perspectiveTransform(band.reshape(-1, 1, 2), r.homography)
    cv2.fillPoly(image, [np.round(pts).astype(np.int32)], RED)
    plain, checked = (
        PieceDetector(r.homography, tiles),
        PieceDetector(r.homography, tiles, context=0.5),
    )
    i = plain.topology.edge_index[side]
    assert plain.read(image).edge_state[i] == state_code(COLOURS.index("red"), False)
    assert checked.read(image).edge_state[i] == 0


def test_a_settlement_among_its_own_roads_is_no_ground() -> None:
    """The roads leaving a corner cross its surroundings; the ground check leaves them out."""
    pieces = [Piece("settlement", "red", vertex=CORNER)]
    pieces += [Piece("road", "red", edge=e) for e in vertex_edges(CORNER)]
    board = board_of(Terrain.MOUNTAINS, pieces)
    r = render_board(board, width=640, height=480, rng=1, conditions=CAMERA)
    det = PieceDetector(r.homography, list(board.tiles), context=0.25)
    found = {(p.color, p.vertex or p.edge) for p in det.read(r.image).pieces()}
    assert found == {("red", p.vertex or p.edge) for p in pieces}


def test_a_settlements_shaded_faces_do_not_make_it_a_city() -> None:
    """The city test counts lit colour only: shaded faces and shadows widen a real piece."""
    board = board_of(Terrain.MOUNTAINS, [])
    r = render_board(board, width=640, height=480, rng=1, conditions=CAMERA)
    p = np.array(vertex_position(CORNER))
    image = r.image.copy()
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = p + 0.3 * np.column_stack([np.cos(angles), np.sin(angles)])
    pts = cv2.perspectiveTransform(ring.reshape(-1, 1, 2), r.homography)
    cv2.fillPoly(image, [np.round(pts).astype(np.int32)], tuple(int(0.45 * x) for x in RED))
    _paint(image, r.homography, p, 0.13)
    det = PieceDetector(r.homography, list(board.tiles), shades=(0.5, 0.3))
    labels = det.labels(det.top_view(image))
    corner = np.round(det._to_top(det.seen_at(p, 0.15))).astype(int)[0]
    off = np.round(det._to_top(p + [0.22, 0.0])).astype(int)[0]
    # The painted shade is read as red, around a lit red settlement.
    assert labels[off[1], off[0]] == labels[corner[1], corner[0]] == COLOURS.index("red")
    assert _state(det, image) == state_code(COLOURS.index("red"), False)


@pytest.mark.parametrize("colour", ["red", "blue", "orange"])
def test_with_shades_a_city_still_covers_more_than_a_settlement(colour: str) -> None:
    road = Piece("road", colour, edge=Edge(0, 0, "NE"))
    areas = []
    for kind in ("settlement", "city"):
        board = board_of(Terrain.MOUNTAINS, [Piece(kind, colour, vertex=CORNER), road])
        r = render_board(board, width=640, height=480, rng=2, conditions=CAMERA)
        det = PieceDetector(r.homography, list(board.tiles), shades=(0.5, 0.3))
        areas.append(det.read(r.image).vertex_area[det.topology.vertex_index[CORNER]])
    assert areas[0] > 0.03
    # Clearly more (by 8%, the renderer's city is 25% larger): what tells a city from one photo.
    assert areas[1] > 1.08 * areas[0]
