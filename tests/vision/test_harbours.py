"""Harbours read from rendered photos: positions, kinds, layouts, and what hides them."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.board import (
    HARBOR_KINDS,
    Board,
    BoardError,
    Harbor,
    Piece,
    Terrain,
    Tile,
    base_frame,
    edge_midpoint,
    extension_frame,
    hex_center,
)
from companion.layouts import BASE_HARBOR_KINDS, BASE_HARBOR_SITES, random_board
from companion.setup_check import check_board
from vision.commands.read_board import format_board
from vision.harbours import (
    DOUBTFUL_CONFIDENCE,
    PRINTED,
    SiteReading,
    _assign,
    _board_prints,
    _colour_doubts,
    _exposed,
    _exposure,
    coast_sites,
    kind_scores,
    read_harbours,
    read_sites,
    spot_geometry,
    standard_layouts,
)
from vision.read_board import for_setup_check, is_certain, read_board
from vision.scoring import best_alignment, harbour_outcomes
from vision.synth.boards import seafarers_board
from vision.synth.render import HARBOR_STYLES, Conditions, render_board

CLEAN = Conditions(chip_style="plain", tilt_deg=20.0)


def _read(truth: Board, conditions: Conditions, seed: int) -> tuple[Board, dict[str, int]]:
    render = render_board(truth, rng=seed, conditions=conditions)
    board = read_board(render.image, pieces=False)
    score, aligned = best_alignment(truth.tiles, board.tiles)
    assert score.terrain_right == score.terrain_total, "the test needs a well-read board"
    return board, harbour_outcomes(truth.harbors, board.harbors, aligned)


@pytest.mark.parametrize("style", HARBOR_STYLES)
def test_every_kind_is_read_in_every_style(style: str) -> None:
    """A clean base board holds every kind; each is read, in each style of harbour art."""
    truth = random_board(4, seed=41)
    board, outcome = _read(truth, replace(CLEAN, harbor_style=style), 41)
    assert outcome == {"right": 9, "unseen": 0, "wrong": 0, "extra": 0}
    assert {h.kind for h in board.harbors} == set(HARBOR_KINDS)
    assert all(h.confidence is not None and h.confidence >= 0.9 for h in board.harbors)
    assert not any("harbour" in w for w in board.warnings)


@pytest.mark.parametrize("kind", HARBOR_KINDS)
def test_each_printed_colour_reads_as_its_kind(kind: str) -> None:
    scores = kind_scores(np.array(PRINTED[kind]))
    assert max(scores, key=scores.__getitem__) == kind


def test_a_token_whose_colour_lies_between_two_prints_is_in_doubt() -> None:
    """A dark lumber token gone grey-green under a cast is nearer ore's print than lumber's,
    but not by much: named by its colour alone, it is reported in doubt; a clear colour, or
    a token its printed mark told, is not."""
    between, clear = (45.0, -9.0, 0.0), PRINTED["ore"]
    sites = {
        ((0, n), "E"): SiteReading(((0, n), "E"), True, 1.0, c, {})
        for n, c in enumerate((between, clear, between))
    }
    harbors = [Harbor(0, n, "E", "ore", 0.94) for n in range(3)]
    kept, warnings = _colour_doubts(harbors, sites, marked={((0, 2), "E")})
    assert [h.confidence for h in kept] == [DOUBTFUL_CONFIDENCE, 0.94, 0.94]
    assert [h.kind for h in kept] == ["ore"] * 3
    assert warnings == [
        "uncertain: the ore harbour at (0, 0, E) is told by its colour alone, which is nearly "
        "lumber's: look at it"
    ]


def test_a_seafarers_board_with_a_token_misread_by_colour_is_not_certain() -> None:
    # bench vision's hard render 47 of seed 13 (a Seafarers map): every hex and chip read
    # right, its lumber token read as ore at 0.94 by its colour, and the board was reported
    # certain.
    from vision.bench import hard_render

    truth, _, r = hard_render(13, 47)
    board = read_board(r.image, pieces=False)
    score, aligned = best_alignment(truth.tiles, board.tiles)
    assert score.terrain_right == score.terrain_total
    assert not is_certain(board)
    assert harbour_outcomes(truth.harbors, board.harbors, aligned)["right"] >= 1
    assert all(
        h.confidence is not None and h.confidence < 0.9 for h in board.harbors if h.kind == "ore"
    )


def test_a_colour_no_harbour_is_printed_in_has_no_kind() -> None:
    """Skin, a purple piece: art, but of no kind (so it is never named)."""
    assert kind_scores(np.array([40.0, 55.0, -50.0])) == {}


@pytest.mark.parametrize(("players", "seed"), [(4, 43), (6, 44)])
def test_standard_frames_are_read_on_their_layout(players: int, seed: int) -> None:
    truth = random_board(players, seed=seed)
    conditions = replace(CLEAN, tilt_deg=30.0, light_gradient=0.25, noise_sigma=3.0)
    board, outcome = _read(truth, conditions, seed)
    assert outcome["wrong"] == outcome["extra"] == 0
    assert outcome["right"] >= len(truth.harbors) - 1


def _apart(harbors: list[Harbor]) -> bool:
    """No two harbours share a corner (RULES.md 4.5.12: harbours never touch)."""
    corners = [set(h.vertices) for h in harbors]
    return all(not (a & b) for i, a in enumerate(corners) for b in corners[i + 1 :])


def test_a_seafarers_map_is_read_side_by_side() -> None:
    """No fixed layout: harbour tokens on the sea hexes are read one coast side at a time."""
    truth = next(
        b
        for b in (seafarers_board(np.random.default_rng(s)) for s in range(20, 80))
        if len(b.harbors) >= 3 and _apart(b.harbors)
    )
    board, outcome = _read(truth, replace(CLEAN, harbor_style="disc"), 7)
    assert board.kind == "seafarers"
    assert outcome["wrong"] == outcome["extra"] == 0
    assert outcome["right"] >= len(truth.harbors) - 1


@pytest.mark.parametrize("rotation", [0.0, 75.0, 200.0])
def test_a_rotated_board_gives_its_harbours_in_the_reading_coordinates(rotation: float) -> None:
    truth = random_board(4, seed=45)
    board, outcome = _read(truth, replace(CLEAN, rotation_deg=rotation), 45)
    assert outcome == {"right": 9, "unseen": 0, "wrong": 0, "extra": 0}


def _cover(image: np.ndarray, centre: np.ndarray, axes: tuple[int, int], angle: float) -> None:
    """Paint a skin-coloured hand (an ellipse) over ``centre`` of the photo."""
    c = (int(round(centre[0])), int(round(centre[1])))
    cv2.ellipse(image, c, axes, angle, 0, 360, (120, 160, 215), -1, cv2.LINE_AA)


def _spot_in_image(homography: np.ndarray, harbor: Harbor) -> np.ndarray:
    mid = np.array(edge_midpoint(harbor.edge))
    normal = mid - np.array(hex_center((harbor.q, harbor.r)))
    p = mid + 0.45 * normal / np.linalg.norm(normal)
    q = homography @ np.array([p[0], p[1], 1.0])
    return q[:2] / q[2]


def test_a_harbour_under_a_hand_is_unseen_not_wrong() -> None:
    truth = random_board(4, seed=46)
    render = render_board(truth, rng=46, conditions=replace(CLEAN, harbor_style="plaque"))
    image = render.image.copy()
    hidden = truth.harbors[2]
    # A hand reaching in over the harbour and the coast on both sides of it.
    _cover(image, _spot_in_image(render.homography, hidden), (90, 45), 10.0)
    board = read_board(image, pieces=False)
    _, aligned = best_alignment(truth.tiles, board.tiles)
    outcome = harbour_outcomes(truth.harbors, board.harbors, aligned)
    assert outcome["wrong"] == outcome["extra"] == 0
    assert outcome["unseen"] >= 1
    assert outcome["right"] >= 5
    assert not is_certain(board)
    assert any("harbour" in w for w in board.warnings)


def test_pieces_at_a_harbour_do_not_change_its_kind() -> None:
    """A settlement on a harbour's corner and a ship on its side: read right, or unseen."""
    truth = random_board(4, seed=47)
    pieces = []
    for colour, harbor in zip(("green", "red", "orange"), truth.harbors[:3], strict=True):
        pieces.append(Piece("settlement", colour, vertex=harbor.vertices[0]))
        pieces.append(Piece("ship", colour, edge=harbor.edge))
    truth = replace(truth, pieces=pieces)
    board, outcome = _read(truth, CLEAN, 47)
    assert outcome["wrong"] == outcome["extra"] == 0
    assert outcome["right"] >= 6


