"""Colour profiles: learned under one synthetic light, used under warm, cold and dim ones."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.colors import (
    ColorError,
    ColorProfile,
    Gaussian,
    board_sites,
    learn_colors,
    measure_white,
)
from calibration.light import blackbody_rgb, camera_gains_bgr
from calibration.synthetic import with_setup_pieces
from companion.board import Board, Terrain, hex_center
from companion.layouts import random_board
from vision.synth.boards import seafarers_board
from vision.synth.render import Conditions, render_board

PLAYERS = ("red", "blue", "orange", "white")
#: How the test photos are taken: a slight tilt, a light gradient, noise, blur and JPEG.
CAMERA = {
    "tilt_deg": 15.0,
    "noise_sigma": 2.0,
    "blur_sigma": 0.6,
    "jpeg_quality": 85,
    "light_gradient": 0.2,
}
LIGHTS = {
    "warm 2700 K": {"white_balance": camera_gains_bgr(2700)},
    "cold 6500 K": {"white_balance": camera_gains_bgr(6500)},
    "dim": {"brightness": 0.4},
}


def set_up(board: Board, seed: int, players: tuple[str, ...] = PLAYERS) -> Board:
    """The board with every player's founding pieces (2 settlements, 2 roads) on it."""
    return with_setup_pieces(board, players, seed)


def photo(board: Board, seed: int, rotation_deg: float = 0.0, **light: object):
    """A photo of ``board``; the seed fixes the print run (the renderer's colour jitter)."""
    cond = Conditions(**CAMERA, rotation_deg=37.0 * seed + rotation_deg, **light)
    return render_board(board, width=1200, height=900, rng=seed, conditions=cond)


def accuracy(profile: ColorProfile, board: Board, render) -> tuple[float, float, int]:
    """(terrain accuracy, piece colour accuracy, empty sites taken for pieces)."""
    hexes = sorted(board.tiles)
    chips = [h for h in hexes if board.tiles[h].number is not None]
    ref = profile.reference(render.image, render.homography, hexes, chips)
    terrain = profile.classify_terrain(ref)
    truth = {h: board.tiles[h].terrain for h in hexes}
    terrain_acc = float(np.mean([terrain[h][0] == truth[h] for h in hexes]))
    vs, es = board_sites(hexes)
    sites = [*vs, *es]
    occupied = {p.vertex or p.edge: p.color for p in board.pieces}
    seen = profile.classify_sites(render.image, render.homography, ref, sites, truth)
    piece_acc = float(
        np.mean([c == occupied[s] for s, c in zip(sites, seen, strict=True) if s in occupied])
    )
    false = sum(c is not None for s, c in zip(sites, seen, strict=True) if s not in occupied)
    return terrain_acc, piece_acc, false


# Board 4 puts harbour lines at corners: sites that are no piece, which must not pollute
# a player colour.
@pytest.fixture(scope="module", params=[1, 4], ids=["board1", "board4"])
def learned(request: pytest.FixtureRequest) -> tuple[ColorProfile, Board, int]:
    seed = request.param
    board = set_up(random_board(4, seed=seed), seed)
    render = photo(board, seed)
    profile = learn_colors(render.image, render.homography, sorted(board.tiles), players=PLAYERS)
    return profile, board, seed


def test_profile_reads_its_own_view_perfectly(learned) -> None:
    profile, board, seed = learned
    assert set(profile.players) == set(PLAYERS)
    assert accuracy(profile, board, photo(board, seed)) == (1.0, 1.0, 0)


@pytest.mark.parametrize("light", list(LIGHTS))
def test_coloured_and_dim_light_read_as_well_as_neutral_light(learned, light: str) -> None:
    profile, _, seed = learned
    # The next game: the same board and pieces (print run), a new layout, the camera moved.
    game = set_up(random_board(4, seed=seed + 50), seed + 50)
    neutral = accuracy(profile, game, photo(game, seed, rotation_deg=100.0))
    other = accuracy(profile, game, photo(game, seed, rotation_deg=100.0, **LIGHTS[light]))
    assert neutral == (1.0, 1.0, 0)
    assert other == neutral


def _ring_median_bgr(render, h) -> np.ndarray:
    """Median BGR of a ring around a hex's centre (between chip and border)."""
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.array(hex_center(h)) + 0.62 * np.column_stack([np.cos(angles), np.sin(angles)])
    px = cv2.perspectiveTransform(ring.reshape(-1, 1, 2), render.homography).reshape(-1, 2)
    return np.median(render.image[px[:, 1].astype(int), px[:, 0].astype(int)], axis=0)


def test_the_lights_are_strong_enough_to_fool_fixed_colours(learned) -> None:
    # The control for the test above: nearest fixed colour, learned in neutral light on
    # the very same board, misreads the warm and dim photos.
    _, board, seed = learned
    hexes = sorted(board.tiles)
    neutral = photo(board, seed)
    means = {}
    for t in {board.tiles[h].terrain for h in hexes}:
        means[t] = np.mean(
            [_ring_median_bgr(neutral, h) for h in hexes if board.tiles[h].terrain == t], axis=0
        )
    for light in ("warm 2700 K", "dim"):
        render = photo(board, seed, **LIGHTS[light])
        wrong = 0
        for h in hexes:
            c = _ring_median_bgr(render, h)
            guess = min(means, key=lambda t: float(np.linalg.norm(means[t] - c)))
            wrong += guess != board.tiles[h].terrain
        assert wrong >= 3, light


