"""City or settlement from one photo: by a building's size and shape among the photo's
buildings."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_pieces import CAMERA, board_of

from companion.board import Piece, Terrain, Topology, Vertex, edge_vertices, vertex_position
from companion.layouts import random_board
from vision.pieces import (
    CITY_ELONGATION,
    CITY_SCORE,
    KIND_CERTAIN,
    KIND_MARGIN,
    KIND_MARGIN_CITY,
    KIND_SOLID,
    PLASTIC_SHADES,
    DetectedPiece,
    PieceDetector,
    city_score,
    hull_fill,
    kind_confidence,
)
from vision.synth.render import render_board


def _corners(n: int) -> list[Vertex]:
    """``n`` inner corners (three land hexes), no two neighbours, in the topology's order."""
    t = Topology.of(board_of(Terrain.PASTURE, []).tiles)
    taken: list[int] = []
    for v, hexes in enumerate(t.vertex_hexes):
        if len(hexes) == 3 and not any(u in taken for u in t.vertex_neighbours[v]):
            taken.append(v)
    step = len(taken) // n
    return [t.vertices[v] for v in taken[::step][:n]]


CORNERS = _corners(6)


def _read(pieces: list[Piece], terrain: Terrain, seed: int) -> dict[Vertex, str]:
    board = board_of(terrain, pieces)
    r = render_board(board, width=960, height=720, rng=seed, conditions=CAMERA)
    det = PieceDetector(r.homography, list(board.tiles), shades=PLASTIC_SHADES, ground=True)
    return {p.vertex: p.kind for p in det.read(r.image).pieces() if p.vertex is not None}


@pytest.mark.parametrize(("terrain", "seed"), [(Terrain.PASTURE, 1), (Terrain.MOUNTAINS, 2)])
def test_cities_among_settlements_are_read_as_cities(terrain: Terrain, seed: int) -> None:
    """The renderer's city is a quarter larger than its settlement, and flat: the colour
    classes' area called every one of these cities a settlement. A city is longer than the
    photo's settlements (its wing)."""
    kinds = ["settlement", "city", "settlement", "city", "settlement", "settlement"]
    colours = ["red", "blue", "orange", "red", "brown", "blue"]
    pieces = [Piece(k, c, vertex=v) for k, c, v in zip(kinds, colours, CORNERS, strict=True)]
    assert _read(pieces, terrain, seed) == {p.vertex: p.kind for p in pieces}


def test_a_photo_of_settlements_has_no_city() -> None:
    colours = ["red", "blue", "orange", "brown", "red", "blue"]
    pieces = [Piece("settlement", c, vertex=v) for c, v in zip(colours, CORNERS, strict=True)]
    got = _read(pieces, Terrain.PASTURE, 3)
    assert got == {v: "settlement" for v in CORNERS}


def _cities(spread: np.ndarray, elongation: np.ndarray, held: np.ndarray) -> list[bool]:
    return (city_score(spread, elongation, held) > 0).tolist()


SETTLEMENTS = np.array([0.13, 0.14, 0.135, 0.13, 0.145, 0.14])
SQUARE = np.array([1.1, 1.15, 1.1, 1.2, 1.1, 1.15])


def test_the_size_is_relative_to_the_photos_buildings() -> None:
    """Pieces standing tall or a closer camera make every building larger and longer: no city
    comes of it; and a building larger by more than CITY_SCORE than the others is a city."""
    held = np.ones(6, bool)
    assert not any(_cities(SETTLEMENTS, SQUARE, held))
    assert not any(_cities(SETTLEMENTS * 1.6, SQUARE * 1.5, held))
    bigger = SETTLEMENTS.copy()
    bigger[2] = 0.13 * CITY_SCORE * 1.05
    assert _cities(bigger, SQUARE, held) == [i == 2 for i in range(6)]
    assert _cities(bigger * 1.6, SQUARE * 1.5, held) == [i == 2 for i in range(6)]


def test_a_building_longer_for_its_width_is_a_city() -> None:
    """A city's wing makes it longer for its width: a building a little larger than the others
    (not enough on its own) and much more elongated is a city; as elongated but no larger is
    not."""
    held = np.ones(6, bool)
    larger = SETTLEMENTS.copy()
    larger[2] = 0.13 * 1.2
    assert not any(_cities(larger, SQUARE, held))
    longer = SQUARE.copy()
    longer[2] = 1.1 * (CITY_SCORE / 1.2) ** (1 / CITY_ELONGATION) * 1.1
    assert _cities(larger, longer, held) == [i == 2 for i in range(6)]
    same = SETTLEMENTS.copy()
    same[2] = 0.13
    assert not any(_cities(same, longer, held))