def test_empty_sea_spots_read_as_no_harbour() -> None:
    """A board with no harbour at all: every coast side is plain sea, nothing is named."""
    truth = replace(random_board(4, seed=48), harbors=[])
    board, outcome = _read(truth, CLEAN, 48)
    assert board.harbors == []
    assert outcome["extra"] == 0


def test_sites_and_layouts_of_the_standard_frames() -> None:
    base = {h: Tile(Terrain.FOREST) for h in base_frame()}
    assert len(coast_sites(base)) == 30
    layouts = standard_layouts("base", base_frame())
    assert frozenset(BASE_HARBOR_SITES) in layouts
    assert all(len(lay) == 9 and lay <= set(coast_sites(base)) for lay in layouts)
    assert all(len(lay) == 11 for lay in standard_layouts("5-6", extension_frame()))
    assert standard_layouts("seafarers", base_frame()) == []
    # A frame that is not the kind's: no layout to lean on.
    assert standard_layouts("base", extension_frame()) == []


def test_a_view_without_sea_reads_nothing() -> None:
    """A black (out of view) top view: every side unseen, nothing named, all counted."""
    tiles = {h: Tile(Terrain.FOREST) for h in base_frame()}
    lab = np.zeros((400, 400, 3), np.float32)
    plane_to_top = np.array([[40.0, 0, 200], [0, 40.0, 200], [0, 0, 1]])
    assert not any(r.seen for r in read_sites(lab, plane_to_top, coast_sites(tiles)))
    reading = read_harbours(lab, plane_to_top, "base", tiles)
    assert reading.harbors == []
    assert reading.unread == 9
    assert reading.warnings and reading.warnings[0].startswith("uncertain")