def test_reference_makes_up_for_the_chips_clipped_under_warm_light(learned) -> None:
    profile, board, seed = learned
    hexes = sorted(board.tiles)
    gain_red = LIGHTS["warm 2700 K"]["white_balance"][2]
    render = photo(board, seed, **LIGHTS["warm 2700 K"])
    ref = profile.reference(render.image, render.homography, hexes)
    # What the chips' red would be without the camera's clipping at 255, and what it took.
    neutral_red = measure_white(photo(board, seed).image, render.homography, hexes).mean_bgr[2]
    lost = np.log((neutral_red * gain_red + 2) / (ref.white.mean_bgr[2] + 2))
    assert abs(ref.offset[2] - lost) < 0.08
    assert abs(ref.offset[0]) < 0.1


def test_learning_finds_the_layout_from_the_material_counts_alone() -> None:
    board = random_board(6, seed=4)
    render = photo(board, 4)
    hexes = sorted(board.tiles)
    profile = learn_colors(render.image, render.homography, hexes, kind="5-6")
    ref = profile.reference(render.image, render.homography, hexes)
    labels = profile.classify_terrain(ref)
    assert all(labels[h][0] == board.tiles[h].terrain for h in hexes)
    assert all(0.5 < labels[h][1] <= 1.0 for h in hexes)


def test_known_terrains_teach_sea_and_gold_on_a_seafarers_map() -> None:
    board = seafarers_board(np.random.default_rng(7))
    render = photo(board, 7)
    hexes = sorted(board.tiles)
    terrains = {h: board.tiles[h].terrain for h in hexes}
    profile = learn_colors(
        render.image, render.homography, hexes, kind="seafarers", terrains=terrains
    )
    assert {Terrain.SEA, Terrain.GOLD} <= set(profile.terrains)
    chips = [h for h in hexes if board.tiles[h].number is not None]
    ref = profile.reference(render.image, render.homography, hexes, chips)
    labels = profile.classify_terrain(ref)
    assert all(labels[h][0] == terrains[h] for h in hexes)


def test_light_check_says_when_to_calibrate_again(learned) -> None:
    profile, board, seed = learned
    hexes = sorted(board.tiles)
    truth = {h: board.tiles[h].terrain for h in hexes}

    chips = [h for h in hexes if board.tiles[h].number is not None]

    def check(render, prof=profile):
        ref = prof.reference(render.image, render.homography, hexes, chips)
        return prof.check_light(ref, truth)

    same = check(photo(board, seed, rotation_deg=60.0))
    assert same.ok and same.reasons == []
    assert same.chips_seen == len(chips)
    assert same.brightness == pytest.approx(1.0, abs=0.05)
    warm = check(photo(board, seed, **LIGHTS["warm 2700 K"]))
    assert not warm.ok and "colour changed" in warm.reasons[0]
    dark = check(photo(board, seed, brightness=0.2))
    assert not dark.ok and any("times as bright" in r for r in dark.reasons)
    # Another edition (the terrain models swapped around): nothing fits any more.
    names = list(profile.terrains)
    swapped = ColorProfile(
        dict(zip(names, [profile.terrains[t] for t in names[1:] + names[:1]], strict=True)),
        light_bgr=profile.light_bgr,
    )
    other = check(photo(board, seed), swapped)
    assert not other.ok and any("no longer fit" in r for r in other.reasons)


def test_balance_brings_the_chips_back_to_the_calibration_light(learned) -> None:
    profile, board, seed = learned
    hexes = sorted(board.tiles)
    chips = [h for h in hexes if board.tiles[h].number is not None]
    render = photo(board, seed, **LIGHTS["cold 6500 K"])
    ref = profile.reference(render.image, render.homography, hexes, chips)
    before = measure_white(render.image, render.homography, chips).mean_bgr
    balanced = profile.balance(render.image, ref)
    after = measure_white(balanced, render.homography, chips).mean_bgr
    error_before = np.abs(before - profile.light_bgr).max()
    error_after = np.abs(after - profile.light_bgr).max()
    assert error_before > 15
    assert error_after < error_before / 3