def test_too_few_buildings_measured_are_not_scored() -> None:
    """Two buildings cannot say which one is the settlement; unmeasured and empty corners
    count for nothing."""
    spread = np.array([0.13, 0.2, np.nan, 0.13, 0.13])
    elongation = np.array([1.1, 1.7, np.nan, 1.1, 1.1])
    few = city_score(spread, elongation, np.array([True, True, True, False, False]))
    assert np.isnan(few).all()
    assert _cities(spread, elongation, np.ones(5, bool)) == [False, True, False, False, False]


def _speckled(image: np.ndarray, homography: np.ndarray, corner: Vertex, bgr: tuple) -> None:
    """Specks of a piece's colour scattered around ``corner`` (in place): what a red hill's art,
    a red numeral or a road's end leave around a real settlement, apart from the piece."""
    p = np.array(vertex_position(corner))
    for k in range(8):
        a = (k + 0.5) * np.pi / 4  # between the corner's sides (which lie 120 degrees apart)
        spot = p + 0.33 * np.array([np.cos(a), np.sin(a)])
        x, y = cv2.perspectiveTransform(spot.reshape(1, 1, 2), homography)[0, 0]
        cv2.circle(image, (int(round(x)), int(round(y))), 2, bgr, -1)


def _kind_confidences(image: np.ndarray, homography: np.ndarray, tiles: list) -> dict:
    det = PieceDetector(homography, tiles, shades=PLASTIC_SHADES, ground=True)
    return {p.vertex: p for p in det.read(image).pieces() if p.vertex is not None}


def test_a_building_among_stray_specks_of_its_colour_has_an_unsure_kind() -> None:
    """Stray pixels of a building's colour around it are no part of the piece and lengthen its
    spread: its kind is then a coin toss, never a sure city (nor a sure settlement); the
    same building without them is measured."""
    colours = ["red", "blue", "orange", "red", "brown", "blue"]
    pieces = [Piece("settlement", c, vertex=v) for c, v in zip(colours, CORNERS, strict=True)]
    board = board_of(Terrain.PASTURE, pieces)
    r = render_board(board, width=960, height=720, rng=4, conditions=CAMERA)
    clean = _kind_confidences(r.image, r.homography, list(board.tiles))
    assert clean[CORNERS[0]].kind_confidence > 0.5
    image = r.image.copy()
    _speckled(image, r.homography, CORNERS[0], (40, 40, 200))
    got = _kind_confidences(image, r.homography, list(board.tiles))
    assert got[CORNERS[0]].kind_confidence == 0.5
    assert got[CORNERS[0]].confidence <= 0.5
    # Measured on its largest group, the piece itself: a settlement still.
    assert got[CORNERS[0]].kind == "settlement"


def test_two_buildings_have_no_sure_kind() -> None:
    """With too few buildings to compare, both read as settlements, and say they are unsure."""
    pieces = [
        Piece("settlement", "red", vertex=CORNERS[0]),
        Piece("city", "blue", vertex=CORNERS[3]),
    ]
    board = board_of(Terrain.PASTURE, pieces)
    r = render_board(board, width=960, height=720, rng=5, conditions=CAMERA)
    got = _kind_confidences(r.image, r.homography, list(board.tiles))
    assert {v: p.kind for v, p in got.items()} == {
        v: "settlement" for v in (CORNERS[0], CORNERS[3])
    }
    assert all(p.kind_confidence == 0.5 for p in got.values())


def test_the_kind_is_unsure_near_the_threshold_and_sure_far_from_it() -> None:
    held, square = np.ones(6, bool), np.full(6, 1.1)
    # The photo's other settlements measure alike: the reference stays theirs.
    settlements = np.full(6, 0.13)
    conf = []
    for ratio in (CITY_SCORE / KIND_MARGIN, 1.2, CITY_SCORE, 1.6, CITY_SCORE * KIND_MARGIN):
        spread = settlements.copy()
        spread[2] = 0.13 * ratio
        score = city_score(spread, square, held)
        conf.append(kind_confidence(score, score, np.zeros(6, bool))[2])
    assert conf[2] == pytest.approx(0.5)
    assert conf[0] == pytest.approx(1.0) and conf[4] == pytest.approx(1.0)
    assert conf[1] < KIND_CERTAIN and conf[3] < KIND_CERTAIN
    assert conf[1] > 0.5 and conf[3] > 0.5


def test_a_city_is_sure_nearer_the_threshold_than_a_settlement() -> None:
    """The threshold stands clear of real settlements already; a settlement needs a wider
    margin (a city among many cities measures against a city and looks like a settlement)."""
    held, square = np.ones(6, bool), np.full(6, 1.1)
    conf = {}
    for ratio in (CITY_SCORE * KIND_MARGIN_CITY, CITY_SCORE / KIND_MARGIN_CITY):
        spread = np.full(6, 0.13)
        spread[2] = 0.13 * ratio
        score = city_score(spread, square, held)
        conf[ratio > CITY_SCORE] = kind_confidence(score, score, np.zeros(6, bool))[2]
    assert conf[True] == pytest.approx(1.0)
    assert 0.5 < conf[False] < 1.0