def test_a_finger_over_a_spot_in_the_cover_mask_hides_it() -> None:
    """A fingertip of a token's colour reaching over the sea (narrow: the sea beside the
    spot is clear) reads as a harbour by its colour; in the cover mask, the spot is hidden."""
    tiles = {h: Tile(Terrain.FOREST) for h in base_frame()}
    sites = coast_sites(tiles)
    plane_to_top = np.array([[40.0, 0, 200], [0, 40.0, 200], [0, 0, 1]])
    lab = np.empty((400, 400, 3), np.float32)
    lab[:] = (52.0, 1.0, -43.0)
    (spot,), _ = spot_geometry(sites[:1])
    centre = (int(round(spot[0] * 40 + 200)), int(round(spot[1] * 40 + 200)))
    cv2.circle(lab, centre, 7, PRINTED["grain"], -1)
    covered = np.zeros(lab.shape[:2], bool)
    covered[centre[1] - 9 : centre[1] + 10, centre[0] - 9 : centre[0] + 10] = True
    bare, under = (read_sites(lab, plane_to_top, sites[:1], covered=c)[0] for c in (None, covered))
    assert bare.seen and bare.scores and max(bare.scores, key=bare.scores.get) == "grain"
    assert not under.seen and not under.scores


def test_the_exposure_shared_by_a_boards_harbours_is_found() -> None:
    """Every harbour seen darker by one light gain (a glare on the chips): the gain found
    undoes most of it (its prior keeps it a little towards 1)."""
    slots = sorted(BASE_HARBOR_KINDS)
    for gain in (0.75, 1.3):
        colours = [_exposed(np.array(PRINTED[k], np.float64), gain) for k in slots]
        found = _exposure(colours, slots)
        assert abs(math.log(found * gain)) < 0.1 < abs(math.log(found))
    # And with no shift to find, none is made.
    assert abs(math.log(_exposure([np.array(PRINTED[k]) for k in slots], slots))) < 0.05


def _layout_readings(colours: list[tuple[tuple[float, float, float], bool | None]]) -> list:
    """Sure-looking tokens filling their spots on the base layout's sides, in order."""
    sides = sorted(standard_layouts("base", base_frame())[0])
    return [
        SiteReading(site, True, 1.0, colour, kind_scores(np.array(colour), inked=inked), inked)
        for site, (colour, inked) in zip(sides, colours, strict=True)
    ]


