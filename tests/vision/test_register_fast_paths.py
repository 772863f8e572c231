"""Registration's fast paths give what the plain computation gives.

The lattice's seed pairs, a cut's hole filling and the cells' sea fractions are computed on
arrays or once for several uses (speed, docs/vision.md "Speed"); each is checked here
against the plain definition it replaced.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board import hex_center
from vision.register import (
    _basis_pairs,
    _filled,
    _Lattices,
    _score,
    axial_to_plane,
    circle_points,
    project,
    sea_fraction,
)


def _pairs_one_by_one(offsets: np.ndarray) -> list[tuple[int, int]]:
    """The basis pairs by the definition, one pair at a time, j then k."""
    out = []
    for j in range(len(offsets)):
        for k in range(len(offsets)):
            u, v = offsets[j], offsets[k]
            if j == k:
                continue
            cross = u[0] * v[1] - u[1] * v[0]
            cos = float(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v))
            ratio = np.linalg.norm(u) / np.linalg.norm(v)
            if cross > 0 and 0.05 < cos < 0.85 and 0.6 < ratio < 1.65:
                out.append((j, k))
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 10))
def test_seed_pairs_are_those_of_the_definition_in_its_order(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    # Neighbours of a seed: offsets of similar lengths in every direction, as chips lie.
    angle = rng.uniform(0, 2 * np.pi, n)
    length = rng.uniform(20, 40, n)
    offsets = np.column_stack([length * np.cos(angle), length * np.sin(angle)])
    assert _basis_pairs(offsets) == _pairs_one_by_one(offsets)


def test_a_hexagon_of_neighbours_pairs_each_with_its_next_one_counter_clockwise() -> None:
    # Six neighbours 60 degrees apart: each pairs with the one 60 degrees on (cos 0.5), not
    # with the ones 120 degrees on (cos -0.5) or opposite.
    a = np.radians(np.arange(6) * 60.0)
    offsets = 30.0 * np.column_stack([np.cos(a), np.sin(a)])
    assert _basis_pairs(offsets) == [(j, (j + 1) % 6) for j in range(6)]


def _disc_with_hole(hole_radius: int) -> np.ndarray:
    cut = np.zeros((60, 60), np.uint8)
    cv2.circle(cut, (30, 30), 20, 1, -1)
    cv2.circle(cut, (30, 30), hole_radius, 0, -1)
    return cut


def test_a_numerals_hole_is_filled_and_the_cut_is_left_as_it_was() -> None:
    cut = _disc_with_hole(4)
    before = cut.copy()
    filled = _filled(cut, area=math.pi * 20**2 / 2)
    assert filled is not None
    assert filled[30, 30] == 1 and int(filled.sum()) > int(cut.sum())
    np.testing.assert_array_equal(cut, before)


def test_a_hole_larger_than_the_area_is_not_filled() -> None:
    assert _filled(_disc_with_hole(15), area=50.0) is None


def test_a_cut_without_holes_has_nothing_to_fill() -> None:
    cut = np.zeros((40, 40), np.uint8)
    cv2.circle(cut, (20, 20), 10, 1, -1)
    assert _filled(cut, area=1000.0) is None
    assert _filled(np.zeros((40, 40), np.uint8), area=1000.0) is None


def _sea_one_cell_at_a_time(blue: np.ndarray, h: np.ndarray, cells: list) -> dict:
    """Each cell's sea fraction by the definition: of its disc's 37 sample points that fall
    inside the image, the share on blue; 0 when half of them or fewer are inside."""
    ring = circle_points((0.3, 0.55, 0.75), 12, centre=True)
    out = {}
    for cell in cells:
        pts = np.round(project(h, ring + hex_center(cell))).astype(int)
        ok = (pts[:, 0] >= 0) & (pts[:, 0] < blue.shape[1])
        ok &= (pts[:, 1] >= 0) & (pts[:, 1] < blue.shape[0])
        inside = pts[ok]
        out[cell] = float(blue[inside[:, 1], inside[:, 0]].mean()) if ok.sum() > 18 else 0.0
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_sea_fractions_are_those_of_each_cell_sampled_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    blue = rng.random((120, 160)) < 0.5
    # A tilted lattice of cells 8-20 px across, some of them off the image's edges.
    h = np.array(
        [
            [rng.uniform(4, 10), rng.uniform(-2, 2), rng.uniform(40, 120)],
            [rng.uniform(-2, 2), rng.uniform(4, 10), rng.uniform(30, 90)],
            [rng.uniform(-2e-3, 2e-3), rng.uniform(-2e-3, 2e-3), 1.0],
        ]
    )
    cells = [(q, r) for q in range(-6, 7) for r in range(-6, 7)]
    bgr = np.zeros((120, 160, 3), np.uint8)
    assert sea_fraction(bgr, h, cells, blue) == _sea_one_cell_at_a_time(blue, h, cells)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_lattices_scored_together_score_as_each_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # Discs on a tilted lattice, some off it, among scattered smaller blobs.
    h = np.array([[40.0, 12.0, 400.0], [-5.0, 38.0, 300.0], [2e-5, 1e-4, 1.0]])
    cells = np.array([(q, r) for q in range(-2, 3) for r in range(-2, 3) if abs(q + r) <= 2])
    chips = project(h, axial_to_plane(cells)) + rng.normal(0, 2, (len(cells), 2))
    clutter = rng.uniform(100, 700, (40, 2))
    pts = np.vstack([chips, clutter])
    rad = np.concatenate([rng.uniform(13, 17, len(chips)), rng.uniform(3, 16, len(clutter))])
    # Proposals as the seeds make them: affine maps through a disc and two others, and a
    # singular one now and then (each then falls back to the plain score).
    hs = []
    for _ in range(12):
        i, j, k = rng.choice(len(pts), 3, replace=False)
        aff = np.eye(3)
        aff[:2, :2] = np.column_stack([pts[j] - pts[i], pts[k] - pts[i]])
        aff[:2, 2] = pts[i]
        hs.append(aff)
    hs.append(h)
    if seed % 5 == 0:
        hs.append(np.zeros((3, 3)))
    measured = _Lattices(hs, pts, rad)
    for n, lattice in enumerate(hs):
        ref = float(rad[n % len(rad)])
        score, inl = measured.score(n, ref)
        plain_score, plain_inl = _score(lattice, pts, rad, ref)
        assert score == plain_score
        np.testing.assert_array_equal(inl, plain_inl)
    # The true lattice explains the chips (the comparison above is not of zeros alone).
    assert measured.score(12, 15.0)[0] > 0.0