def test_two_measures_that_disagree_or_a_doubtful_outline_give_a_coin_toss() -> None:
    score = np.array([0.6, 0.6, 0.6, -0.6, np.nan])
    other = np.array([0.6, -0.1, 0.6, -0.6, -0.6])
    doubt = np.array([False, False, True, False, False])
    assert kind_confidence(score, other, doubt).tolist() == [1.0, 0.5, 0.5, 1.0, 0.5]


def test_read_board_is_uncertain_when_a_buildings_kind_is(monkeypatch) -> None:  # noqa: ANN001
    """read-board's certainty counts the buildings whose kind is in doubt."""
    import vision.read_board as rb

    board = board_of(Terrain.FIELDS, [])
    board.tiles = dict(random_board(4, seed=31).tiles)
    r = render_board(board, width=960, height=720, rng=31, conditions=CAMERA)
    doubtful = DetectedPiece("city", "red", vertex=CORNERS[0], confidence=0.6, kind_confidence=0.6)
    sure = DetectedPiece("settlement", "blue", vertex=CORNERS[1], confidence=0.9)
    monkeypatch.setattr(rb, "detect_pieces", lambda image, reg: [sure])
    assert not any("city or a settlement" in w for w in rb.read_board(r.image).warnings)
    monkeypatch.setattr(rb, "detect_pieces", lambda image, reg: [doubtful, sure])
    read = rb.read_board(r.image)
    v = CORNERS[0]
    assert (
        f"uncertain: 1 building(s) could be a city or a settlement: red city at ({v.q}, {v.r}, "
        f"{v.corner})" in read.warnings
    )
    assert not rb.is_certain(read)


def test_a_wing_along_a_side_without_a_road_makes_the_kind_doubtful() -> None:
    """Every side's band is left out of a building's spread (roads run there), so a wing lying
    along a side that holds no road of the building's colour goes unmeasured: measured with
    only its own roads' bands left out, the building reads otherwise, and its kind is in doubt.
    """
    colours = ["red", "blue", "orange", "red", "brown", "blue"]
    pieces = [Piece("settlement", c, vertex=v) for c, v in zip(colours, CORNERS, strict=True)]
    board = board_of(Terrain.PASTURE, pieces)
    r = render_board(board, width=960, height=720, rng=6, conditions=CAMERA)
    t = Topology.of(list(board.tiles))
    v = t.vertices.index(CORNERS[0])
    ends = edge_vertices(t.edges[t.vertex_edges[v][0]])
    p = np.array(vertex_position(CORNERS[0]))
    far = np.array(vertex_position(ends[1] if ends[0] == CORNERS[0] else ends[0]))
    along = (far - p) / np.linalg.norm(far - p)
    across = np.array([-along[1], along[0]])
    wing = [
        p + a * along + b * across
        for a, b in ((0.1, -0.07), (0.38, -0.07), (0.38, 0.07), (0.1, 0.07))
    ]
    pts = cv2.perspectiveTransform(np.array([wing], np.float64), r.homography)[0]
    x, y = np.round(cv2.perspectiveTransform(p.reshape(1, 1, 2), r.homography)[0, 0]).astype(int)
    colour = np.median(r.image[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3), axis=0)
    image = r.image.copy()
    cv2.fillConvexPoly(image, np.round(pts).astype(np.int32), tuple(float(c) for c in colour))
    clean = _kind_confidences(r.image, r.homography, list(board.tiles))
    got = _kind_confidences(image, r.homography, list(board.tiles))
    assert clean[CORNERS[0]].kind_confidence > 0.5
    assert got[CORNERS[0]].kind_confidence == 0.5
    assert not any(
        p.kind == "road" and p.edge == t.edges[t.vertex_edges[v][0]] for p in got.values()
    )


def test_a_ragged_outline_fills_little_of_its_hull() -> None:
    """A piece's outline is convex but for a city's notch; a road's end or art of its colour
    joined to it leaves a ragged outline, which fills less than KIND_SOLID of its hull."""
    yy, xx = np.mgrid[0:13, 0:13]
    settlement = np.ones((13, 13), bool)
    # The renderer's city: a settlement-sized house with a lower wing beside it.
    city = np.zeros((13, 18), bool)
    city[6:, :] = True
    city[:, 6:] = True
    # A building with two thin arms of its colour reaching away from it.
    arms = np.zeros((26, 26), bool)
    arms[8:18, 8:18] = True
    arms[np.arange(26), np.arange(26)] = True
    arms[np.arange(26), 25 - np.arange(26)] = True
    fill = [hull_fill(*np.nonzero(m)[::-1]) for m in (settlement, city, arms)]
    assert fill[0] == 1.0
    assert KIND_SOLID < fill[1] < 1.0
    assert fill[2] < KIND_SOLID
    assert hull_fill(xx.ravel(), yy.ravel()) == 1.0