def test_a_token_like_its_boards_other_generic_tokens_is_generic() -> None:
    # bench vision seed 0 render 72: the board's generic paper printed blue (b* -27), one
    # generic token in a shadow (76 L*) and no print seen on it, the ore token of the same
    # blue: by the stock prints the two fit each other's kinds, and neither was read. The
    # board's three other generic tokens show its paper: one print run, one colour.
    others = [((95.0, 10.0, -27.0), True), ((93.0, 10.0, -28.0), True), ((81.0, 10.0, -27.0), True)]
    resources = [(PRINTED[k], False) for k in ("brick", "grain", "lumber", "wool")]
    shaded, ore = ((76.0, 9.0, -24.0), False), ((53.0, 17.0, -27.0), False)
    readings = _layout_readings([*others, shaded, ore, *resources])
    harbors, unread = _assign(readings, Counter(BASE_HARBOR_KINDS), 0.9)
    kinds = {((h.q, h.r), h.side): h.kind for h in harbors}
    assert unread == 0
    assert kinds[readings[3].site] == "3:1" and kinds[readings[4].site] == "ore"
    # The same two tokens among generic tokens of the stock paper: no print of the board's
    # vouches for the shaded one, which stays unread with the ore token it may swap with.
    stock = [(PRINTED["3:1"], True)] * 3
    harbors, _ = _assign(
        _layout_readings([*stock, shaded, ore, *resources]), Counter(BASE_HARBOR_KINDS), 0.9
    )
    assert len(harbors) == 7


def test_a_board_print_needs_other_sure_tokens_filling_their_spots() -> None:
    sides = sorted(standard_layouts("base", base_frame())[0])[:3]
    token = SiteReading(sides[0], True, 1.0, (90.0, 0.0, 2.0), {})
    pier = replace(token, site=sides[1], presence=0.5)
    white = np.array(PRINTED["3:1"])
    kinds = Counter(BASE_HARBOR_KINDS)
    prints = _board_prints([(token, white, "3:1"), (pier, white, "3:1")], sides, kinds)
    # The token vouches for the other sides, never for itself; the pier's art, no token,
    # for none.
    assert set(prints) == {sides[1], sides[2]}
    assert set(prints[sides[1]]) == {"3:1"}
    # A kind the set holds once has no print of its own but the stock one.
    assert _board_prints([(token, white, "ore")], sides, kinds) == {}


def test_harbours_with_confidence_in_the_board_json_and_text() -> None:
    tiles = {h: Tile(Terrain.FOREST, 5) for h in base_frame()}
    board = Board("base", tiles, [Harbor(2, 0, "E", "ore", 0.9712)])
    doc = board.to_json()
    assert doc["harbors"] == [{"q": 2, "r": 0, "side": "E", "kind": "ore", "confidence": 0.9712}]
    again = Board.from_json(doc)
    assert again.harbors == board.harbors and again.harbors[0].confidence == 0.9712
    assert "harbour: ore on side E of hex (2, 0) (0.97)" in format_board(board)
    doc["harbors"][0]["confidence"] = 1.5
    with pytest.raises(BoardError, match=r"harbors\[0\]\.confidence"):
        Board.from_json(doc)


def test_a_partial_harbour_reading_is_not_judged_as_missing_harbours() -> None:
    """The setup check sees no harbours (and says it did not check them) rather than some."""
    board = random_board(4, seed=3)
    partial = replace(
        board,
        harbors=board.harbors[:1],
        warnings=["uncertain: 8 of 9 harbour(s) could not be read"],
    )
    assert for_setup_check(partial).harbors == []
    assert check_board(for_setup_check(partial)).ok
    assert not check_board(partial).ok
    assert for_setup_check(board) is board


def test_a_layout_side_seen_off_centre_or_a_pier_off_it_is_no_doubt() -> None:
    """Partial art on a side of the layout (its token seen off-centre: the far rows of a
    tilted photo lie off the chips' homography) and thin art with no colour off it (a pier)
    do not turn a layout down; solid art off it still does, beyond two sides."""
    from vision.harbours import _consistent

    tiles = {h: Tile(Terrain.FOREST) for h in base_frame()}
    layout = standard_layouts("base", list(tiles))[0]
    sites = coast_sites(tiles)
    off = [s for s in sites if s not in layout]
    partial = set(sorted(layout)[:3])

    def reading(site: tuple, presence: float, colour: tuple | None) -> SiteReading:
        scores = kind_scores(np.array(colour)) if colour is not None else {}
        return SiteReading(site, True, presence, colour, scores)

    readings = [
        reading(s, 0.35 if s in partial else 0.95, PRINTED["3:1"])
        if s in layout
        else reading(s, 0.3 if s in off[:3] else 0.0, None)
        for s in sites
    ]
    assert _consistent(layout, readings)
    solid = [replace(r, colour=(60.0, 40.0, -40.0)) if r.site in off[:3] else r for r in readings]
    assert not _consistent(layout, solid)