def test_learning_refuses_what_it_cannot_use() -> None:
    board = set_up(random_board(4, seed=1), 1)
    render = photo(board, 1)
    hexes = sorted(board.tiles)
    with pytest.raises(ColorError, match="base or 5-6 board"):
        learn_colors(render.image, render.homography, hexes, kind="seafarers")
    with pytest.raises(ColorError, match="19 land hexes but 18"):
        learn_colors(render.image, render.homography, hexes[:-1])
    with pytest.raises(ColorError, match="unknown player colour 'pink'"):
        learn_colors(render.image, render.homography, hexes, players=["red", "pink"])
    with pytest.raises(ColorError, match="only once"):
        learn_colors(render.image, render.homography, hexes, players=["red", "red"])
    bare = photo(random_board(4, seed=1), 1)
    with pytest.raises(ColorError, match="found pieces at 0 places"):
        learn_colors(bare.image, bare.homography, hexes, players=["red", "blue"])
    blank = np.zeros_like(render.image)
    far = render.homography @ np.diag([1.0, 1.0, 1.0])
    far[:2, 2] += 5000  # the board is off the picture
    with pytest.raises(ColorError, match="number chips could be measured"):
        learn_colors(blank, far, hexes)


def test_json_round_trip_and_damaged_fields(learned) -> None:
    profile = learned[0]
    back = ColorProfile.from_json(profile.to_json())
    assert back.to_json() == profile.to_json()
    good = profile.to_json()
    cases = [
        ({**good, "version": 9}, "colors.version"),
        ({**good, "terrains": {}}, "non-empty"),
        ({**good, "terrains": {"lava": good["terrains"]["forest"]}}, "unknown terrain 'lava'"),
        (
            {**good, "terrains": {"forest": {"mean": [0, 0], "cov": np.eye(3).tolist()}}},
            "3 numbers",
        ),
        (
            {**good, "terrains": {"forest": {"mean": [0, 0, 0], "cov": (-np.eye(3)).tolist()}}},
            "positive definite",
        ),
        ({**good, "players": {"red": "x"}}, "colors.players.red"),
        ({**good, "light_bgr": [300, 0, 0]}, "light_bgr"),
        ({**good, "board_kind": 3}, "board_kind"),
        ([], "expected an object"),
    ]
    for data, message in cases:
        with pytest.raises(ColorError, match=message):
            ColorProfile.from_json(data)


def test_gaussian_needs_samples() -> None:
    with pytest.raises(ColorError, match="too few"):
        Gaussian.fit(np.full((10, 3), np.nan))


def test_lamp_colours() -> None:
    # 6500 K is close to the sRGB white point (D65); a 2700 K bulb is strongly red.
    assert np.abs(blackbody_rgb(6500) - 1.0).max() < 0.07
    warm = blackbody_rgb(2700)
    assert warm[0] > 2.0 and warm[2] < 0.3
    assert camera_gains_bgr(5000) == pytest.approx((1.0, 1.0, 1.0))
    b, g, r = camera_gains_bgr(2700, encoded=False)
    assert (b, g, r) == pytest.approx(tuple(blackbody_rgb(2700)[::-1] / blackbody_rgb(5000)[::-1]))
    with pytest.raises(ValueError, match="1000..20000"):
        blackbody_rgb(500)


def test_a_board_partly_outside_the_picture(learned) -> None:
    profile, board, seed = learned
    render = photo(board, seed)
    hexes = sorted(board.tiles)
    # Cut the picture's left part off, and with it part of the board.
    cut = np.ascontiguousarray(render.image[:, 450:])
    shifted = np.array([[1.0, 0.0, -450.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]) @ render.homography
    with pytest.raises(ColorError, match="outside the picture"):
        learn_colors(cut, shifted, hexes)
    ref = profile.reference(cut, shifted, hexes)
    from companion.layouts import BASE_TERRAINS

    labels = profile.classify_terrain(ref, BASE_TERRAINS)
    assert len(labels) == 19
    assert np.isfinite(ref.offset).all()
    unseen = [h for h in hexes if not np.isfinite(ref.scores[hexes.index(h)]).any()]
    assert unseen and all(labels[h][1] == 0.0 for h in unseen)
    seen = [h for h in hexes if h not in unseen]
    assert sum(labels[h][0] == board.tiles[h].terrain for h in seen) >= len(seen) - 1


def test_six_players_on_the_5_6_board() -> None:
    six = ("red", "blue", "orange", "white", "green", "brown")
    board = with_setup_pieces(random_board(6, seed=3), six, 3)
    render = photo(board, 3)
    profile = learn_colors(
        render.image, render.homography, sorted(board.tiles), kind="5-6", players=six
    )
    assert set(profile.players) == set(six)
    game = with_setup_pieces(random_board(6, seed=1003), six, 1003)
    for light in ({}, LIGHTS["warm 2700 K"]):
        assert accuracy(profile, game, photo(game, 3, rotation_deg=100.0, **light)) == (1.0, 1.0, 0)


def test_a_profile_learned_under_a_warm_bulb_reads_daylight_too() -> None:
    board = set_up(random_board(4, seed=2), 2)
    render = photo(board, 2, **LIGHTS["warm 2700 K"])
    profile = learn_colors(render.image, render.homography, sorted(board.tiles), players=PLAYERS)
    game = set_up(random_board(4, seed=1002), 1002)
    for light in ({}, LIGHTS["cold 6500 K"]):
        assert accuracy(profile, game, photo(game, 2, rotation_deg=100.0, **light)) == (1.0, 1.0, 0)