def test_one_stray_off_a_layout_whose_sides_all_hold_art_keeps_it() -> None:
    # bench vision seed 0 renders 13, 111, 214: every side of the true layout holds its
    # token, and one side off it shows the table beside the frame's narrow edge, read as ore:
    # no other order of the frame's parts explains that (it would leave a side plain sea).
    from vision.harbours import _consistent

    tiles = {h: Tile(Terrain.FOREST) for h in base_frame()}
    layout = standard_layouts("base", list(tiles))[0]
    sites = coast_sites(tiles)
    off = [s for s in sites if s not in layout]

    def reading(site: tuple, presence: float, colour: tuple | None) -> SiteReading:
        scores = kind_scores(np.array(colour)) if colour is not None else {}
        return SiteReading(site, True, presence, colour, scores)

    ore = PRINTED["ore"]
    tokens = [reading(s, 0.95, PRINTED["3:1"]) for s in sorted(layout)]
    assert _consistent(layout, [*tokens, reading(off[0], 1.0, ore)])
    # Two strays, or one with a side of the layout plain sea (a harbour moved off it: a
    # frame in another order), turn it down.
    assert not _consistent(layout, [*tokens, reading(off[0], 1.0, ore), reading(off[5], 1.0, ore)])
    moved = [reading(tokens[0].site, 0.0, None), *tokens[1:], reading(off[0], 1.0, ore)]
    assert not _consistent(layout, moved)


def test_a_far_row_seen_off_centre_keeps_the_layout() -> None:
    # bench vision's hard render 70 of seed 0 (a 5-6 board tilted 30 degrees, lens distortion
    # -0.046): three "3:1" tokens on the far rows fill 43-51% of their spots, which turned
    # the true layout down; read side by side, they were left unread.
    from vision.bench import hard_render

    truth, _, r = hard_render(0, 70)
    board = read_board(r.image, pieces=False)
    score, aligned = best_alignment(truth.tiles, board.tiles)
    assert score.terrain_right == score.terrain_total
    outcome = harbour_outcomes(truth.harbors, board.harbors, aligned)
    assert outcome["wrong"] == outcome["extra"] == 0
    assert outcome["right"] >= 10


def test_the_last_harbour_of_a_sure_layout_is_deduced_with_doubt() -> None:
    # bench vision's hard render 39 of seed 0: a base board whose layout is clear, eight of
    # its harbours read surely and the brick one under a hand. The frame's set leaves brick
    # for that side: named, at the confidence of a deduction, and the board stays uncertain.
    from vision.bench import hard_render
    from vision.harbours import DEDUCED_CONFIDENCE

    truth, _, r = hard_render(0, 39)
    board = read_board(r.image, pieces=False)
    score, aligned = best_alignment(truth.tiles, board.tiles)
    assert score.terrain_right == score.terrain_total
    assert harbour_outcomes(truth.harbors, board.harbors, aligned)["right"] == 9
    deduced = [h for h in board.harbors if h.confidence == DEDUCED_CONFIDENCE]
    assert [h.kind for h in deduced] == ["brick"]
    assert not is_certain(board)
    assert any("deduced from the frame's set" in w for w in board.warnings)


def test_two_sides_left_of_a_layout_are_not_deduced() -> None:
    from vision.harbours import _with_last_of_set

    layout = standard_layouts("base", base_frame())[0]
    sides = sorted(layout)
    kinds = list(BASE_HARBOR_KINDS)
    read = [
        Harbor(q, r, side, k, 0.99) for ((q, r), side), k in zip(sides[:7], kinds[:7], strict=True)
    ]
    assert _with_last_of_set(read, layout, kinds) == (read, [])
    more = [*read, Harbor(*sides[7][0], sides[7][1], kinds[7], 0.99)]
    harbors, warnings = _with_last_of_set(more, layout, kinds)
    assert harbors[-1].kind == kinds[8] and len(warnings) == 1
